/**
 * Column values held in memory for aggregates and filtered walks: one array per column slot, in
 * row order, for every column of a table at once. Built from LMDB in the background (a time slice
 * at a time, through the build queue), following the writes that commit meanwhile, and kept in
 * step with committed writes after. It is derived data like the search index: a cache whose
 * version is not the table's `data_version` is not used, so it never answers from stale values.
 *
 * Slots holding only numbers live in a Float64Array (NaN for no value: stored numbers are always
 * finite), which keeps a million values off the garbage collector's heap; any other slot is a
 * plain array.
 */
import { BUILD_AT_ONCE_ROWS, type BuildQueue } from './builds';
import { firstNotBefore } from '../lib/bisect';
import { ApiError } from '../lib/errors';
import { ownString } from '../lib/strings';
import { SYSTEM_SLOTS, slotValue, type RowRecord, type RowsStore } from '../store/rows.store';
import { SortedOrder, type SortableColumn } from './sorted-order';
import type { TableRecord } from '../store/tables.store';

export const MAX_DICTIONARY = 65_535;

/** A value as the cache keeps it: strings as copies of their own (see ownString). */
function held(value: unknown): unknown {
  return typeof value === 'string' ? ownString(value) : value;
}

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
  /** Positions seen while no value decided the storage (every value so far null). */
  private length = 0;

  /** Storage is chosen from `initial`, or when no value is given yet, from the first value set. */
  constructor(initial: unknown[] = []) {
    const capacity = Math.max(16, initial.length);
    if (initial.every((v) => v === null)) {
      this.length = initial.length;
    } else if (initial.every((v) => v === null || typeof v === 'number')) {
      this.numbers = new Float64Array(capacity).fill(NaN);
      initial.forEach((v, i) => v !== null && (this.numbers![i] = v as number));
    } else if (initial.every((v) => v === null || typeof v === 'string')) {
      this.codes = new Uint16Array(capacity);
      for (let i = 0; i < initial.length && this.codes; i++) if (initial[i] !== null) this.setCode(i, initial[i] as string, initial);
    } else {
      this.values = initial.map(held);
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
      const own = ownString(value);
      this.dictionary.push(own);
      code = this.dictionary.length;
      this.codeOf.set(own, code);
    }
    this.codes![i] = code;
    return true;
  }

  /** Moves to a plain array (of the given initial values while still building). */
  private unpack(initial?: unknown[]): void {
    if (initial) this.values = initial.map(held);
    else if (this.numbers) this.values = Array.from(this.numbers, (v) => (Number.isNaN(v) ? null : v));
    else if (this.codes) this.values = Array.from(this.codes, (c) => (c === 0 ? null : this.dictionary[c - 1]));
    this.numbers = null;
    this.codes = null;
    this.dictionary = [];
    this.codeOf = new Map();
  }

  private ensure(i: number): void {
    if (this.numbers && i >= this.numbers.length) {
      const grown = new Float64Array(Math.max(i + 1, this.numbers.length * 2)).fill(NaN);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    if (this.codes && i >= this.codes.length) {
      const grown = new Uint16Array(Math.max(i + 1, this.codes.length * 2));
      grown.set(this.codes);
      this.codes = grown;
    }
  }

  /** No storage yet: the first value decides it (numbers, codes or plain values), nulls so far stay null. */
  private decide(i: number, value: unknown): void {
    const capacity = Math.max(16, this.length, i + 1);
    if (value === null || typeof value === 'number') this.numbers = new Float64Array(capacity).fill(NaN);
    else if (typeof value === 'string') this.codes = new Uint16Array(capacity);
    else this.values = [];
  }

  private get undecided(): boolean {
    return this.numbers === null && this.codes === null && this.values === null;
  }

  set(i: number, value: unknown): void {
    if (this.undecided) {
      if (value === null) {
        this.length = Math.max(this.length, i + 1);
        return;
      }
      this.decide(i, value);
    }
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
    this.values![i] = held(value);
  }

  /** The storage an order can be sorted from: numbers or dictionary codes (not plain values). */
  sortable(): SortableColumn | null {
    // A column of nulls only sorts as numbers (all of them absent).
    if (this.undecided) this.decide(0, null);
    if (this.numbers) return { numbers: this.numbers };
    if (this.codes) return { codes: this.codes, dictionary: this.dictionary };
    return null;
  }

  /**
   * How many live positions hold each value (nulls left out), or null when there are more than
   * `limit` distinct values or the column is a plain array (lists and mixed values are counted
   * from the index, by element).
   */
  counts(ids: Array<string | null>, limit: number): Map<string | number, number> | null {
    const out = new Map<string | number, number>();
    if (this.undecided) return out;
    if (this.codes) {
      const codes = this.codes;
      const tally = new Uint32Array(this.dictionary.length + 1);
      for (let i = 0; i < ids.length; i++) if (ids[i] !== null) tally[codes[i]!]!++;
      for (let code = 1; code < tally.length; code++) if (tally[code]) out.set(this.dictionary[code - 1]!, tally[code]!);
      return out.size > limit ? null : out;
    }
    if (this.numbers) {
      const numbers = this.numbers;
      for (let i = 0; i < ids.length; i++) {
        const v = numbers[i]!;
        if (ids[i] === null || v !== v) continue;
        out.set(v, (out.get(v) ?? 0) + 1);
        if (out.size > limit) return null;
      }
      return out;
    }
    return null;
  }

  /** A reader by position, with no per-call branching on the storage kind. */
  reader(): (i: number) => unknown {
    if (this.undecided) return () => null;
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
  /** Positions by row id, only once positions stop following ids (until then ids are searched: a million ids' map is some 50 MB). */
  positions: Map<string, number> | null;
  slots: Map<number, Column>;
  /** How many positions hold a live row. */
  live: number;
  /** Positions follow row id order, so sorted orders can break ties by position. */
  idOrdered: boolean;
  /** Sorted orders made so far, by slot (null: the column cannot have one). */
  orders: Map<number, SortedOrder | null>;
}

/**
 * A build under way: its columns filled row by row (so a million rows leave no plain arrays of
 * boxed values behind for the collector), kept in step with writes as they commit.
 */
interface Building {
  version: number;
  /** The last row id scanned. */
  after?: string;
  ids: Array<string | null>;
  positions: Map<string, number>;
  slots: number[];
  columns: Column[];
  /** A change it could not follow (columns changed, or every row replaced): thrown away when done. */
  stale: boolean;
  waiters: Array<() => void>;
}

export type ColumnReaders = { ids: Array<string | null>; at: (id: string) => number | undefined; reader: (slot: number) => (i: number) => unknown };

/** Every slot the cache holds for a table: each column's and the indexed system fields'. */
function allSlots(table: TableRecord): number[] {
  return [...Object.values(SYSTEM_SLOTS), ...table.columns_json.map((c) => table.slots[c.id]!)];
}

export class ColumnCache {
  private readonly tables = new Map<string, TableColumns>();
  private readonly building = new Map<string, Building>();

  constructor(
    private readonly rows: RowsStore,
    private readonly builds: BuildQueue,
    private readonly current: (tableId: string) => TableRecord | undefined,
  ) {}

  /**
   * Readers by row id and position for `slots`, only when the cache already holds them at the
   * table's current version (never building anything); `at(id)` is undefined for an unknown row.
   */
  peek(table: TableRecord, slots: number[]): ColumnReaders | null {
    return this.readers(table.id, slots, table.data_version, table.data_version);
  }

  /** The cache's own copy of a row id (for other in-memory indexes to share), if it holds the row. */
  idString(tableId: string, id: string): string | undefined {
    const entry = this.tables.get(tableId);
    const i = entry && positionOf(entry, id);
    return i === undefined ? undefined : entry!.ids[i]!;
  }

  /** How many rows hold each value of a slot, when the cache is current and can tell (see `Column.counts`). */
  counts(table: TableRecord, slot: number, limit: number): Map<string | number, number> | null {
    const entry = this.tables.get(table.id);
    if (!entry || entry.version !== table.data_version) return null;
    return entry.slots.get(slot)?.counts(entry.ids, limit) ?? null;
  }

  /** Readers when the cache holds `slots` at a version between `low` and `high`. */
  private readers(tableId: string, slots: number[], low: number, high: number): ColumnReaders | null {
    const entry = this.tables.get(tableId);
    if (!entry || entry.version < low || entry.version > high || !slots.every((s) => entry.slots.has(s))) return null;
    return { ids: entry.ids, at: (id) => positionOf(entry, id), reader: (slot) => entry.slots.get(slot)!.reader() };
  }

  /** Starts building every slot of the table (a small table's at once, others in the background), unless it is held or under way. */
  request(table: TableRecord): void {
    if (this.peek(table, allSlots(table)) || this.building.has(table.id)) return;
    const building = this.start(table);
    const task = {
      key: `columns:${table.id}`,
      step: (deadline: number) => this.step(table.seq, building, deadline),
      done: (error?: unknown) => this.finish(table.id, building, error !== undefined),
    };
    if (!this.builds.add(task, table.row_count <= BUILD_AT_ONCE_ROWS)) this.building.delete(table.id);
  }

  /**
   * The readers of `slots`, building them first when needed. They
   * hold the rows as committed at the table's version or later: a write whose table record is
   * visible may not have reached the cache yet when its build ends.
   */
  async load(table: TableRecord, slots: number[]): Promise<ColumnReaders> {
    const since = table.data_version;
    for (let attempt = 0; attempt < 3; attempt++) {
      const ready = this.readers(table.id, slots, since, Infinity);
      if (ready) return ready;
      this.request(table);
      const building = this.building.get(table.id);
      if (building) await new Promise<void>((resolve) => building.waiters.push(resolve));
      table = this.current(table.id) ?? table;
    }
    // Writes that the cache cannot follow kept overtaking the build.
    throw new ApiError(503, 'service_unavailable', 'This table is changing too fast to aggregate; try again shortly', {}, { 'Retry-After': '1' });
  }

  private start(table: TableRecord): Building {
    const slots = allSlots(table);
    const building: Building = { version: table.data_version, ids: [], positions: new Map(), slots, columns: slots.map(() => new Column()), stale: false, waiters: [] };
    this.building.set(table.id, building);
    return building;
  }

  /** Scans rows in id order from where it stopped until the deadline; true once at the end. */
  private step(seq: number, building: Building, deadline: number): boolean {
    if (building.stale) return true;
    let n = 0;
    for (const row of this.rows.scanRows(seq, false, building.after)) {
      building.after = row.id;
      this.put(building, row);
      if ((++n & 255) === 0 && performance.now() >= deadline) return false;
    }
    return true;
  }

  private put(building: Building, row: RowRecord): void {
    let i = building.positions.get(row.id);
    if (i === undefined) {
      i = building.ids.length;
      const id = ownString(row.id);
      building.ids.push(id);
      building.positions.set(id, i);
    }
    const at = i;
    for (let k = 0; k < building.slots.length; k++) building.columns[k]!.set(at, slotValue(row, building.slots[k]!));
  }

  /** Ends a build: a complete one becomes the table's cache; a failed one (or one closed early) is dropped. */
  private finish(tableId: string, building: Building, failed = false): void {
    if (this.building.get(tableId) === building) this.building.delete(tableId);
    // Kept even when the table has moved on: the writes still to arrive bring it up to date, and
    // one that never will (columns changed) leaves its version behind, so it is not used.
    if (!failed && !building.stale && this.current(tableId)) {
      let live = 0;
      for (const id of building.ids) if (id !== null) live++;
      const slots = new Map(building.slots.map((slot, k) => [slot, building.columns[k]!]));
      const idOrdered = ascending(building.ids);
      this.tables.set(tableId, { version: building.version, ids: building.ids, positions: idOrdered ? null : building.positions, slots, live, idOrdered, orders: new Map() });
    }
    for (const resolve of building.waiters) resolve();
  }

  /**
   * Applies one committed write; a cache (or build) that was not at the version before it is
   * dropped. One already at the write's version may have read the table between the write's
   * transaction and this call (a table record is visible before its write's changes arrive here);
   * applying the changes again is harmless.
   */
  apply(table: TableRecord, changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }): void {
    const follows = (version: number) => version === table.data_version - 1 || version === table.data_version;
    const building = this.building.get(table.id);
    if (building && !building.stale) {
      if (changes.cleared || !follows(building.version)) {
        building.stale = true;
      } else {
        building.version = table.data_version;
        for (const id of changes.removed ?? []) {
          const i = building.positions.get(id);
          if (i === undefined) continue;
          building.ids[i] = null;
          building.positions.delete(id);
          for (const column of building.columns) column.set(i, null);
        }
        // A row the scan has not reached yet is left to it, so positions keep row id order.
        for (const row of changes.upserted ?? []) if (building.positions.has(row.id) || (building.after !== undefined && row.id <= building.after)) this.put(building, row);
      }
    }
    const entry = this.tables.get(table.id);
    if (!entry) return;
    if (changes.cleared || !follows(entry.version)) {
      this.tables.delete(table.id);
      return;
    }
    for (const id of changes.removed ?? []) {
      const i = positionOf(entry, id);
      if (i === undefined) continue;
      entry.ids[i] = null;
      entry.positions?.delete(id);
      entry.live--;
    }
    for (const row of changes.upserted ?? []) {
      let i = positionOf(entry, row.id);
      if (i === undefined) {
        i = entry.ids.length;
        const id = ownString(row.id);
        const last = entry.idOrdered ? lastId(entry.ids) : undefined;
        if (last !== undefined && id <= last) {
          entry.idOrdered = false;
          entry.positions = new Map();
          entry.ids.forEach((live, k) => live !== null && entry.positions!.set(live, k));
        }
        entry.ids.push(id);
        entry.positions?.set(id, i);
        entry.live++;
      }
      for (const [slot, column] of entry.slots) column.set(i, slotValue(row, slot));
      for (const order of entry.orders.values()) order?.dirty.add(i);
    }
    // Mostly deleted: start afresh rather than carry the holes.
    if (entry.ids.length > 1024 && entry.live < entry.ids.length / 2) this.tables.delete(table.id);
    else entry.version = table.data_version;
  }

  /**
   * The rows of a column in index order, when the cache is current and holds the column as numbers
   * or codes (sorted on first use, and again after many writes); null otherwise.
   */
  sorted(table: TableRecord, slot: number): SortedOrder | null {
    const entry = this.tables.get(table.id);
    if (!entry || entry.version !== table.data_version || !entry.idOrdered) return null;
    let order = entry.orders.get(slot);
    if (order === undefined) {
      const column = entry.slots.get(slot);
      order = column ? SortedOrder.of(() => column.sortable(), entry.ids) : null;
      entry.orders.set(slot, order);
    }
    if (!order || !order.usable()) return null;
    if (order.stale()) order.sort();
    return order;
  }

  /** The cache's rows in creation (= id) order by position, when it is current and positions follow ids. */
  creationOrder(table: TableRecord): { walk(desc: boolean, afterId?: string, skip?: number): Generator<{ id: string; position: number }> } | null {
    const entry = this.tables.get(table.id);
    if (!entry || entry.version !== table.data_version || !entry.idOrdered) return null;
    const ids = entry.ids;
    return {
      /** Live rows past `afterId`, passing over the first `skip` of them without yielding. */
      *walk(desc, afterId, skip = 0) {
        // Rows past `afterId`: the first position whose live id is above it (asc), or below it (desc).
        const start = afterId === undefined ? (desc ? ids.length : 0) : firstAbove(ids, afterId, desc);
        let left = skip;
        if (desc) {
          for (let i = start - 1; i >= 0; i--) if (ids[i] !== null && left-- <= 0) yield { id: ids[i]!, position: i };
        } else {
          for (let i = start; i < ids.length; i++) if (ids[i] !== null && left-- <= 0) yield { id: ids[i]!, position: i };
        }
      },
    };
  }

  drop(tableId: string): void {
    this.tables.delete(tableId);
    const building = this.building.get(tableId);
    if (building) building.stale = true;
  }
}

/** A live row's position: from the map, or searched for while positions follow ids. */
function positionOf(entry: TableColumns, id: string): number | undefined {
  if (entry.positions) return entry.positions.get(id);
  const i = firstAbove(entry.ids, id, true);
  return entry.ids[i] === id ? i : undefined;
}

/** Whether the live ids are in ascending order. */
function ascending(ids: Array<string | null>): boolean {
  let last = '';
  for (const id of ids) {
    if (id === null) continue;
    if (id <= last) return false;
    last = id;
  }
  return true;
}

/** The last live id. */
function lastId(ids: Array<string | null>): string | undefined {
  for (let i = ids.length - 1; i >= 0; i--) if (ids[i] !== null) return ids[i]!;
  return undefined;
}

/**
 * In ids ascending with nulls (deleted rows) between them, the first position whose live id is
 * above `afterId` (or, with `orEqual`, at or above it).
 */
function firstAbove(ids: Array<string | null>, afterId: string, orEqual: boolean): number {
  // The live id at or before a position never decreases, so it can be searched.
  const liveAt = (i: number) => {
    for (let j = i; j >= 0; j--) if (ids[j] !== null) return ids[j]!;
    return '';
  };
  return firstNotBefore(ids.length, (mid) => {
    const id = liveAt(mid);
    return orEqual ? id < afterId : id <= afterId;
  });
}
