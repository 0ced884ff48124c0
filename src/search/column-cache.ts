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

export const MAX_DICTIONARY = 65_535;

/**
 * A growable column, stored by what it holds: only numbers in a Float64Array (NaN for no value),
 * strings of at most 65,535 distinct values as Uint16 codes into a dictionary (0 for no value; one
 * shared string per value, so equality is cheap), anything else in a plain array. A value that does
 * not fit its storage moves the column to a plain array.
 */
export class Column {
  private numbers: Float64Array | null = null;
  private codes: Uint16Array | null = null;
  private dictionary: string[] = [];
  private codeOf = new Map<string, number>();
  private values: unknown[] | null = null;

  constructor(initial: unknown[]) {
    const capacity = Math.max(16, initial.length);
    if (initial.every((v) => v === null || typeof v === 'number')) {
      this.numbers = new Float64Array(capacity).fill(NaN);
      initial.forEach((v, i) => v !== null && (this.numbers![i] = v as number));
    } else if (initial.every((v) => v === null || typeof v === 'string')) {
      this.codes = new Uint16Array(capacity);
      for (let i = 0; i < initial.length && this.codes; i++) if (initial[i] !== null) this.setCode(i, initial[i] as string, initial);
    } else {
      this.values = initial;
    }
  }

  /** Stores a string as a code; returns false (after unpacking) when the dictionary is full. */
  private setCode(i: number, value: string, initial?: unknown[]): boolean {
    let code = this.codeOf.get(value);
    if (code === undefined) {
      if (this.dictionary.length >= MAX_DICTIONARY) {
        this.unpack(initial);
        return false;
      }
      this.dictionary.push(value);
      code = this.dictionary.length;
      this.codeOf.set(value, code);
    }
    this.codes![i] = code;
    return true;
  }

  /** Moves to a plain array (of the given initial values while still building). */
  private unpack(initial?: unknown[]): void {
    if (initial) this.values = initial;
    else if (this.numbers) this.values = Array.from(this.numbers, (v) => (Number.isNaN(v) ? null : v));
    else if (this.codes) this.values = Array.from(this.codes, (c) => (c === 0 ? null : this.dictionary[c - 1]));
    this.numbers = null;
    this.codes = null;
    this.dictionary = [];
    this.codeOf = new Map();
  }

  private ensure(i: number): void {
    const grow = <A extends Float64Array | Uint16Array>(array: A, make: (n: number) => A): A => {
      if (i < array.length) return array;
      const grown = make(Math.max(i + 1, array.length * 2));
      grown.set(array);
      return grown;
    };
    if (this.numbers) this.numbers = grow(this.numbers, (n) => new Float64Array(n).fill(NaN));
    if (this.codes) this.codes = grow(this.codes, (n) => new Uint16Array(n));
  }

  set(i: number, value: unknown): void {
    this.ensure(i);
    if (this.numbers) {
      if (value === null || typeof value === 'number') {
        this.numbers[i] = value === null ? NaN : value;
        return;
      }
      this.unpack();
    } else if (this.codes) {
      if (value === null) {
        this.codes[i] = 0;
        return;
      }
      if (typeof value === 'string' && this.setCode(i, value)) return;
      if (this.codes) this.unpack();
    }
    this.values![i] = value;
  }

  /** A reader by position, with no per-call branching on the storage kind. */
  reader(): (i: number) => unknown {
    const { numbers, codes, dictionary, values } = this;
    if (numbers) {
      return (i) => {
        const v = numbers[i]!;
        return v === v ? v : null;
      };
    }
    if (codes) {
      const table: Array<string | null> = [null, ...dictionary];
      return (i) => table[codes[i]!] ?? null;
    }
    return (i) => values![i] ?? null;
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

/** Rows read per step of a background build, so a request waits at most one step's time. */
const WARM_CHUNK = 1000;

export class ColumnCache {
  private readonly tables = new Map<string, TableColumns>();
  private readonly warming = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private readonly rows: RowsStore) {}

  /** Stops background builds; call before the store closes. */
  close(): void {
    this.closed = true;
    for (const timer of this.warming.values()) clearTimeout(timer);
    this.warming.clear();
  }

  /**
   * Readers by row id for `slots`, only when the cache already holds them at the table's current
   * version (never building anything); `at(id)` is undefined for a row the cache does not know.
   */
  peek(table: TableRecord, slots: number[]): { at: (id: string) => number | undefined; reader: (slot: number) => (i: number) => unknown } | null {
    const entry = this.tables.get(table.id);
    if (!entry || entry.version !== table.data_version || !slots.every((s) => entry.slots.has(s))) return null;
    return { at: (id) => entry.positions.get(id), reader: (slot) => entry.slots.get(slot)!.reader() };
  }

  /**
   * Builds the cache of `slots` in the background, a chunk per timer tick. `current` reads the
   * table again at the end: a build overtaken by a write is thrown away (the next walk asks again).
   */
  warm(table: TableRecord, slots: number[], current: () => TableRecord | undefined): void {
    if (this.closed || this.warming.has(table.id) || this.peek(table, slots)) return;
    const ids: string[] = [];
    const arrays = slots.map(() => [] as unknown[]);
    let after: string | undefined;
    const step = () => {
      try {
        let n = 0;
        for (const row of this.rows.scanRows(table.seq, false, after)) {
          ids.push(row.id);
          slots.forEach((slot, k) => arrays[k]!.push(slotValue(row, slot)));
          after = row.id;
          if (++n >= WARM_CHUNK) return void this.warming.set(table.id, setTimeout(step, 0));
        }
      } catch {
        // The table went away under the build (or the store is closing): nothing to keep.
        this.warming.delete(table.id);
        return;
      }
      this.warming.delete(table.id);
      if (this.closed || current()?.data_version !== table.data_version) return;
      const positions = new Map(ids.map((id, i) => [id, i]));
      const built = new Map(slots.map((slot, k) => [slot, new Column(arrays[k]!)]));
      const existing = this.tables.get(table.id);
      if (existing?.version === table.data_version) {
        for (const [slot, column] of built) if (!existing.slots.has(slot)) existing.slots.set(slot, column);
        return;
      }
      this.tables.set(table.id, { version: table.data_version, ids, positions, slots: built, live: ids.length });
    };
    this.warming.set(table.id, setTimeout(step, 0));
  }

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
