/**
 * A durable job queue in the `jobs` table (see `migrate.ts`), shared by every node: extraction of
 * a batch's files, OCR pages, exports and webhook deliveries become jobs that any worker claims.
 *
 * A claim leases a job to one worker for a while; the worker extends the lease while it works
 * (`heartbeat`) and ends it with `complete` or `fail`. A worker that dies stops extending, its
 * lease runs out, and the job is claimable again: another worker runs it, so work is done at least
 * once and handlers must be idempotent. Each claim counts an attempt, and that count is the
 * lease's token: `heartbeat`, `complete` and `fail` act only for the worker holding the job under
 * the attempt it claimed, so a worker whose lease was taken over (even by itself, under the same
 * name) can no longer touch the job.
 *
 * Time is the database's: every due time and lease is compared with `statement_timestamp()`, so
 * nodes whose clocks disagree still agree on who holds a lease. (`now()` would be the start of a
 * caller's transaction, stale inside a long one; `clock_timestamp()` moves within a statement.)
 * A `Date` given for runAt or retryAt is an instant read on the caller's clock; `{ inMs }` is
 * measured from the database's.
 */
import type { SQL } from 'bun';
import type { JobQueue, JobState, QueuedJob } from '../queue';

/** Every enqueue notifies this channel with the job's kind, so idle workers wake instead of polling. */
export const JOBS_CHANNEL = 'rowsmith_jobs';

export const DEFAULT_MAX_ATTEMPTS = 5;

/** When a job is due: an instant, or a delay after the database's now. */
export type When = Date | { inMs: number };

/** A claimed job as the port sees it (the id is a bigint, as text; attempts are the lease's token), and its times. */
export interface Job<P = unknown> extends QueuedJob<P> {
  runAt: Date;
  leaseUntil: Date;
  /** The error of the previous attempt, for a retried job. */
  lastError: string | null;
}

/** What identifies a lease: the job claimed, under the attempt it was claimed at. */
export type Lease = Pick<Job, 'id' | 'attempts'>;

const NOW = 'statement_timestamp()';

/** Placeholders `$at` (instant as text, or null) and `$inMs` (or null) as a timestamptz. */
const whenSql = (at: string, inMs: string) => `COALESCE(${at}::text::timestamptz, ${NOW} + ${inMs}::float8 * interval '1 millisecond')`;
const whenParams = (when: When): [string | null, number | null] => (when instanceof Date ? [when.toISOString(), null] : [null, when.inMs]);

const JOB_COLUMNS =
  'id::text AS id, kind, key, payload, attempts, max_attempts AS "maxAttempts", run_at AS "runAt", lease_until AS "leaseUntil", last_error AS "lastError"';

/** Held by this worker under this attempt; an expired lease still counts until someone else claims the job. */
const OWNED = `id = $1::text::bigint AND state = 'running' AND lease_owner = $2 AND attempts = $3`;

export interface EnqueueOptions {
  kind: string;
  /** Unique per kind: enqueueing a key again, whatever the first job's state, adds nothing. */
  key: string;
  payload: unknown;
  runAt?: When;
  maxAttempts?: number;
}

/**
 * Adds a job unless its kind already has one with this key, and notifies JOBS_CHANNEL when it
 * added one. On a transaction's client both happen at its commit, with the work that made the job.
 */
export async function enqueue(sql: SQL, job: EnqueueOptions): Promise<{ id: string; added: boolean }> {
  const maxAttempts = job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error(`maxAttempts must be a positive integer, not ${maxAttempts}`);
  const [added] = await sql.unsafe(
    `WITH added AS (
       INSERT INTO jobs (kind, key, payload, run_at, max_attempts)
       VALUES ($1, $2, $3::text::jsonb, ${whenSql('$4', '$5')}, $6)
       ON CONFLICT (kind, key) DO NOTHING
       RETURNING id, kind
     )
     SELECT id::text AS id FROM added, LATERAL (SELECT pg_notify('${JOBS_CHANNEL}', added.kind)) AS notified`,
    [job.kind, job.key, JSON.stringify(job.payload ?? null), ...whenParams(job.runAt ?? { inMs: 0 }), maxAttempts],
  );
  if (added) return { id: added.id, added: true };
  // The conflicting job is committed by now: ON CONFLICT waited for its transaction.
  const [existing] = await sql.unsafe('SELECT id::text AS id FROM jobs WHERE kind = $1 AND key = $2', [job.kind, job.key]);
  return { id: existing.id, added: false };
}

export interface ClaimOptions {
  kinds: string[];
  worker: string;
  leaseMs: number;
  limit: number;
}

/**
 * Leases up to `limit` due jobs of these kinds to `worker`, oldest due first: queued ones, and
 * running ones whose lease ran out. Rows another claim is locking are skipped, not waited for, so
 * concurrent claims never take the same job. A job whose lease ran out on its last attempt is
 * not run again but dies here (its worker most likely died on it), so it can take a slot of the
 * limit and a claim may return fewer jobs than were due.
 */
export async function claim<P = unknown>(sql: SQL, { kinds, worker, leaseMs, limit }: ClaimOptions): Promise<Array<Job<P>>> {
  if (kinds.length === 0 || limit < 1) return [];
  const spent = 'j.attempts >= j.max_attempts';
  const rows = await sql.unsafe(
    `WITH picked AS (
       SELECT id FROM jobs
       WHERE state IN ('queued', 'running') AND run_at <= ${NOW} AND (lease_until IS NULL OR lease_until <= ${NOW})
         AND kind IN (SELECT jsonb_array_elements_text($1::text::jsonb))
       ORDER BY run_at, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), leased AS (
       UPDATE jobs j SET
         state = CASE WHEN ${spent} THEN 'dead' ELSE 'running' END,
         attempts = CASE WHEN ${spent} THEN j.attempts ELSE j.attempts + 1 END,
         lease_owner = CASE WHEN ${spent} THEN NULL ELSE $3 END,
         lease_until = CASE WHEN ${spent} THEN NULL ELSE ${NOW} + $4::float8 * interval '1 millisecond' END,
         last_error = CASE WHEN ${spent} THEN 'the lease of ' || j.lease_owner || ' ran out on the last attempt' ELSE j.last_error END,
         finished_at = CASE WHEN ${spent} THEN ${NOW} END
       FROM picked WHERE j.id = picked.id
       RETURNING j.*
     )
     SELECT ${JOB_COLUMNS} FROM leased WHERE state = 'running' ORDER BY run_at, id`,
    [JSON.stringify(kinds), limit, worker, leaseMs],
  );
  return [...rows] as Array<Job<P>>;
}

/** Extends a lease to `leaseMs` from now; false when the worker no longer holds the job. */
export async function heartbeat(sql: SQL, job: Lease, worker: string, leaseMs: number): Promise<boolean> {
  const rows = await sql.unsafe(`UPDATE jobs SET lease_until = ${NOW} + $4::float8 * interval '1 millisecond' WHERE ${OWNED} RETURNING id`, [
    job.id,
    worker,
    job.attempts,
    leaseMs,
  ]);
  return rows.length === 1;
}

/** Marks a job done; false when the worker no longer holds it (another worker may be running it). */
export async function complete(sql: SQL, job: Lease, worker: string): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, finished_at = ${NOW} WHERE ${OWNED} RETURNING id`,
    [job.id, worker, job.attempts],
  );
  return rows.length === 1;
}

/**
 * Records a failed attempt. The job is queued again at `retryAt` while it has attempts left, and
 * dies (kept with its error, never claimed again) when it has none or `retryAt` is null (an error
 * no retry can mend). 'lost' when the worker no longer holds it.
 */
export async function fail(sql: SQL, job: Lease, worker: string, error: string, retryAt: When | null): Promise<'queued' | 'dead' | 'lost'> {
  const retry = `($5::boolean AND attempts < max_attempts)`;
  const [row] = await sql.unsafe(
    `UPDATE jobs SET
       state = CASE WHEN ${retry} THEN 'queued' ELSE 'dead' END,
       run_at = CASE WHEN ${retry} THEN ${whenSql('$6', '$7')} ELSE run_at END,
       finished_at = CASE WHEN ${retry} THEN NULL ELSE ${NOW} END,
       lease_owner = NULL, lease_until = NULL, last_error = $4
     WHERE ${OWNED}
     RETURNING state`,
    [job.id, worker, job.attempts, error, retryAt !== null, ...whenParams(retryAt ?? { inMs: 0 })],
  );
  return row ? row.state : 'lost';
}

/**
 * Calls `onMessage` with the payload of every notification on `channel` (on a connection of its
 * own, re-subscribed after a reconnect), until the returned function is called. Bun's SQL client
 * does LISTEN itself; this only gives the queue's code one shape for it.
 */
export async function listen(sql: SQL, channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
  const subscription = await sql.listen(channel, onMessage);
  return () => subscription.unlisten();
}

/** Where a kind's job of this key is, or null when there is none. */
export async function stateOf(sql: SQL, kind: string, key: string): Promise<JobState | null> {
  const [row] = await sql.unsafe('SELECT state FROM jobs WHERE kind = $1 AND key = $2', [kind, key]);
  return row ? row.state : null;
}

/** The queue as workers and services see it (`src/jobs/queue.ts`). */
export function pgJobQueue(sql: SQL): JobQueue {
  return {
    enqueue: async (kind, key, payload) => void (await enqueue(sql, { kind, key, payload })),
    claim: (kinds, worker, leaseMs, limit) => claim(sql, { kinds, worker, leaseMs, limit }),
    heartbeat: (job, worker, leaseMs) => heartbeat(sql, job, worker, leaseMs),
    complete: (job, worker) => complete(sql, job, worker),
    fail: (job, worker, error, retryInMs) => fail(sql, job, worker, error, retryInMs === null ? null : { inMs: retryInMs }),
    onEnqueued: (wake) => listen(sql, JOBS_CHANNEL, wake),
    state: (kind, key) => stateOf(sql, kind, key),
  };
}
