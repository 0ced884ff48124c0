/**
 * Tables and their indexes: by project (listing), by slug among active tables (uniqueness), and by
 * deletion time (the purge). Callers change a table and its index entries in one transaction.
 */
import type { Table } from '../domain/tables';
import { recordsUnder, type Store } from './db';

/** A table as the API gives it, plus what only the service sees. */
export interface TableRecord extends Table {
  /** Counts definition changes; the ETag is made from it. Never sent to clients. */
  revision: number;
  /** Internal number of the table in row keys (short keys, and never reused). */
  seq: number;
  /** Where each column's values live in a row; a re-added column gets a new slot, so old values never return. */
  slots: Record<string, number>;
  next_slot: number;
  /** Slots of removed columns whose index entries are still to be cleaned up. */
  dropped_slots: number[];
  /** Slots whose index is being (re)built; queries do not use them until it is complete. */
  pending_slots: number[];
}

export class TablesStore {
  constructor(private readonly store: Store) {}

  private get tables() {
    return this.store.db<TableRecord, string>('tables');
  }
  private get byProject() {
    return this.store.db<true, [string, string]>('project_tables');
  }
  private get slugs() {
    return this.store.db<string, [string, string]>('table_slugs');
  }
  private get deleted() {
    return this.store.db<true, [number, string]>('deleted_tables');
  }

  get(id: string): TableRecord | undefined {
    return this.tables.get(id);
  }

  /** The active table of a project holding `slug`, if any. */
  slugOwner(projectId: string, slug: string): string | undefined {
    return this.slugs.get([projectId, slug]);
  }

  listProject(projectId: string): TableRecord[] {
    return recordsUnder(this.byProject, this.tables, projectId);
  }

  /**
   * Writes a table and moves its index entries from `previous` (if any). Call inside a transaction.
   */
  put(table: TableRecord, previous?: TableRecord): void {
    if (previous) {
      if (previous.deleted_at === null) this.slugs.removeSync([previous.project_id, previous.slug]);
      else this.deleted.removeSync([previous.deleted_at, previous.id]);
    } else {
      this.byProject.putSync([table.project_id, table.id], true);
    }
    if (table.deleted_at === null) this.slugs.putSync([table.project_id, table.slug], table.id);
    else this.deleted.putSync([table.deleted_at, table.id], true);
    this.tables.putSync(table.id, table);
  }

  /** Rewrites a table whose slug and deletion state are unchanged (counters). Call inside a transaction. */
  putRecord(table: TableRecord): void {
    this.tables.putSync(table.id, table);
  }

  /** Tables that are not deleted and hold more than `rows` rows. */
  activeLargerThan(rows: number): TableRecord[] {
    return [...this.tables.getRange().filter(({ value }) => value.deleted_at === null && value.row_count > rows).map(({ value }) => value)];
  }

  /** The tables with these internal numbers (deleted ones too). */
  withSeqs(seqs: Set<number>): TableRecord[] {
    return [...this.tables.getRange().filter(({ value }) => seqs.has(value.seq)).map(({ value }) => value)];
  }

  /** Tables with index work left: removed columns to clean up or slots to build. */
  withSlotWork(): TableRecord[] {
    return [
      ...this.tables
        .getRange()
        .filter(({ value }) => value.dropped_slots.length > 0 || value.pending_slots.length > 0)
        .map(({ value }) => value),
    ];
  }

  /** Ids of tables soft-deleted at or before `cutoff`. */
  deletedBefore(cutoff: number): string[] {
    return [...this.deleted.getRange({ start: [0], end: [cutoff, '\uffff'] }).map(({ key }) => key[1])];
  }

  /** Removes a table and its index entries. Call inside a transaction. */
  remove(table: TableRecord): void {
    this.byProject.removeSync([table.project_id, table.id]);
    if (table.deleted_at === null) this.slugs.removeSync([table.project_id, table.slug]);
    else this.deleted.removeSync([table.deleted_at, table.id]);
    this.tables.removeSync(table.id);
  }
}
