/**
 * Schema migrations and the leased job queue on a real PostgreSQL, with several clients (each its
 * own connections) standing for several nodes. Leases are 200 ms, so expiry is reached by short
 * sleeps; every claim that must come back empty is checked before the sleep that makes it succeed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { claim, complete, enqueue, fail, heartbeat, JOBS_CHANNEL, listen, type Job } from '../../src/store/postgres/jobs';
import { checksumOf, migrate, MIGRATIONS, type Migration } from '../../src/store/postgres/migrate';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

let pg: PgCluster;
const clients: SQL[] = [];

/** A client with connections of its own, as another node would have. */
function client(database: string, max = 2): SQL {
  const sql = new SQL({ ...pg.options, database, max });
  clients.push(sql);
  return sql;
}

let databases = 0;
async function freshDatabase(): Promise<string> {
  const name = `db${++databases}`;
  await pg.sql.unsafe(`CREATE DATABASE ${name}`);
  return name;
}

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  pg = await startPostgres();
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await pg?.stop();
});

const ids = (migrations: Migration[]) => migrations.map((m) => m.id);

describe.skipIf(!POSTGRES_BIN)('migrate', () => {
  // Ids after the code's own migrations, as the next ones would be.
  const next = Math.max(...ids(MIGRATIONS)) + 1;
  const extra: Migration[] = [
    // Not idempotent on purpose: applied twice, it fails, and the row count tells.
    { id: next, name: 'a counted table', sql: 'CREATE TABLE extra (n integer); INSERT INTO extra VALUES (1);' },
    { id: next + 1, name: 'another table', sql: 'CREATE TABLE more (n integer);' },
  ];

  test('applies each migration once and records it; a second run applies nothing', async () => {
    const sql = client(await freshDatabase());
    expect(ids(await migrate(sql))).toEqual(ids(MIGRATIONS));
    const [tables] = await sql.unsafe(`SELECT to_regclass('rows') IS NOT NULL AS rows, to_regclass('jobs') IS NOT NULL AS jobs`);
    expect(tables).toEqual({ rows: true, jobs: true });
    const history = [...(await sql.unsafe('SELECT id, name, checksum, applied_at FROM schema_migrations ORDER BY id'))];
    expect(history.map((h) => [h.id, h.name, h.checksum])).toEqual(MIGRATIONS.map((m) => [m.id, m.name, checksumOf(m.sql)]));
    expect(history.every((h) => h.applied_at instanceof Date)).toBe(true);
    expect(await migrate(sql)).toEqual([]);
    expect(ids(await migrate(sql, [...MIGRATIONS, ...extra]))).toEqual([next, next + 1]);
    expect(await migrate(sql, [...MIGRATIONS, ...extra])).toEqual([]);
    expect((await sql.unsafe('SELECT count(*)::int AS n FROM extra'))[0].n).toBe(1);
  });

  test('nodes starting at once apply each migration exactly once between them', async () => {
    const name = await freshDatabase();
    const nodes = [client(name), client(name), client(name)];
    await Promise.all(nodes.map((sql) => sql.unsafe('SELECT 1')));
    const applied = await Promise.all(nodes.map((sql) => migrate(sql, [...MIGRATIONS, ...extra])));
    expect(applied.flatMap(ids).sort((a, b) => a - b)).toEqual([...ids(MIGRATIONS), next, next + 1]);
    const sql = nodes[0]!;
    expect((await sql.unsafe('SELECT count(*)::int AS n FROM schema_migrations'))[0].n).toBe(MIGRATIONS.length + 2);
    expect((await sql.unsafe('SELECT count(*)::int AS n FROM extra'))[0].n).toBe(1);
  });

  test('a migration whose SQL changed after it was applied stops start-up, applying nothing', async () => {
    const sql = client(await freshDatabase());
    await migrate(sql, [...MIGRATIONS, extra[0]!]);
    const changed = { ...extra[0]!, sql: extra[0]!.sql.replace('VALUES (1)', 'VALUES (2)') };
    await expect(migrate(sql, [...MIGRATIONS, changed, extra[1]!])).rejects.toThrow(new RegExp(`migration ${next} \\(a counted table\\) was applied with other SQL`));
    // Unchanged, it would have gone on to the next migration.
    expect((await sql.unsafe(`SELECT to_regclass('more') IS NULL AS absent`))[0].absent).toBe(true);
    // A database migrated by a newer version is refused too.
    await expect(migrate(sql, MIGRATIONS)).rejects.toThrow(new RegExp(`migration ${next} .* unknown to this version`));
    expect(ids(await migrate(sql, [...MIGRATIONS, ...extra]))).toEqual([next + 1]);
  });
});

describe.skipIf(!POSTGRES_BIN)('jobs', () => {
  let db: string;
  let sql: SQL;
  let kinds = 0;
  const freshKind = () => `kind${++kinds}`;
  const LEASE = 200;
  const stateOf = async (id: string) =>
    (await sql.unsafe('SELECT state, attempts, last_error, finished_at, lease_owner FROM jobs WHERE id = $1::text::bigint', [id]))[0] as {
      state: string;
      attempts: number;
      last_error: string | null;
      finished_at: Date | null;
      lease_owner: string | null;
    };

  beforeAll(async () => {
    db = await freshDatabase();
    sql = client(db, 4);
    await migrate(sql);
  });

  test('the same key twice is one job; the same key in another kind is another', async () => {
    const kind = freshKind();
    const first = await enqueue(sql, { kind, key: 'batch_1/file_1', payload: { n: 1 } });
    const again = await enqueue(sql, { kind, key: 'batch_1/file_1', payload: { n: 2 } });
    expect(first.added).toBe(true);
    expect(again).toEqual({ id: first.id, added: false });
    // Concurrent enqueues from several nodes: still one.
    const nodes = [client(db), client(db), client(db)];
    const racing = await Promise.all(nodes.map((node) => enqueue(node, { kind, key: 'batch_1/file_2', payload: {} })));
    expect(racing.filter((r) => r.added)).toHaveLength(1);
    expect(new Set(racing.map((r) => r.id)).size).toBe(1);
    const other = await enqueue(sql, { kind: freshKind(), key: 'batch_1/file_1', payload: {} });
    expect(other.added).toBe(true);
    expect(other.id).not.toBe(first.id);
    const [job, ...rest] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 10 });
    expect(rest).toHaveLength(1);
    expect(job!.payload).toEqual({ n: 1 });
    // Done, the key still holds: the work is not done again.
    expect(await complete(sql, job!, 'w1')).toBe(true);
    expect(await enqueue(sql, { kind, key: 'batch_1/file_1', payload: {} })).toEqual({ id: first.id, added: false });
    expect(await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 10 })).toHaveLength(0);
  });

  test('enqueue wakes listeners with the kind, only when it adds a job', async () => {
    const kind = freshKind();
    const heard: string[] = [];
    const unlisten = await listen(client(db), JOBS_CHANNEL, (payload) => heard.push(payload));
    try {
      const wait = async (n: number) => {
        for (let i = 0; i < 100 && heard.length < n; i++) await Bun.sleep(10);
      };
      await enqueue(sql, { kind, key: 'a', payload: {} });
      await wait(1);
      expect(heard).toEqual([kind]);
      await enqueue(sql, { kind, key: 'a', payload: {} });
      await enqueue(sql, { kind, key: 'b', payload: {} });
      await wait(2);
      expect(heard).toEqual([kind, kind]);
      // In a transaction, the notification waits for the commit and goes with a rollback.
      await sql
        .begin(async (tx) => {
          await enqueue(tx, { kind, key: 'c', payload: {} });
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      await enqueue(sql, { kind, key: 'd', payload: {} });
      await wait(3);
      expect(heard).toEqual([kind, kind, kind]);
    } finally {
      await unlisten();
    }
  });

  test('three claimers over 200 jobs: every job is claimed exactly once', async () => {
    const kind = freshKind();
    await Promise.all(Array.from({ length: 200 }, (_, i) => enqueue(sql, { kind, key: `k${i}`, payload: { i } })));
    const workers = ['a', 'b', 'c'].map((worker) => ({ worker, sql: client(db, 1), claimed: [] as string[] }));
    await Promise.all(workers.map((w) => w.sql.unsafe('SELECT 1')));
    // Each holds its first claim until all three have one, so they surely claim side by side.
    let first = 0;
    let allHold!: () => void;
    const allHolding = new Promise<void>((resolve) => (allHold = resolve));
    await Promise.all(
      workers.map(async (w) => {
        for (let round = 0; ; round++) {
          const jobs = await claim(w.sql, { kinds: [kind], worker: w.worker, leaseMs: 60_000, limit: 3 });
          if (round === 0 && ++first === workers.length) allHold();
          if (round === 0) await allHolding;
          if (jobs.length === 0) return;
          for (const job of jobs) {
            w.claimed.push(job.id);
            expect(job.attempts).toBe(1);
            expect(await complete(w.sql, job, w.worker)).toBe(true);
          }
        }
      }),
    );
    const all = workers.flatMap((w) => w.claimed);
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    const [done] = await sql.unsafe(`SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND state = 'done' AND attempts = 1`, [kind]);
    expect(done.n).toBe(200);
  });

  test('a claim skips jobs another claim is locking instead of waiting for it', async () => {
    const kind = freshKind();
    const one = await enqueue(sql, { kind, key: '1', payload: {} });
    const two = await enqueue(sql, { kind, key: '2', payload: {} });
    const other = client(db);
    await sql.begin(async (tx) => {
      // Claimed in an open transaction: job 1 stays locked until it commits.
      const held = await claim(tx, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
      expect(held.map((j) => j.id)).toEqual([one.id]);
      const waited = Bun.sleep(2_000).then(() => 'blocked' as const);
      const next = await Promise.race([claim(other, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 2 }), waited]);
      expect(next).not.toBe('blocked');
      expect((next as Job[]).map((j) => j.id)).toEqual([two.id]);
    });
  });

  test('a lease that ran out goes to another worker; the first can then neither complete nor fail it', async () => {
    const kind = freshKind();
    const { id } = await enqueue(sql, { kind, key: 'x', payload: {} });
    const [first] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    expect(first).toMatchObject({ id, attempts: 1 });
    expect(await claim(sql, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(0);
    await Bun.sleep(LEASE + 50);
    const [second] = await claim(client(db), { kinds: [kind], worker: 'w2', leaseMs: 60_000, limit: 1 });
    expect(second).toMatchObject({ id, attempts: 2 });
    expect(await complete(sql, first!, 'w1')).toBe(false);
    expect(await heartbeat(sql, first!, 'w1', LEASE)).toBe(false);
    expect(await fail(sql, first!, 'w1', 'late', { inMs: 0 })).toBe('lost');
    expect(await stateOf(id)).toMatchObject({ state: 'running', lease_owner: 'w2', last_error: null });
    expect(await complete(sql, second!, 'w2')).toBe(true);
    expect(await stateOf(id)).toMatchObject({ state: 'done', attempts: 2, lease_owner: null });
  });

  test('a worker that takes over its own expired job holds only the new lease', async () => {
    const kind = freshKind();
    await enqueue(sql, { kind, key: 'x', payload: {} });
    const [old] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    await Bun.sleep(LEASE + 50);
    const [renewed] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    expect(renewed).toMatchObject({ id: old!.id, attempts: 2 });
    expect(await complete(sql, old!, 'w1')).toBe(false);
    expect(await complete(sql, renewed!, 'w1')).toBe(true);
  });

  test('an expired lease is still its holder’s until someone claims the job', async () => {
    const kind = freshKind();
    await enqueue(sql, { kind, key: 'x', payload: {} });
    const [job] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    await Bun.sleep(LEASE + 50);
    expect(await heartbeat(sql, job!, 'w1', LEASE)).toBe(true);
    expect(await complete(sql, job!, 'w1')).toBe(true);
    expect(await claim(sql, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(0);
  });

  test('heartbeats keep the lease past its first term; without them it runs out', async () => {
    const kind = freshKind();
    await enqueue(sql, { kind, key: 'x', payload: {} });
    const [job] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    const other = client(db);
    for (let i = 0; i < 5; i++) {
      await Bun.sleep(LEASE / 2);
      expect(await heartbeat(sql, job!, 'w1', LEASE)).toBe(true);
      expect(await claim(other, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(0);
    }
    expect(await heartbeat(sql, job!, 'w2', LEASE)).toBe(false);
    await Bun.sleep(LEASE + 50);
    expect(await claim(other, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(1);
    expect(await heartbeat(sql, job!, 'w1', LEASE)).toBe(false);
  });

  test('a failed job is retried at its retryAt, with the error of the attempt before', async () => {
    const kind = freshKind();
    const { id } = await enqueue(sql, { kind, key: 'x', payload: {}, maxAttempts: 3 });
    const [job] = await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 });
    expect(job!.lastError).toBeNull();
    expect(await fail(sql, job!, 'w1', 'ocr timed out', { inMs: 300 })).toBe('queued');
    expect(await stateOf(id)).toMatchObject({ state: 'queued', lease_owner: null, finished_at: null });
    expect(await claim(sql, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(0);
    await Bun.sleep(350);
    const [retry] = await claim(sql, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 });
    expect(retry).toMatchObject({ id, attempts: 2, lastError: 'ocr timed out' });
    // The failure is the holder's alone to report.
    expect(await fail(sql, job!, 'w1', 'again', { inMs: 0 })).toBe('lost');
  });

  test('a job is dead after maxAttempts, or at once when it is not to be retried, and keeps its error', async () => {
    const kind = freshKind();
    const claimOne = async () => (await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 }))[0];
    const { id } = await enqueue(sql, { kind, key: 'x', payload: {}, maxAttempts: 2 });
    expect(await fail(sql, (await claimOne())!, 'w1', 'first', { inMs: 0 })).toBe('queued');
    expect(await fail(sql, (await claimOne())!, 'w1', 'second', { inMs: 0 })).toBe('dead');
    expect(await claimOne()).toBeUndefined();
    expect(await stateOf(id)).toMatchObject({ state: 'dead', attempts: 2, last_error: 'second', lease_owner: null });
    expect((await stateOf(id)).finished_at).toBeInstanceOf(Date);

    const permanent = await enqueue(sql, { kind, key: 'y', payload: {}, maxAttempts: 5 });
    expect(await fail(sql, (await claimOne())!, 'w1', 'unreadable file', null)).toBe('dead');
    expect(await stateOf(permanent.id)).toMatchObject({ state: 'dead', attempts: 1, last_error: 'unreadable file' });
    expect(await claimOne()).toBeUndefined();
  });

  test('a lease that runs out on the last attempt leaves the job dead, not claimed again', async () => {
    const kind = freshKind();
    const { id } = await enqueue(sql, { kind, key: 'x', payload: {}, maxAttempts: 1 });
    expect(await claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 1 })).toHaveLength(1);
    await Bun.sleep(LEASE + 50);
    expect(await claim(sql, { kinds: [kind], worker: 'w2', leaseMs: LEASE, limit: 1 })).toHaveLength(0);
    expect(await stateOf(id)).toMatchObject({ state: 'dead', attempts: 1, last_error: 'the lease of w1 ran out on the last attempt' });
  });

  test('a job due later is not claimed before its runAt', async () => {
    const kind = freshKind();
    const soon = await enqueue(sql, { kind, key: 'soon', payload: {}, runAt: new Date(Date.now() + 400) });
    await enqueue(sql, { kind, key: 'later', payload: {}, runAt: { inMs: 60_000 } });
    const claimAll = () => claim(sql, { kinds: [kind], worker: 'w1', leaseMs: LEASE, limit: 10 });
    expect(await claimAll()).toHaveLength(0);
    await Bun.sleep(450);
    const due: Job[] = await claimAll();
    expect(due.map((j) => j.id)).toEqual([soon.id]);
    expect(due[0]!.runAt).toBeInstanceOf(Date);
    expect(due[0]!.leaseUntil.getTime()).toBeGreaterThan(due[0]!.runAt.getTime());
  });

  test('a claim takes only the kinds it asks for, oldest due first, up to its limit', async () => {
    const [a, b] = [freshKind(), freshKind()];
    for (const key of ['1', '2', '3']) await enqueue(sql, { kind: a, key, payload: { key } });
    await enqueue(sql, { kind: b, key: '1', payload: {} });
    const first = await claim<{ key: string }>(sql, { kinds: [a], worker: 'w1', leaseMs: LEASE, limit: 2 });
    expect(first.map((j) => j.payload.key)).toEqual(['1', '2']);
    expect(first.every((j) => j.kind === a)).toBe(true);
    expect(await claim(sql, { kinds: [], worker: 'w1', leaseMs: LEASE, limit: 2 })).toEqual([]);
    expect((await claim(sql, { kinds: [a, b], worker: 'w1', leaseMs: LEASE, limit: 5 })).map((j) => j.kind).sort()).toEqual([a, b]);
  });
});
