/**
 * The rules of extraction: a request becomes a batch; each file is stored, read, mapped onto the
 * columns and coerced; the rows go into the table through its insert mode (or, without a table,
 * into the batch only); and the end is announced by a webhook event. Progress is reported as it
 * happens for the streaming endpoint.
 */
import { batchUnderWay, type BatchStatus } from '../domain/batches';
import { columnIdFrom, needsReview, type Column, type ColumnType } from '../domain/columns';
import type { Strictness } from '../domain/tables';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import { ApiError, fieldError, invalidFields } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { Outbound } from '../lib/outbound';
import {
  batchFiles,
  detectFormat,
  exactRows,
  extractWithLlm,
  FILE_TYPES,
  inferColumns,
  LlmError,
  mapReading,
  mapRecord,
  readDocument,
  recordGroups,
  UnreadableDocument,
  type Format,
  type LearnedLayout,
  type MappedRow,
  type Reading,
  type SourceDocument,
} from '../extract';
import type { BatchRecord, BatchRow, ExtractionRecord, SchemaJson } from '../store/batches.store';
import type { TableRecord } from '../store/tables.store';
import type { EventLog } from '../store/events';
import type { FilesStore } from '../store/files.store';
import type { JobQueue, QueuedJob } from '../store/queue';
import type { Repositories, StorePort } from '../store/port';
import { inFileOrder, toBatch, toExtraction } from './batches.service';
import { checkColumns, normalizeColumn } from './columns.rules';
import type { RowsService } from './rows.service';
import type { TablesService } from './tables.service';
import type { WebhooksService } from './webhooks.service';

/** Most columns a project-level schema may have (the reference's limit). */
export const SCHEMA_MAX_COLUMNS = 50;
/** Rows returned in the JSON answer; the downloads have them all. */
const RESULT_ROWS = 100;

export interface SchemaInput {
  columns: Array<{ name: string; type?: ColumnType; description?: string | null; instruction?: string | null; required?: boolean; options?: string[]; currency_code?: string }>;
  instruction?: string | null;
  strictness?: Strictness;
}

export interface ExtractRequest {
  organizationId: string;
  projectId: string;
  tableId: string | null;
  actorId: string;
  /** Uploaded files. */
  documents: SourceDocument[];
  /** Pasted text, read as a document of its own. */
  text?: string | null;
  /** A document to fetch (https, under the address rules of webhooks). */
  url?: string | null;
  schema?: SchemaInput | null;
}

/** How long fetching a `url` document may take. */
const FETCH_TIMEOUT_MS = 30_000;

export interface FileResult {
  file_name: string;
  status: string;
  rows: number | null;
  confidence: number | null;
  error: string | null;
}

export interface ExtractResponse {
  batch_id: string;
  status: BatchStatus;
  confidence: number | null;
  duration_ms: number | null;
  fail_count: number;
  success_count: number;
  total_rows: number;
  files: FileResult[];
  result: Record<string, unknown>;
}

/** Progress as it happens: `batch`, `file`, `rows`, `progress`, `file_error`, `done`. */
export type ExtractListener = (event: string, data: unknown) => void;

/** The job kind of a batch's extraction. */
export const EXTRACT_JOB = 'extract';

/** What a worker needs to run a batch that `start` stored; the rest is in its records. */
export interface ExtractJob {
  batch_id: string;
  organization_id: string;
  /** The format of each file, in order. */
  formats: Format[];
  /** Per file, why it fails before it is read (a container that could not be unpacked). */
  failures: Array<string | null>;
  /** The schema given or the table's; null: inferred from the first readable file. */
  schema: SchemaJson | null;
  topic: string;
}

/** The job kind of one file of a batch whose files are read in parallel. */
export const EXTRACT_FILE_JOB = 'extract-file';

/** One file of a batch whose files are read in parallel. */
interface FileJob {
  job: ExtractJob;
  index: number;
}

/** What every file of a batch is read with. */
interface FileContext {
  table: TableRecord | null;
  layouts: LearnedLayout[];
  extractionIds: string[];
}

/** Thrown inside the transaction that would end a batch that has ended already. */
class BatchEnded extends Error {}

const isFinal = (status: BatchStatus) => !batchUnderWay(status);
/** A file whose end is recorded (its rows, or its failure): no worker reads it again. */
const recorded = (extraction: ExtractionRecord) => extraction.status === 'complete' || extraction.status === 'failed';
const endEvent = (status: BatchStatus) => (status === 'complete' ? 'batch.complete' : status === 'partial' ? 'batch.partial' : 'batch.failed');

interface Prepared {
  /** Its documents are the batch's files: containers (e-mails, ZIP archives) unpacked into theirs. */
  request: ExtractRequest;
  /** The format of each document, in order. */
  formats: Format[];
  /** Per document, why it fails before it is read (a container that could not be unpacked). */
  failures: Array<string | undefined>;
  /** Null until the first readable file gives a schema (project-level extract without one). */
  schema: SchemaJson | null;
  /** What the target table is about (its name and description), for choosing among a document's tables. */
  topic: string;
}

const mean = (values: number[]) => (values.length ? Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1000) / 1000 : null);

/** Columns of a project-level schema: ids made from the names, then the rules every column follows. */
export function schemaFromInput(input: SchemaInput): SchemaJson {
  if (input.columns.length === 0 || input.columns.length > SCHEMA_MAX_COLUMNS) {
    throw fieldError('schema.columns', `must have 1 to ${SCHEMA_MAX_COLUMNS} columns`);
  }
  const ids = new Set<string>();
  const columns = input.columns.map((c) => {
    const id = columnIdFrom(c.name, ids);
    ids.add(id);
    return normalizeColumn({ ...c, id });
  });
  checkColumns(columns);
  return { columns, instruction: input.instruction ?? null, strictness: input.strictness ?? 'strict' };
}

/** Uploaded documents plus pasted text as a document of its own (`text.txt`). */
export function withText(documents: SourceDocument[], text: string | null | undefined): SourceDocument[] {
  const out = [...documents];
  if (text !== undefined && text !== null && text.trim() !== '') {
    out.push({ name: 'text.txt', contentType: 'text/plain; charset=utf-8', bytes: new TextEncoder().encode(text) });
  }
  return out;
}

/**
 * 400 with nothing to read (no document, or only empty ones), 413 past the count and size limits,
 * 415 for formats no reader takes. An empty document among others fails alone, when it is read.
 * Returns each document's format.
 */
export function checkDocuments(documents: SourceDocument[], limits: Pick<Config, 'extractMaxFileBytes' | 'extractMaxFiles'>): Format[] {
  if (documents.length === 0) {
    throw invalidFields([{ path: 'file', error_key: 'required', message: 'send at least one file, or text, or a url' }]);
  }
  if (documents.length > limits.extractMaxFiles) {
    throw new ApiError(413, 'content_too_large', `At most ${limits.extractMaxFiles} files per request`);
  }
  const empty = documents.filter((doc) => doc.bytes.byteLength === 0);
  if (empty.length === documents.length) throw fieldError('file', `${empty.map((doc) => doc.name).join(', ')} ${empty.length > 1 ? 'are' : 'is'} empty`);
  return documents.map((doc) => {
    if (doc.bytes.byteLength > limits.extractMaxFileBytes) {
      throw new ApiError(413, 'content_too_large', `${doc.name} is larger than the limit of ${limits.extractMaxFileBytes} bytes per file`);
    }
    // Nothing to tell its format by: its name or type, else text; reading it fails it as empty.
    if (doc.bytes.byteLength === 0) return detectFormat(doc) ?? 'text';
    const format = detectFormat(doc);
    if (!format) {
      throw new ApiError(415, 'unsupported_media_type', `${doc.name} (${doc.contentType || 'no type'}) is not a format rowsmith reads: CSV, TSV, JSON, NDJSON, XLSX, HTML, Markdown, DOCX, PDF (text or scanned, Factur-X / ZUGFeRD read from their XML), e-invoice XML (UBL, CII), images (PNG, JPEG, TIFF, WebP, BMP, GIF), text, .eml or ZIP archives of these`);
    }
    return format;
  });
}

/** Below this confidence a strict table leaves a row out: the mapper is less than half sure of it. */
export const STRICT_MIN_CONFIDENCE = 0.5;
/**
 * Below this fit (`documentFit`) a document does not fit the table, and a strict or balanced table
 * takes none of its rows: measured by `npm run bench -- fit` on the corpus's dev documents, it keeps
 * 99% of documents in their own tables and drops most documents put into another kind's tables.
 */
export const DOCUMENT_FIT = 0.45;

/** How well a document's rows fit their table: their fit where the learned model gave one, else their confidence. */
export const documentFit = (rows: MappedRow[]): number | null => mean(rows.map((r) => r.fit ?? r.confidence));

/** Why a document does not fit, or null when it does (flexible tables take every document). */
function misfit(rows: MappedRow[], strictness: Strictness): string | null {
  if (strictness === 'flexible' || rows.length === 0) return null;
  const fit = documentFit(rows);
  if (fit === null || fit >= DOCUMENT_FIT) return null;
  return `the document does not fit the table: its rows' fit is ${fit.toFixed(2)}, and a ${strictness} table takes documents from ${DOCUMENT_FIT}`;
}

/**
 * The rows a reading gives in a table of `schema`, read through the table's learned layouts. An
 * e-invoice's XML states its values exactly; a PDF's printed page fills what it does not state.
 */
export function rowsOfReading(reading: Reading, schema: SchemaJson, topic: string, options: { dateOrder?: 'mdy' | 'dmy'; layouts?: LearnedLayout[] }): MappedRow[] {
  const map = (r: Parameters<typeof mapReading>[0]) =>
    mapReading(r, schema.columns, schema.strictness, {
      topic: `${topic} ${schema.instruction ?? ''}`,
      dateOrder: options.dateOrder,
      ocr: reading.fileType === 'scanned' || reading.fileType === 'image',
      layouts: options.layouts,
    });
  const mapped = map(reading);
  if (reading.source === 'xml') return exactRows(mapped, reading, schema.columns, reading.printed ? map(reading.printed) : []);
  return mapped;
}

/** Rows a strictness lets in: strict drops rows with any bad value, balanced only those missing a required value. */
function accepted(row: MappedRow, columns: Column[], strictness: Strictness): boolean {
  if (strictness === 'flexible') return true;
  const missing = columns.some((c) => c.required && (c.default === undefined || c.default === null) && row.values[c.id] === undefined);
  return !missing && (strictness !== 'strict' || (row.problems.length === 0 && row.confidence >= STRICT_MIN_CONFIDENCE));
}

export class ExtractService {
  constructor(
    private readonly port: StorePort,
    private readonly files: FilesStore,
    private readonly tables: TablesService,
    private readonly rows: RowsService,
    private readonly webhooks: WebhooksService,
    private readonly outbound: Outbound,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'extractMaxFileBytes' | 'extractMaxFiles' | 'llm' | 'dateOrder'>,
    private readonly log: Logger,
    /** The layouts a table's corrected documents show (see examples.service.ts). */
    private readonly layoutsFor: (tableId: string) => Promise<LearnedLayout[]>,
    private readonly events: EventLog,
    /** The shared queue that worker nodes take batches from (PostgreSQL); null: this process runs them. */
    private readonly jobs: JobQueue | null,
  ) {}

  /** Fetches a `url` document with the outbound address rules and the per-file size cap. */
  private async fetchDocument(url: string): Promise<SourceDocument> {
    const result = await this.outbound.request({ url, method: 'GET', headers: { accept: '*/*' }, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: this.config.extractMaxFileBytes + 1 });
    if (result.kind !== 'response') throw fieldError('url', `could not be fetched: ${result.message}`);
    if (result.status < 200 || result.status > 299) throw fieldError('url', `could not be fetched: the server answered ${result.status}`);
    if (result.truncated) throw new ApiError(413, 'content_too_large', `The document at url is larger than the limit of ${this.config.extractMaxFileBytes} bytes per file`);
    const path = new URL(url).pathname;
    const last = path.slice(path.lastIndexOf('/') + 1);
    let name = last;
    try {
      name = decodeURIComponent(last);
    } catch {
      // a malformed escape: keep the name as written
    }
    name ||= new URL(url).hostname;
    return { name, contentType: result.headers.get('content-type') ?? '', bytes: result.body };
  }

  /** Checks a request before any batch exists: 400 nothing to read, 404 table, 413 limits, 415 formats. */
  async prepare(input: ExtractRequest): Promise<Prepared> {
    // The table and the schema are checked before a url is fetched.
    let schema: SchemaJson | null = input.schema ? schemaFromInput(input.schema) : null;
    let topic = '';
    if (input.tableId) {
      const table = await this.tables.requireActive(input.projectId, input.tableId);
      schema = { columns: table.columns_json, instruction: table.instruction, strictness: table.strictness };
      topic = table.name;
    }
    const documents = withText(input.documents, input.text);
    if (input.url) documents.push(await this.fetchDocument(input.url));
    const files = await batchFiles(documents, checkDocuments(documents, this.config), this.config.extractMaxFileBytes);
    return { request: { ...input, documents: files.map((f) => f.doc) }, formats: files.map((f) => f.format), failures: files.map((f) => f.error), schema, topic };
  }

  private save(batch: BatchRecord, extraction?: ExtractionRecord): Promise<void> {
    return this.port.transaction(async (tx) => {
      if (extraction) await tx.batches.putExtraction(extraction);
      await tx.batches.put(batch);
    });
  }

  /**
   * Each event of a batch goes to its log (so a client on any node can follow it) and, when the
   * work runs in the process that took the request, straight to that request's listener. Appends
   * are chained: the log keeps them in the order they were made.
   */
  private emitter(batchId: string, direct?: ExtractListener) {
    let chain = Promise.resolve();
    const emit = (event: string, data: unknown) => {
      direct?.(event, data);
      chain = chain.then(() => this.events.append(batchId, event, data)).catch((error) => {
        this.log.error('batch_event_failed', { batch_id: batchId, event, error: String((error as Error)?.stack ?? error) });
      });
    };
    return { emit, flush: () => chain };
  }

  /**
   * Runs a prepared extraction to its end; `listen` hears every step. Never throws for a bad file.
   * With a job queue (PostgreSQL) a worker node does the work and this request follows its events.
   */
  async run(prepared: Prepared, listen: ExtractListener = () => {}): Promise<ExtractResponse> {
    if (!this.jobs) return this.process(await this.start(prepared, listen), listen);
    const job = await this.start(prepared);
    let finished!: (response: ExtractResponse) => void;
    const done = new Promise<ExtractResponse>((resolve) => (finished = resolve));
    const unfollow = await this.events.follow(job.batch_id, 0, ({ event, data }) => (event === 'done' ? finished(data as ExtractResponse) : listen(event, data)));
    try {
      await this.enqueue(this.jobs, job);
      const response = await done;
      listen('done', response);
      return response;
    } finally {
      await unfollow();
    }
  }

  /** Stores the files and the batch (`processing`, every file `pending`): what a worker needs to run it. */
  async start(prepared: Prepared, listen?: ExtractListener): Promise<ExtractJob> {
    const { request } = prepared;
    const started = this.clock.now();
    const table = request.tableId ? await this.tables.requireActive(request.projectId, request.tableId) : null;
    let batch: BatchRecord = {
      id: newId('batch', started),
      project_id: request.projectId,
      table_id: request.tableId,
      actor_type: 'api_key',
      actor_id: request.actorId,
      schema_json: prepared.schema ?? { columns: [], instruction: null, strictness: 'balanced' },
      insert_mode: table?.insert_mode ?? null,
      status: 'uploading',
      file_count: request.documents.length,
      files_done: 0,
      current_file: null,
      csv_key: null,
      json_key: null,
      xlsx_key: null,
      total_rows: null,
      confidence: null,
      duration_ms: null,
      error: null,
      created_at: started,
      updated_at: started,
      extraction_ids: [],
      file_names: request.documents.map((d) => d.name),
    };
    // The batch exists (`uploading`) while its files are stored; then each has its record.
    await this.save(batch);
    const { emit, flush } = this.emitter(batch.id, listen);
    emit('batch', toBatch(batch));
    const extractions: ExtractionRecord[] = [];
    for (const [i, doc] of request.documents.entries()) {
      const stored = await this.files.put(doc.bytes);
      extractions.push({
        id: newId('extr', started),
        batch_id: batch.id,
        table_id: request.tableId,
        file_key: stored.key,
        file_name: doc.name,
        file_type: FILE_TYPES[prepared.formats[i]!],
        file_checksum: stored.checksum,
        status: 'pending',
        rows_key: null,
        row_count: null,
        confidence: null,
        error: null,
        created_at: started,
        content_type: doc.contentType || 'application/octet-stream',
      });
    }
    batch = { ...batch, extraction_ids: extractions.map((e) => e.id), status: 'processing', updated_at: this.clock.now() };
    await this.port.transaction(async (tx) => {
      for (const e of extractions) await tx.batches.putExtraction(e);
      await tx.batches.put(batch);
    });
    await flush();
    return {
      batch_id: batch.id,
      organization_id: request.organizationId,
      formats: prepared.formats,
      failures: prepared.failures.map((f) => f ?? null),
      schema: prepared.schema,
      topic: prepared.topic,
    };
  }

  /**
   * Reads a started batch's files one after another and writes its rows. Run again on a batch that
   * a stopped worker left half done, it keeps the files that were done (their rows are the
   * batch's) and reads the rest.
   */
  async process(job: ExtractJob, listen?: ExtractListener): Promise<ExtractResponse> {
    const { emit, flush } = this.emitter(job.batch_id, listen);
    try {
      const batch = await this.port.batches.get(job.batch_id);
      if (!batch) throw new Error(`batch ${job.batch_id} does not exist`);
      if (!isFinal(batch.status)) {
        const context = await this.contextOf(batch);
        for (const index of batch.extraction_ids.keys()) await this.readFile(job, index, context, emit);
      }
      return (await this.finish(job, emit)) ?? (await this.answerOf(job.batch_id));
    } finally {
      await flush();
    }
  }

  /**
   * One file of a batch whose files are read in parallel, by whichever workers claim them; the
   * worker that finishes the last one ends the batch.
   */
  async processFile(job: ExtractJob, index: number): Promise<void> {
    const { emit, flush } = this.emitter(job.batch_id);
    try {
      const batch = await this.port.batches.get(job.batch_id);
      if (!batch || isFinal(batch.status)) return;
      await this.readFile(job, index, await this.contextOf(batch), emit);
      await this.finish(job, emit);
    } finally {
      await flush();
    }
  }

  /** What every file of a batch is read with: its table and the layouts the table learned. */
  private async contextOf(batch: BatchRecord): Promise<FileContext> {
    const table = batch.table_id ? await this.tables.requireActive(batch.project_id, batch.table_id) : null;
    return { table, layouts: table ? await this.layoutsFor(table.id) : [], extractionIds: batch.extraction_ids };
  }

  /**
   * Reads the batch's file at `index` and records its result: the file's record, its rows (the
   * batch's), and the batch's count of files done, re-read in the same transaction, since other
   * workers may be counting other files of the batch. A file that was done already is left.
   */
  private async readFile(job: ExtractJob, index: number, { table, layouts, extractionIds }: FileContext, listen: ExtractListener): Promise<void> {
    const batchId = job.batch_id;
    const pending = await this.port.batches.getExtraction(extractionIds[index]!);
    if (!pending || recorded(pending)) return;
    let extraction: ExtractionRecord = { ...pending, status: 'processing' };
    const name = extraction.file_name;
    const started = await this.port.transaction(async (tx) => {
      // Read again where it is written: another worker may have recorded the file since, and
      // marking it processing again would let this worker record its rows a second time.
      const stored = await tx.batches.getExtraction(extraction.id);
      if (!stored || recorded(stored)) return null;
      const batch = (await tx.batches.get(batchId))!;
      await tx.batches.putExtraction(extraction);
      const current = { ...batch, current_file: name, updated_at: this.clock.now() };
      await tx.batches.put(current);
      return current;
    });
    if (!started) return;
    const fileCount = started.file_count;
    listen('file', { extraction_id: extraction.id, file_name: name, index, file_count: fileCount });
    /**
     * Records the file's end, with its rows and, for a batch without a schema, the schema its
     * first readable file gave. Null when another worker recorded this file first (it took over a
     * lease this worker was too slow to renew): its rows are the batch's already.
     */
    const record = (rows: BatchRow[], reading: Reading | null, inferred: SchemaJson | null) =>
      this.port.transaction(async (tx): Promise<BatchRecord | null> => {
        const stored = await tx.batches.getExtraction(extraction.id);
        if (stored && recorded(stored)) return null;
        const batch = (await tx.batches.get(batchId))!;
        // Kept for provenance, examples and evaluation, which look at the document again; a
        // reading of tables alone (a spreadsheet) is quick to make again, and kept only when a row is reviewed.
        if (reading && extraction.file_checksum && table && (reading.pages?.length || reading.lines.length)) await tx.readings.put(extraction.file_checksum, reading);
        if (rows.length) await tx.batches.addRows(batchId, rows);
        await tx.batches.putExtraction(extraction);
        const done: BatchRecord = {
          ...batch,
          files_done: batch.files_done + 1,
          rows_done: (batch.rows_done ?? 0) + rows.length,
          schema_json: inferred && batch.schema_json.columns.length === 0 ? inferred : batch.schema_json,
          updated_at: this.clock.now(),
        };
        await tx.batches.put(done);
        return done;
      });
    let after: BatchRecord | null;
    try {
      // A scan's pages take seconds each: every page read is a progress event.
      const onPage = (pagesDone: number, pageCount: number) =>
        listen('progress', { files_done: started.files_done, file_count: fileCount, total_rows: started.rows_done ?? 0, file_name: name, pages_done: pagesDone, page_count: pageCount });
      if (job.failures[index]) throw new UnreadableDocument(job.failures[index]!);
      const bytes = await this.files.read(extraction.file_key);
      if (!bytes) throw new UnreadableDocument('the uploaded file is missing from the files storage (with several nodes, ROWSMITH_FILES_DIR must be one folder that every node shares, or ROWSMITH_FILES_S3_BUCKET one bucket)');
      const reading = await readDocument({ name, contentType: extraction.content_type, bytes }, job.formats[index], onPage);
      const notes = reading.notes ?? [];
      // Without a schema, the first file that gives one sets it for the files after it.
      const current = (await this.port.batches.get(batchId))!;
      const given = job.schema ?? (current.schema_json.columns.length ? current.schema_json : null);
      let schema = given;
      if (!schema) {
        const columns = inferColumns(recordGroups(reading.tables, reading.groups));
        if (columns.length) schema = { columns, instruction: null, strictness: 'balanced' };
      }
      if (!schema && !reading.optional) throw new UnreadableDocument('no table or fields found to build a schema from');
      const mapped = schema ? await this.mapReading(reading, schema, job.topic, layouts) : [];
      const unfit = schema ? misfit(mapped, schema.strictness) : null;
      if (unfit && !reading.optional) throw new UnreadableDocument(unfit);
      const kept = schema && !unfit ? mapped.filter((row) => accepted(row, schema!.columns, schema!.strictness)) : [];
      const why =
        mapped.find((r) => r.problems.length)?.problems[0] ??
        (schema?.strictness === 'strict' && mapped.some((r) => r.confidence < STRICT_MIN_CONFIDENCE)
          ? `a strict table keeps rows of confidence ${STRICT_MIN_CONFIDENCE} or more`
          : 'a required value is missing');
      if (kept.length === 0 && !reading.optional) {
        throw new UnreadableDocument(mapped.length ? `none of the ${mapped.length} rows found fit the columns (${why})` : 'no rows matching the columns were found');
      }
      const rejected = mapped.length - kept.length;
      extraction = {
        ...extraction,
        status: 'complete',
        row_count: kept.length,
        confidence: mean(kept.map((r) => r.confidence)),
        rows_key: `${batchId}/${extraction.id}`,
        error: [...(rejected ? [`${rejected} of ${mapped.length} rows left out: ${why}`] : []), ...notes].join('; ').slice(0, 2048) || null,
      };
      const rows: BatchRow[] = kept.map((row) => ({ extraction_id: extraction.id, values: row.values, confidence: row.confidence }));
      after = await record(rows, reading, given ? null : schema);
      if (!after) return;
      listen('rows', { extraction_id: extraction.id, file_name: name, ...(reading.source ? { source: reading.source } : {}), rows: kept.map((r) => ({ ...r.values, _confidence: r.confidence, _needs_review: needsReview(r.confidence) })) });
    } catch (error) {
      // What went wrong with the document is the user's to know; our own failures are logged, not shown.
      const known = error instanceof UnreadableDocument || error instanceof LlmError || error instanceof ApiError;
      const message = known ? (error as Error).message : 'the file could not be read (an internal error; it is logged)';
      if (!known) this.log.error('extraction_failed', { batch_id: batchId, file_name: name, error: String((error as Error)?.stack ?? error) });
      const scanned = extraction.file_type === 'text_pdf' && /no text layer/.test(message);
      extraction = { ...extraction, status: 'failed', error: message.slice(0, 2048), file_type: scanned ? 'scanned' : extraction.file_type, row_count: 0 };
      after = await record([], null, null);
      if (!after) return;
      listen('file_error', { extraction_id: extraction.id, file_name: name, error: extraction.error });
    }
    listen('progress', { files_done: after.files_done, file_count: fileCount, total_rows: after.rows_done ?? 0 });
  }

  /**
   * Ends a batch whose files are all done: its rows go into the table through its insert mode, and
   * its end and webhook event are written in the same transaction, which first checks that the
   * batch has not ended: of two workers that both get here, one writes and the other writes
   * nothing. Null when files remain, or when another worker ended the batch meanwhile.
   */
  private async finish(job: ExtractJob, listen: ExtractListener): Promise<ExtractResponse | null> {
    let batch = (await this.port.batches.get(job.batch_id))!;
    const extractions = await this.extractionsOf(batch);
    if (isFinal(batch.status)) return null;
    if (extractions.some((e) => e.status === 'pending' || e.status === 'processing')) return null;
    const table = batch.table_id ? await this.tables.requireActive(batch.project_id, batch.table_id) : null;
    const complete = new Set(extractions.filter((e) => e.status === 'complete').map((e) => e.id));
    const collected = inFileOrder(await this.port.batches.batchRows(batch.id), batch).filter((r) => complete.has(r.extraction_id));
    const failed = extractions.length - complete.size;
    const status: BatchStatus = failed === extractions.length ? 'failed' : failed > 0 ? 'partial' : 'complete';
    const downloads = (format: string) => `/v1/projects/${batch.project_id}/batches/${batch.id}/download/${format}`;
    // Every write starts from the batch as stored in its own transaction: the record read above may
    // predate another worker's last file (its count of files and rows done).
    const finish = (current: BatchRecord, error: string | null, finalStatus: BatchStatus): BatchRecord => ({
      ...current,
      status: finalStatus,
      current_file: null,
      total_rows: collected.length,
      confidence: mean(collected.map((c) => c.confidence)),
      duration_ms: this.clock.now() - current.created_at,
      error,
      csv_key: downloads('csv'),
      json_key: downloads('json'),
      xlsx_key: downloads('xlsx'),
      updated_at: this.clock.now(),
    });
    const announce = async (tx: Repositories, error: string | null, finalStatus: BatchStatus) => {
      const current = await tx.batches.get(batch.id);
      if (current && isFinal(current.status)) throw new BatchEnded();
      const final = finish(current ?? batch, error, finalStatus);
      batch = final;
      await tx.batches.put(final);
      await this.webhooks.enqueue(tx, job.organization_id, endEvent(final.status), { ...toBatch(final), extractions: extractions.map(toExtraction) });
    };
    const filesFailed = failed ? `${failed} of ${extractions.length} files failed` : null;
    let result: Record<string, unknown>;
    try {
      if (table && collected.length) {
        // Marked only if no other worker has ended the batch since it was read above: writing
        // `merging` over its end would let this worker insert the batch's rows a second time.
        batch = await this.port.transaction(async (tx) => {
          const current = await tx.batches.get(batch.id);
          if (current && isFinal(current.status)) throw new BatchEnded();
          const merging: BatchRecord = { ...(current ?? batch), status: 'merging', current_file: null, updated_at: this.clock.now() };
          await tx.batches.put(merging);
          return merging;
        });
        try {
          const written = await this.rows.insertExtracted(
            batch.project_id,
            table.id,
            collected.map((row) => ({ values: row.values, origin: { batch_id: batch.id, extraction_id: row.extraction_id, confidence: row.confidence } })),
            (_, tx) => announce(tx, filesFailed, status),
          );
          result = { table_id: table.id, created: written.created, merged: written.merged, skipped: written.skipped, rows: written.rows.slice(0, RESULT_ROWS) };
        } catch (error) {
          if (error instanceof BatchEnded) throw error;
          const message = error instanceof ApiError ? error.message : 'the rows could not be written to the table';
          await this.port.transaction((tx) => announce(tx, `merging failed: ${message}`, 'failed'));
          result = { table_id: table.id, created: 0, merged: 0, skipped: 0, rows: [] };
        }
      } else {
        await this.port.transaction((tx) => announce(tx, filesFailed, status));
        if (table) await this.tables.markUsed(batch.project_id, table.id);
        result = table ? { table_id: table.id, created: 0, merged: 0, skipped: 0, rows: [] } : { schema: batch.schema_json, rows: collected.slice(0, RESULT_ROWS).map((c) => c.values) };
      }
    } catch (error) {
      if (error instanceof BatchEnded) return null;
      throw error;
    }
    this.webhooks.wake();
    const response = this.responseOf(batch, extractions, result, collected.length);
    listen('done', response);
    return response;
  }

  /** The answer of a batch another worker ended, from its records. */
  private async answerOf(batchId: string): Promise<ExtractResponse> {
    const batch = (await this.port.batches.get(batchId))!;
    return this.responseOf(batch, await this.extractionsOf(batch), batch.table_id ? { table_id: batch.table_id, created: 0, merged: 0, skipped: 0, rows: [] } : { schema: batch.schema_json, rows: [] });
  }

  private async extractionsOf(batch: BatchRecord): Promise<ExtractionRecord[]> {
    const found = await Promise.all(batch.extraction_ids.map((id) => this.port.batches.getExtraction(id)));
    return found.filter((e): e is ExtractionRecord => e !== undefined);
  }

  private responseOf(batch: BatchRecord, extractions: ExtractionRecord[], result: Record<string, unknown>, rows = batch.total_rows ?? 0): ExtractResponse {
    return {
      batch_id: batch.id,
      status: batch.status,
      confidence: batch.confidence,
      duration_ms: batch.duration_ms,
      fail_count: extractions.filter((e) => e.status === 'failed').length,
      success_count: extractions.filter((e) => e.status === 'complete').length,
      total_rows: batch.status === 'failed' ? 0 : rows,
      files: extractions.map((e) => ({ file_name: e.file_name, status: e.status, rows: e.row_count, confidence: e.confidence, error: e.error })),
      result,
    };
  }

  /**
   * Queues a started batch. With its columns known, each file is a job of its own, so that several
   * workers read the files of one batch at once; without (a schema inferred from the first
   * readable file), the files are read in order by one job.
   */
  private async enqueue(jobs: JobQueue, job: ExtractJob): Promise<void> {
    if (job.schema === null || job.formats.length === 1) return jobs.enqueue(EXTRACT_JOB, job.batch_id, job);
    for (const index of job.formats.keys()) await jobs.enqueue(EXTRACT_FILE_JOB, `${job.batch_id}/${index}`, { job, index } satisfies FileJob);
  }

  /**
   * A worker's run of an extraction job (a whole batch, or one file of it). A request the batch
   * cannot be run for (its table was deleted meanwhile) ends the batch at once; any other failure
   * is retried. On the last attempt, a batch's job ends the batch, and a file's job fails its file
   * alone and lets the batch end with the others.
   */
  async runJob(queued: QueuedJob): Promise<void> {
    const file = queued.kind === EXTRACT_FILE_JOB ? (queued.payload as FileJob) : null;
    const job = file ? file.job : (queued.payload as ExtractJob);
    try {
      if (file) await this.processFile(job, file.index);
      else await this.process(job);
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) {
        await this.abandon(job.batch_id, error.message);
        return;
      }
      if (queued.attempts < queued.maxAttempts) throw error;
      if (!file) {
        await this.abandon(job.batch_id, `the extraction failed on each of ${queued.attempts} attempts`);
        throw error;
      }
      this.log.error('extraction_file_given_up', { batch_id: job.batch_id, index: file.index, error: String((error as Error)?.stack ?? error) });
      await this.failFile(job, file.index, `the file could not be read on any of ${queued.attempts} attempts (an internal error; it is logged)`);
    }
  }

  /** Fails a file that no attempt could read, and ends the batch if it was the last. */
  private async failFile(job: ExtractJob, index: number, reason: string): Promise<void> {
    const { emit, flush } = this.emitter(job.batch_id);
    try {
      const failed = await this.port.transaction(async (tx) => {
        const batch = await tx.batches.get(job.batch_id);
        const extraction = batch && (await tx.batches.getExtraction(batch.extraction_ids[index]!));
        if (!batch || !extraction || recorded(extraction)) return null;
        await tx.batches.putExtraction({ ...extraction, status: 'failed', error: reason, row_count: 0 });
        await tx.batches.put({ ...batch, files_done: batch.files_done + 1, updated_at: this.clock.now() });
        return extraction;
      });
      if (failed) emit('file_error', { extraction_id: failed.id, file_name: failed.file_name, error: reason });
      await this.finish(job, emit);
    } finally {
      await flush();
    }
  }

  /**
   * With a job queue: ends the batches that no worker will finish. A batch is left while any of
   * its jobs (the batch's, or its files') is queued or running. It is ended when one of them is
   * dead (out of attempts, or its worker died on the last one) or all are done without ending it,
   * or when it has no job and has not moved for `graceMs` (the node that took the request stopped
   * before queueing it).
   */
  async sweep(graceMs: number): Promise<number> {
    if (!this.jobs) return 0;
    let ended = 0;
    for (const batch of await this.port.batches.unfinished()) {
      const whole = await this.jobs.state(EXTRACT_JOB, batch.id);
      const states = whole !== null ? [whole] : await Promise.all(batch.extraction_ids.map((_, i) => this.jobs!.state(EXTRACT_FILE_JOB, `${batch.id}/${i}`)));
      if (states.some((state) => state === 'queued' || state === 'running')) continue;
      const none = states.every((state) => state === null);
      if (none && this.clock.now() - batch.updated_at < graceMs) continue;
      const reason = none ? 'the node that took the request stopped before queueing it' : 'no worker could finish the extraction';
      if (await this.abandon(batch.id, reason)) ended++;
    }
    return ended;
  }

  /**
   * Ends a batch that no worker will finish (its job ran out of attempts, or was never queued):
   * unfinished files and the batch fail with `reason`, the webhook event goes out, and followers
   * get `done`. A batch that has ended meanwhile is left alone. Returns whether it ended it.
   */
  async abandon(batchId: string, reason: string): Promise<boolean> {
    const { emit, flush } = this.emitter(batchId);
    let ended: { batch: BatchRecord; extractions: ExtractionRecord[] } | null = null;
    await this.port.transaction(async (tx) => {
      const batch = await tx.batches.get(batchId);
      if (!batch || isFinal(batch.status)) return;
      const extractions: ExtractionRecord[] = [];
      for (const id of batch.extraction_ids) {
        let extraction = await tx.batches.getExtraction(id);
        if (!extraction) continue;
        if (extraction.status === 'pending' || extraction.status === 'processing') {
          extraction = { ...extraction, status: 'failed', error: `interrupted: ${reason}` };
          await tx.batches.putExtraction(extraction);
        }
        extractions.push(extraction);
      }
      const final: BatchRecord = { ...batch, status: 'failed', current_file: null, error: `interrupted: ${reason}`, updated_at: this.clock.now() };
      await tx.batches.put(final);
      const project = await tx.accounts.getProject(final.project_id);
      if (project) await this.webhooks.enqueue(tx, project.organization_id, endEvent(final.status), { ...toBatch(final), extractions: extractions.map(toExtraction) });
      ended = { batch: final, extractions };
    });
    if (!ended) return false;
    const { batch, extractions } = ended as { batch: BatchRecord; extractions: ExtractionRecord[] };
    this.webhooks.wake();
    emit('done', await this.responseOf(batch, extractions, batch.table_id ? { table_id: batch.table_id, created: 0, merged: 0, skipped: 0, rows: [] } : { schema: batch.schema_json, rows: [] }, 0));
    await flush();
    return true;
  }

  /** Rows of a reading; prose with no structure goes to the language model when one is configured. */
  private async mapReading(reading: Reading, schema: SchemaJson, topic: string, layouts: LearnedLayout[]): Promise<MappedRow[]> {
    const mapped = rowsOfReading(reading, schema, topic, { dateOrder: this.config.dateOrder, layouts });
    // Structured formats have no running text, so only prose reaches the model.
    if (mapped.length > 0 || !this.config.llm || !reading.text.trim()) return mapped;
    const records = await extractWithLlm(this.config.llm, schema.columns, schema.instruction, reading.text);
    const identity = schema.columns.map((column) => ({ column, field: column.id, score: 0.8 }));
    return records.map((r) => mapRecord(r, identity, schema.columns, schema.strictness)).filter((r) => Object.keys(r.values).length);
  }
}
