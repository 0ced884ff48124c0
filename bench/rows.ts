/**
 * Rows at scale: loads BENCH_ROWS (default 1,000,000) rows of an 8-column table through the bulk
 * endpoint, measures list queries while the store catches up after the load (LMDB: the index merge;
 * PostgreSQL: autovacuum's statistics and visibility map), then measures pages, search, aggregate,
 * distinct and GET by id over HTTP with the server idle, GET by id throughput against Bun's
 * hello-world server, memory, size on disk, and start-up time with the rows stored.
 *
 * BENCH_STORES names the stores, comma-separated (`lmdb`, the default, and `postgres`); with both,
 * each runs in turn on its own server and one table shows them side by side. On PostgreSQL the
 * server runs with ROWSMITH_STORE=postgres on BENCH_DATABASE_URL, or else on a cluster the
 * benchmark starts (bench/postgres.ts); with BENCH_PG_DIR that cluster is kept in the folder, and a
 * later run finding the table loaded there measures it without loading it again.
 */
import { openPostgres } from '../src/store/postgres/client';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { latency, machine, waitIdle, memoryMiB, percentile, printTable, startHelloWorld, startRowsmith, throughput, type Child } from './lib';
import { BENCH_SETTINGS, ensureDatabase, startBenchCluster, type BenchCluster } from './postgres';

const N = Number(process.env.BENCH_ROWS ?? 1_000_000);
const KEY = 'bench-admin-key-0123456789abcdef';
const STATUSES = ['new', 'open', 'sent', 'paid', 'late', 'void', 'held', 'draft', 'disputed', 'refunded'];
const WORDS = ['freight', 'invoice', 'consulting', 'license', 'hardware', 'travel', 'catering', 'storage', 'repair', 'training', 'shipping', 'software'];
const COLUMNS = [
  { id: 'name', name: 'Name', type: 'string' },
  { id: 'qty', name: 'Qty', type: 'number' },
  { id: 'price', name: 'Price', type: 'currency', currency_code: 'USD' },
  { id: 'due', name: 'Due', type: 'date' },
  { id: 'status', name: 'Status', type: 'enum', options: STATUSES },
  { id: 'paid', name: 'Paid', type: 'boolean' },
  { id: 'email', name: 'Email', type: 'email' },
  { id: 'notes', name: 'Notes', type: 'text' },
];

type Store = 'lmdb' | 'postgres';
const STORE_NAMES: Record<Store, string> = { lmdb: 'LMDB', postgres: 'PostgreSQL' };

/**
 * Draws in [0, 1) from mulberry32, whose successive draws are independent, as one row's values are
 * of each other in real tables. (An LCG computed in doubles lost its low bits here and tied each
 * value to the one drawn before it: a filter on one column then matched in long runs along
 * another's order, which no real table does.)
 */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
let rand = generator(1);
/** Which created rows the GET-by-id measures use: apart from the rows' values, whose draws the two loaders' order would change. */
const sample = generator(2);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;

function row(i: number) {
  return {
    name: `Customer ${Math.floor(rand() * 50_000)}`,
    qty: Math.floor(rand() * 10_000),
    price: Math.round(rand() * 1_000_000) / 100,
    due: `20${20 + Math.floor(rand() * 6)}-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`,
    status: pick(STATUSES),
    paid: rand() < 0.5,
    email: `user${i}@example${i % 97}.com`,
    notes: `${pick(WORDS)} ${pick(WORDS)} order ${i}`,
  };
}

/** Resident memory, and how much of it is the process's own (anonymous) rather than mapped files (LMDB's store). */
function rss(proc: Child['proc']): string {
  const mib = (field: 'VmRSS' | 'RssAnon' | 'RssFile') => memoryMiB(proc.pid, field);
  return `${mib('VmRSS')} MiB (own ${mib('RssAnon')} MiB, mapped ${mib('RssFile')} MiB)`;
}

const warmups = Number(process.env.BENCH_WARMUP ?? 1000);
const stores = (process.env.BENCH_STORES ?? 'lmdb').split(',').map((s) => s.trim()) as Store[];
for (const store of stores) if (!(store in STORE_NAMES)) throw new Error(`BENCH_STORES: unknown store ${store} (lmdb, postgres)`);

interface Result {
  value: string;
  /** The same query measured while the store caught up after the load. */
  after?: string;
}
type Results = Map<string, Result>;

/** What every list query of the benchmark must stay under on PostgreSQL (issue 28). */
const PG_LIST_TARGET = 'p95 < 20 ms';

/** The measures in the order printed, with their targets per store (LMDB's from issues 4, 17 and 26). */
const MEASURES: Array<{ name: string; lmdb: string; postgres: string }> = [
  { name: 'bulk load (1000 rows/request, 2 in flight)', lmdb: '>= 50,000 rows/s', postgres: '-' },
  { name: 'first aggregate after the load', lmdb: '-', postgres: '-' },
  { name: 'first q after it', lmdb: '-', postgres: '-' },
  { name: 'catching up after the load, list queries running', lmdb: '-', postgres: '-' },
  { name: 'background work after that, until the server is idle', lmdb: '-', postgres: '-' },
  { name: 'offset page (page=501&limit=20: offset 10,000), newest first', lmdb: 'p95 < 1.5 ms', postgres: PG_LIST_TARGET },
  { name: 'offset page with eq filter (status.eq.X, page=201&limit=20)', lmdb: 'p95 < 1.5 ms', postgres: PG_LIST_TARGET },
  { name: 'eq filter (status.eq.X), newest first, limit 20', lmdb: 'p95 < 1.4 ms', postgres: PG_LIST_TARGET },
  { name: 'range filter + order on another column (qty 10% band, order=due.desc)', lmdb: 'p95 < 3 ms', postgres: PG_LIST_TARGET },
  { name: 'or(...) filter, order=price.asc', lmdb: 'p95 < 20 ms', postgres: PG_LIST_TARGET },
  { name: 'deep cursor page (after the 10,000th row, order=price.desc)', lmdb: 'p95 < 3 ms', postgres: PG_LIST_TARGET },
  { name: 'q, one term, newest first', lmdb: 'p95 < 2.5 ms', postgres: PG_LIST_TARGET },
  { name: 'q, two terms that must both match', lmdb: 'p95 < 2.3 ms', postgres: PG_LIST_TARGET },
  { name: 'q, a rare term (user<n> of one email)', lmdb: 'p95 < 10 ms', postgres: PG_LIST_TARGET },
  { name: 'aggregate sum+avg over ~100,000 rows (status.eq.X)', lmdb: 'p95 < 30 ms', postgres: '-' },
  { name: 'aggregate sum+avg, whole table', lmdb: '-', postgres: '-' },
  { name: 'distinct on the enum', lmdb: '-', postgres: '-' },
  { name: 'GET row by id', lmdb: 'p95 < 3 ms', postgres: 'p95 < 3 ms' },
  { name: 'GET by id req/s (32 clients, 5 s) vs Bun hello world', lmdb: '>= 40%', postgres: '-' },
  { name: 'resident memory of the server after the queries', lmdb: '< 2048 MiB', postgres: '-' },
  { name: 'stored size (LMDB file; PostgreSQL database)', lmdb: '-', postgres: '-' },
  { name: 'start-up to ready with the rows stored', lmdb: '< 10 s', postgres: '< 10 s' },
  { name: 'resident memory of the server after start-up', lmdb: '-', postgres: '-' },
];

const ms = (l: { p50: number; p95: number }) => `p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms`;
const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** Where the server keeps its rows, and how the benchmark watches it catch up after the load. */
interface StoreSide {
  env: Record<string, string>;
  dataDir: string;
  /** The data folder stays for a later run (PostgreSQL with BENCH_PG_DIR). */
  keep: boolean;
  /** True while the store is still catching up after the load. */
  behind(): Promise<boolean>;
  /** Called once caught up: nothing more is watched. */
  caughtUp(): Promise<void>;
  /** Bytes the rows take on disk. */
  size(): Promise<number>;
  /** How fast the rows were loaded, when an earlier run left them (PostgreSQL with BENCH_PG_DIR). */
  loadedBefore(): string | null;
  loaded(rate: number): void;
  close(): Promise<void>;
}

/** LMDB: a fresh data folder; caught up once the store has no merge marks left (read beside the server). */
function lmdbSide(): StoreSide {
  const dataDir = mkdtempSync(join(tmpdir(), 'rowsmith-bench-'));
  let store: ReturnType<typeof open> | null = null;
  const close = async () => {
    await store?.close();
    store = null;
  };
  return {
    env: {},
    dataDir,
    keep: false,
    behind: async () => {
      store ??= open({ path: join(dataDir, 'db'), readOnly: true });
      const marks = store.openDB({ name: 'index_marks' });
      marks.resetReadTxn();
      return marks.getKeysCount() > 0;
    },
    caughtUp: close,
    size: async () => statSync(join(dataDir, 'db', 'data.mdb')).size,
    loadedBefore: () => null,
    loaded: () => {},
    close,
  };
}

/**
 * PostgreSQL: caught up once autovacuum has analyzed and vacuumed what the load wrote (no rows
 * relation is past autovacuum's thresholds), so plans use the table's statistics and index-only
 * scans skip the heap.
 */
async function postgresSide(): Promise<StoreSide> {
  const keep = process.env.BENCH_PG_DIR;
  let cluster: BenchCluster | null = null;
  let url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    cluster = await startBenchCluster(keep);
    await ensureDatabase(cluster, 'rowsmith');
    url = cluster.url('rowsmith');
  }
  const sql = openPostgres(url, { max: 1 });
  const dataDir = keep ? join(keep, 'files') : mkdtempSync(join(tmpdir(), 'rowsmith-bench-'));
  mkdirSync(dataDir, { recursive: true });
  const loadFile = keep && join(keep, 'load.json');
  return {
    env: { ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: url },
    dataDir,
    keep: !!keep,
    behind: async () => {
      const [row] = await sql`
        SELECT count(*)::int AS n FROM pg_stat_user_tables
        WHERE relname LIKE 'rows%' AND n_live_tup > 0 AND (
          n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * n_live_tup
          OR n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * n_live_tup)`;
      return row.n > 0;
    },
    caughtUp: async () => {},
    size: async () => Number((await sql`SELECT pg_database_size(current_database())::float8 AS n`)[0].n),
    loadedBefore: () => (loadFile && existsSync(loadFile) ? (JSON.parse(readFileSync(loadFile, 'utf8')) as { value: string }).value : null),
    loaded: (rate) => {
      if (loadFile) writeFileSync(loadFile, JSON.stringify({ value: `${rate} rows/s (loaded ${new Date().toISOString().slice(0, 10)})` }));
    },
    close: async () => {
      await sql.close();
      await cluster?.stop();
    },
  };
}

async function runOn(storeName: Store): Promise<Results> {
  const side = storeName === 'lmdb' ? lmdbSide() : await postgresSide();
  let server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY, ...side.env }, side.dataDir);
  const headers = { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' };
  const results: Results = new Map();
  const put = (name: string, value: string, after?: string) => {
    if (!MEASURES.some((m) => m.name === name)) throw new Error(`unknown measure ${name}`);
    results.set(name, { value, after });
    console.error(`${storeName}: ${name}: ${value}${after ? ` (right after the load: ${after})` : ''}`);
  };
  try {
    const project = `${server.url}/v1/projects/proj_default`;
    const existing = ((await (await fetch(`${project}/tables?limit=100`, { headers })).json()) as { tables: Array<{ id: string; name: string; row_count: number }> }).tables;
    const tableUrl = (id: string) => `${project}/tables/${id}`;
    const createTable = async (name: string) => {
      const created = await fetch(`${project}/tables`, { method: 'POST', headers, body: JSON.stringify({ name, columns_json: COLUMNS }) });
      return tableUrl(((await created.json()) as { id: string }).id);
    };
    const ok = (r: Response) => {
      if (!r.ok) throw new Error(`${r.url}: ${r.status}`);
    };
    // The list queries measured both while the store catches up and with the server idle.
    const lists = (base: string) => ({
      offset: (i: number) => new Request(`${base}/rows?page=${491 + (i % 20)}&limit=20`, { headers }),
      eq: (i: number) => new Request(`${base}/rows?filter=status.eq.${STATUSES[i % 10]}`, { headers }),
      range: (i: number) => new Request(`${base}/rows?filter=qty.gte.${(i % 9) * 1000},qty.lt.${(i % 9) * 1000 + 1000}&order=due.desc`, { headers }),
      q: (i: number) => new Request(`${base}/rows?q=${WORDS[i % WORDS.length]}`, { headers }),
    });
    const bulk = async (base: string, body: string) => {
      const reply = await fetch(`${base}/rows/bulk`, { method: 'POST', headers, body });
      if (!reply.ok) throw new Error(`bulk: ${reply.status} ${await reply.text()}`);
      return (await reply.json()) as { created: Array<{ id: string }> };
    };

    // A table loaded by an earlier run (PostgreSQL with BENCH_PG_DIR) is measured as it is.
    const reused = existing.find((t) => t.name === 'Bench' && t.row_count === N);
    const loadedBefore = reused ? side.loadedBefore() : null;
    let base: string;
    const ids: string[] = [];
    let loadedAt: number;
    if (reused && loadedBefore) {
      base = tableUrl(reused.id);
      loadedAt = performance.now();
      put('bulk load (1000 rows/request, 2 in flight)', `${loadedBefore}, by an earlier run`);
      for (let page = 1; ids.length < 1000; page += 97) {
        const body = (await (await fetch(`${base}/rows?order=id&limit=100&page=${page}&select=id`, { headers })).json()) as { rows: Array<{ id: string }> };
        ids.push(...body.rows.slice(0, 10).map((r) => r.id));
      }
    } else {
      // The list queries are warmed up on a small table of their own first (loaded in bulk like the
      // large one), so the figures right after the load are not the JIT's first compiles.
      const warmBase = await createTable('Warm-up');
      for (let i = 0; i < 20_000; i += 1000) await bulk(warmBase, JSON.stringify({ creates: Array.from({ length: 1000 }, (_, j) => row(i + j)) }));
      await waitIdle(server.proc.pid);
      for (const make of Object.values(lists(warmBase))) await latency(Math.min(warmups, 1000), make, ok);
      await waitIdle(server.proc.pid);

      // The large table gets the same rows as before the warm-up table was added.
      rand = generator(1);
      base = await createTable('Bench');
      // Bulk load: 1000 rows a request, two requests in flight (the machine has two cores).
      const bodies = function* () {
        for (let i = 0; i < N; i += 1000) yield JSON.stringify({ creates: Array.from({ length: Math.min(1000, N - i) }, (_, j) => row(i + j)) });
      };
      const gen = bodies();
      const t0 = performance.now();
      let loaded = 0;
      await Promise.all(
        [0, 1].map(async () => {
          for (let next = gen.next(); !next.done; next = gen.next()) {
            const body = await bulk(base, next.value);
            for (const r of body.created) if (sample() < 0.001) ids.push(r.id);
            loaded += body.created.length;
            if (loaded % 100_000 === 0) console.error(`${storeName}: loaded ${loaded}`);
          }
        }),
      );
      loadedAt = performance.now();
      const rate = Math.round(N / ((loadedAt - t0) / 1000));
      side.loaded(rate);
      put('bulk load (1000 rows/request, 2 in flight)', `${rate} rows/s`);
    }
    const shapes = lists(base);

    // On LMDB the first aggregate waits for the column cache, built in the background (filtered
    // walks then read it too), and the first q waits for the search index the same way; a wait
    // longer than the request deadline is answered 408 and asked again. PostgreSQL keeps no cache.
    const firstAnswer = async (path: string) => {
      const started = performance.now();
      let timeouts = 0;
      for (;;) {
        const reply = await fetch(`${base}${path}`, { headers });
        await reply.arrayBuffer();
        if (reply.status !== 408) {
          ok(reply);
          return `${((performance.now() - started) / 1000).toFixed(1)} s${timeouts ? ` (${timeouts} × 408 before)` : ''}`;
        }
        timeouts++;
      }
    };
    put('first aggregate after the load', await firstAnswer('/rows/aggregate?aggs=sum:price&filter=status.eq.new'));
    put('first q after it', await firstAnswer('/rows?q=freight'));

    // Right after the load the store catches up in the background: LMDB merges the loaded rows'
    // index entries, PostgreSQL's autovacuum analyzes and vacuums them. The list queries are
    // measured, one request at a time in turns, until it has (at most 15 minutes), then the server
    // is left to finish what follows.
    const after = { offset: [] as number[], eq: [] as number[], range: [] as number[], q: [] as number[] };
    const catchUpStart = performance.now();
    for (let i = 0; (await side.behind()) && performance.now() - catchUpStart < 900_000; i++) {
      for (const [name, make] of Object.entries(shapes) as Array<[keyof typeof after, (i: number) => Request]>) {
        const t = performance.now();
        const reply = await fetch(make(i));
        await reply.arrayBuffer();
        after[name].push(performance.now() - t);
        ok(reply);
      }
    }
    const caughtUp = !(await side.behind());
    await side.caughtUp();
    put('catching up after the load, list queries running', `${((performance.now() - loadedAt) / 1000).toFixed(1)} s${caughtUp ? '' : ' (not done: stopped waiting)'}`);
    put('background work after that, until the server is idle', `${(await waitIdle(server.proc.pid)).toFixed(1)} s`);
    const afterLoad = (name: keyof typeof after) => {
      const times = after[name].sort((a, b) => a - b);
      return times.length ? `${ms({ p50: percentile(times, 50), p95: percentile(times, 95) })} (${times.length})` : undefined;
    };

    const get = (path: string) => () => new Request(`${base}${path}`, { headers });
    // Each query shape is warmed up first, as on a server in use: the JIT compiles a path over its
    // first few hundred requests, and with the server on one core that compiling takes turns with
    // the requests (their p95 is then 1.5-2.5 ms in-process against 0.3-0.8 ms once compiled).
    const measure = async (name: string, make: (i: number) => Request, count = 200, shape?: keyof typeof after) => {
      await latency(Math.min(warmups, count * 5), make, ok);
      put(name, ms(await latency(count, make, ok)), shape && afterLoad(shape));
    };

    // Latencies are measured with the server idle: after the builds, and after their garbage.
    await measure('offset page (page=501&limit=20: offset 10,000), newest first', shapes.offset, 200, 'offset');
    await measure('offset page with eq filter (status.eq.X, page=201&limit=20)', (i) => get(`/rows?filter=status.eq.${STATUSES[i % 10]}&page=${191 + (i % 20)}&limit=20`)());
    await measure('eq filter (status.eq.X), newest first, limit 20', shapes.eq, 200, 'eq');
    await measure('range filter + order on another column (qty 10% band, order=due.desc)', shapes.range, 200, 'range');
    await measure('or(...) filter, order=price.asc', (i) => get(`/rows?filter=or(status.eq.${STATUSES[i % 10]},qty.lt.${i % 50})&order=price.asc`)());
    // The cursor of the page after the 10,000th row.
    let cursor = '';
    for (let page = 0; page < 100; page++) {
      const r = await fetch(`${base}/rows?limit=100&order=price.desc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
      cursor = ((await r.json()) as { nextCursor: string }).nextCursor;
    }
    await measure('deep cursor page (after the 10,000th row, order=price.desc)', () => get(`/rows?order=price.desc&cursor=${encodeURIComponent(cursor)}`)());
    await measure('q, one term, newest first', shapes.q, 200, 'q');
    await measure('q, two terms that must both match', (i) => get(`/rows?q=${WORDS[i % WORDS.length]}%20${WORDS[(i + 5) % WORDS.length]}`)());
    await measure('q, a rare term (user<n> of one email)', (i) => get(`/rows?q=user${(i * 7919) % N}`)(), 50);
    await measure('aggregate sum+avg over ~100,000 rows (status.eq.X)', (i) => get(`/rows/aggregate?aggs=sum:price,avg:price&filter=status.eq.${STATUSES[i % 10]}`)(), 50);
    await measure('aggregate sum+avg, whole table', () => get(`/rows/aggregate?aggs=sum:price,avg:price`)(), 50);
    await measure('distinct on the enum', () => get(`/columns/status/distinct`)(), 50);
    await measure('GET row by id', (i) => get(`/rows/${ids[i % ids.length]}`)(), 1000);

    const hello = await startHelloWorld();
    const helloRate = await throughput(5, 32, () => new Request(hello.url));
    await hello.stop();
    let i = 0;
    const rowRate = await throughput(5, 32, () => get(`/rows/${ids[i++ % ids.length]}`)());
    put('GET by id req/s (32 clients, 5 s) vs Bun hello world', `${Math.round(rowRate)} vs ${Math.round(helloRate)} = ${Math.round((rowRate / helloRate) * 100)}%`);
    put('resident memory of the server after the queries', rss(server.proc));

    await server.stop();
    put('stored size (LMDB file; PostgreSQL database)', mib(await side.size()));
    server = await startRowsmith(side.env, side.dataDir);
    put('start-up to ready with the rows stored', `${(server.startedInMs / 1000).toFixed(2)} s`);
    put('resident memory of the server after start-up', rss(server.proc));
  } finally {
    await server.stop();
    await side.close();
    if (!side.keep) rmSync(side.dataDir, { recursive: true, force: true });
  }
  return results;
}

export async function run(): Promise<void> {
  const byStore = new Map<Store, Results>();
  for (const store of stores) byStore.set(store, await runOn(store));
  const table = MEASURES.filter((m) => stores.some((s) => byStore.get(s)!.has(m.name))).map((m) => {
    const line: Record<string, string> = { measure: m.name };
    for (const store of stores) {
      const result = byStore.get(store)!.get(m.name);
      line[STORE_NAMES[store]] = result?.value ?? '-';
      line[`${STORE_NAMES[store]} right after the load (requests)`] = result?.after ?? '-';
      line[`${STORE_NAMES[store]} target`] = m[store];
    }
    return line;
  });
  const settings = stores.includes('postgres') && !process.env.BENCH_DATABASE_URL ? `; PostgreSQL ${Object.entries(BENCH_SETTINGS).map(([k, v]) => `${k}=${v}`).join(' ')}` : '';
  printTable(
    `Rows benchmark (${machine()}), ${N} rows, server and client on one machine over loopback; latencies from sequential requests after ${warmups} warm-up requests each (at most 5 times the measured count)` +
      `${process.env.BENCH_SERVER_CPUS ? `, the server pinned to CPU ${process.env.BENCH_SERVER_CPUS}` : ''}` +
      '; "right after the load": the list queries in turns, from the end of the load until the store has caught up (LMDB: every row merged; PostgreSQL: autovacuum done)' +
      settings,
    table,
  );
}
