/**
 * Rows and their secondary index, keyed by the table's internal number:
 *   rows         [seq, rowId]               -> RowRecord  (row ids are ULIDs: key order is creation order)
 *   row_index    [seq, slot, value, rowId]  -> (empty)    (one entry per column value; arrays one per element)
 *   index_marks  seq                        -> MarkRecord (absent when every row is indexed)
 * A table with a mark has index entries for all of its rows up to `mark`. Rows after it (the
 * unmerged tail, written by bulk loads) are merged into the index later by runs (jobs/index-merge):
 * a run records how far it reaches (`runTo`), writes its rows' entries in key order over several
 * transactions, and then moves the mark to `runTo`. Rows up to `runTo` have their entries kept
 * by every write, like indexed rows, so the entries a run has written are always those of the
 * rows' current values; readers take only entries up to `mark`. Every other row write changes its
 * index entries in its own transaction.
 */
import * as lmdb from 'lmdb';
import { MAX_ID_LENGTH } from '../lib/ids';
import type { Store } from './db';

export type IndexValue = null | boolean | number | string;

export interface RowRecord {
  id: string;
  created_at: number;
  updated_at: number;
  batch_id: string | null;
  confidence: number | null;
  /** The extraction (and so the file) the row came from; absent for rows written through the API. */
  extraction_id?: string | null;
  /** Column values by slot. */
  values: Record<number, unknown>;
}

/** Slots of the indexed system fields (columns use slots from 1 up). */
export const SYSTEM_SLOTS = { updated_at: -1, batch_id: -2, confidence: -3 } as const;

/** Longer strings are indexed by their start; conditions are always checked again on the row. */
export const INDEX_PREFIX = 200;

/** The index form of one value: primitives as they are, strings cut, anything else as JSON text. */
export function indexValue(value: unknown): IndexValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > INDEX_PREFIX ? text.slice(0, INDEX_PREFIX) : text;
}

/** The index entries of one slot of a row: arrays give one per distinct element, others one. */
export function indexValues(value: unknown, multi: boolean): IndexValue[] {
  if (multi) {
    if (!Array.isArray(value)) return value === null || value === undefined ? [] : [indexValue(value)];
    return [...new Set(value.map(indexValue))];
  }
  return [indexValue(value)];
}

// lmdb exports its key encoder without declaring it.
const keyValueToBuffer = (lmdb as unknown as { keyValueToBuffer(key: unknown): Uint8Array }).keyValueToBuffer;

/** The bytes LMDB orders an index value by (copied: lmdb encodes into a buffer it reuses). */
export function indexKeyBytes(value: IndexValue): Buffer {
  return Buffer.from(keyValueToBuffer(value));
}

/** The bytes LMDB orders an index value by inside an index key (where strings encode slightly differently). */
export function entryKeyBytes(value: IndexValue): Buffer {
  return Buffer.from(keyValueToBuffer([0, value]));
}

/** How far a table's rows are merged into the index (see the file comment). */
export interface MarkRecord {
  mark: string;
  runTo?: string;
}

/** Rows up to this id have their index entries kept by writes: the mark, or a run's reach. */
export function maintainedThrough(record: MarkRecord | undefined): string | undefined {
  return record && (record.runTo ?? record.mark);
}

export interface SlotSpec {
  slot: number;
  multi: boolean;
}

const END = '\uffff';

/** The value of every index entry: the key says it all. */
const PRESENT = new Uint8Array(0);

export class RowsStore {
  constructor(private readonly store: Store) {}

  private get rows() {
    return this.store.db<RowRecord, [number, string]>('rows');
  }
  private get index() {
    // Index keys hold nulls, which lmdb's Key type leaves out though ordered-binary encodes them.
    return this.store.db<Uint8Array, any>('row_index');
  }

  private get marks() {
    return this.store.db<MarkRecord, number>('index_marks');
  }

  /** The table's merge state; undefined when every row has its index entries. */
  markRecord(seq: number): MarkRecord | undefined {
    return this.marks.get(seq);
  }

  /** The merge mark: rows after it have no index entries a reader may use; undefined when every row has them. */
  mark(seq: number): string | undefined {
    return this.marks.get(seq)?.mark;
  }

  /** Sets (or, with undefined, removes) the merge state. Call inside a transaction. */
  setMark(seq: number, record: MarkRecord | undefined): void {
    if (record === undefined) this.marks.removeSync(seq);
    else this.marks.putSync(seq, record);
  }

  /** Tables with an unmerged tail, by seq. */
  marked(): number[] {
    return [...this.marks.getKeys()] as number[];
  }

  /** The table's newest row id ('' when it has no rows). */
  lastRowId(seq: number): string {
    for (const key of this.rows.getKeys({ start: [seq, END], end: [seq], reverse: true, limit: 1 } as never)) return (key as [number, string])[1];
    return '';
  }

  get(seq: number, rowId: string): RowRecord | undefined {
    // No row id is this long, and LMDB throws on a key past its size limit.
    if (rowId.length > MAX_ID_LENGTH) return undefined;
    return this.rows.get([seq, rowId]);
  }

  /**
   * Writes a row and moves its index entries from `previous` (none for a row of the unmerged tail,
   * `indexed` false). Call inside a transaction.
   */
  put(seq: number, row: RowRecord, slots: SlotSpec[], previous?: RowRecord, indexed = true): void {
    if (indexed) this.putEntries(seq, row, slots, previous);
    this.rows.putSync([seq, row.id], row);
  }

  /** Writes new rows and their index entries (none for rows of the unmerged tail). Call inside a transaction. */
  insert(seq: number, rows: Array<{ row: RowRecord; indexed: boolean }>, slots: SlotSpec[]): void {
    for (const { row, indexed } of rows) this.put(seq, row, slots, undefined, indexed);
  }

  private putEntries(seq: number, row: RowRecord, slots: SlotSpec[], previous?: RowRecord): void {
    for (const { slot, multi } of slots) {
      const next = indexValues(slotValue(row, slot), multi);
      if (previous) {
        const before = indexValues(slotValue(previous, slot), multi);
        if (before.length === next.length && before.every((v, i) => v === next[i])) continue;
        for (const v of before) this.index.removeSync([seq, slot, v, row.id]);
      }
      for (const v of next) this.index.putSync([seq, slot, v, row.id], PRESENT);
    }
  }

  /** Removes a row and its index entries (none for a row of the unmerged tail). Call inside a transaction. */
  remove(seq: number, row: RowRecord, slots: SlotSpec[], indexed = true): void {
    if (indexed) {
      for (const { slot, multi } of slots) {
        for (const v of indexValues(slotValue(row, slot), multi)) this.index.removeSync([seq, slot, v, row.id]);
      }
    }
    this.rows.removeSync([seq, row.id]);
  }

  /**
   * Merges the whole unmerged tail now: entries for every row after the mark, and the mark
   * removed. Call inside a transaction (for writes that need the whole index at once).
   */
  mergeAll(seq: number, slots: SlotSpec[]): void {
    const record = this.markRecord(seq);
    if (!record) return;
    for (const row of this.scanRows(seq, false, record.mark)) this.putEntries(seq, row, slots);
    this.setMark(seq, undefined);
  }

  /** Puts one entry of a merge run; call inside a transaction. */
  putEntry(seq: number, slot: number, value: IndexValue, rowId: string): void {
    this.index.putSync([seq, slot, value, rowId], PRESENT);
  }

  /** Writes the entries of a row's current values (a row a run left to its end). Call inside a transaction. */
  indexRow(seq: number, rowId: string, slots: SlotSpec[]): void {
    const row = this.get(seq, rowId);
    if (row) this.putEntries(seq, row, slots);
  }

  /** Every row of a table, in id (= creation) order. */
  all(seq: number): RowRecord[] {
    return [...this.scanRows(seq, false)];
  }

  /**
   * A row equal to `values` on every slot of `slots` (nulls equal nulls, lists equal item by item),
   * found through the index (complete: writes that match rows merge the tail first). A list has an
   * entry per item in a list column (`multi`), and one of its JSON text in any other. Nothing is
   * an entry too, except in a list column, where no list and an empty one have none: rows are read
   * only when every slot is such a column and none has a value.
   */
  findEqual(seq: number, slots: number[], values: Record<number, unknown>, multi: ReadonlySet<number> = new Set()): RowRecord | undefined {
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    const matches = (row: RowRecord | undefined): row is RowRecord => row !== undefined && slots.every((s) => same(row.values[s], values[s]));
    const filled = (v: unknown) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0);
    const slot = slots.find((s) => filled(values[s])) ?? slots.find((s) => !multi.has(s));
    if (slot === undefined) {
      for (const row of this.scanRows(seq, false)) if (matches(row)) return row;
      return undefined;
    }
    const value = values[slot] ?? null;
    const keys = Array.isArray(value) && value.length ? [indexValue(value[0]), indexValue(value)] : [indexValue(value)];
    for (const key of keys) {
      const bound = { value: key, inclusive: true };
      for (const [, id] of this.scanIndex(seq, slot, bound, bound)) {
        const row = this.get(seq, id);
        if (matches(row)) return row;
      }
    }
    return undefined;
  }

  /**
   * Rows in id (= creation) order, from after `afterId` when given, passing over the first
   * `offset` (lmdb skips them in native code, without reading them).
   */
  *scanRows(seq: number, reverse: boolean, afterId?: string, offset = 0): Generator<RowRecord> {
    const range = { ...rowRange(seq, reverse, afterId), ...(offset > 0 && afterId === undefined ? { offset } : {}) };
    for (const { key, value } of this.rows.getRange(range as never)) {
      if (afterId !== undefined && (key as [number, string])[1] === afterId) continue;
      yield value;
    }
  }

  /** Row ids in id (= creation) order, from after `afterId` when given, without reading the rows. */
  *scanRowIds(seq: number, reverse: boolean, afterId?: string): Generator<string> {
    for (const key of this.rows.getKeys(rowRange(seq, reverse, afterId) as never)) {
      const id = (key as [number, string])[1];
      if (id !== afterId) yield id;
    }
  }

  /**
   * Row ids of index entries between two keys (inclusive bounds unless told), in key order,
   * passing over the first `offset` in native code.
   */
  *scanIndex(seq: number, slot: number, from: IndexKeyBound, to: IndexKeyBound, reverse = false, offset = 0): Generator<[IndexValue, string]> {
    const lowKey = from ? boundKey(seq, slot, from, 'low') : [seq, slot];
    const highKey = to ? boundKey(seq, slot, to, 'high') : [seq, slot + 1];
    const range = { ...(reverse ? { start: highKey, end: lowKey, reverse: true } : { start: lowKey, end: highKey }), ...(offset > 0 ? { offset } : {}) };
    const resume = reverse ? to : from;
    for (const key of this.index.getKeys(range as never)) {
      const [, , value, id] = key as [number, number, IndexValue, string];
      // A keyset bound starts at the last row sent; that row itself is not sent again.
      if (resume?.afterId === id && resume.value === value) continue;
      yield [value, id];
    }
  }

  /**
   * How many entries lie between two bounds, counting no further than `limit`. lmdb's own count
   * walks the whole range, so a capped count first asks for the entry at offset `limit - 1`, which
   * lmdb skips to without decoding the keys before it (~25 ns an entry against ~1 us decoded).
   */
  countIndex(seq: number, slot: number, from: IndexKeyBound, to: IndexKeyBound, limit: number): number {
    const start = from ? boundKey(seq, slot, from, 'low') : [seq, slot];
    const end = to ? boundKey(seq, slot, to, 'high') : [seq, slot + 1];
    if (limit <= 0) return 0;
    if (limit !== Infinity) {
      for (const _ of this.index.getKeys({ start, end, offset: limit - 1, limit: 1 } as never)) return limit;
    }
    return this.index.getKeysCount({ start, end } as never);
  }

  /**
   * Writes the index entries of one slot for a batch of rows after `afterId` (up to the merge mark:
   * the merge indexes the rows after it); returns the last row id done.
   */
  indexSlot(seq: number, spec: SlotSpec, afterId: string | undefined, batch: number): string | undefined {
    let last: string | undefined;
    let n = 0;
    const mark = this.mark(seq);
    for (const row of this.scanRows(seq, false, afterId)) {
      if (mark !== undefined && row.id > mark) break;
      for (const v of indexValues(slotValue(row, spec.slot), spec.multi)) this.index.putSync([seq, spec.slot, v, row.id], PRESENT);
      last = row.id;
      if (++n >= batch) break;
    }
    return last;
  }

  /** Deletes up to `batch` index entries of one slot; returns how many went. Call inside a transaction. */
  dropSlotEntries(seq: number, slot: number, batch: number): number {
    let n = 0;
    for (const key of this.index.getKeys({ start: [seq, slot], end: [seq, slot + 1], limit: batch } as never)) {
      this.index.removeSync(key as never);
      n++;
    }
    return n;
  }

  /** Deletes up to `batch` rows and index entries of a table; returns how many went. Call inside a transaction. */
  dropTableEntries(seq: number, batch: number): number {
    let n = 0;
    for (const key of this.index.getKeys({ start: [seq], end: [seq + 1], limit: batch } as never)) {
      this.index.removeSync(key as never);
      n++;
    }
    for (const key of this.rows.getKeys({ start: [seq], end: [seq + 1], limit: batch - n } as never)) {
      this.rows.removeSync(key as never);
      n++;
    }
    if (n === 0) this.setMark(seq, undefined);
    return n;
  }
}

/**
 * A bound of an index range: a value, and whether rows holding exactly that value are inside.
 * `afterId` starts just after one row of that value (keyset paging).
 */
export type IndexKeyBound = { value: IndexValue; inclusive: boolean; afterId?: string } | null;

function boundKey(seq: number, slot: number, bound: NonNullable<IndexKeyBound>, side: 'low' | 'high'): unknown[] {
  if (bound.afterId !== undefined) return [seq, slot, bound.value, bound.afterId];
  // [.., v] sorts before every [.., v, id]; [.., v, END] after them.
  const beforeAll = [seq, slot, bound.value];
  const afterAll = [seq, slot, bound.value, END];
  if (side === 'low') return bound.inclusive ? beforeAll : afterAll;
  return bound.inclusive ? afterAll : beforeAll;
}

/** The range of a table's row keys in either direction, from `afterId` (that row itself is skipped by the caller). */
function rowRange(seq: number, reverse: boolean, afterId?: string) {
  return reverse
    ? { start: afterId ? [seq, afterId] : [seq, END], end: [seq], reverse: true }
    : { start: afterId ? [seq, afterId] : [seq], end: [seq, END] };
}

export function slotValue(row: RowRecord, slot: number): unknown {
  if (slot === SYSTEM_SLOTS.updated_at) return row.updated_at;
  if (slot === SYSTEM_SLOTS.batch_id) return row.batch_id;
  if (slot === SYSTEM_SLOTS.confidence) return row.confidence;
  return row.values[slot] ?? null;
}
