/**
 * Workers on the shared queue of a real PostgreSQL, each with its own client as a node would have:
 * jobs spread over workers and run once, leases kept alive while a job runs past them, failed
 * attempts retried until the last, and a worker that stops renewing gives its job to another.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { Worker, type JobHandler } from '../../src/jobs/worker';
import { createLogger } from '../../src/lib/log';
import { migrate } from '../../src/store/postgres/migrate';
import { pgJobQueue } from '../../src/store/postgres/jobs';
import type { JobQueue, QueuedJob } from '../../src/store/queue';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

const log = createLogger(false);
let pg: PgCluster;
const clients: SQL[] = [];
const workers: Worker[] = [];

function queue(): JobQueue {
  const sql = new SQL({ ...pg.options, database: 'workers', max: 3 });
  clients.push(sql);
  return pgJobQueue(sql);
}

function worker(name: string, handlers: Record<string, JobHandler>, leaseMs = 300, concurrency = 2): Worker {
  const started = new Worker(queue(), handlers, { name, concurrency, leaseMs }, log);
  workers.push(started);
  return started;
}

async function until(done: () => boolean, ms = 15_000): Promise<void> {
  for (const deadline = Date.now() + ms; !done(); await Bun.sleep(20)) if (Date.now() > deadline) throw new Error('timed out');
}

describe.skipIf(!POSTGRES_BIN)('workers on the shared queue', () => {
  let jobs: JobQueue;
  let sql: SQL;

  beforeAll(async () => {
    pg = await startPostgres();
    await pg.sql.unsafe('CREATE DATABASE workers');
    sql = new SQL({ ...pg.options, database: 'workers', max: 2 });
    clients.push(sql);
    await migrate(sql);
    jobs = pgJobQueue(sql);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all(clients.map((c) => c.close()));
    await pg?.stop();
  });

  test('60 jobs over three workers: each runs once, woken by the enqueue, two at a time per worker at most', async () => {
    const ran = new Map<string, string[]>();
    const running = new Map<string, number>();
    let most = 0;
    const handler = (name: string): JobHandler => async (job) => {
      running.set(name, (running.get(name) ?? 0) + 1);
      most = Math.max(most, running.get(name)!);
      await Bun.sleep(5);
      ran.set(job.key, [...(ran.get(job.key) ?? []), name]);
      running.set(name, running.get(name)! - 1);
    };
    for (const name of ['a', 'b', 'c']) await worker(name, { spread: handler(name) }, 60_000).start();
    // A lease of a minute: the workers' polls come far too late; only the notification wakes them.
    for (let i = 0; i < 60; i++) await jobs.enqueue('spread', `k${i}`, { i });
    await until(() => ran.size === 60);
    await Bun.sleep(200);
    expect([...ran.values()].every((names) => names.length === 1)).toBe(true);
    expect(new Set([...ran.values()].flat()).size).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(2);
    expect(await jobs.state('spread', 'k0')).toBe('done');
  }, 60_000);

  test('a job running three times its lease keeps it: no other worker takes it', async () => {
    const runs: string[] = [];
    const slow = (name: string): JobHandler => async () => {
      runs.push(name);
      await Bun.sleep(900);
    };
    await worker('slow-1', { slow: slow('slow-1') }).start();
    await jobs.enqueue('slow', 'one', {});
    await until(() => runs.length === 1);
    await worker('slow-2', { slow: slow('slow-2') }).start();
    for (const deadline = Date.now() + 5000; (await jobs.state('slow', 'one')) !== 'done' && Date.now() < deadline; ) await Bun.sleep(50);
    expect(await jobs.state('slow', 'one')).toBe('done');
    expect(runs).toEqual(['slow-1']);
  }, 30_000);

  test('a failing job is tried again until its last attempt, then dead with its error', async () => {
    const attempts: number[] = [];
    await worker('flaky', {
      flaky: async (job: QueuedJob) => {
        attempts.push(job.attempts);
        throw new Error(`attempt ${job.attempts} failed`);
      },
    }).start();
    await jobs.enqueue('flaky', 'one', {});
    // Retries wait 5 s times the attempt; the test moves them forward instead of waiting.
    for (const deadline = Date.now() + 20_000; (await jobs.state('flaky', 'one')) !== 'dead' && Date.now() < deadline; await Bun.sleep(50)) {
      await sql.unsafe(`UPDATE jobs SET run_at = statement_timestamp() WHERE kind = 'flaky' AND state = 'queued'`);
    }
    expect(await jobs.state('flaky', 'one')).toBe('dead');
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    const [row] = await sql.unsafe(`SELECT last_error FROM jobs WHERE kind = 'flaky'`);
    expect(row.last_error).toBe('attempt 5 failed');
  }, 30_000);

  test('stopping waits for running jobs at most its grace, and claims nothing after', async () => {
    let finished = false;
    const slow = worker('stopping', { long: async () => void (await Bun.sleep(3_000), (finished = true)) }, 300, 1);
    await slow.start();
    await jobs.enqueue('long', 'one', {});
    for (const deadline = Date.now() + 10_000; (await jobs.state('long', 'one')) !== 'running' && Date.now() < deadline; ) await Bun.sleep(20);
    expect(await jobs.state('long', 'one')).toBe('running');
    const started = performance.now();
    await slow.stop(200);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(finished).toBe(false);
    await jobs.enqueue('long', 'two', {});
    await Bun.sleep(300);
    expect(await jobs.state('long', 'two')).toBe('queued');
  }, 30_000);

  test('a worker that stops renewing (a dead node) loses its job to another once the lease runs out', async () => {
    const runs: string[] = [];
    // This "node" claims the job and then hangs without heartbeats, as a frozen or killed process does.
    const frozen = queue();
    await jobs.enqueue('orphan', 'one', {});
    const [claimed] = await frozen.claim(['orphan'], 'frozen', 300, 1);
    expect(claimed?.key).toBe('one');
    await worker('rescuer', { orphan: async () => void runs.push('rescuer') }).start();
    await until(() => runs.length === 1);
    expect(await frozen.complete(claimed!, 'frozen')).toBe(false);
    for (const deadline = Date.now() + 5000; (await jobs.state('orphan', 'one')) !== 'done' && Date.now() < deadline; ) await Bun.sleep(50);
    expect(await jobs.state('orphan', 'one')).toBe('done');
  }, 30_000);
});
