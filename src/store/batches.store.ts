/**
 * Extraction batches, their per-file extraction records, and the rows each batch produced (kept for
 * the batch downloads, whatever the table's insert mode did with them).
 */
import { batchUnderWay, type ActorType, type BatchStatus, type ExtractionStatus, type FileType } from '../domain/batches';
import type { Column } from '../domain/columns';
import type { InsertMode, Strictness } from '../domain/tables';
import { recordsUnder, type Store } from './db';

export interface SchemaJson {
  columns: Column[];
  instruction: string | null;
  strictness: Strictness;
}

export interface BatchRecord {
  id: string;
  project_id: string;
  table_id: string | null;
  actor_type: ActorType;
  actor_id: string;
  schema_json: SchemaJson;
  insert_mode: InsertMode | null;
  status: BatchStatus;
  file_count: number;
  files_done: number;
  current_file: string | null;
  csv_key: string | null;
  json_key: string | null;
  xlsx_key: string | null;
  total_rows: number | null;
  confidence: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  /** Internal: the batch's extraction ids in file order, and its file names for `q`. */
  extraction_ids: string[];
  file_names: string[];
  /** Internal: rows of the files done so far, for progress (`total_rows` is set at the end). */
  rows_done?: number;
}

export interface ExtractionRecord {
  id: string;
  batch_id: string;
  table_id: string | null;
  file_key: string;
  file_name: string;
  file_type: FileType | null;
  file_checksum: string | null;
  status: ExtractionStatus;
  rows_key: string | null;
  row_count: number | null;
  confidence: number | null;
  error: string | null;
  created_at: number;
  /** Internal: the content type the file came with (or was detected as), for inline downloads. */
  content_type: string;
}

/** A row a batch produced: values by column id. */
export interface BatchRow {
  extraction_id: string;
  values: Record<string, unknown>;
  confidence: number;
}

export class BatchesStore {
  constructor(private readonly store: Store) {}

  private get batches() {
    return this.store.db<BatchRecord, string>('batches');
  }
  private get byProject() {
    return this.store.db<true, [string, string]>('project_batches');
  }
  private get extractions() {
    return this.store.db<ExtractionRecord, string>('extractions');
  }
  private get rows() {
    return this.store.db<BatchRow, [string, number]>('batch_rows');
  }

  get(id: string): BatchRecord | undefined {
    return this.batches.get(id);
  }

  listProject(projectId: string): BatchRecord[] {
    return recordsUnder(this.byProject, this.batches, projectId);
  }

  /** Batches that never reached an end state (the process stopped under them). */
  unfinished(): BatchRecord[] {
    return [...this.batches.getRange().filter(({ value }) => batchUnderWay(value.status)).map(({ value }) => value)];
  }

  /** Call inside a transaction. */
  put(batch: BatchRecord): void {
    this.byProject.putSync([batch.project_id, batch.id], true);
    this.batches.putSync(batch.id, batch);
  }

  getExtraction(id: string): ExtractionRecord | undefined {
    return this.extractions.get(id);
  }

  /** Call inside a transaction. */
  putExtraction(extraction: ExtractionRecord): void {
    this.extractions.putSync(extraction.id, extraction);
  }

  /** Appends rows after the batch's last one. Call inside a transaction. */
  addRows(batchId: string, rows: BatchRow[]): void {
    let next = 0;
    for (const { key } of this.rows.getRange({ start: [batchId, Infinity], end: [batchId, -Infinity], reverse: true, limit: 1 })) next = key[1] + 1;
    rows.forEach((row, i) => this.rows.putSync([batchId, next + i], row));
  }

  batchRows(batchId: string): BatchRow[] {
    return [...this.rows.getRange({ start: [batchId, -Infinity], end: [batchId, Infinity] }).map(({ value }) => value)];
  }
}
