/**
 * `rowsmith migrate --from lmdb --to postgres`, run as a user runs it: a store made through the
 * HTTP API of an LMDB server, copied into a throwaway PostgreSQL cluster by the CLI (killed once
 * midway and resumed), then served by a PostgreSQL server that must answer as the LMDB one did.
 * Also the account commands on PostgreSQL. Skipped without PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';
import { runCli, startServer, type ServerProcess } from '../helpers/process';

const ADMIN = 'rsk_migrate_test_admin_key_0123456789';
const P = '/v1/projects/proj_default';
const ROOT = join(import.meta.dir, '..', '..');
const LEDGER_ROWS = 30_000;

const LEDGER_COLUMNS = [
  { id: 'n', name: 'N', type: 'number' },
  { id: 'vendor', name: 'Vendor', type: 'string' },
  { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'EUR' },
  { id: 'due', name: 'Due', type: 'date' },
  { id: 'status', name: 'Status', type: 'enum', options: ['open', 'paid', 'late'] },
  { id: 'paid', name: 'Paid', type: 'boolean' },
  { id: 'tags', name: 'Tags', type: 'multi_select', options: ['red', 'green', 'blue'] },
  { id: 'note', name: 'Note', type: 'text' },
];

const ledgerRow = (n: number) => ({
  n,
  vendor: ['Acme', 'Globex', 'Initech', 'Umbrella', null][n % 5],
  amount: n % 7 === 0 ? null : Math.round(((n * 37) % 100_000) * 1.01) / 100,
  due: `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}`,
  status: ['open', 'paid', 'late'][n % 3],
  paid: n % 4 === 0,
  tags: [[], ['red'], ['green', 'blue'], ['red', 'blue']][n % 4],
  note: n % 5 === 0 ? `invoice ${n} quarterly rebate` : `monthly ${['alpha', 'beta', 'gamma'][n % 3]} order`,
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** A client of a server child process. */
function client(server: ServerProcess) {
  return async (method: string, path: string, init: { body?: unknown; key?: string; headers?: Record<string, string>; form?: FormData } = {}): Promise<Reply> => {
    const headers: Record<string, string> = { authorization: `ApiKey ${init.key ?? ADMIN}`, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}${path}`, { method, headers, body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // a file: kept as text
    }
    return { status: response.status, headers: response.headers, body };
  };
}

type Client = ReturnType<typeof client>;

async function ok(reply: Promise<Reply>, status = 200): Promise<any> {
  const got = await reply;
  if (got.status !== status) throw new Error(`expected ${status}, got ${got.status}: ${JSON.stringify(got.body).slice(0, 500)}`);
  return got.body;
}

async function until<T>(fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not done: ${JSON.stringify(value).slice(0, 500)}`);
    await Bun.sleep(50);
  }
}

/** The items of the first `pages` pages of a list, by cursor. */
async function walk(api: Client, path: string, pages: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < pages; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const body: any = await ok(api('GET', `${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`));
    items.push(...body.rows);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  return items;
}

const describePg = POSTGRES_BIN ? describe : describe.skip;

let cluster: PgCluster;
let databases = 0;
const dirs: string[] = [];

/** A new empty database of the cluster, and its URL. */
async function database(): Promise<string> {
  const name = `rowsmith_migrate_${process.pid}_${++databases}`;
  await cluster.sql.unsafe(`CREATE DATABASE ${name}`);
  return `postgres://${cluster.options.username}@127.0.0.1:${cluster.options.port}/${name}`;
}

/** A query on one database of the cluster. */
async function query(url: string, text: string, params: unknown[] = []): Promise<any[]> {
  const sql = new Bun.SQL(url);
  try {
    return [...(await sql.unsafe(text, params))];
  } finally {
    await sql.close();
  }
}

const migrateArgs = ['migrate', '--from', 'lmdb', '--to', 'postgres'];
const lmdbEnv = (dataDir: string) => ({ DATA_DIR: dataDir, ROWSMITH_STORE: 'lmdb' });

beforeAll(async () => {
  if (POSTGRES_BIN) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
}, 60_000);

describe('migrate: usage', () => {
  test('bad usage is exit 2, a folder without a store exit 1', async () => {
    const empty = tempDir('rowsmith-migrate-empty-');
    dirs.push(empty);
    const env = { ...lmdbEnv(empty), ROWSMITH_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const noFrom = await runCli(['migrate', '--to', 'postgres'], env);
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toContain('give --from lmdb --to postgres');
    expect((await runCli(['migrate', '--from', 'lmdb', '--to', 'mysql'], env)).code).toBe(2);
    const noUrl = await runCli(migrateArgs, { ...env, ROWSMITH_DATABASE_URL: '' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--database-url or ROWSMITH_DATABASE_URL');
    expect((await runCli([...migrateArgs, '--database-url', 'mysql://db/x'], env)).code).toBe(2);
    const noStore = await runCli(migrateArgs, env);
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toContain('holds no LMDB store');
    expect((await runCli(['--help'], env)).stdout).toContain('migrate --from lmdb --to postgres');
  });
});

describePg('migrate an LMDB store made through the API into PostgreSQL', () => {
  let dataDir: string;
  let lmdb: ServerProcess;
  let api: Client;
  const ids: Record<string, string> = {};
  /** What the LMDB server answered, by request, to compare with the PostgreSQL server. */
  const before = new Map<string, any>();
  let readKey = '';
  let cursor = { cursor: '', second: [] as any[] };
  let etag = '';
  let url = '';
  /** The database of the uninterrupted run. */
  let straightUrl = '';
  let report: any;

  const LISTS = () => [
    `${P}/tables?limit=100`,
    `${P}/tables/${ids.ledger}`,
    `${P}/tables/${ids.notes}/rows?limit=100`,
    `${P}/tables/${ids.notes}/rows?q=zebra`,
    `${P}/tables/${ids.notes}/rows?q=giraffe`,
    `${P}/tables/${ids.orders}/rows?limit=100`,
    `${P}/tables/${ids.ledger}/rows?limit=100&order=amount.desc,n.asc&filter=status.eq.paid`,
    `${P}/tables/${ids.ledger}/rows?limit=100&q=rebate`,
    `${P}/tables/${ids.ledger}/rows/aggregate?aggs=count,sum:amount`,
    `${P}/batches?limit=100`,
    `${P}/batches/${ids.batch}`,
    `/v1/organizations/org_default/webhooks`,
    `/v1/organizations/org_default/webhooks/${ids.webhook}`,
    `/v1/organizations/org_default/webhooks/${ids.webhook}/deliveries`,
    `/v1/keys?limit=100`,
    '/v1/table-templates/mine',
    `${P}/exports/${ids.export}`,
  ];

  beforeAll(async () => {
    dataDir = tempDir('rowsmith-migrate-');
    dirs.push(dataDir);
    lmdb = await startServer({ ...lmdbEnv(dataDir), ROWSMITH_BOOTSTRAP_KEY: ADMIN, ROWSMITH_WEBHOOK_ALLOWED_HOSTS: 'loopback', ROWSMITH_WEBHOOK_TIMEOUT_MS: '500', ROWSMITH_WEBHOOK_RETRY_DELAYS_MS: '3600000' });
    api = client(lmdb);

    // A webhook first, so that the extraction below makes a delivery (to a closed port: it fails, and is retried in an hour).
    ids.webhook = (await ok(api('POST', '/v1/organizations/org_default/webhooks', { body: { url: 'https://127.0.0.1:1/hook', events: ['batch.complete'] } }), 201)).id;

    ids.ledger = (await ok(api('POST', `${P}/tables`, { body: { name: 'Ledger', columns_json: LEDGER_COLUMNS } }), 201)).id;
    for (let i = 0; i < LEDGER_ROWS; i += 1000) {
      await ok(api('POST', `${P}/tables/${ids.ledger}/rows/bulk`, { body: { creates: Array.from({ length: 1000 }, (_, j) => ledgerRow(i + j)) } }));
    }

    // A searched column removed and added again: the old values and their words must stay gone.
    ids.notes = (
      await ok(
        api('POST', `${P}/tables`, {
          body: { name: 'Notes', columns_json: [{ id: 'title', name: 'Title' }, { id: 'memo', name: 'Memo', type: 'text' }, { id: 'size', name: 'Size', type: 'number' }] },
        }),
        201,
      )
    ).id;
    await ok(api('POST', `${P}/tables/${ids.notes}/rows/bulk`, { body: { creates: [1, 2, 3].map((n) => ({ title: `old ${n}`, memo: `zebra crossing ${n}`, size: n })) } }));
    await ok(api('DELETE', `${P}/tables/${ids.notes}/columns/memo`));
    await ok(api('POST', `${P}/tables/${ids.notes}/columns`, { body: { id: 'memo', name: 'Memo', type: 'text' } }));
    await ok(api('POST', `${P}/tables/${ids.notes}/rows`, { body: { title: 'new', memo: 'giraffe neck', size: 4 } }), 201);

    // A batch from an extraction (a CSV upload), and a reviewed row of it.
    ids.orders = (
      await ok(
        api('POST', `${P}/tables`, {
          body: {
            name: 'Orders',
            columns_json: [
              { id: 'order_id', name: 'Order ID' },
              { id: 'customer', name: 'Customer' },
              { id: 'total', name: 'Total', type: 'currency', currency_code: 'USD' },
              { id: 'order_date', name: 'Order date', type: 'date' },
              { id: 'status', name: 'Status', type: 'enum', options: ['paid', 'pending', 'refunded'] },
            ],
          },
        }),
        201,
      )
    ).id;
    const upload = new FormData();
    upload.append('file', new File([readFileSync(join(ROOT, 'test/fixtures/extract/files/orders-messy.csv'))], 'orders-messy.csv', { type: 'text/csv' }));
    const extracted = await ok(api('POST', `${P}/tables/${ids.orders}/extract`, { form: upload }));
    expect(extracted).toMatchObject({ status: 'complete', total_rows: 6 });
    ids.batch = extracted.batch_id;
    const extractedRow = extracted.result.rows[0];
    const got = await api('GET', `${P}/tables/${ids.orders}/rows/${extractedRow.id}`);
    await ok(api('PATCH', `${P}/tables/${ids.orders}/rows/${extractedRow.id}`, { body: { customer: 'Acme Corporation' }, headers: { 'if-match': got.headers.get('etag')! } }));

    // An API key, an organization's template used once, and an export.
    readKey = (await ok(api('POST', '/v1/keys', { body: { name: 'Reporting', role: 'read' } }), 201)).key;
    const template = await ok(
      api('POST', '/v1/table-templates', { body: { name: 'Field reports', category: 'Operations', columns_json: [{ id: 'site', name: 'Site' }, { id: 'visited', name: 'Visited', type: 'date' }] } }),
      201,
    );
    await ok(api('POST', `${P}/table-templates/${template.id}/use`, { body: { name: 'Reports' } }), 201);
    ids.export = (await ok(api('GET', `${P}/tables/${ids.notes}/export?format=csv`))).id;
    await until(
      () => ok(api('GET', `${P}/exports/${ids.export}`)),
      (e) => e.status === 'complete',
    );
    await until(
      () => ok(api('GET', `/v1/organizations/org_default/webhooks/${ids.webhook}/deliveries`)),
      (d) => d.deliveries.length > 0 && d.deliveries[0].attempt > 0,
    );

    // What the LMDB server answers, and a cursor and an ETag it gave.
    for (const path of LISTS()) before.set(path, await ok(api('GET', path)));
    const first = await ok(api('GET', `${P}/tables/${ids.ledger}/rows?limit=50&order=n.desc`));
    cursor = { cursor: first.nextCursor, second: (await ok(api('GET', `${P}/tables/${ids.ledger}/rows?limit=50&order=n.desc&cursor=${encodeURIComponent(first.nextCursor)}`))).rows };
    ids.row = first.rows[3].id;
    etag = (await api('GET', `${P}/tables/${ids.ledger}/rows/${ids.row}`)).headers.get('etag')!;
    expect(etag).toBeTruthy();
    before.set('batch csv', (await api('GET', `${P}/batches/${ids.batch}/download/csv`)).body);
    before.set('examples', await ok(api('GET', `${P}/tables/${ids.orders}/examples`)));
    before.set('ledger by n', await walk(api, `${P}/tables/${ids.ledger}/rows?limit=100&order=n.asc`, 5));
    expect(await lmdb.stop()).toBe(0);
    url = await database();
  }, 120_000);

  afterAll(async () => {
    await lmdb?.stop();
  });

  test('killed midway, refused without --resume, resumed: verified, with nothing twice', async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src/cli/main.ts'), ...migrateArgs], {
      cwd: ROOT,
      env: { ...process.env, ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: url },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let progress = '';
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      progress += decoder.decode(chunk, { stream: true });
      if (progress.includes(`rows of Ledger (${ids.ledger}): 10,000 of 30,000`)) break;
    }
    proc.kill('SIGKILL');
    expect(await proc.exited).not.toBe(0);
    expect(progress).toContain('api_keys: ');
    const marks = await query(url, 'SELECT step, copied::float8 AS copied, done FROM migrate_progress ORDER BY step');
    const ledger = marks.find((m) => m.step === `rows:${ids.ledger}`);
    // The kill landed inside the rows: the test resumes a real interruption.
    expect(ledger.done).toBe(false);
    expect(ledger.copied).toBeLessThan(LEDGER_ROWS);
    expect(marks.find((m) => m.step === 'meta')).toBeUndefined();

    const refused = await runCli(migrateArgs, { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: url });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('rowsmith: the database holds an unfinished migration of this DATA_DIR: run the same command with --resume to continue it');

    const resumed = await runCli([...migrateArgs, '--resume', '--json'], { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: url });
    expect(resumed.code).toBe(0);
    const events = resumed.stderr.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ event: 'start', resumed: true });
    expect(events.find((e) => e.step === 'api_keys')).toMatchObject({ skipped: true });
    expect(events.filter((e) => e.event === 'rows' && e.table_id === ids.ledger).at(-1)).toMatchObject({ copied: LEDGER_ROWS, total: LEDGER_ROWS });
    // The rows went on after their mark: a row written again counts up its version, and only the
    // chunk the kill may have caught between its commit and its mark (1,000 rows) is written twice.
    const [again] = await query(url, 'SELECT count(*)::int AS n FROM rows WHERE version > 1');
    expect(again.n).toBeLessThanOrEqual(1000);
    report = JSON.parse(resumed.stdout);
    expect(report.ok).toBe(true);
    const counts = Object.fromEntries(report.checks.map((c: any) => [c.check, c.target]));
    expect(counts).toMatchObject({
      organizations: 1,
      projects: 1,
      api_keys: 2,
      tables: 4,
      batches: 1,
      extractions: 1,
      batch_rows: 6,
      webhooks: 1,
      examples: 1,
      exports: 1,
      templates: 1,
      template_usage: 1,
      rows: LEDGER_ROWS + 4 + 6,
      [`rows of ${ids.ledger}`]: LEDGER_ROWS,
      [`rows of ${ids.notes}`]: 4,
    });
    for (const kind of ['deliveries', 'readings', 'usage', 'meta']) expect(counts[kind]).toBeGreaterThan(0);
    for (const c of report.checks) expect(c.source_checksum).toBe(c.target_checksum);

    // Nothing twice: each row and batch row once, and the usage counts as the source has them (set, not added).
    const [rows] = await query(url, 'SELECT count(*)::int AS n, count(DISTINCT (table_id, id))::int AS distinct FROM rows');
    expect(rows).toEqual({ n: LEDGER_ROWS + 10, distinct: LEDGER_ROWS + 10 });

    // An uninterrupted run into another database gives the same verified result.
    straightUrl = await database();
    const straight = await runCli([...migrateArgs, '--json'], { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: straightUrl });
    expect(straight.code).toBe(0);
    expect(JSON.parse(straight.stdout).checks).toEqual(report.checks);
  }, 120_000);

  test('a PostgreSQL server on the copy answers as the LMDB one did', async () => {
    const pg = await startServer({ DATA_DIR: dataDir, ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: url });
    try {
      const pgApi = client(pg);
      // No first start: the store was bootstrapped already, and its admin key authenticates.
      expect(pg.output()).not.toContain('first start');
      for (const path of LISTS()) expect({ path, body: await ok(pgApi('GET', path)) }).toEqual({ path, body: before.get(path) });
      expect(await walk(pgApi, `${P}/tables/${ids.ledger}/rows?limit=100&order=n.asc`, 5)).toEqual(before.get('ledger by n'));
      expect((await pgApi('GET', `${P}/batches/${ids.batch}/download/csv`)).body).toBe(before.get('batch csv'));
      expect(await ok(pgApi('GET', `${P}/tables/${ids.orders}/examples`))).toEqual(before.get('examples'));
      expect((await pgApi('GET', `${P}/exports/${ids.export}/download`)).status).toBe(200);

      // The removed column's values and words stay gone; the re-added one's are found.
      const notes = before.get(`${P}/tables/${ids.notes}/rows?limit=100`).rows;
      expect(Object.fromEntries(notes.map((r: any) => [r.title, r.memo]))).toEqual({ 'old 1': null, 'old 2': null, 'old 3': null, new: 'giraffe neck' });
      expect(before.get(`${P}/tables/${ids.notes}/rows?q=zebra`).rows).toEqual([]);
      expect(before.get(`${P}/tables/${ids.notes}/rows?q=giraffe`).rows.map((r: any) => r.title)).toEqual(['new']);

      // A cursor the LMDB server gave goes on where it would have.
      const next = await ok(pgApi('GET', `${P}/tables/${ids.ledger}/rows?limit=50&order=n.desc&cursor=${encodeURIComponent(cursor.cursor)}`));
      expect(next.rows).toEqual(cursor.second);

      // The ETag is the same, and a write under it is taken.
      const row = await pgApi('GET', `${P}/tables/${ids.ledger}/rows/${ids.row}`);
      expect(row.headers.get('etag')).toBe(etag);
      const patched = await pgApi('PATCH', `${P}/tables/${ids.ledger}/rows/${ids.row}`, { body: { vendor: 'Moved' }, headers: { 'if-match': etag } });
      expect(patched.status).toBe(200);

      // The read key made on LMDB: it reads, it cannot write.
      expect((await pgApi('GET', `${P}/tables/${ids.notes}/rows`, { key: readKey })).status).toBe(200);
      expect((await pgApi('POST', `${P}/tables/${ids.notes}/rows`, { key: readKey, body: { title: 'x' } })).status).toBe(403);
      expect((await pgApi('GET', '/v1/me', { key: 'rsk_not_a_key_at_all_0123456789' })).status).toBe(401);

      // New tables take numbers after the copied ones.
      const made = await ok(pgApi('POST', `${P}/tables`, { body: { name: 'After', columns_json: [{ id: 'a', name: 'A' }] } }), 201);
      await ok(pgApi('POST', `${P}/tables/${made.id}/rows`, { body: { a: 'one' } }), 201);
      expect((await ok(pgApi('GET', `${P}/tables/${made.id}/rows`))).rows.map((r: any) => r.a)).toEqual(['one']);
      expect((await ok(pgApi('GET', `${P}/tables/${ids.notes}/rows?limit=100`))).rows).toHaveLength(4);
    } finally {
      await pg.stop();
    }
  }, 60_000);

  test('every chunk written twice lands on the same keys; a copy changed afterwards fails the check', async () => {
    const copy = straightUrl;
    const env = { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: copy };
    const again = await runCli(migrateArgs, env);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe('rowsmith: the database holds a finished migration of this DATA_DIR: --resume checks it again');

    // As if every run had been killed between a chunk's commit and its mark: all of it is written again.
    await query(copy, `UPDATE migrate_progress SET after = NULL, copied = 0, done = false WHERE step <> 'start'`);
    const rewritten = await runCli([...migrateArgs, '--resume', '--json'], env);
    expect(rewritten.code).toBe(0);
    expect(JSON.parse(rewritten.stdout).checks).toEqual(report.checks);

    await query(copy, `UPDATE rows SET "values" = jsonb_set("values", '{1}', '-1') WHERE table_id = $1 AND id = $2`, [ids.ledger, ids.row]);
    await query(copy, 'DELETE FROM api_keys WHERE id = (SELECT min(id) FROM api_keys)');
    const checked = await runCli([...migrateArgs, '--resume'], env);
    expect(checked.code).toBe(1);
    const lines = checked.stdout.split('\n');
    const line = (name: string) => lines.find((l) => l.startsWith(`${name} `))!;
    expect(line(`rows of ${ids.ledger}`)).toContain('MISMATCH');
    expect(line(`rows of ${ids.notes}`)).toEndWith('ok');
    expect(line('api_keys')).toMatch(/^api_keys\s+2\s+1\s.*MISMATCH$/);
    expect(line('organizations')).toEndWith('ok');
    expect(checked.stderr).toContain(`the copy differs from the LMDB store in api_keys, rows, rows of ${ids.ledger}`);
  }, 60_000);

  test('a database with other data, a migration of another store, or one a migrate is writing into is refused', async () => {
    const other = tempDir('rowsmith-migrate-other-');
    dirs.push(other);
    // Another LMDB store (made by the CLI: no server ever started on it).
    expect((await runCli(['org', 'create', 'Other'], lmdbEnv(other))).code).toBe(0);
    for (const resume of [[], ['--resume']]) {
      const refused = await runCli([...migrateArgs, ...resume], { ...lmdbEnv(other), ROWSMITH_DATABASE_URL: url });
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(`rowsmith: the database holds a migration of another LMDB store (${dataDir}): migrate into a new, empty database`);
    }

    // A second migrate on a database that one is writing into stops at once.
    const held = new Bun.SQL(url);
    const holder = await held.reserve();
    try {
      await holder.unsafe('SELECT pg_advisory_lock(2028002)');
      const second = await runCli([...migrateArgs, '--resume'], { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: url });
      expect(second.code).toBe(1);
      expect(second.stderr.trim()).toBe('rowsmith: another rowsmith migrate is writing into this database');
    } finally {
      holder.release();
      await held.close();
    }

    // A database the admin CLI has used holds data no migration put there.
    const used = await database();
    expect((await runCli(['org', 'create', 'Already here'], { DATA_DIR: other, ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: used })).code).toBe(0);
    const refused = await runCli([...migrateArgs, '--resume'], { ...lmdbEnv(dataDir), ROWSMITH_DATABASE_URL: used });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toStartWith('rowsmith: the database already holds rowsmith data that no migration of this DATA_DIR put there (organizations: 1');
    expect((await query(used, 'SELECT count(*)::int AS n FROM tables'))[0].n).toBe(0);
  }, 60_000);
});

describePg('the account commands on PostgreSQL', () => {
  test('org, project and key commands drive what a PostgreSQL server accepts; backup and restore say they are LMDB’s', async () => {
    const dataDir = tempDir('rowsmith-cli-pg-');
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: await database() };
    // The commands run the migrations themselves, before any server has started on the database.
    const org = await runCli(['org', 'create', 'Acme Ltd', '--json'], env);
    expect(org.code).toBe(0);
    const orgId = JSON.parse(org.stdout).id as string;
    const projectId = JSON.parse((await runCli(['project', 'create', orgId, 'Billing', '--json'], env)).stdout).id as string;
    expect((await runCli(['project', 'list', '--org', orgId], env)).stdout).toContain(projectId);
    const key = JSON.parse((await runCli(['key', 'create', '--org', orgId, '--role', 'read', '--projects', projectId, '--json'], env)).stdout);
    const listed = await runCli(['key', 'list', '--org', orgId], env);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);

    const server = await startServer({ ...env, ROWSMITH_BOOTSTRAP_KEY: ADMIN });
    try {
      const api = client(server);
      const me = await api('GET', '/v1/me', { key: key.key });
      expect(me.status).toBe(200);
      expect(me.body.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
      expect((await runCli(['org', 'suspend', orgId], env)).code).toBe(0);
      expect((await api('GET', '/v1/me', { key: key.key })).body.error_key).toBe('org_suspended');
      expect((await runCli(['org', 'unsuspend', orgId], env)).code).toBe(0);
      expect((await api('GET', '/v1/me', { key: key.key })).status).toBe(200);
      expect((await runCli(['org', 'list'], env)).stdout).toMatch(/Acme Ltd\s+false/);
      expect((await runCli(['key', 'revoke', key.id], env)).code).toBe(0);
      expect((await api('GET', '/v1/me', { key: key.key })).status).toBe(401);
    } finally {
      await server.stop();
    }

    const backup = await runCli(['backup', join(dataDir, 'backup')], env);
    expect(backup.code).toBe(2);
    expect(backup.stderr.trim().split('\n')).toHaveLength(1);
    expect(backup.stderr).toContain('pg_dump');
    const restore = await runCli(['restore', join(dataDir, 'backup'), '--data', join(dataDir, 'restored')], env);
    expect(restore.code).toBe(2);
    expect(restore.stderr.trim().split('\n')).toHaveLength(1);
    expect(restore.stderr).toContain('pg_dump');

    // A database out of reach is exit 1, and the message does not show the URL's password.
    const unreachable = await runCli(['org', 'list'], { ...env, ROWSMITH_DATABASE_URL: 'postgres://rowsmith:s3cret-pw@127.0.0.1:1/rowsmith' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('the database of ROWSMITH_DATABASE_URL cannot be used');
    expect(unreachable.stderr).not.toContain('s3cret-pw');
  }, 60_000);
});
