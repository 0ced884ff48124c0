/**
 * Table exports: an export record is made at once and answered; the file is written in the
 * background by paging through the rows in the requested order (a page at a time, never the whole
 * table in memory), then checksummed. Expired exports and their files are purged.
 */
import { createHash } from 'node:crypto';
import ExcelJS from 'exceljs';
import type { Column } from '../domain/columns';
import type { ExportFormat } from '../domain/exports';
import type { Clock } from '../lib/clock';
import { ApiError, fieldError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { ExportFiles, ExportRecord } from '../store/exports.store';
import type { JobQueue, QueuedJob } from '../store/queue';
import type { StorePort } from '../store/port';
import type { TableRecord } from '../store/tables.store';
import { contentDisposition, csvCell, csvLines, DOWNLOAD_TYPES, sheetName, UTF8_BOM, xlsxCell, xlsxColumns } from './downloads';
import type { FileDownload } from './batches.service';
import type { RowsService } from './rows.service';
import type { TablesService } from './tables.service';

export interface ExportParams {
  format: ExportFormat;
  filter?: string;
  order?: string;
  search?: string;
  since?: string;
  schema?: 'true' | 'false';
}

export type Export = Omit<ExportRecord, 'format'>;

export function toExport(record: ExportRecord): Export {
  const { format: _f, ...out } = record;
  return out;
}

/** Rows fetched per step: the list engine's largest page. */
const PAGE = 100;

/** `since` as milliseconds: a number of milliseconds, or an ISO date or timestamp. */
function parseSince(since: string): number {
  const text = since.trim();
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) throw fieldError('since', 'must be milliseconds since the epoch or an ISO date such as 2024-03-01T00:00:00Z');
  return value;
}

/** The columns of a CSV or XLSX export: the row id, the table's columns, then the row's system fields. */
function exportColumns(table: TableRecord): Array<Pick<Column, 'id' | 'name' | 'type'>> {
  return [
    { id: 'id', name: 'id', type: 'string' },
    ...table.columns_json,
    { id: 'created_at', name: 'created_at', type: 'number' },
    { id: 'updated_at', name: 'updated_at', type: 'number' },
    { id: 'confidence', name: 'confidence', type: 'number' },
    { id: 'needs_review', name: 'needs_review', type: 'boolean' },
  ];
}

/** Writes one export file a page at a time. */
interface FileWriter {
  page(rows: Array<Record<string, unknown>>): Promise<void>;
  end(): Promise<void>;
}

function textWriter(path: string, head: string, line: (row: Record<string, unknown>) => string, separator: string, tail: string): FileWriter {
  const sink = Bun.file(path).writer();
  sink.write(head);
  let first = true;
  return {
    async page(rows) {
      for (const row of rows) {
        sink.write(`${first ? '' : separator}${line(row)}`);
        first = false;
      }
      await sink.flush();
    },
    async end() {
      sink.write(tail);
      await sink.end();
    },
  };
}

function writerFor(format: ExportFormat, path: string, table: TableRecord, withSchema: boolean): FileWriter {
  const columns = exportColumns(table);
  if (format === 'csv') {
    const header = csvLines([columns.map((c) => csvCell(c.name))]);
    return textWriter(path, `${UTF8_BOM}${header}`, (row) => csvLines([columns.map((c) => csvCell(row[c.id]))]), '', '');
  }
  if (format === 'json') {
    const head = withSchema ? `{"columns":${JSON.stringify(table.columns_json)},"rows":[\n` : '[\n';
    return textWriter(path, head, (row) => JSON.stringify(row), ',\n', withSchema ? '\n]}\n' : '\n]\n');
  }
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName(table.name));
  sheet.columns = xlsxColumns(columns);
  return {
    async page(rows) {
      for (const row of rows) sheet.addRow(columns.map((c) => xlsxCell(row[c.id], c))).commit();
    },
    async end() {
      sheet.commit();
      await workbook.commit();
    },
  };
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest('hex');
}

/** The job kind of an export. */
export const EXPORT_JOB = 'export';

/** What a worker needs to write an export that `start` recorded. */
export interface ExportJob {
  export_id: string;
  project_id: string;
  query: { filter?: string; order: string; q?: string; limit: number };
  with_schema: boolean;
}

export class ExportsService {
  /** Exports being written, so shutdown and tests can wait for them. */
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly port: StorePort,
    private readonly files: ExportFiles,
    private readonly tables: TablesService,
    private readonly rows: RowsService,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly ttlMs: number,
    /** The shared queue that worker nodes take exports from (PostgreSQL); null: this process writes them. */
    private readonly jobs: JobQueue | null = null,
  ) {}

  private async require(projectId: string, exportId: string): Promise<ExportRecord> {
    const record = await this.port.exports.get(exportId);
    if (!record || record.project_id !== projectId) throw new ApiError(404, 'not_found', `Export ${exportId} not found`);
    return record;
  }

  /** Writes a record unless the export was purged meanwhile. */
  private update(record: ExportRecord): Promise<void> {
    return this.port.transaction(async (tx) => {
      if (await tx.exports.get(record.id)) await tx.exports.put(record);
    });
  }

  /**
   * Checks the request (a bad filter, order or search is a 400 now, not a failed export later),
   * records the export as processing, and starts writing its file.
   */
  async start(projectId: string, tableId: string, actorId: string, params: ExportParams): Promise<Export> {
    const table = await this.tables.requireActive(projectId, tableId);
    const since = params.since === undefined || params.since === '' ? null : parseSince(params.since);
    const filter = [params.filter, since === null ? undefined : `updated_at.gte.${since}`].filter((f) => f !== undefined && f !== '').join(',');
    const query = { filter: filter || undefined, order: params.order || table.default_sort || 'created_at.asc', q: params.search || undefined, limit: PAGE };
    await this.rows.checkList(projectId, tableId, query);
    const now = this.clock.now();
    const id = newId('exprt', now);
    const record: ExportRecord = {
      id,
      project_id: projectId,
      table_id: tableId,
      actor_id: actorId,
      checksum: '',
      status: 'processing',
      filter_json: JSON.stringify({ format: params.format, filter: params.filter ?? null, order: query.order, search: params.search ?? null, since, schema: params.schema === 'true' }),
      row_count: null,
      json_key: null,
      csv_key: null,
      xlsx_key: null,
      error: null,
      expires_at: now + this.ttlMs,
      created_at: now,
      updated_at: now,
      format: params.format,
    };
    await this.port.exports.put(record);
    const job: ExportJob = { export_id: id, project_id: projectId, query, with_schema: params.schema === 'true' };
    if (this.jobs) {
      await this.jobs.enqueue(EXPORT_JOB, id, job);
    } else {
      const work = this.write(record, table, query, job.with_schema).finally(() => this.running.delete(work));
      this.running.add(work);
    }
    return toExport(record);
  }

  /**
   * A worker's run of an export job: the file is written again from the start, so a run cut off
   * by a dead node is simply repeated by another.
   */
  async runJob(queued: QueuedJob): Promise<void> {
    const job = queued.payload as ExportJob;
    const record = await this.port.exports.get(job.export_id);
    if (!record || record.status !== 'processing') return;
    const table = record.table_id ? await this.port.tables.get(record.table_id) : undefined;
    if (!table || table.deleted_at !== null) {
      await this.update({ ...record, status: 'failed', error: `table ${record.table_id} was deleted before the export was written`, updated_at: this.clock.now() });
      return;
    }
    await this.write(record, table, job.query, job.with_schema);
  }

  private async write(record: ExportRecord, table: TableRecord, query: { filter?: string; order: string; q?: string; limit: number }, withSchema: boolean): Promise<void> {
    try {
      // Written where this node is, then stored whole: a run cut off leaves no file under the export's name.
      const { count, checksum } = await this.files.writeFrom(record, async (path) => {
        const writer = writerFor(record.format, path, table, withSchema);
        let count = 0;
        let cursor: string | undefined;
        do {
          const page = await this.rows.list(record.project_id, table.id, { ...query, cursor });
          await writer.page(page.rows as Array<Record<string, unknown>>);
          count += page.rows.length;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        await writer.end();
        return { count, checksum: await sha256OfFile(path) };
      });
      const download = `/v1/projects/${record.project_id}/exports/${record.id}/download`;
      await this.update({
        ...record,
        status: 'complete',
        row_count: count,
        checksum,
        [`${record.format}_key`]: download,
        updated_at: this.clock.now(),
      });
    } catch (error) {
      const message = error instanceof ApiError ? error.message : `the export could not be written: ${(error as Error).message}`;
      this.log.error('export_failed', { export_id: record.id, error: String((error as Error)?.stack ?? error) });
      await this.update({ ...record, status: 'failed', error: message.slice(0, 2048), updated_at: this.clock.now() });
    }
  }

  async get(projectId: string, exportId: string): Promise<Export> {
    return toExport(await this.require(projectId, exportId));
  }

  async download(projectId: string, exportId: string): Promise<FileDownload> {
    const record = await this.require(projectId, exportId);
    if (record.status === 'processing') throw new ApiError(400, 'invalid_input', `Export ${exportId} is still being written; poll it until its status is complete`);
    if (record.status === 'failed') throw new ApiError(400, 'invalid_input', `Export ${exportId} failed: ${record.error}`);
    const file = await this.files.open(record);
    if (!file) throw new ApiError(404, 'not_found', `Export ${exportId} has no file any more`);
    return {
      body: file.body,
      size: file.size,
      contentType: DOWNLOAD_TYPES[record.format],
      disposition: contentDisposition('attachment', `${record.id}.${record.format}`),
    };
  }

  /** Waits for the exports being written (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  /** Removes exports past their expiry, with their files; returns how many went. */
  async purgeExpired(): Promise<number> {
    const now = this.clock.now();
    const expired = await this.port.transaction(async (tx) => {
      // A backup copying export files holds off their deletion; the next run purges them.
      if (await tx.meta.filesHeld()) return [];
      const due = (await tx.exports.all()).filter((e) => e.expires_at !== null && e.expires_at <= now && e.status !== 'processing');
      for (const record of due) await tx.exports.remove(record);
      return due;
    });
    for (const record of expired) await this.files.remove(record);
    return expired.length;
  }

  /**
   * With a job queue: fails the exports that no worker will write (their job is dead, or there is
   * none and the export has not moved for `graceMs`). The others are their workers'. Temporary
   * files unwritten for `graceMs` are removed.
   */
  async sweep(graceMs: number): Promise<number> {
    if (!this.jobs) return 0;
    let failed = 0;
    // A writer killed mid-way (its job then ran again elsewhere) left its temporary file here.
    await this.files.removeIdleLeftovers(graceMs);
    for (const record of (await this.port.exports.all()).filter((e) => e.status === 'processing')) {
      const state = await this.jobs.state(EXPORT_JOB, record.id);
      if (state === 'queued' || state === 'running') continue;
      if (state === null && this.clock.now() - record.updated_at < graceMs) continue;
      await this.update({ ...record, status: 'failed', error: 'interrupted: no worker could write the export', updated_at: this.clock.now() });
      failed++;
    }
    return failed;
  }

  /** Exports a stopped process left half written are failed at start. */
  async recoverInterrupted(): Promise<number> {
    const stuck = (await this.port.exports.all()).filter((e) => e.status === 'processing');
    for (const record of stuck) {
      await this.files.removeLeftovers(record);
      await this.update({ ...record, status: 'failed', error: 'interrupted: the server stopped before the export was written', updated_at: this.clock.now() });
    }
    return stuck.length;
  }
}
