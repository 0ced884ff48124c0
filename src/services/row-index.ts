/**
 * Index reads of a table: LMDB's index entries (rows up to the merge mark) together with the
 * unmerged tail held in memory (rows after it), as if every row had its entries in LMDB. Each read
 * takes the mark once, from the same snapshot as the entries, so a merge committing meanwhile
 * neither hides rows nor shows them twice.
 */
import type { IndexTails } from '../search/index-tail';
import { compareIndexValues } from '../search/index-tail';
import type { IndexKeyBound, IndexValue, RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';
import { slotSpecs } from '../store/slots';

export class RowIndex {
  constructor(
    private readonly rows: RowsStore,
    private readonly tails: IndexTails,
  ) {}

  /**
   * Entries (value, row id) between two bounds, in index order (or reversed), passing over the
   * first `offset` (in native code when there is no tail).
   */
  *scan(table: TableRecord, slot: number, from: IndexKeyBound, to: IndexKeyBound, reverse = false, offset = 0): Generator<[IndexValue, string]> {
    const mark = this.rows.mark(table.seq);
    if (mark === undefined) {
      yield* this.rows.scanIndex(table.seq, slot, from, to, reverse, offset);
      return;
    }
    const stored = this.rows.scanIndex(table.seq, slot, from, to, reverse);
    const tail = this.tails.scan(table.seq, slotSpecs(table), mark, slot, from, to, reverse);
    let passed = 0;
    for (const entry of mergeOrdered(stored, tail, reverse, mark)) if (passed++ >= offset) yield entry;
  }

  /** How many entries lie between two bounds, counting no further than `limit`. */
  count(table: TableRecord, slot: number, from: IndexKeyBound, to: IndexKeyBound, limit: number): number {
    const record = this.rows.markRecord(table.seq);
    if (limit <= 0) return 0;
    const tail = record === undefined ? 0 : this.tails.count(table.seq, slotSpecs(table), record.mark, slot, from, to, limit);
    if (record?.runTo === undefined) return tail + this.rows.countIndex(table.seq, slot, from, to, limit - tail);
    // LMDB's count would take in what a run wrote past the mark: its entries up to the mark are
    // counted one by one (none before the table's first merged row). Merging them with the tail's
    // instead would sort the tail's column, a second at a million rows.
    let n = tail;
    if (n < limit && record.mark !== '') for (const [, id] of this.rows.scanIndex(table.seq, slot, from, to)) if (id <= record.mark && ++n >= limit) break;
    return n;
  }

  /** Whether the table has rows not yet merged into LMDB's index. */
  hasTail(table: TableRecord): boolean {
    return this.rows.mark(table.seq) !== undefined;
  }
}

/**
 * LMDB's entries and the tail's merged into one stream in index order (ties by row id). Entries
 * LMDB holds past the mark were written by a merge run and are the tail's to give: one equal to
 * the tail's next entry goes with it, and one the tail does not have (the row changed since) is
 * passed over. Each is met beside its twin in the tail, so a run's entries cost a reader nothing
 * extra (filtering them out first walked all of a run's entries in the range).
 */
function* mergeOrdered(stored: Iterator<[IndexValue, string]>, tail: Iterator<[IndexValue, string]>, reverse: boolean, mark: string): Generator<[IndexValue, string]> {
  try {
    let x = stored.next();
    let y = tail.next();
    while (!x.done || !y.done) {
      if (x.done) {
        yield y.value!;
        y = tail.next();
        continue;
      }
      const c = y.done ? -1 : (compareIndexValues(x.value[0], y.value[0]) || (x.value[1] < y.value[1] ? -1 : x.value[1] > y.value[1] ? 1 : 0)) * (reverse ? -1 : 1);
      if (c < 0) {
        if (x.value[1] <= mark) yield x.value;
        x = stored.next();
        continue;
      }
      if (c === 0) x = stored.next();
      yield y.value!;
      y = tail.next();
    }
  } finally {
    // A reader that stops early ends LMDB's range too: an open one keeps its read snapshot, and
    // with a merge committing between requests each would take one of LMDB's 126 reader slots.
    stored.return?.();
    tail.return?.();
  }
}
