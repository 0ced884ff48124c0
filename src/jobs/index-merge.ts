/**
 * The background merge of unmerged tails into the index (see RowsStore). A table's tail is merged
 * once the table has had no write for a moment (ROWSMITH_INDEX_MERGE_IDLE_MS), so a bulk load is
 * not slowed by it, or at once when its tail passes two thirds of ROWSMITH_INDEX_TAIL_MAX_ROWS;
 * a load that finds the tail full waits for the merge, which bounds the memory the tail holds.
 *
 * A merge goes by runs of up to ROWSMITH_INDEX_MERGE_RUN_ROWS rows. A run reads its rows, sorts
 * each column's entries, records its reach (`runTo`), and writes the entries in key order:
 * consecutive keys share B-tree pages, so an entry costs 3-6 us against 20 written at random. It
 * works in steps of ROWSMITH_INDEX_MERGE_SLICE_MS of main-thread time (reading, sorting pieces and
 * merging them, one transaction's writes) and lets requests go first between them (lib/foreground),
 * so a request waits for at most one step. It first waits for the writes before it to commit. Rows
 * written while a run is under way are left out of its batches and indexed with their current
 * values when it ends, in the transaction that moves the mark. A crash leaves the mark where it
 * was; the next run covers the interrupted one's reach again.
 */
import type { Foreground } from '../lib/foreground';
import type { Logger } from '../lib/log';
import type { BuildQueue } from '../search/builds';
import type { TailMerge } from '../services/rows.service';
import { compareIndexValues, type IndexTails } from '../search/index-tail';
import type { Store } from '../store/db';
import { indexValues, slotValue, type IndexValue, type RowsStore, type SlotSpec } from '../store/rows.store';
import type { TableRecord, TablesStore } from '../store/tables.store';
import { slotSpecs } from '../store/slots';

/** Most index entries written per transaction (fewer once the slice of time runs out). */
const ENTRIES_PER_MERGE = 4_000;
/** Entries sorted at once before sorted pieces are merged in slices of time. */
const SORT_PIECE = 2_048;
/**
 * A merge of at least this many rows ends with a full garbage collection: a load and its merge
 * leave gigabytes of garbage (request bodies, the tail, the runs) that the collector otherwise
 * keeps for a long time (measured at a million rows: 1.8 GB of the process's own memory before,
 * 80 MB after). It pauses the process for up to about a second, once per large load.
 */
const COLLECT_AFTER_ROWS = 100_000;

/** One column's entries of a run, in key order. */
interface SlotRun {
  slot: number;
  values: IndexValue[];
  ids: string[];
  /** Positions in `values` and `ids`, in key order. */
  order: Uint32Array;
}

export class IndexMerger implements TailMerge {
  /** When each table with a tail was last written (performance.now()), by seq; and its id. */
  private readonly lastWrite = new Map<number, number>();
  private readonly tableOf = new Map<number, string>();
  /** Rows written during the run under way on a table, by seq. */
  private readonly touched = new Map<number, Set<string>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** Rows merged since the last full collection. */
  private mergedRows = 0;
  /** Loads waiting for room in a full tail (the merge does not pause for them). */
  private waiting = 0;

  constructor(
    private readonly store: Store,
    private readonly rows: RowsStore,
    private readonly tables: TablesStore,
    private readonly tails: IndexTails,
    private readonly log: Logger,
    /** How long a table goes without writes before its tail is merged (ROWSMITH_INDEX_MERGE_IDLE_MS). */
    private readonly idleMs: number,
    /** Rows one run takes (ROWSMITH_INDEX_MERGE_RUN_ROWS; its sorted entries are held in memory meanwhile). */
    private readonly runRows: number,
    /** Most rows a tail holds (ROWSMITH_INDEX_TAIL_MAX_ROWS); merged while written from two thirds of it. */
    private readonly tailMaxRows: number,
    /** Main-thread time a step of a run (reading, sorting, a transaction's writes) takes before it lets requests in (ROWSMITH_INDEX_MERGE_SLICE_MS). */
    private readonly sliceMs: number,
    /** Requests go first between the steps of a run. */
    private readonly foreground: Foreground,
    /** Background builds go first too. */
    private readonly builds: BuildQueue,
  ) {}

  /**
   * Between two steps of a run. Builds go first as well: a first search or aggregate waits for
   * its build (at a million rows one beside the merge took longer than a request may), while
   * nothing waits for the merge but a load that finds the tail full, which is not kept waiting.
   */
  private async pause(): Promise<void> {
    const go = () => this.waiting > 0 || this.closed;
    await this.foreground.pause(go);
    while (this.builds.size > 0 && !go()) await Bun.sleep(5);
  }

  /** Waits while the table's tail is full (a load faster than the merge goes at its pace). */
  async room(seq: number): Promise<void> {
    if (this.closed || this.tails.size(seq) < this.tailMaxRows) return;
    this.waiting++;
    try {
      await this.roomFor(seq);
    } finally {
      this.waiting--;
    }
  }

  private async roomFor(seq: number): Promise<void> {
    while (!this.closed && this.tails.size(seq) >= this.tailMaxRows) {
      this.lastWrite.set(seq, this.lastWrite.get(seq) ?? 0);
      // A full tail is merged now, not after the idle time.
      if (!this.running) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        void this.start(false).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Picks up the tails left by an earlier run (a crash or a stop during a load). */
  resume(): void {
    const marked = this.rows.marked();
    if (marked.length === 0) return;
    for (const table of this.tables.withSeqs(new Set(marked))) {
      this.tableOf.set(table.seq, table.id);
      this.lastWrite.set(table.seq, 0);
      // Read back in the background, so the first query of the table does not wait for it.
      void this.tails.preload(table.seq, slotSpecs(table)).catch((error: unknown) => this.log.error('index_tail_load_failed', { table: table.id, error: String(error) }));
    }
    this.schedule();
  }

  /** A write left rows in the table's tail. */
  notify(tableId: string, seq: number): void {
    this.tableOf.set(seq, tableId);
    this.lastWrite.set(seq, performance.now());
    this.schedule();
  }

  /** Whether a run is under way on the table (its writes then say which tail rows they change). */
  watching(seq: number): boolean {
    return this.touched.has(seq);
  }

  /** Rows after the mark that a write (inside its transaction) changed. */
  touch(seq: number, rowIds: string[]): void {
    const set = this.touched.get(seq);
    if (set) for (const id of rowIds) set.add(id);
  }

  /** Merges every tail now (tests). */
  async drain(): Promise<void> {
    for (;;) {
      await this.running;
      if (this.lastWrite.size === 0) return;
      await this.start(true);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.timer || this.running || this.closed || this.lastWrite.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running) void this.start(false).catch(() => undefined);
    }, this.idleMs);
    this.timer.unref?.();
  }

  private start(all: boolean): Promise<void> {
    this.running = this.run(all).finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  /** Whether a table should wait: written to within the idle time, and its tail not too long. */
  private busy(seq: number): boolean {
    return performance.now() - (this.lastWrite.get(seq) ?? 0) < this.idleMs && this.tails.size(seq) < (this.tailMaxRows * 2) / 3;
  }

  private async run(all: boolean): Promise<void> {
    for (const seq of [...this.lastWrite.keys()]) {
      try {
        while (!this.closed && (all || !this.busy(seq))) {
          const table = this.tables.get(this.tableOf.get(seq) ?? '');
          // A purged table's rows and mark go with it.
          const merged = table ? await this.mergeRun(table) : 0;
          if (merged === 'again') continue;
          this.mergedRows += merged;
          if (merged === 0) {
            this.lastWrite.delete(seq);
            break;
          }
        }
      } catch (error) {
        // Tried again on the next write or start; nothing is lost (the mark moves only with its entries).
        this.log.error('index_merge_failed', { table: this.tableOf.get(seq), error: String((error as Error)?.stack ?? error) });
        if (all) throw error;
        return;
      } finally {
        this.touched.delete(seq);
      }
    }
    if (this.lastWrite.size === 0 && this.mergedRows >= COLLECT_AFTER_ROWS) {
      this.mergedRows = 0;
      Bun.gc(true);
    }
  }

  /**
   * One run on a table: how many rows it merged (0 once nothing is left to merge, or on close), or
   * 'again' when the table's merge state changed under it (the next run starts from the new mark).
   */
  private async mergeRun(table: TableRecord): Promise<number | 'again'> {
    const { seq } = table;
    const record = this.rows.markRecord(seq);
    if (!record) return 0;
    const slots = slotSpecs(table);
    const touched = new Set<string>();
    this.touched.set(seq, touched);
    // Writes from here on say which tail rows they change. One that ran before may not have
    // committed yet: an empty transaction after them waits for their commits, so the run reads
    // their values.
    await this.store.transaction(() => undefined);
    this.store.env.resetReadTxn();
    const runs = await this.collect(seq, record.mark, record.runTo, slots);
    if (!runs) {
      // No row after the mark: every row is indexed.
      await this.store.transaction(() => {
        if (this.rows.markRecord(seq)?.mark === record.mark && this.rows.lastRowId(seq) <= record.mark) this.rows.setMark(seq, undefined);
      });
      this.tails.merged(seq);
      return 0;
    }
    const { entries } = runs;
    // The run's reach is recorded before its first entry is written (at least as far as an
    // interrupted run's, whose rows may have gone since).
    const runTo = await this.store.transaction(() => {
      const now = this.rows.markRecord(seq);
      if (now?.mark !== record.mark) return null;
      const reach = now.runTo !== undefined && now.runTo > runs.runTo ? now.runTo : runs.runTo;
      this.rows.setMark(seq, { mark: record.mark, runTo: reach });
      return reach;
    });
    if (runTo === null) return 'again';
    const current = () => {
      const now = this.rows.markRecord(seq);
      return now?.mark === record.mark && now.runTo === runTo;
    };
    for (const { slot, values, ids, order } of entries) {
      for (let from = 0; from < order.length; ) {
        if (this.closed) return 0;
        const to = await this.store.transaction(() => {
          if (!current()) return null;
          const deadline = performance.now() + this.sliceMs;
          const end = Math.min(order.length, from + ENTRIES_PER_MERGE);
          let i = from;
          while (i < end) {
            const k = order[i++]!;
            if (!touched.has(ids[k]!)) this.rows.putEntry(seq, slot, values[k]!, ids[k]!);
            if ((i & 63) === 0 && performance.now() >= deadline) break;
          }
          return i;
        });
        if (to === null) return 'again';
        from = to;
        await this.pause();
      }
    }
    await this.store.transaction(() => {
      if (!current()) return;
      const now = this.tables.get(table.id);
      if (!now) return;
      const nowSlots = slotSpecs(now);
      // Rows written meanwhile take their current values; if the columns changed, every row does.
      const changed = nowSlots.map((s) => `${s.slot}${s.multi}`).join() !== slots.map((s) => `${s.slot}${s.multi}`).join();
      if (changed) for (const row of this.rows.scanRows(seq, false, record.mark)) { if (row.id > runTo) break; this.rows.indexRow(seq, row.id, nowSlots); }
      else for (const id of touched) if (id <= runTo) this.rows.indexRow(seq, id, nowSlots);
      this.rows.setMark(seq, this.rows.lastRowId(seq) > runTo ? { mark: runTo } : undefined);
    });
    this.touched.delete(seq);
    this.tails.merged(seq);
    return runs.rows;
  }

  /**
   * Reads the rows of the next run (after `mark`, at least through an interrupted run's reach) a
   * slice of time at a time, and sorts each slot's entries; null when no row is after the mark.
   */
  private async collect(seq: number, mark: string, reach: string | undefined, slots: SlotSpec[]): Promise<{ runTo: string; entries: SlotRun[]; rows: number } | null> {
    const values = slots.map(() => [] as IndexValue[]);
    const ids = slots.map(() => [] as string[]);
    let after = mark;
    let count = 0;
    for (let done = false; !done; ) {
      const deadline = performance.now() + this.sliceMs;
      // Done unless the slice of time runs out first.
      done = true;
      for (const row of this.rows.scanRows(seq, false, after)) {
        after = row.id;
        count++;
        slots.forEach(({ slot, multi }, k) => {
          for (const v of indexValues(slotValue(row, slot), multi)) {
            values[k]!.push(v);
            ids[k]!.push(row.id);
          }
        });
        if (count >= this.runRows && (reach === undefined || row.id >= reach)) break;
        if ((count & 127) === 0 && performance.now() >= deadline) {
          done = false;
          break;
        }
      }
      if (this.closed) return null;
      if (!done) await this.pause();
    }
    if (count === 0) return null;
    const entries: SlotRun[] = [];
    for (let k = 0; k < slots.length; k++) {
      const v = values[k]!;
      const id = ids[k]!;
      const order = await sortInSlices(v.length, (a, b) => compareIndexValues(v[a]!, v[b]!) || (id[a]! < id[b]! ? -1 : id[a]! > id[b]! ? 1 : 0), this.sliceMs, async () => {
        await this.pause();
        return this.closed;
      });
      if (!order) return null;
      entries.push({ slot: slots[k]!.slot, values: v, ids: id, order });
    }
    return { runTo: after, entries, rows: count };
  }
}

/**
 * The positions 0..n-1 in the order `compare` gives them, sorted a slice of time at a time (a
 * run's column of 250,000 entries took 150-300 ms sorted at once): pieces of SORT_PIECE sorted
 * whole, then merged pairwise, letting requests in whenever a slice runs out. Null if `stop` says so.
 */
async function sortInSlices(n: number, compare: (a: number, b: number) => number, sliceMs: number, pauseAndStop: () => Promise<boolean>): Promise<Uint32Array | null> {
  let order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let deadline = performance.now() + sliceMs;
  const pause = async () => {
    if (performance.now() < deadline) return false;
    const stop = await pauseAndStop();
    deadline = performance.now() + sliceMs;
    return stop;
  };
  for (let lo = 0; lo < n; lo += SORT_PIECE) {
    order.subarray(lo, Math.min(n, lo + SORT_PIECE)).sort(compare);
    if (await pause()) return null;
  }
  let into = new Uint32Array(n);
  for (let width = SORT_PIECE; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (k < hi) {
        into[k++] = i < mid && (j >= hi || compare(order[i]!, order[j]!) <= 0) ? order[i++]! : order[j++]!;
        if ((k & 1023) === 0 && (await pause())) return null;
      }
    }
    [order, into] = [into, order];
  }
  return order;
}
