/** Table exports: their records in LMDB, their files under DATA_DIR/exports. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportFormat, ExportStatus } from '../domain/exports';
import type { Store } from './db';

export interface ExportRecord {
  id: string;
  project_id: string;
  table_id: string | null;
  actor_id: string;
  /** SHA-256 of the file; empty until it is written. */
  checksum: string;
  status: ExportStatus;
  /** What was asked for: format, filter, order, search, since, schema. */
  filter_json: string | null;
  row_count: number | null;
  json_key: string | null;
  csv_key: string | null;
  xlsx_key: string | null;
  error: string | null;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
  /** Internal: the format made, for the download. */
  format: ExportFormat;
}

/** An export's file, relative to DATA_DIR: named by the export's id, so never rewritten. */
export function exportFileKey(record: Pick<ExportRecord, 'id' | 'format'>): string {
  return `exports/${record.id}.${record.format}`;
}

/** Export files under DATA_DIR/exports. */
export class ExportFiles {
  constructor(private readonly dataDir: string) {}

  /** Where an export's file lives. */
  filePath(record: Pick<ExportRecord, 'id' | 'format'>): string {
    return join(this.dataDir, exportFileKey(record));
  }

  removeFile(record: ExportRecord): void {
    rmSync(this.filePath(record), { force: true });
  }
}

export class ExportsStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db<ExportRecord, string>('exports');
  }

  get(id: string): ExportRecord | undefined {
    return this.db.get(id);
  }

  /** Call inside a transaction. */
  put(record: ExportRecord): void {
    this.db.putSync(record.id, record);
  }

  all(): ExportRecord[] {
    return [...this.db.getRange().map(({ value }) => value)];
  }

  /** Call inside a transaction; remove the file once it has committed. */
  remove(record: ExportRecord): void {
    this.db.removeSync(record.id);
  }
}
