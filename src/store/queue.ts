/**
 * The job queue's port: work that any node may do, claimed under leases. PostgreSQL has one
 * (`store/postgres/jobs.ts`); on LMDB there is one process, which does its work itself and needs
 * no queue.
 */

export type JobState = 'queued' | 'running' | 'done' | 'dead';

export interface QueuedJob<P = unknown> {
  id: string;
  kind: string;
  key: string;
  payload: P;
  /** Claims so far, this one included. */
  attempts: number;
  maxAttempts: number;
}

export interface JobQueue {
  /** Adds a job unless its kind has one with this key already. */
  enqueue(kind: string, key: string, payload: unknown): Promise<void>;
  /** Leases up to `limit` due jobs of these kinds to `worker` for `leaseMs`. */
  claim(kinds: string[], worker: string, leaseMs: number, limit: number): Promise<QueuedJob[]>;
  /** Extends a lease; false once the worker no longer holds the job. */
  heartbeat(job: QueuedJob, worker: string, leaseMs: number): Promise<boolean>;
  complete(job: QueuedJob, worker: string): Promise<boolean>;
  /** A failed attempt: queued again after `retryInMs` while attempts are left, else dead. */
  fail(job: QueuedJob, worker: string, error: string, retryInMs: number | null): Promise<'queued' | 'dead' | 'lost'>;
  /** Calls `wake` whenever a job is enqueued, on any node. */
  onEnqueued(wake: () => void): Promise<() => Promise<void>>;
  /** Where a kind's job of this key is, or null when there is none. */
  state(kind: string, key: string): Promise<JobState | null>;
}
