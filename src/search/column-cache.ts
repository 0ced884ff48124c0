/**
 * Column values held in memory for aggregates: one array per column slot, in row order, built
 * from LMDB on first use and kept in step with committed writes. It is derived data like the
 * search index: a cache whose version is not the table's `data_version` is thrown away and built
 * again, so it never answers from stale values.
 */
import { slotValue, type RowRecord, type RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

interface TableColumns {
  version: number;
  /** Row ids by position; null where a row was deleted. */
  ids: Array<string | null>;
  positions: Map<string, number>;
  /** Values by slot, by position (built per slot on first use). */
  slots: Map<number, unknown[]>;
  /** How many positions hold a live row. */
  live: number;
}

export class ColumnCache {
  private readonly tables = new Map<string, TableColumns>();

  constructor(private readonly rows: RowsStore) {}

  /** Row ids by position (null for deleted rows) and the value arrays of the given slots. */
  columns(table: TableRecord, slots: number[]): { ids: Array<string | null>; values: (slot: number) => unknown[] } {
    let entry = this.tables.get(table.id);
    if (!entry || entry.version !== table.data_version) {
      // One pass over the rows gives the positions and the slots asked for.
      entry = { version: table.data_version, ids: [], positions: new Map(), slots: new Map(), live: 0 };
      const arrays = slots.map(() => [] as unknown[]);
      for (const row of this.rows.scanRows(table.seq, false)) {
        entry.positions.set(row.id, entry.ids.length);
        entry.ids.push(row.id);
        slots.forEach((slot, k) => arrays[k]!.push(slotValue(row, slot)));
      }
      slots.forEach((slot, k) => entry!.slots.set(slot, arrays[k]!));
      entry.live = entry.ids.length;
      this.tables.set(table.id, entry);
    }
    const missing = slots.filter((s) => !entry!.slots.has(s));
    if (missing.length) {
      const arrays = missing.map(() => new Array<unknown>(entry!.ids.length).fill(null));
      for (const row of this.rows.scanRows(table.seq, false)) {
        const i = entry.positions.get(row.id);
        if (i === undefined) continue;
        missing.forEach((slot, k) => (arrays[k]![i] = slotValue(row, slot)));
      }
      missing.forEach((slot, k) => entry!.slots.set(slot, arrays[k]!));
    }
    const e = entry;
    return { ids: e.ids, values: (slot) => e.slots.get(slot)! };
  }

  /** Applies one committed write; a cache that was not at the version before it is dropped. */
  apply(table: TableRecord, changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }): void {
    const entry = this.tables.get(table.id);
    if (!entry) return;
    if (changes.cleared || entry.version !== table.data_version - 1) {
      this.tables.delete(table.id);
      return;
    }
    for (const id of changes.removed ?? []) {
      const i = entry.positions.get(id);
      if (i === undefined) continue;
      entry.ids[i] = null;
      entry.positions.delete(id);
      entry.live--;
    }
    for (const row of changes.upserted ?? []) {
      let i = entry.positions.get(row.id);
      if (i === undefined) {
        i = entry.ids.length;
        entry.ids.push(row.id);
        entry.positions.set(row.id, i);
        entry.live++;
      }
      for (const [slot, values] of entry.slots) values[i] = slotValue(row, slot);
    }
    // Mostly deleted: start afresh rather than carry the holes.
    if (entry.ids.length > 1024 && entry.live < entry.ids.length / 2) this.tables.delete(table.id);
    else entry.version = table.data_version;
  }

  drop(tableId: string): void {
    this.tables.delete(tableId);
  }
}
