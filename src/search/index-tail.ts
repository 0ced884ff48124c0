/**
 * The unmerged tail of each table in memory: the index values of the rows after the table's merge
 * mark (see RowsStore), whose index entries readers cannot use yet. Index reads add these to what
 * LMDB's index holds (services/row-index.ts), so a bulk load can write rows alone and leave the
 * index entries to a background merge (jobs/index-merge.ts).
 *
 * Like the column cache it is derived data: loaded from the rows after the mark, kept in step
 * with committed writes, and trimmed once a merge commits. It may hold rows a reader's snapshot
 * has already merged; readers take from it only the rows after the mark they read.
 */
import { entryKeyBytes, indexValue, indexValues, slotValue, type IndexKeyBound, type IndexValue, type RowRecord, type RowsStore, type SlotSpec } from '../store/rows.store';

/** Type classes in index order. */
function typeClass(v: IndexValue): number {
  return v === null ? 0 : typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : 3;
}

/** Strings whose JavaScript order may differ from their key order inside an index key. */
const NOT_PLAIN = /^[\u0000-\u001f]|[\ud800-\udfff]/;

/** The order LMDB gives two index values inside index keys. */
export function compareIndexValues(a: IndexValue, b: IndexValue): number {
  const ca = typeClass(a);
  const cb = typeClass(b);
  if (ca !== cb) return ca - cb;
  if (ca === 0) return 0;
  if (ca === 1 || ca === 2) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  const sa = a as string;
  const sb = b as string;
  if (!NOT_PLAIN.test(sa) && !NOT_PLAIN.test(sb)) return sa < sb ? -1 : sa > sb ? 1 : 0;
  // Control characters and characters beyond U+FFFF: compare the encoded keys themselves.
  return Buffer.compare(entryKeyBytes(sa), entryKeyBytes(sb));
}

/** Whether an entry (value, id) lies within a bound, with the meaning RowsStore.scanIndex gives bounds. */
function above(value: IndexValue, id: string, bound: IndexKeyBound): boolean {
  if (!bound) return true;
  const c = compareIndexValues(value, bound.value);
  if (c !== 0) return c > 0;
  if (bound.afterId !== undefined) return id > bound.afterId;
  return bound.inclusive;
}

function below(value: IndexValue, id: string, bound: IndexKeyBound): boolean {
  if (!bound) return true;
  const c = compareIndexValues(value, bound.value);
  if (c !== 0) return c < 0;
  if (bound.afterId !== undefined) return id < bound.afterId;
  return bound.inclusive;
}

/**
 * One table's tail: rows by position (in the order they came, which is id order for appends), each
 * slot's index values by position. A bulk load only appends, so positions are found by binary
 * search over the ids; a map of them is made only once ids arrive out of order.
 */
interface Tail {
  /** The slots it holds, as the table had them when it was loaded. */
  slotsKey: string;
  ids: string[];
  /** Positions before it are merged or removed; removed positions after it are in `gone`. */
  start: number;
  gone: Set<number>;
  maxId: string;
  /** Positions by id, once ids came out of order (until then positions follow ids). */
  positions: Map<string, number> | null;
  slots: Array<{ slot: number; multi: boolean; values: Array<IndexValue | IndexValue[]> }>;
  /**
   * Entries of a slot in index order, made on first use after a write, and the live rows it was
   * made from. A merge leaves it (readers pass over the merged rows) until half of it is merged.
   */
  sorted: Map<number, { entries: Array<[IndexValue, string]>; rows: number }>;
  /** While read back in the background: the last row read (rows after it are not held yet). */
  loadedTo?: string;
}

function liveCount(tail: Tail): number {
  return tail.ids.length - tail.start - tail.gone.size;
}

function keyOf(slots: SlotSpec[]): string {
  return slots.map((s) => `${s.slot}${s.multi ? '*' : ''}`).join(',');
}

export class IndexTails {
  private readonly tails = new Map<number, Tail>();

  constructor(private readonly rows: RowsStore) {}

  /** Rows held for a table (for the merger's pressure check and for tests). */
  size(seq: number): number {
    const tail = this.tails.get(seq);
    return tail ? liveCount(tail) : 0;
  }

  /**
   * The table's tail, loaded from LMDB when not held, or held for other slots (its columns
   * changed). A table without a mark has none.
   */
  private of(seq: number, slots: SlotSpec[], mark: string | undefined): Tail | null {
    if (mark === undefined) return null;
    let tail = this.tails.get(seq);
    if (!tail || tail.slotsKey !== keyOf(slots)) {
      tail = emptyTail(slots);
      tail.loadedTo = mark;
      this.tails.set(seq, tail);
    }
    // A read needs all of it: what a background read-back has not reached is read now.
    if (tail.loadedTo !== undefined) this.readBack(tail, seq, Infinity);
    return tail;
  }

  /**
   * Reads a table's tail back from LMDB in the background, a slice of time at a time (after a
   * restart, so the first query does not wait for all of it). Writes meanwhile are followed.
   */
  async preload(seq: number, slots: SlotSpec[], sliceMs = 8): Promise<void> {
    if (this.rows.mark(seq) === undefined || this.tails.get(seq)?.slotsKey === keyOf(slots)) return;
    const tail = emptyTail(slots);
    tail.loadedTo = this.rows.mark(seq);
    this.tails.set(seq, tail);
    while (tail.loadedTo !== undefined && this.tails.get(seq) === tail) {
      this.readBack(tail, seq, performance.now() + sliceMs);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Reads rows after `loadedTo` (and after the mark) until the deadline or the end. */
  private readBack(tail: Tail, seq: number, deadline: number): void {
    const mark = this.rows.mark(seq) ?? tail.loadedTo!;
    let n = 0;
    for (const row of this.rows.scanRows(seq, false, tail.loadedTo! > mark ? tail.loadedTo : mark)) {
      set(tail, row);
      tail.loadedTo = row.id;
      if ((++n & 255) === 0 && performance.now() >= deadline) {
        tail.sorted.clear();
        return;
      }
    }
    tail.loadedTo = undefined;
    tail.sorted.clear();
  }

  /**
   * Follows a committed write: rows written or removed after the table's mark. A write that began
   * the tail (`began`) starts it empty, so a load's rows are followed rather than read back later.
   */
  apply(seq: number, slots: SlotSpec[], changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }, began = false): void {
    const mark = this.rows.mark(seq);
    let tail = this.tails.get(seq);
    if (mark === undefined || (changes.cleared && !began) || (tail && tail.slotsKey !== keyOf(slots))) {
      // Loaded again (from the rows themselves) when next needed.
      this.tails.delete(seq);
      return;
    }
    if (began) {
      tail = emptyTail(slots);
      this.tails.set(seq, tail);
    }
    if (!tail) return;
    // Rows a read-back has not reached are left to it (it reads them as committed).
    const reached = (id: string) => tail!.loadedTo === undefined || id <= tail!.loadedTo;
    for (const id of changes.removed ?? []) if (reached(id)) unset(tail, id);
    emptied(tail);
    for (const row of changes.upserted ?? []) if (row.id > mark && reached(row.id)) set(tail, row);
    tail.sorted.clear();
  }

  /** After a merge committed: rows up to the new mark are in the index now. */
  merged(seq: number): void {
    const tail = this.tails.get(seq);
    if (!tail) return;
    const mark = this.rows.mark(seq);
    if (mark === undefined) {
      this.tails.delete(seq);
      return;
    }
    // Merges go in id order: while positions follow ids, the merged rows are a prefix.
    if (!tail.positions) {
      while (tail.start < tail.ids.length && tail.ids[tail.start]! <= mark) {
        clear(tail, tail.start);
        tail.gone.delete(tail.start);
        tail.start++;
      }
    } else {
      for (let i = tail.start; i < tail.ids.length; i++) if (tail.ids[i]! <= mark) unset(tail, tail.ids[i]!);
    }
    // Sorting again would hold a request for up to a second at a million rows; readers pass over
    // the merged rows' entries instead.
    emptied(tail);
  }

  /**
   * Entries of one slot of the tail rows after `mark`, between two bounds, in index order (or
   * reversed). A slot is sorted once per write of the tail, and bounds found in it by binary
   * search; until then one value's entries are read along the positions, which follow ids.
   */
  *scan(seq: number, slots: SlotSpec[], mark: string | undefined, slot: number, from: IndexKeyBound, to: IndexKeyBound, reverse = false): Generator<[IndexValue, string]> {
    const tail = this.of(seq, slots, mark);
    if (!tail || liveCount(tail) === 0) return;
    if (!tail.sorted.has(slot) && oneValueBounds(tail, from, to)) yield* oneValue(tail, mark!, slot, from!, to!, reverse);
    else yield* sortedScan(tail, mark!, slot, from, to, reverse);
  }

  /**
   * How many tail entries lie between two bounds, counting no further than `limit`. A range of
   * values in a slot not sorted since its last write is counted by a pass over the rows, so
   * counts during a load do not sort the tail again and again.
   */
  count(seq: number, slots: SlotSpec[], mark: string | undefined, slot: number, from: IndexKeyBound, to: IndexKeyBound, limit: number): number {
    const tail = this.of(seq, slots, mark);
    if (!tail || liveCount(tail) === 0 || limit <= 0) return 0;
    let n = 0;
    if (tail.sorted.has(slot) || oneValueBounds(tail, from, to)) {
      for (const _ of this.scan(seq, slots, mark, slot, from, to)) if (++n >= limit) break;
      return n;
    }
    const values = tail.slots.find((s) => s.slot === slot)?.values;
    if (!values) return 0;
    for (let i = tail.start; i < tail.ids.length; i++) {
      const id = tail.ids[i]!;
      if (id <= mark! || (tail.gone.size && tail.gone.has(i))) continue;
      const v = values[i]!;
      for (const value of Array.isArray(v) ? v : [v]) {
        if (above(value, id, from) && below(value, id, to) && ++n >= limit) return n;
      }
    }
    return n;
  }
}

/** Whether both bounds hold one value and the positions follow ids (its entries can then be read along them). */
function oneValueBounds(tail: Tail, from: IndexKeyBound, to: IndexKeyBound): boolean {
  return !!from && !!to && !tail.positions && compareIndexValues(from.value, to.value) === 0;
}

function* sortedScan(tail: Tail, mark: string, slot: number, from: IndexKeyBound, to: IndexKeyBound, reverse: boolean): Generator<[IndexValue, string]> {
  const entries = sortedEntries(tail, slot);
  const [lo, hi] = within(entries, from, to);
  if (reverse) {
    for (let i = hi - 1; i >= lo; i--) if (entries[i]![1] > mark) yield entries[i]!;
  } else {
    for (let i = lo; i < hi; i++) if (entries[i]![1] > mark) yield entries[i]!;
  }
}

function emptyTail(slots: SlotSpec[]): Tail {
  return {
    slotsKey: keyOf(slots),
    ids: [],
    start: 0,
    gone: new Set(),
    maxId: '',
    positions: null,
    slots: slots.map(({ slot, multi }) => ({ slot, multi, values: [] })),
    sorted: new Map(),
  };
}

/** A live row's position, or undefined. */
function find(tail: Tail, id: string): number | undefined {
  let i: number | undefined;
  if (tail.positions) {
    i = tail.positions.get(id);
  } else {
    let lo = tail.start;
    let hi = tail.ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = tail.ids[mid]!;
      if (at === id) {
        i = mid;
        break;
      }
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return i === undefined || i < tail.start || tail.gone.has(i) ? undefined : i;
}

function set(tail: Tail, row: RowRecord): void {
  let i = row.id > tail.maxId ? undefined : find(tail, row.id);
  if (i === undefined) {
    i = tail.ids.length;
    if (row.id < tail.maxId && !tail.positions) {
      // Out of id order from here on: positions are looked up in a map.
      tail.positions = new Map();
      for (let k = tail.start; k < tail.ids.length; k++) if (!tail.gone.has(k)) tail.positions.set(tail.ids[k]!, k);
    }
    if (row.id > tail.maxId) tail.maxId = row.id;
    tail.ids.push(row.id);
    tail.positions?.set(row.id, i);
  }
  for (const s of tail.slots) {
    const value = slotValue(row, s.slot);
    s.values[i] = s.multi ? indexValues(value, true) : indexValue(value);
  }
}

/** Lets a position's values go to the collector. */
function clear(tail: Tail, i: number): void {
  for (const s of tail.slots) s.values[i] = null;
}

function unset(tail: Tail, id: string): void {
  const i = find(tail, id);
  if (i === undefined) return;
  tail.gone.add(i);
  tail.positions?.delete(id);
  clear(tail, i);
}

/** A tail left with no rows starts its arrays afresh. */
function emptied(tail: Tail): void {
  if (liveCount(tail) > 0) return;
  tail.ids = [];
  tail.start = 0;
  tail.gone.clear();
  tail.maxId = '';
  tail.positions = null;
  tail.sorted.clear();
  for (const s of tail.slots) s.values.length = 0;
}

function sortedEntries(tail: Tail, slot: number): Array<[IndexValue, string]> {
  const rows = liveCount(tail);
  const made = tail.sorted.get(slot);
  if (made && made.rows <= 2 * rows) return made.entries;
  let entries: Array<[IndexValue, string]>;
  if (made) {
    // Half of it merged: the rest keeps its order. Merged rows are a prefix of the positions
    // unless rows came out of id order.
    const first = tail.ids[tail.start]!;
    entries = tail.positions || tail.gone.size ? made.entries.filter(([, id]) => find(tail, id) !== undefined) : made.entries.filter(([, id]) => id >= first);
  } else {
    entries = [];
    const values = tail.slots.find((s) => s.slot === slot)?.values ?? [];
    for (let i = tail.start; i < tail.ids.length; i++) {
      if (tail.gone.size && tail.gone.has(i)) continue;
      const id = tail.ids[i]!;
      const v = values[i]!;
      for (const value of Array.isArray(v) ? v : [v]) entries.push([value, id]);
    }
    entries.sort((a, b) => compareIndexValues(a[0], b[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  }
  tail.sorted.set(slot, { entries, rows });
  return entries;
}

/** The positions [lo, hi) of the sorted entries between two bounds (binary search: `above` and `below` each change once along the order). */
function within(entries: Array<[IndexValue, string]>, from: IndexKeyBound, to: IndexKeyBound): [number, number] {
  const first = (inside: (entry: [IndexValue, string]) => boolean) => {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (inside(entries[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return [first(([value, id]) => above(value, id, from)), first(([value, id]) => !below(value, id, to))];
}

/** The first position whose id is after `id` (or, `orAt`, not before it); positions follow ids. */
function after(tail: Tail, id: string, orAt = false): number {
  let lo = tail.start;
  let hi = tail.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const at = tail.ids[mid]!;
    if (at > id || (orAt && at === id)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * One value's entries of the rows after `mark`, along the positions (which follow ids): no sort,
 * a cursor's row found by binary search, and a value compared by identity (two index values
 * compare equal exactly when they are the same primitive).
 */
function* oneValue(tail: Tail, mark: string, slot: number, from: NonNullable<IndexKeyBound>, to: NonNullable<IndexKeyBound>, reverse: boolean): Generator<[IndexValue, string]> {
  const values = tail.slots.find((s) => s.slot === slot)?.values;
  // A bound that leaves the value itself out leaves nothing.
  if (!values || (from.afterId === undefined && !from.inclusive) || (to.afterId === undefined && !to.inclusive)) return;
  const value = from.value;
  const start = Math.max(after(tail, mark), from.afterId !== undefined ? after(tail, from.afterId) : 0);
  const end = to.afterId !== undefined ? after(tail, to.afterId, true) : tail.ids.length;
  const has = (i: number) => {
    if (tail.gone.size && tail.gone.has(i)) return false;
    const v = values[i]!;
    return Array.isArray(v) ? v.includes(value) : v === value;
  };
  if (reverse) {
    for (let i = end - 1; i >= start; i--) if (has(i)) yield [value, tail.ids[i]!];
  } else {
    for (let i = start; i < end; i++) if (has(i)) yield [value, tail.ids[i]!];
  }
}
