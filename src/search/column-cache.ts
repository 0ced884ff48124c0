/**
 * Column values held in memory for aggregates: one array per column slot, in row order, built
 * from LMDB on first use and kept in step with committed writes. It is derived data like the
 * search index: a cache whose version is not the table's `data_version` is thrown away and built
 * again, so it never answers from stale values.
 *
 * Slots holding only numbers live in a Float64Array (NaN for no value: stored numbers are always
 * finite), which keeps a million values off the garbage collector's heap; any other slot is a
 * plain array.
 */
import { slotValue, type RowRecord, type RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

/** A growable column: numbers packed, or anything in a plain array. */
class Column {
  private numbers: Float64Array | null;
  private values: unknown[] | null = null;

  constructor(initial: unknown[]) {
    if (initial.every((v) => v === null || typeof v === 'number')) {
      this.numbers = new Float64Array(Math.max(16, initial.length));
      initial.forEach((v, i) => (this.numbers![i] = v === null ? NaN : (v as number)));
    } else {
      this.numbers = null;
      this.values = initial;
    }
  }

  get(i: number): unknown {
    if (this.numbers) {
      const v = this.numbers[i]!;
      return Number.isNaN(v) ? null : v;
    }
    return this.values![i] ?? null;
  }

  set(i: number, value: unknown): void {
    if (this.numbers) {
      if (value === null || typeof value === 'number') {
        if (i >= this.numbers.length) {
          const grown = new Float64Array(Math.max(i + 1, this.numbers.length * 2)).fill(NaN);
          grown.set(this.numbers);
          this.numbers = grown;
        }
        this.numbers[i] = value === null ? NaN : value;
        return;
      }
      // A value of another kind (a flexible table's text in a number column): unpack.
      this.values = Array.from(this.numbers, (v) => (Number.isNaN(v) ? null : v));
      this.numbers = null;
    }
    this.values![i] = value;
  }

  /** A reader by position, with no per-call branching on the storage kind. */
  reader(): (i: number) => unknown {
    const numbers = this.numbers;
    if (numbers) {
      return (i) => {
        const v = numbers[i]!;
        return v === v ? v : null;
      };
    }
    const values = this.values!;
    return (i) => values[i] ?? null;
  }
}

interface TableColumns {
  version: number;
  /** Row ids by position; null where a row was deleted. */
  ids: Array<string | null>;
  positions: Map<string, number>;
  slots: Map<number, Column>;
  /** How many positions hold a live row. */
  live: number;
}

export class ColumnCache {
  private readonly tables = new Map<string, TableColumns>();

  constructor(private readonly rows: RowsStore) {}

  /** Row ids by position (null for deleted rows) and readers by position of the given slots. */
  columns(table: TableRecord, slots: number[]): { ids: Array<string | null>; reader: (slot: number) => (i: number) => unknown } {
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
      slots.forEach((slot, k) => entry!.slots.set(slot, new Column(arrays[k]!)));
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
      missing.forEach((slot, k) => entry!.slots.set(slot, new Column(arrays[k]!)));
    }
    const e = entry;
    return { ids: e.ids, reader: (slot) => e.slots.get(slot)!.reader() };
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
      for (const [slot, column] of entry.slots) column.set(i, slotValue(row, slot));
    }
    // Mostly deleted: start afresh rather than carry the holes.
    if (entry.ids.length > 1024 && entry.live < entry.ids.length / 2) this.tables.delete(table.id);
    else entry.version = table.data_version;
  }

  drop(tableId: string): void {
    this.tables.delete(tableId);
  }
}
