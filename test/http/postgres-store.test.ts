/**
 * The HTTP API on PostgreSQL (ROWSMITH_STORE=postgres), through the real routes, beside the same
 * requests on an LMDB app where both must answer alike. Rows get different ids and times on each
 * store, so answers are compared by a row's own `n`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../src/config';
import { ManualClock } from '../../src/lib/clock';
import { expectError, startLmdbApp, startPostgresApp, tempDir, type PostgresTestApp, type TestApp } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';
import { startServer } from '../helpers/process';

const TABLES = '/v1/projects/proj_default/tables';

const COLUMNS = [
  { id: 'n', name: 'N', type: 'number' },
  { id: 'vendor', name: 'Vendor', type: 'string' },
  { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'EUR' },
  { id: 'due', name: 'Due', type: 'date' },
  { id: 'status', name: 'Status', type: 'enum', options: ['open', 'paid', 'late'] },
  { id: 'paid', name: 'Paid', type: 'boolean' },
  { id: 'tags', name: 'Tags', type: 'multi_select', options: ['red', 'green', 'blue'] },
  { id: 'note', name: 'Note', type: 'text' },
];

const VENDORS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', null];
const STATUSES = ['open', 'paid', 'late'];
const TAGS = [[], ['red'], ['green', 'blue'], ['red', 'blue']];

/** 240 rows with repeats, nulls and ties in every column, the same on both stores. */
const ROWS = Array.from({ length: 240 }, (_, n) => ({
  n,
  vendor: VENDORS[n % VENDORS.length],
  amount: n % 7 === 0 ? null : Math.round(((n * 37) % 1000) * 1.01) / 100,
  due: `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}`,
  status: STATUSES[n % 3],
  paid: n % 4 === 0,
  tags: TAGS[n % TAGS.length],
  note: n % 5 === 0 ? `invoice ${n} quarterly rebate` : `monthly ${['alpha', 'beta', 'gamma'][n % 3]} order`,
}));

type AnyApp = TestApp | PostgresTestApp;

async function makeTable(app: AnyApp, columns: Array<Record<string, unknown>> = COLUMNS, name = 'Ledger') {
  const reply = await app.request('POST', TABLES, { body: { name, columns_json: columns } });
  expect(reply.status).toBe(201);
  return `${TABLES}/${reply.body.id}`;
}

async function load(app: AnyApp, t: string, rows = ROWS) {
  for (let i = 0; i < rows.length; i += 100) {
    const reply = await app.request('POST', `${t}/rows/bulk`, { body: { creates: rows.slice(i, i + 100) } });
    expect(reply.status).toBe(200);
  }
}

/** Every page of a list by cursor: the rows' `n` in order, and how many pages it took. */
async function walk(app: AnyApp, t: string, params: string): Promise<{ ns: number[]; pages: number }> {
  const ns: number[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const reply: { status: number; body: any } = await app.request('GET', `${t}/rows?${params}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    ns.push(...reply.body.rows.map((r: { n: number }) => r.n));
    cursor = reply.body.nextCursor;
    expect(reply.body.hasMore).toBe(cursor !== null);
    pages++;
  } while (cursor);
  return { ns, pages };
}

const describePg = POSTGRES_BIN ? describe : describe.skip;

describe('ROWSMITH_STORE in the configuration', () => {
  test('lmdb by default; postgres needs a postgres:// ROWSMITH_DATABASE_URL', () => {
    expect(loadConfig({}).store).toEqual({ kind: 'lmdb' });
    expect(loadConfig({ ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: 'postgres://u@db/rowsmith' }).store).toEqual({ kind: 'postgres', databaseUrl: 'postgres://u@db/rowsmith' });
    expect(() => loadConfig({ ROWSMITH_STORE: 'postgres' })).toThrow(/ROWSMITH_DATABASE_URL must name the database/);
    expect(() => loadConfig({ ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: 'mysql://db' })).toThrow(ConfigError);
    expect(() => loadConfig({ ROWSMITH_STORE: 'sqlite' })).toThrow(/must be lmdb or postgres/);
  });
});

describePg('the HTTP API on PostgreSQL', () => {
  let cluster: PgCluster;
  let pg: PostgresTestApp;
  let lmdb: TestApp;
  beforeAll(async () => {
    cluster = await startPostgres();
    pg = await startPostgresApp(cluster);
    lmdb = await startLmdbApp();
    // initdb and a cluster's start take seconds on a slow machine.
  }, 60_000);
  afterAll(async () => {
    await pg?.close();
    await lmdb?.close();
    await cluster?.stop();
  });

  test('the server starts on ROWSMITH_DATABASE_URL, migrating an empty database; one it cannot reach stops start-up', async () => {
    await cluster.sql.unsafe('CREATE DATABASE rowsmith_process');
    const { port, username } = cluster.options;
    const key = 'rsk_process_admin_key_0123456789';
    const dataDir = tempDir('rowsmith-pg-process-');
    const env = { DATA_DIR: dataDir, ROWSMITH_STORE: 'postgres', ROWSMITH_BOOTSTRAP_KEY: key };
    const server = await startServer({ ...env, ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/rowsmith_process` });
    try {
      expect(server.output()).toContain(`(data in PostgreSQL, files in ${dataDir})`);
      const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `ApiKey ${key}` } });
      expect(me.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const unreachable = Bun.spawnSync([process.execPath, `${import.meta.dir}/../../src/main.ts`], {
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:1/nowhere` },
      stderr: 'pipe',
      stdout: 'pipe',
    });
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr.toString()).toMatch(/rowsmith: the database of ROWSMITH_DATABASE_URL cannot be used: /);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('a row: create, get, PATCH under If-Match with its ETag, delete', async () => {
    const t = await makeTable(pg);
    const created = await pg.request('POST', `${t}/rows`, { body: { n: 1, Vendor: 'Acme', amount: '1.234,50 €', tags: ['red'], paid: true } });
    expect(created.status).toBe(201);
    const row = created.body;
    expect(row).toMatchObject({ n: 1, vendor: 'Acme', amount: 1234.5, tags: ['red'], paid: true, due: null, batch_id: null, confidence: null, needs_review: false });
    const read = await pg.request('GET', `${t}/rows/${row.id}`);
    expect(read.body).toEqual(row);
    const etag = read.headers.get('etag')!;
    expect(etag).toBe(`"${row.id}.${row.updated_at}"`);
    const other = await pg.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Globex' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
    const stale = await pg.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Initech' }, headers: { 'if-match': etag } });
    expectError(stale, 409, 'optimistic_lock_conflict');
    expect(stale.headers.get('etag')).toBe(other.headers.get('etag'));
    const fresh = await pg.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: null, status: 'paid' }, headers: { 'if-match': other.headers.get('etag')! } });
    expect(fresh.body).toMatchObject({ vendor: null, status: 'paid', amount: 1234.5 });
    expect((await pg.request('GET', `${t}/rows/${row.id}`)).body).toEqual(fresh.body);
    expect((await pg.request('DELETE', `${t}/rows/${row.id}`)).body).toEqual({ id: row.id });
    expectError(await pg.request('GET', `${t}/rows/${row.id}`), 404, 'row_not_found');
    expectError(await pg.request('DELETE', `${t}/rows/${row.id}`), 404, 'row_not_found');
    expect((await pg.request('GET', t)).body.row_count).toBe(0);
  });

  describe('lists, q, aggregates and distinct values answer as on LMDB', () => {
    let tp: string;
    let tl: string;
    beforeAll(async () => {
      tp = await makeTable(pg);
      tl = await makeTable(lmdb);
      await load(pg, tp);
      await load(lmdb, tl);
    }, 30_000);

    test('bulk insert keeps the values and row_count', async () => {
      expect((await pg.request('GET', tp)).body.row_count).toBe(ROWS.length);
      const page = await pg.request('GET', `${tp}/rows?order=n.asc&limit=3`);
      const strip = ({ id: _i, created_at: _c, updated_at: _u, ...rest }: Record<string, unknown>) => rest;
      expect(page.body.rows.map(strip)).toEqual(ROWS.slice(0, 3).map((r) => ({ ...r, batch_id: null, confidence: null, needs_review: false })));
    });

    const LISTS = [
      'order=n.asc&limit=50',
      'order=amount.desc&limit=17',
      'order=amount.asc.nullsfirst&limit=33',
      'order=vendor.asc,due.desc&limit=20',
      'order=created_at.desc&limit=25',
      'filter=status.eq.paid&order=amount.asc&limit=7',
      'filter=or(vendor.is.null,amount.gt.5)&order=due.asc,n.desc&limit=19',
      'filter=tags.contains.red&order=vendor.desc&limit=11',
      'filter=vendor.ilike.*o*&order=paid.desc,n.asc&limit=13',
      'filter=and(amount.gte.1,amount.lt.6,paid.eq.false)&order=n.desc&limit=5',
      'q=quarterly&order=n.asc&limit=9',
      'q=monthly gam&order=amount.desc&limit=10',
      'q=acme&filter=status.in.(open,late)&order=n.asc&limit=4',
    ];
    for (const params of LISTS) {
      test(`walked by cursor to the end: ${params}`, async () => {
        const [a, b] = await Promise.all([walk(pg, tp, params), walk(lmdb, tl, params)]);
        expect(a.ns.length).toBeGreaterThan(0);
        expect(a).toEqual(b);
      });
    }

    test('offset pages and select', async () => {
      const ask = async (app: AnyApp, t: string) => (await app.request('GET', `${t}/rows?order=due.desc&filter=paid.eq.true&limit=6&page=3&select=n,due`)).body;
      const [a, b] = await Promise.all([ask(pg, tp), ask(lmdb, tl)]);
      expect(a.rows.length).toBe(6);
      expect(a.rows.map((r: any) => Object.keys(r).sort())).toEqual(a.rows.map(() => ['due', 'n']));
      // The cursors name rows, whose ids differ between the stores.
      expect({ ...a, nextCursor: typeof a.nextCursor }).toEqual({ ...b, nextCursor: 'string' });
    });

    test('a bad filter, order, q or cursor is the same 400', async () => {
      for (const params of ['filter=ghost.eq.1', 'order=tags.asc', 'filter=amount.gt.abc', 'cursor=nonsense', 'limit=0']) {
        const [a, b] = await Promise.all([pg.request('GET', `${tp}/rows?${params}`), lmdb.request('GET', `${tl}/rows?${params}`)]);
        expectError(a, 400, b.body.error_key);
        expect(a.body).toEqual(b.body);
      }
      // A cursor of one list does not page another.
      const first = await pg.request('GET', `${tp}/rows?order=n.asc&limit=2`);
      expectError(await pg.request('GET', `${tp}/rows?order=n.desc&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`), 400, 'invalid_input');
    });

    test('aggregates', async () => {
      const asks = [
        'aggs=count,sum:amount,avg:amount,min:amount,max:amount,count_distinct:vendor,count_distinct:tags',
        'aggs=count,sum:amount,max:n&filter=status.eq.late',
        'aggs=count:vendor,avg:n&filter=or(tags.contains.blue,paid.eq.true)',
      ];
      for (const aggs of asks) {
        const [a, b] = await Promise.all([pg.request('GET', `${tp}/rows/aggregate?${aggs}`), lmdb.request('GET', `${tl}/rows/aggregate?${aggs}`)]);
        expect(a.status).toBe(200);
        expect(a.body).toEqual(b.body);
      }
      const all = (await pg.request('GET', `${tp}/rows/aggregate?aggs=count,max:n`)).body;
      expect(Object.values(all)).toEqual([ROWS.length, ROWS.length - 1]);
    });

    test('distinct values', async () => {
      for (const [column, params] of [['vendor', ''], ['status', '?limit=2'], ['tags', ''], ['vendor', '?q=O'], ['paid', '']] as const) {
        const [a, b] = await Promise.all([pg.request('GET', `${tp}/columns/${column}/distinct${params}`), lmdb.request('GET', `${tl}/columns/${column}/distinct${params}`)]);
        expect(a.status).toBe(200);
        expect(a.body.values.length).toBeGreaterThan(0);
        expect(a.body).toEqual(b.body);
      }
      expectError(await pg.request('GET', `${tp}/columns/ghost/distinct`), 404, 'column_not_found');
    });
  });

  test('a column removed and added again starts empty, in values, filters and q', async () => {
    const t = await makeTable(pg, [
      { id: 'n', name: 'N', type: 'number' },
      { id: 'code', name: 'Code', type: 'string' },
    ]);
    await load(pg, t, [
      { n: 1, code: 'zebra' },
      { n: 2, code: 'yak' },
    ] as never);
    expect((await pg.request('GET', `${t}/rows?q=zebra`)).body.rows.map((r: any) => r.n)).toEqual([1]);
    expect((await pg.request('DELETE', `${t}/columns/code`)).status).toBe(200);
    expect((await pg.request('GET', `${t}/rows?q=zebra`)).status).toBe(400);
    expect((await pg.request('POST', `${t}/columns`, { body: { id: 'code', name: 'Code', type: 'string' } })).status).toBe(200);
    const rows = (await pg.request('GET', `${t}/rows?order=n.asc`)).body.rows;
    expect(rows.map((r: any) => [r.n, r.code])).toEqual([
      [1, null],
      [2, null],
    ]);
    expect((await pg.request('GET', `${t}/rows?q=zebra`)).body.rows).toEqual([]);
    expect((await pg.request('GET', `${t}/rows?filter=code.eq.zebra`)).body.rows).toEqual([]);
    expect((await pg.request('GET', `${t}/columns/code/distinct`)).body.values).toEqual([]);
    const written = await pg.request('PATCH', `${t}/rows/${rows[0].id}`, { body: { code: 'okapi' } });
    expect(written.body.code).toBe('okapi');
    expect((await pg.request('GET', `${t}/rows?q=okapi`)).body.rows.map((r: any) => r.n)).toEqual([1]);
  });

  test('a column made searchable is found by q; one no longer searched is not', async () => {
    const t = await makeTable(pg, [
      { id: 'n', name: 'N', type: 'number' },
      { id: 'code', name: 'Code', type: 'string', searchable: false },
      { id: 'memo', name: 'Memo', type: 'text' },
    ]);
    await load(pg, t, [{ n: 1, code: 'walrus', memo: 'penguin' }] as never);
    expect((await pg.request('GET', `${t}/rows?q=walrus`)).body.rows).toEqual([]);
    expect((await pg.request('PATCH', `${t}/columns/code`, { body: { searchable: true } })).status).toBe(200);
    expect((await pg.request('PATCH', `${t}/columns/memo`, { body: { searchable: false } })).status).toBe(200);
    expect((await pg.request('GET', `${t}/rows?q=walrus`)).body.rows.map((r: any) => r.n)).toEqual([1]);
    expect((await pg.request('GET', `${t}/rows?q=penguin`)).body.rows).toEqual([]);
  });

  test('a table deleted, restored and its rows; a template used and deleted', async () => {
    const t = await makeTable(pg);
    await load(pg, t, ROWS.slice(0, 3));
    expect((await pg.request('DELETE', t)).status).toBe(200);
    expectError(await pg.request('GET', `${t}/rows`), 404, 'table_not_found');
    expect((await pg.request('POST', `${t}/restore`)).status).toBe(200);
    expect((await pg.request('GET', `${t}/rows`)).body.count).toBe(3);

    const made = await pg.request('POST', '/v1/table-templates', {
      body: { name: 'Mine', category: 'Finance', description: 'Our own ledger', columns_json: COLUMNS.slice(0, 3) },
    });
    expect(made.status).toBe(201);
    const used = await pg.request('POST', `/v1/projects/proj_default/table-templates/${made.body.id}/use`, { body: { name: 'From mine' } });
    expect(used.status).toBe(201);
    expect(used.body.columns_json.map((c: { id: string }) => c.id)).toEqual(['n', 'vendor', 'amount']);
    expect((await pg.request('GET', `/v1/projects/proj_default/table-templates/${made.body.id}`)).body.usage_count).toBe(1);
    expect((await pg.request('DELETE', `/v1/table-templates/${made.body.id}`)).status).toBe(200);
    expectError(await pg.request('GET', `/v1/projects/proj_default/table-templates/${made.body.id}`), 404, 'not_found');
    // The table made from it stays.
    expect((await pg.request('GET', `${TABLES}/${used.body.id}`)).status).toBe(200);
  });

  test('a purged table takes its rows with it', async () => {
    const clock = new ManualClock();
    const local = await startPostgresApp(cluster, { clock });
    try {
      const t = await makeTable(local);
      await load(local, t, ROWS.slice(0, 3));
      const id = t.split('/').pop()!;
      const stored = async () => Number((await local.sql.unsafe('SELECT count(*) AS n FROM rows WHERE table_id = $1', [id]))[0].n);
      expect(await stored()).toBe(3);
      await local.request('DELETE', t);
      clock.advance(73 * 3600 * 1000);
      expect(await local.services.tables.purgeDeleted()).toEqual([id]);
      expect(await stored()).toBe(0);
    } finally {
      await local.close();
    }
  });

  test('API keys: made, used within their role, listed, revoked', async () => {
    expectError(await pg.request('GET', '/v1/me', { key: null }), 401, 'unauthorized');
    expectError(await pg.request('GET', '/v1/me', { key: 'rsk_wrong_key_0123456789' }), 401, 'unauthorized');
    const created = await pg.request('POST', '/v1/keys', { body: { name: 'Reader', role: 'read' } });
    expect(created.status).toBe(201);
    const { id, key } = created.body as { id: string; key: string };
    expect((await pg.request('GET', '/v1/me', { key })).body.key).toMatchObject({ id, role: 'read' });
    expect((await pg.request('GET', TABLES, { key })).status).toBe(200);
    expectError(await pg.request('POST', TABLES, { key, body: { name: 'No', columns_json: COLUMNS } }), 403, 'forbidden');
    expect((await pg.request('GET', '/v1/keys')).body.keys.map((k: { id: string }) => k.id)).toContain(id);
    expect((await pg.request('DELETE', `/v1/keys/${id}`)).status).toBe(200);
    expectError(await pg.request('GET', '/v1/me', { key }), 401, 'unauthorized');
  });

  test('100 writes at once to one table, over two nodes: none turned away, none lost, row_count exact', async () => {
    // A second node on the same database: its writers wait on the table's lock in PostgreSQL, not in this process.
    const other = await startPostgresApp(cluster, { database: pg.database });
    try {
      const nodes = [pg, other];
      const t = await makeTable(pg);
      await load(pg, t, ROWS.slice(0, 20));
      const ids: string[] = (await pg.request('GET', `${t}/rows?order=n.asc&limit=20`)).body.rows.map((r: { id: string }) => r.id);
      const before = (await pg.request('GET', t)).body.data_version;
      let i = 0;
      const node = () => nodes[i++ % 2]!;
      // Each PATCH reads the row's ETag and writes under it, as a client does, again on a 409
      // (someone wrote first). No write may get a 503: writers of one table queue.
      let stale = 0;
      const bump = async () => {
        const app = node();
        for (;;) {
          const read = await app.request('GET', `${t}/rows/${ids[0]}`);
          const reply = await app.request('PATCH', `${t}/rows/${ids[0]}`, { body: { amount: read.body.amount + 1 }, headers: { 'if-match': read.headers.get('etag')! } });
          if (reply.status === 200) return 200;
          expect(reply.status).toBe(409);
          stale++;
        }
      };
      const start = ROWS[0]!.amount ?? 0;
      const statuses = await Promise.all([
        ...Array.from({ length: 50 }, (_, k) => node().request('POST', `${t}/rows`, { body: { n: 1000 + k } }).then((r) => r.status)),
        ...Array.from({ length: 10 }, (_, k) => node().request('POST', `${t}/rows/bulk`, { body: { creates: [{ n: 2000 + k }, { n: 3000 + k }] } }).then((r) => r.status)),
        ...ids.slice(10).map((id) => node().request('DELETE', `${t}/rows/${id}`).then((r) => r.status)),
        ...Array.from({ length: 30 }, bump),
      ]);
      expect(statuses.length).toBe(100);
      expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
      const kept = [...ROWS.slice(0, 10).map((r) => r.n), ...Array.from({ length: 50 }, (_, k) => 1000 + k), ...Array.from({ length: 10 }, (_, k) => [2000 + k, 3000 + k]).flat()];
      const table = (await other.request('GET', t)).body;
      expect(table.row_count).toBe(kept.length);
      // Every write that succeeded bumped the version once; a stale PATCH (409) did not.
      expect(table.data_version - before).toBe(100);
      expect((await pg.request('GET', `${t}/rows/aggregate?aggs=count`)).body.count).toBe(kept.length);
      expect((await walk(pg, t, 'order=n.asc&limit=100')).ns).toEqual(kept.sort((a, b) => a - b));
      expect((await other.request('GET', `${t}/rows/${ids[0]}`)).body.amount).toBe(start + 30);
      // The PATCHes raced each other's reads, so some found a newer ETag: the test did contend.
      expect(stale).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  }, 120_000);
});
