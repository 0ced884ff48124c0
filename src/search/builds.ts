/**
 * Background builds of derived data (the column cache, the search index): one build at a time, a
 * short time slice per timer tick, so requests are served between slices (and go first: see
 * lib/foreground) and a build of a million rows never holds the event loop for more than a slice. Slices are CPU budgets, measured with
 * `performance.now()`, not points in time, so they do not read the service clock.
 */
import { Foreground } from '../lib/foreground';
import type { Logger } from '../lib/log';

/** Tables this small have their derived data built at once when first needed; larger ones in the background. */
export const BUILD_AT_ONCE_ROWS = 10_000;

export interface BuildTask {
  /** One task per key is queued at a time. */
  key: string;
  /** Works until `deadline` (a `performance.now()` value); true once finished. Throwing ends it too. */
  step(deadline: number): boolean;
  /** Called once, when finished, failed (with the error) or cancelled by close. */
  done(error?: unknown): void;
}

export class BuildQueue {
  private tasks: BuildTask[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly log: Logger,
    private readonly sliceMs = 4,
    /** Requests go first between slices. */
    private readonly foreground = new Foreground(0),
  ) {}

  /** Tasks queued or under way. */
  get size(): number {
    return this.tasks.length;
  }

  has(key: string): boolean {
    return this.tasks.some((t) => t.key === key);
  }

  /**
   * Queues a task unless one with its key is queued already (or runs it to the end now, `atOnce`:
   * small builds need no slicing); returns whether it was taken.
   */
  add(task: BuildTask, atOnce = false): boolean {
    if (this.closed || this.has(task.key)) return false;
    if (atOnce) {
      task.done(this.run(task, Infinity).error);
      return true;
    }
    this.tasks.push(task);
    this.schedule();
    return true;
  }

  /** One step of a task; a step that throws ends it, and is logged (the build is dropped; a later request starts another). */
  private run(task: BuildTask, deadline: number): { finished: boolean; error?: unknown } {
    try {
      return { finished: task.step(deadline) };
    } catch (error) {
      this.log.error('build_failed', { build: task.key, error: String((error as Error)?.stack ?? error) });
      return { finished: true, error };
    }
  }

  private schedule(): void {
    if (this.scheduled || this.closed || this.tasks.length === 0) return;
    this.scheduled = true;
    void this.foreground.pause(() => this.closed).then(() => this.tick());
  }

  private tick(): void {
    this.scheduled = false;
    if (this.closed) return;
    const task = this.tasks[0];
    if (!task) return;
    const { finished, error } = this.run(task, performance.now() + this.sliceMs);
    if (finished) {
      this.tasks.shift();
      task.done(error);
    }
    this.schedule();
  }

  /** Stops building; unfinished tasks end with an error. Call before the store closes. */
  close(): void {
    this.closed = true;
    const left = this.tasks;
    this.tasks = [];
    for (const task of left) task.done(new Error('the service is shutting down'));
  }
}
