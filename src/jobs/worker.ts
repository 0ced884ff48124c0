/**
 * A worker node's loop: claims jobs from the shared queue while it has free slots, keeps their
 * leases alive while they run, and completes or fails them. A worker that dies stops renewing its
 * leases, and another claims the jobs once they run out; the handlers are written to be run again.
 */
import type { Logger } from '../lib/log';
import type { JobQueue, QueuedJob } from '../store/queue';

export type JobHandler = (job: QueuedJob) => Promise<void>;

export interface WorkerOptions {
  /** This worker's name in leases (host and pid: unique among live workers). */
  name: string;
  /** Jobs run at once. */
  concurrency: number;
  /** How long a claim holds a job without a heartbeat. */
  leaseMs: number;
}

/** A failed attempt is tried again after this many ms times its attempt number. */
const RETRY_STEP_MS = 5_000;

export class Worker {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private claiming: Promise<void> | null = null;
  private again = false;
  private poll: ReturnType<typeof setInterval> | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: Record<string, JobHandler>,
    private readonly options: WorkerOptions,
    private readonly log: Logger,
  ) {}

  /** Starts claiming: on every enqueue anywhere, and on a poll that finds leases that ran out. */
  async start(): Promise<void> {
    this.unlisten = await this.queue.onEnqueued(() => this.wake());
    this.poll = setInterval(() => this.wake(), Math.max(100, Math.floor(this.options.leaseMs / 2)));
    this.poll.unref();
    this.wake();
  }

  /** Claims what the free slots can take; a wake during a claim claims again after it. */
  wake(): void {
    if (this.stopping) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claim()
      .catch((error) => this.log.error('job_claim_failed', { worker: this.options.name, error: String((error as Error)?.stack ?? error) }))
      .finally(() => {
        this.claiming = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async claim(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    const jobs = await this.queue.claim(Object.keys(this.handlers), this.options.name, this.options.leaseMs, free);
    for (const job of jobs) {
      const run = this.run(job).finally(() => {
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
  }

  private async run(job: QueuedJob): Promise<void> {
    const { name, leaseMs } = this.options;
    const beat = setInterval(() => {
      this.queue.heartbeat(job, name, leaseMs).then(
        (held) => {
          if (!held) this.log.error('job_lease_lost', { worker: name, job_id: job.id, kind: job.kind, key: job.key });
        },
        () => {
          // The database is out of reach; the next beat tries again, and the lease outlives a few misses.
        },
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      await this.handlers[job.kind]!(job);
      await this.queue.complete(job, name);
    } catch (error) {
      const message = String((error as Error)?.message ?? error).slice(0, 2048);
      this.log.error('job_failed', { worker: name, job_id: job.id, kind: job.kind, key: job.key, attempt: job.attempts, error: String((error as Error)?.stack ?? error) });
      await this.queue.fail(job, name, message, RETRY_STEP_MS * job.attempts).catch(() => {});
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * Stops claiming and waits for the jobs running here, for at most `graceMs` (a page of OCR can
   * take minutes): a job cut off by the exit goes to another worker once its lease runs out.
   */
  async stop(graceMs = Infinity): Promise<void> {
    this.stopping = true;
    if (this.poll) clearInterval(this.poll);
    await this.unlisten?.().catch(() => {});
    await this.claiming;
    const waited = Promise.all(this.running);
    await (Number.isFinite(graceMs) ? Promise.race([waited, Bun.sleep(graceMs)]) : waited);
  }
}
