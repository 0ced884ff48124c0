/**
 * One PostgreSQL and three rowsmith processes sharing it, as a user runs them: node A serves the
 * API only, node B only works, node C does both. Files are in one folder all three share.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ConfigError, loadConfig } from '../../src/config';
import { tempDir } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';
import { startServer, type ServerProcess } from '../helpers/process';
import { startReceiver } from '../helpers/receiver';
import { drawInvoice, INVOICE_ROWS } from '../extract/ocr/draw';

const KEY = 'cluster-test-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const headers = { authorization: `ApiKey ${KEY}` };
const LEASE_MS = 1500;

describe('ROWSMITH_ROLE and ROWSMITH_FILES_DIR in the configuration', () => {
  const pg = { ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: 'postgres://u@db/rowsmith' };
  test('all by default; api and worker, and a shared files folder, only on PostgreSQL', () => {
    expect(loadConfig({ DATA_DIR: '/srv/data' })).toMatchObject({ role: 'all', files: { kind: 'folder', dir: '/srv/data' } });
    expect(loadConfig({ ...pg, DATA_DIR: '/srv/data', ROWSMITH_ROLE: 'Worker', ROWSMITH_FILES_DIR: '/mnt/shared' })).toMatchObject({ role: 'worker', files: { kind: 'folder', dir: '/mnt/shared' } });
    expect(() => loadConfig({ ...pg, ROWSMITH_ROLE: 'scheduler' })).toThrow(/ROWSMITH_ROLE must be all, api or worker/);
    expect(() => loadConfig({ ROWSMITH_ROLE: 'api' })).toThrow(ConfigError);
    expect(() => loadConfig({ ROWSMITH_FILES_DIR: '/mnt/shared' })).toThrow(/ROWSMITH_FILES_DIR needs ROWSMITH_STORE=postgres/);
    expect(() => loadConfig({ ...pg, ROWSMITH_JOB_LEASE_MS: '10' })).toThrow(/ROWSMITH_JOB_LEASE_MS/);
  });
});

describe.skipIf(!POSTGRES_BIN)('three nodes on one PostgreSQL', () => {
  let cluster: PgCluster;
  /** A client of the nodes' database, to look at its job queue. */
  let db: SQL;
  let root: string;
  let env: Record<string, string>;
  const receiver = startReceiver();
  const nodes: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;

  let c: ServerProcess | undefined;
  /** Node C starts in the extraction test, after B has claimed its job; a test run alone starts it here. */
  const nodeC = async () => (c ??= await node('c', 'all'));

  const node = async (name: string, role: string) => {
    const dataDir = join(root, name);
    mkdirSync(dataDir);
    const started = await startServer({ ...env, DATA_DIR: dataDir, ROWSMITH_ROLE: role }, 60_000);
    nodes.push(started);
    return started;
  };

  beforeAll(async () => {
    cluster = await startPostgres();
    await cluster.sql.unsafe('CREATE DATABASE rowsmith_cluster');
    db = new SQL({ ...cluster.options, database: 'rowsmith_cluster', max: 2 });
    root = tempDir('rowsmith-cluster-');
    mkdirSync(join(root, 'files'));
    const { port, username } = cluster.options;
    env = {
      ROWSMITH_STORE: 'postgres',
      ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/rowsmith_cluster`,
      ROWSMITH_BOOTSTRAP_KEY: KEY,
      ROWSMITH_FILES_DIR: join(root, 'files'),
      ROWSMITH_JOB_LEASE_MS: String(LEASE_MS),
      ROWSMITH_WORKER_CONCURRENCY: '1',
      ROWSMITH_WEBHOOK_ALLOWED_HOSTS: 'loopback',
      ROWSMITH_WEBHOOK_CA_FILE: receiver.tls.certFile,
      ROWSMITH_WEBHOOK_RETRY_DELAYS_MS: '300,300,300',
      ROWSMITH_WEBHOOK_MIN_BACKOFF_MS: '0',
      ROWSMITH_WEBHOOK_TIMEOUT_MS: '5000',
    };
    // A first, alone: it migrates the empty database and makes the first key.
    a = await node('a', 'api');
    b = await node('b', 'worker');
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop('SIGKILL');
    receiver.stop();
    await db?.close();
    await cluster?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const call = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body instanceof FormData ? headers : { ...headers, 'content-type': 'application/json' },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  const makeTable = async (server: ServerProcess, columns: unknown[], strictness = 'balanced') => {
    const reply = await call(server, 'POST', `${P}/tables`, { name: `T ${Math.random()}`, columns_json: columns, strictness });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };

  test('a worker node serves no API, only its health', async () => {
    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    const reply = await call(b, 'GET', `${P}/tables`);
    expect(reply.status).toBe(404);
    expect(reply.body.message).toContain('ROWSMITH_ROLE=worker');
  });

  test('an extraction sent to A runs on workers B and C, streams to a client on C, and finishes after B is killed mid-document; nothing lost or doubled', async () => {
    const table = await makeTable(a, [
      { id: 'item', name: 'Item', type: 'string' },
      { id: 'qty', name: 'Quantity', type: 'number' },
      { id: 'price', name: 'Unit price', type: 'currency', currency_code: 'USD' },
    ]);
    const files = 4;
    const form = new FormData();
    for (let i = 0; i < files; i++) form.append('file', new File([drawInvoice().png], `scan-${i}.png`, { type: 'image/png' }));
    const answer = call(a, 'POST', `${P}/tables/${table}/extract`, form);

    // Each file is a job of its own, and B, the only worker yet, reads them one by one. Once it
    // has finished one, B is killed just after it claims the next: in the middle of that document.
    const ownedBy = (server: ServerProcess) => `%:${server.proc.pid}:%`;
    const heldByB = async () => {
      const [job] = await db.unsafe(`SELECT key FROM jobs WHERE kind = 'extract-file' AND state = 'running' AND lease_owner LIKE $1`, [ownedBy(b)]);
      return (job?.key as string | undefined) ?? '';
    };
    let first = '';
    for (const deadline = Date.now() + 30_000; !first && Date.now() < deadline; await Bun.sleep(20)) first = await heldByB();
    expect(first).toStartWith('batch_');
    const batchId = first.split('/')[0];
    let killedIn = '';
    for (const deadline = Date.now() + 60_000; !killedIn && Date.now() < deadline; await Bun.sleep(20)) {
      const held = await heldByB();
      if (held && held !== first) {
        b.proc.kill('SIGKILL');
        await b.proc.exited;
        killedIn = held;
      }
    }

    // C starts and takes over; a client on C follows the batch from its first event.
    const c = await nodeC();
    const events: EventSourceMessage[] = [];
    const stream = await fetch(`${c.url}${P}/batches/${batchId}/events`, { headers });
    expect(stream.status).toBe(200);
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const decoder = new TextDecoder();
    for await (const chunk of stream.body!) parser.feed(decoder.decode(chunk, { stream: true }));
    expect(killedIn).toStartWith(`${batchId}/`);
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe('batch');
    expect(kinds.at(-1)).toBe('done');
    // Ids are the batch's event numbers: consecutive, whichever node wrote them.
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    const rowsEvents = events.filter((e) => e.event === 'rows').map((e) => JSON.parse(e.data));
    expect(new Set(rowsEvents.map((r) => r.file_name)).size).toBe(files);

    const response = await answer;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ batch_id: batchId, status: 'complete', success_count: files, fail_count: 0, total_rows: files * INVOICE_ROWS.length });
    expect(JSON.parse(events.at(-1)!.data)).toEqual(response.body);

    // The file B held ran again on C; every file's job is done (a worker marks its job done just
    // after the batch ends, so the last may take a moment); the table has every row once.
    const jobsOfBatch = () => db.unsafe(`SELECT key, state, attempts FROM jobs WHERE kind = 'extract-file' AND key LIKE $1 ORDER BY key`, [`${batchId}/%`]);
    let jobs = await jobsOfBatch();
    for (const deadline = Date.now() + 10_000; jobs.some((j: { state: string }) => j.state === 'running') && Date.now() < deadline; jobs = await jobsOfBatch()) await Bun.sleep(50);
    expect(jobs.map((j: { state: string }) => j.state)).toEqual(Array.from({ length: files }, () => 'done'));
    expect(jobs.find((j: { key: string }) => j.key === killedIn).attempts).toBe(2);
    const rows = (await call(c, 'GET', `${P}/tables/${table}/rows?limit=100`)).body.rows;
    expect(rows).toHaveLength(files * INVOICE_ROWS.length);
    const batch = (await call(a, 'GET', `${P}/batches/${batchId}`)).body;
    expect(batch.extractions.map((e: { status: string; row_count: number }) => [e.status, e.row_count])).toEqual(Array.from({ length: files }, () => ['complete', INVOICE_ROWS.length]));
    const download = await fetch(`${c.url}${P}/batches/${batchId}/download/json`, { headers });
    expect(((await download.json()) as unknown[]).length).toBe(files * INVOICE_ROWS.length);
  }, 180_000);

  test('rows written through one node are read through another at once', async () => {
    const c = await nodeC();
    const table = await makeTable(a, [{ id: 'n', name: 'N', type: 'number' }]);
    for (let n = 0; n < 20; n++) {
      const created = await call(n % 2 ? a : c, 'POST', `${P}/tables/${table}/rows`, { n });
      expect(created.status).toBe(201);
      const read = await call(n % 2 ? c : a, 'GET', `${P}/tables/${table}/rows/${created.body.id}`);
      expect(read.body.n).toBe(n);
    }
  });

  test('an export asked of the API node is written by a worker into the shared folder, and downloads from any node', async () => {
    const c = await nodeC();
    const table = await makeTable(a, [{ id: 'n', name: 'N', type: 'number' }]);
    const bulk = await call(a, 'POST', `${P}/tables/${table}/rows/bulk`, { creates: Array.from({ length: 50 }, (_, n) => ({ n })) });
    expect(bulk.status).toBe(200);
    const started = await call(a, 'GET', `${P}/tables/${table}/export?format=csv&order=n.asc`);
    expect(started.body.status).toBe('processing');
    let status = started.body.status;
    for (const deadline = Date.now() + 20_000; status === 'processing' && Date.now() < deadline; await Bun.sleep(50)) {
      status = (await call(c, 'GET', `${P}/exports/${started.body.id}`)).body.status;
    }
    expect(status).toBe('complete');
    const [job] = await db.unsafe(`SELECT state, lease_owner FROM jobs WHERE kind = 'export' AND key = $1`, [started.body.id]);
    expect(job.state).toBe('done');
    const download = await fetch(`${a.url}${P}/exports/${started.body.id}/download`, { headers });
    expect(download.status).toBe(200);
    const lines = (await download.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(51);
  }, 60_000);

  test('webhook deliveries go out once per attempt across nodes', async () => {
    const c = await nodeC();
    // A second worker, so deliveries and extractions are spread over more than one process.
    await node('d', 'worker');
    const hook = await call(a, 'POST', '/v1/organizations/org_default/webhooks', { url: receiver.url(), events: ['batch.complete'] });
    expect(hook.status).toBe(201);
    const attempts = new Map<string, number>();
    receiver.respondWith((r) => {
      const n = (attempts.get(r.headers['webhook-id']!) ?? 0) + 1;
      attempts.set(r.headers['webhook-id']!, n);
      return new Response(n === 1 ? 'fail' : 'ok', { status: n === 1 ? 500 : 200 });
    });
    const table = await makeTable(a, [{ id: 'order_id', name: 'Order ID' }, { id: 'total', name: 'Total', type: 'number' }], 'flexible');
    const batches = 8;
    const csv = (i: number) => {
      const form = new FormData();
      form.append('file', new File([`Order ID,Total\nO-${i},${i}\n`], `orders-${i}.csv`, { type: 'text/csv' }));
      return form;
    };
    const replies = await Promise.all(Array.from({ length: batches }, (_, i) => call(i % 2 ? a : c, 'POST', `${P}/tables/${table}/extract`, csv(i))));
    expect(replies.map((r) => [r.body.status, r.body.files[0].error])).toEqual(Array.from({ length: batches }, () => ['complete', null]));
    for (const deadline = Date.now() + 30_000; [...attempts.values()].filter((n) => n >= 2).length < batches && Date.now() < deadline; ) await Bun.sleep(50);
    // Every event failed once and succeeded once: two attempts each, never a third or a duplicate.
    await Bun.sleep(1500);
    expect([...attempts.values()]).toEqual(Array.from({ length: batches }, () => 2));
    const batchIds = receiver.received.map((r) => JSON.parse(r.body).data.id as string);
    expect(new Set(batchIds)).toEqual(new Set(replies.map((r) => r.body.batch_id)));
  }, 120_000);
});
