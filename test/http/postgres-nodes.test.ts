/**
 * What nodes on one PostgreSQL share besides the data: work that no worker will finish, which an
 * API node's sweep ends (no batch or export stays `processing` for ever, and a client waiting on
 * it gets its answer), and a key's rate limit, which holds across nodes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ADMIN_KEY, startPostgresApp, type PostgresTestApp } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

const P = '/v1/projects/proj_default';

describe.skipIf(!POSTGRES_BIN)('work no worker will finish', () => {
  let cluster: PgCluster;
  let api: PostgresTestApp;
  beforeAll(async () => {
    cluster = await startPostgres();
    // An API node alone: nothing claims its jobs.
    // The webhook's host resolves to a public address that is never sent to: the test only looks at the queued delivery.
    api = await startPostgresApp(cluster, { config: { role: 'api' }, network: { resolver: async () => ['93.184.215.14'] } });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await cluster?.stop();
  });

  const jobOf = async (kind: string) => {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await Bun.sleep(20)) {
      const [job] = await api.sql.unsafe(`SELECT id, key, state FROM jobs WHERE kind = $1 ORDER BY id DESC LIMIT 1`, [kind]);
      if (job) return job as { id: string; key: string; state: string };
    }
    throw new Error(`no ${kind} job`);
  };

  test('an extraction whose job died is failed by the sweep: the waiting request gets its end, followers get done, the webhook event is queued', async () => {
    const table = (await api.request('POST', `${P}/tables`, { body: { name: 'Orders', columns_json: [{ id: 'order_id', name: 'Order ID' }] } })).body.id;
    const hook = await api.request('POST', '/v1/organizations/org_default/webhooks', { body: { url: 'https://hooks.example.com/rowsmith', events: ['batch.failed'] } });
    expect(hook.status).toBe(201);
    const form = new FormData();
    form.append('file', new File(['Order ID\nA-1\n'], 'a.csv', { type: 'text/csv' }));
    const response = api.app.handle(
      new Request(`http://localhost${P}/tables/${table}/extract-stream`, { method: 'POST', headers: { authorization: `ApiKey ${ADMIN_KEY}` }, body: form }),
    );
    const job = await jobOf('extract');
    expect(job.state).toBe('queued');
    // Queued and young: the sweep leaves it to the workers.
    expect(await api.services.extract.sweep(0)).toBe(0);
    await api.sql.unsafe(`UPDATE jobs SET state = 'dead', last_error = 'the lease ran out on the last attempt' WHERE id = $1::text::bigint`, [job.id]);
    expect(await api.services.extract.sweep(0)).toBe(1);
    expect(await api.services.extract.sweep(0)).toBe(0);

    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const decoder = new TextDecoder();
    for await (const chunk of (await response).body!) parser.feed(decoder.decode(chunk, { stream: true }));
    expect(events.map((e) => e.event)).toEqual(['batch', 'done']);
    const done = JSON.parse(events[1]!.data);
    expect(done).toMatchObject({ batch_id: job.key, status: 'failed', fail_count: 1, total_rows: 0 });
    expect(done.files[0].error).toBe('interrupted: no worker could finish the extraction');
    const batch = (await api.request('GET', `${P}/batches/${job.key}`)).body;
    expect(batch).toMatchObject({ status: 'failed', error: 'interrupted: no worker could finish the extraction' });
    const deliveries = (await api.request('GET', `/v1/organizations/org_default/webhooks/${hook.body.id}/deliveries`)).body;
    expect(JSON.stringify(deliveries)).toContain(job.key);
  }, 60_000);

  test('one file run by two workers at once (a lease taken over from a slow worker) is recorded once: no row twice', async () => {
    const table = (await api.request('POST', `${P}/tables`, { body: { name: 'Twice', columns_json: [{ id: 'order_id', name: 'Order ID' }], strictness: 'flexible' } })).body.id;
    const form = new FormData();
    form.append('file', new File(['Order ID\nA-1\nA-2\n'], 'a.csv', { type: 'text/csv' }));
    form.append('file', new File(['Order ID\nB-1\n'], 'b.csv', { type: 'text/csv' }));
    const answer = api.request('POST', `${P}/tables/${table}/extract`, { raw: form });
    // Each file is a job; this node has no worker, so the test runs them as two workers would.
    let jobs: Array<{ kind: string; key: string; payload: unknown; attempts: number; max_attempts: number; id: string }> = [];
    for (const deadline = Date.now() + 10_000; jobs.length < 2 && Date.now() < deadline; await Bun.sleep(20)) {
      jobs = [...(await api.sql.unsafe(`SELECT id::text, kind, key, payload, attempts, max_attempts FROM jobs WHERE kind = 'extract-file' AND state = 'queued' ORDER BY key`))];
    }
    expect(jobs.map((j) => j.key.split('/')[1])).toEqual(['0', '1']);
    const run = (j: (typeof jobs)[number]) => api.services.extract.runJob({ id: j.id, kind: j.kind, key: j.key, payload: j.payload, attempts: 1, maxAttempts: j.max_attempts });
    await Promise.all([run(jobs[0]!), run(jobs[0]!), run(jobs[1]!)]);
    const reply = await answer;
    expect(reply.body).toMatchObject({ status: 'complete', total_rows: 3, success_count: 2 });
    const rows = (await api.request('GET', `${P}/tables/${table}/rows?order=order_id.asc`)).body.rows;
    expect(rows.map((r: { order_id: string }) => r.order_id)).toEqual(['A-1', 'A-2', 'B-1']);
    const batch = (await api.request('GET', `${P}/batches/${reply.body.batch_id}`)).body;
    expect(batch).toMatchObject({ files_done: 2, total_rows: 3 });
  }, 60_000);

  test('an export whose job died is failed by the sweep; one still queued is left', async () => {
    const table = (await api.request('POST', `${P}/tables`, { body: { name: 'Numbers', columns_json: [{ id: 'n', name: 'N', type: 'number' }] } })).body.id;
    const started = (await api.request('GET', `${P}/tables/${table}/export?format=csv`)).body;
    expect(started.status).toBe('processing');
    const job = await jobOf('export');
    expect(job.key).toBe(started.id);
    expect(await api.services.exports.sweep(0)).toBe(0);
    await api.sql.unsafe(`UPDATE jobs SET state = 'dead' WHERE id = $1::text::bigint`, [job.id]);
    expect(await api.services.exports.sweep(0)).toBe(1);
    const after = (await api.request('GET', `${P}/exports/${started.id}`)).body;
    expect(after).toMatchObject({ status: 'failed', error: 'interrupted: no worker could write the export' });

    // The temporary files a killed writer left: one unwritten for the grace goes, a fresh one stays.
    const path = join(api.dataDir, 'exports', `${started.id}.csv`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.0000aaaa0000.tmp`, 'n\n1\n');
    writeFileSync(`${path}.0000bbbb0000.tmp`, 'n\n1\n');
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(`${path}.0000aaaa0000.tmp`, longAgo, longAgo);
    await api.services.exports.sweep(30_000);
    expect(existsSync(`${path}.0000aaaa0000.tmp`)).toBe(false);
    expect(existsSync(`${path}.0000bbbb0000.tmp`)).toBe(true);
  });
});

describe.skipIf(!POSTGRES_BIN)('the rate limit across nodes', () => {
  let cluster: PgCluster;
  const apps: PostgresTestApp[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    // The node that joined the database closes first: the first one drops the database.
    for (const app of apps.reverse()) await app.close();
    await cluster?.stop();
  });

  test("a key's burst is shared by every node: past it, any node answers 429 with Retry-After, and it refills", async () => {
    const config = { rateLimitPerSecond: 2, rateLimitBurst: 4 };
    const first = await startPostgresApp(cluster, { config });
    apps.push(first);
    const second = await startPostgresApp(cluster, { config, database: first.database });
    apps.push(second);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await (i % 2 ? second : first).request('GET', '/v1/me')).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    // Each node alone has let two through; together they have spent the burst.
    const limited = await second.request('GET', '/v1/me');
    expect(limited.status).toBe(429);
    expect(limited.body.error_key).toBe('too_many_requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await first.request('GET', '/v1/me')).status).toBe(429);
    await Bun.sleep(600);
    expect((await first.request('GET', '/v1/me')).status).toBe(200);
    // 40 requests at once over both nodes: the bucket is taken from one at a time, never past empty.
    await Bun.sleep(2_100);
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? second : first).request('GET', '/v1/me')));
    const passed = burst.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(4);
    expect(passed).toBeLessThanOrEqual(5);
  }, 60_000);
});
