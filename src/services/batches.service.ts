/** Reading batches: list, get (with its extractions), downloads of their rows, and the row source file. */
import { batchUnderWay, type BatchStatus } from '../domain/batches';
import { needsReview, type Column } from '../domain/columns';
import type { ExportFormat } from '../domain/exports';
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, type ListParams } from '../query/list';
import type { BatchRecord, BatchRow, ExtractionRecord, SchemaJson } from '../store/batches.store';
import type { EventLog } from '../store/events';
import type { FilesStore } from '../store/files.store';
import type { StorePort } from '../store/port';
import type { RowRecord } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';
import { contentDisposition, DOWNLOAD_TYPES, renderRows, ROW_ORIGIN_COLUMNS } from './downloads';
import { rowNotFound } from './row-values';
import type { TablesService } from './tables.service';

/** How often a follower looks at the batch's record for an end that sent no `done` (its events were purged). */
const FOLLOW_CHECK_MS = 1_000;

export const BATCH_LIST: ListSpec = {
  resource: 'batches',
  fields: {
    created_at: { type: 'number', sortable: true, filterable: true },
    updated_at: { type: 'number', sortable: true, filterable: true },
    status: { type: 'string', sortable: true, filterable: true },
    total_rows: { type: 'number', sortable: true, filterable: true },
    file_count: { type: 'number', sortable: true, filterable: true },
    confidence: { type: 'number', sortable: true, filterable: true },
    id: { type: 'string', filterable: true },
    table_id: { type: 'string', filterable: true },
    file_names: { type: 'string' },
  },
  searchable: ['file_names', 'id'],
  selectable: [
    'id', 'project_id', 'table_id', 'actor_type', 'actor_id', 'schema_json', 'insert_mode', 'status', 'file_count', 'files_done',
    'current_file', 'csv_key', 'json_key', 'xlsx_key', 'total_rows', 'confidence', 'duration_ms', 'error', 'created_at', 'updated_at',
  ],
};

/** A column of a batch's `schema_json`: the reference's schema there is closed to these four fields. */
export type BatchSchemaColumn = Pick<Column, 'name' | 'type' | 'description' | 'instruction'>;
export type Batch = Omit<BatchRecord, 'extraction_ids' | 'file_names' | 'schema_json' | 'rows_done'> & {
  schema_json: Omit<SchemaJson, 'columns'> & { columns: BatchSchemaColumn[] };
};
export type Extraction = Omit<ExtractionRecord, 'content_type'>;

function batchSchemaColumn({ name, type, description, instruction }: Column): BatchSchemaColumn {
  return { name, type, ...(description !== undefined && { description }), ...(instruction !== undefined && { instruction }) };
}

/** The record as clients see it; the stored schema keeps whole columns (ids, options) for the downloads. */
export function toBatch(record: BatchRecord): Batch {
  const { extraction_ids: _e, file_names: _f, rows_done: _r, ...batch } = record;
  return { ...batch, schema_json: { ...batch.schema_json, columns: batch.schema_json.columns.map(batchSchemaColumn) } };
}

/**
 * A batch's rows in the order of its files (each file's in their own order): files read in
 * parallel add their rows in the order they finish.
 */
export function inFileOrder(rows: BatchRow[], batch: Pick<BatchRecord, 'extraction_ids'>): BatchRow[] {
  const place = new Map(batch.extraction_ids.map((id, i) => [id, i]));
  return rows.map((row, i) => ({ row, i, file: place.get(row.extraction_id) ?? place.size })).sort((a, b) => a.file - b.file || a.i - b.i).map((r) => r.row);
}

export function toExtraction(record: ExtractionRecord): Extraction {
  const { content_type: _c, ...extraction } = record;
  return extraction;
}

export interface FileDownload {
  /** The file: in memory, on disk, or (large exports in a bucket) streamed from where it is kept. */
  body: Uint8Array | Blob | ReadableStream<Uint8Array>;
  /** Its length in bytes (a stream does not know it). */
  size: number;
  contentType: string;
  disposition: string;
}

export class BatchesService {
  constructor(
    private readonly port: StorePort,
    private readonly files: FilesStore,
    private readonly tables: TablesService,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  private async require(projectId: string, batchId: string): Promise<BatchRecord> {
    const batch = await this.port.batches.get(batchId);
    if (!batch || batch.project_id !== projectId) throw new ApiError(404, 'not_found', `Batch ${batchId} not found`);
    return batch;
  }

  async list(projectId: string, params: ListParams & { status?: BatchStatus }) {
    const query = parseListQuery(BATCH_LIST, params, this.cursors);
    const all = (await this.port.batches.listProject(projectId)).filter((b) => params.status === undefined || b.status === params.status);
    const get = (b: BatchRecord, f: string) => (f === 'file_names' ? b.file_names.join('\n') : b[f as keyof BatchRecord]);
    const page = listInMemory(all, BATCH_LIST, query, { get, id: (b) => b.id }, this.cursors);
    return envelope('batches', query, { ...page, items: page.items.map(toBatch) });
  }

  async get(projectId: string, batchId: string): Promise<Batch & { extractions: Extraction[] }> {
    const batch = await this.require(projectId, batchId);
    return { ...toBatch(batch), extractions: await this.extractionsOf(batch) };
  }

  private async extractionsOf(batch: BatchRecord): Promise<Extraction[]> {
    const extractions = await Promise.all(batch.extraction_ids.map((id) => this.port.batches.getExtraction(id)));
    return extractions.filter((e): e is ExtractionRecord => e !== undefined).map(toExtraction);
  }

  /**
   * Streams a batch's events to `send` from after `after` (an SSE client's Last-Event-ID), whichever
   * node runs it, and resolves at its `done`. A batch whose events are gone (it ended a while ago)
   * gives one `batch` event with its state. Call `get` first: a batch of another project is a 404.
   */
  async follow(batchId: string, after: number, send: (event: string, data: unknown, id: number) => void): Promise<void> {
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    let seen = after;
    const unfollow = await this.events.follow(batchId, after, ({ seq, event, data }) => {
      seen = seq;
      send(event, data, seq);
      if (event === 'done') ended();
    });
    // The batch's record tells when its events will not come: it has ended, and no `done` came
    // within a check's time after (the worker appends `done` just after the batch's end commits).
    let endedChecks = 0;
    const check = async () => {
      const batch = await this.port.batches.get(batchId);
      endedChecks = batch && batchUnderWay(batch.status) ? 0 : endedChecks + 1;
      if (endedChecks < 2) return false;
      if (batch) send('batch', { ...toBatch(batch), extractions: await this.extractionsOf(batch) }, seen + 1);
      return true;
    };
    try {
      for (;;) {
        const tick = new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), FOLLOW_CHECK_MS).unref());
        if ((await Promise.race([done, tick])) !== 'tick') return;
        if (await check()) return;
      }
    } finally {
      await unfollow();
    }
  }

  /** The batch's rows as a file; only once the batch has ended. */
  async download(projectId: string, batchId: string, format: ExportFormat): Promise<FileDownload> {
    const batch = await this.require(projectId, batchId);
    if (batchUnderWay(batch.status)) {
      throw new ApiError(400, 'invalid_input', `Batch ${batchId} is still ${batch.status}; download it once it has ended`);
    }
    const fileNames = new Map<string, string | null>();
    for (const id of batch.extraction_ids) fileNames.set(id, (await this.port.batches.getExtraction(id))?.file_name ?? null);
    const rows = inFileOrder(await this.port.batches.batchRows(batchId), batch).map((r) => ({ ...r.values, _file: fileNames.get(r.extraction_id) ?? null, _confidence: r.confidence, _needs_review: needsReview(r.confidence) }));
    const bytes = await renderRows(format, [...batch.schema_json.columns, ...ROW_ORIGIN_COLUMNS], rows, batchId);
    return { body: bytes, size: bytes.byteLength, contentType: DOWNLOAD_TYPES[format], disposition: contentDisposition('attachment', `${batchId}.${format}`) };
  }

  /** A row with the extraction (and so the file) it came from; 404 `row_source_not_found` for a row typed in. */
  async rowOrigin(projectId: string, tableId: string, rowId: string): Promise<{ table: TableRecord; row: RowRecord; extraction: ExtractionRecord }> {
    const table = await this.tables.requireActive(projectId, tableId);
    const row = await this.port.rows.get(table.seq, rowId);
    if (!row) throw rowNotFound(rowId);
    const extraction = row.extraction_id ? await this.port.batches.getExtraction(row.extraction_id) : undefined;
    if (!extraction) throw new ApiError(404, 'row_source_not_found', `Row ${rowId} did not come from a file`);
    return { table, row, extraction };
  }

  /** The file a row was extracted from. */
  async rowSource(projectId: string, tableId: string, rowId: string, disposition: 'attachment' | 'inline'): Promise<FileDownload> {
    const { extraction } = await this.rowOrigin(projectId, tableId, rowId);
    const bytes = await this.files.read(extraction.file_key);
    if (!bytes) throw new ApiError(404, 'row_source_not_found', `Row ${rowId} did not come from a file`);
    return {
      body: bytes,
      size: bytes.byteLength,
      contentType: disposition === 'inline' ? extraction.content_type : 'application/octet-stream',
      disposition: contentDisposition(disposition, extraction.file_name),
    };
  }

  /** Batches a stopped process left unfinished are failed at start, so none stays "processing" forever. */
  recoverInterrupted(): Promise<number> {
    return this.port.transaction(async (tx) => {
      const unfinished = await tx.batches.unfinished();
      const now = this.clock.now();
      for (const batch of unfinished) {
        for (const id of batch.extraction_ids) {
          const extraction = await tx.batches.getExtraction(id);
          if (extraction && (extraction.status === 'pending' || extraction.status === 'processing')) {
            await tx.batches.putExtraction({ ...extraction, status: 'failed', error: 'interrupted: the server stopped before this file was done' });
          }
        }
        await tx.batches.put({ ...batch, status: 'failed', current_file: null, error: 'interrupted: the server stopped before the batch was done', updated_at: now });
      }
      return unfinished.length;
    });
  }
}
