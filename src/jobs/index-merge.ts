/**
 * The background merge of unmerged tails into the index (see RowsStore): a table's tail is merged
 * once the table has had no write for a moment (ROWSMITH_INDEX_MERGE_IDLE_MS), so a bulk load is not slowed by it, or at once
 * when its tail grows past TAIL_PRESSURE_ROWS, which bounds the memory the tail holds. Each batch
 * is one transaction of about ENTRIES_PER_MERGE sorted entries (some 10 ms of work), so requests
 * are served between batches; a crash loses nothing, since the mark moves with the entries.
 */
import type { Logger } from '../lib/log';
import type { IndexTails } from '../search/index-tail';
import type { Store } from '../store/db';
import type { RowsStore } from '../store/rows.store';
import type { TablesStore } from '../store/tables.store';
import { slotSpecs } from '../services/rows.query';

/** A tail this long is merged even while the table is still being written. */
export const TAIL_PRESSURE_ROWS = 2_000_000;
/** Index entries written per merge transaction. */
export const ENTRIES_PER_MERGE = 4_000;

export class IndexMerger {
  /** When each table with a tail was last written (performance.now()), by seq; and its id. */
  private readonly lastWrite = new Map<number, number>();
  private readonly tableOf = new Map<number, string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly rows: RowsStore,
    private readonly tables: TablesStore,
    private readonly tails: IndexTails,
    private readonly log: Logger,
    /** How long a table goes without writes before its tail is merged (ROWSMITH_INDEX_MERGE_IDLE_MS). */
    private readonly idleMs: number,
  ) {}

  /** Picks up the tails left by an earlier run (a crash or a stop during a load). */
  resume(): void {
    const marks = this.rows.marked();
    if (marks.length === 0) return;
    for (const table of this.tables.withSeqs(new Set(marks.map((m) => m.seq)))) {
      this.tableOf.set(table.seq, table.id);
      this.lastWrite.set(table.seq, 0);
    }
    this.schedule();
  }

  /** A write left rows in the table's tail. */
  notify(tableId: string, seq: number): void {
    this.tableOf.set(seq, tableId);
    this.lastWrite.set(seq, performance.now());
    this.schedule();
  }

  /** Merges every tail now (tests, and the CLI's consistency check). */
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
    return performance.now() - (this.lastWrite.get(seq) ?? 0) < this.idleMs && this.tails.size(seq) < TAIL_PRESSURE_ROWS;
  }

  private async run(all: boolean): Promise<void> {
    for (const seq of [...this.lastWrite.keys()]) {
      try {
        while (!this.closed && (all || !this.busy(seq))) {
          const merged = await this.store.transaction(() => {
            const table = this.tables.get(this.tableOf.get(seq) ?? '');
            // A purged table's rows and mark are gone with it.
            if (!table) return 0;
            return this.rows.mergeTail(seq, slotSpecs(table), ENTRIES_PER_MERGE);
          });
          this.tails.merged(seq);
          if (merged === 0 || this.rows.mark(seq) === undefined) {
            this.lastWrite.delete(seq);
            break;
          }
          // Requests waiting meanwhile are served between batches.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (error) {
        // Retried on the next write or start; nothing is lost (the mark moves only with its entries).
        this.log.error('index_merge_failed', { table: this.tableOf.get(seq), error: String((error as Error)?.stack ?? error) });
        if (all) throw error;
        return;
      }
    }
  }
}
