/**
 * The progress events of batches (`batch`, `file`, `rows`, `progress`, `file_error`, `done`), kept
 * while a batch runs so that a client can follow it from its first event on, whichever node it is
 * connected to and whichever node does the work. On LMDB (one process) the log is in memory; on
 * PostgreSQL it is a table with LISTEN/NOTIFY (`postgres/events.ts`).
 */

export interface BatchEvent {
  /** 1, 2, …: the order of the batch's events, and the SSE `id`. */
  seq: number;
  event: string;
  data: unknown;
}

export interface EventLog {
  /** Appends an event of a batch; every follower of the batch, on any node, gets it. */
  append(batchId: string, event: string, data: unknown): Promise<void>;
  /**
   * Calls `onEvent` with every event of the batch after `after`, in order: those logged already,
   * then each as it comes. The returned function stops following.
   */
  follow(batchId: string, after: number, onEvent: (event: BatchEvent) => void): Promise<() => Promise<void>>;
  /** Forgets the events of batches whose last event is older than `ms`; returns how many batches. */
  purge(olderThanMs: number): Promise<number>;
  close(): Promise<void>;
}

/** How long a batch's events are kept after its last one, for late followers (then its record tells its state). */
export const EVENTS_RETENTION_MS = 10 * 60 * 1000;

interface Entry {
  events: BatchEvent[];
  followers: Set<(event: BatchEvent) => void>;
  lastAt: number;
}

/** The log of one process. */
export class MemoryEventLog implements EventLog {
  private readonly batches = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  private entry(batchId: string): Entry {
    let entry = this.batches.get(batchId);
    if (!entry) {
      entry = { events: [], followers: new Set(), lastAt: this.now() };
      this.batches.set(batchId, entry);
    }
    return entry;
  }

  async append(batchId: string, event: string, data: unknown): Promise<void> {
    const entry = this.entry(batchId);
    const logged = { seq: entry.events.length + 1, event, data };
    entry.events.push(logged);
    entry.lastAt = this.now();
    for (const follower of entry.followers) follower(logged);
  }

  async follow(batchId: string, after: number, onEvent: (event: BatchEvent) => void): Promise<() => Promise<void>> {
    const entry = this.entry(batchId);
    for (const event of entry.events) if (event.seq > after) onEvent(event);
    entry.followers.add(onEvent);
    return async () => {
      entry.followers.delete(onEvent);
    };
  }

  async purge(olderThanMs: number): Promise<number> {
    const before = this.now() - olderThanMs;
    let purged = 0;
    for (const [id, entry] of this.batches) {
      if (entry.lastAt < before && entry.followers.size === 0) {
        this.batches.delete(id);
        purged++;
      }
    }
    return purged;
  }

  async close(): Promise<void> {
    this.batches.clear();
  }
}
