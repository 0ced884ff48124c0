/**
 * In-process timers for background work (quota flush, purges). Each job runs again `intervalMs`
 * after its previous run ended, so a slow run never overlaps itself; failures are logged, not fatal.
 */
import type { Logger } from '../lib/log';

interface Job {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown> | unknown;
  timer?: ReturnType<typeof setTimeout>;
  running?: Promise<void>;
}

export class Scheduler {
  private readonly jobs: Job[] = [];
  private stopped = false;

  constructor(private readonly log: Logger) {}

  every(name: string, intervalMs: number, run: Job['run']): void {
    const job: Job = { name, intervalMs, run };
    this.jobs.push(job);
    this.arm(job);
  }

  /** Runs a job now (tests, shutdown), waiting for a run already under way first. */
  async runNow(name: string): Promise<void> {
    const job = this.jobs.find((j) => j.name === name);
    if (!job) throw new Error(`no job named ${name}`);
    await job.running;
    await this.execute(job);
  }

  private arm(job: Job): void {
    if (this.stopped) return;
    job.timer = setTimeout(() => {
      void this.execute(job).then(() => this.arm(job));
    }, job.intervalMs);
    job.timer.unref?.();
  }

  private execute(job: Job): Promise<void> {
    job.running = (async () => {
      try {
        await job.run();
      } catch (error) {
        this.log.error('job_failed', { job: job.name, error: String((error as Error)?.stack ?? error) });
      }
    })();
    return job.running;
  }

  /** Cancels the timers and waits for runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs) clearTimeout(job.timer);
    await Promise.all(this.jobs.map((j) => j.running));
  }
}
