/** Table exports: their records in LMDB, their files under `exports/` in the files' storage. */
import type { ExportFormat, ExportStatus } from '../domain/exports';
import type { Store } from './db';
import type { FileContent, FileStorage } from './files/storage';

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

type ExportFile = Pick<ExportRecord, 'id' | 'format'>;

/** An export's file, relative to the files' storage: named by the export's id, so never rewritten. */
/** The folder of the exports' files, among the files' keys. */
const EXPORTS_FOLDER = 'exports';

export function exportFileKey(record: ExportFile): string {
  return `${EXPORTS_FOLDER}/${record.id}.${record.format}`;
}

/** Export files in the files' storage: written by whichever node runs the export, downloaded from any. */
export class ExportFiles {
  constructor(private readonly storage: FileStorage) {}

  /** `fill` writes the file at a local temporary path; it then becomes the export's file, whole. */
  writeFrom<T>(record: ExportFile, fill: (path: string) => Promise<T>): Promise<T> {
    return this.storage.writeFrom(exportFileKey(record), fill);
  }

  /** The file to stream; null when there is none. */
  open(record: ExportFile): Promise<FileContent | null> {
    return this.storage.open(exportFileKey(record));
  }

  remove(record: ExportFile): Promise<void> {
    return this.storage.remove(exportFileKey(record));
  }

  /** Removes what writers of the export stopped mid-way left. */
  removeLeftovers(record: ExportFile): Promise<void> {
    return this.storage.removeLeftovers(exportFileKey(record));
  }

  /** Removes what writers of any export left, unwritten for `idleMs`: one look at the folder. */
  removeIdleLeftovers(idleMs: number): Promise<void> {
    return this.storage.removeIdleLeftovers(EXPORTS_FOLDER, idleMs);
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
