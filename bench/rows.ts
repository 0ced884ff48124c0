/**
 * Rows at scale: loads BENCH_ROWS (default 1,000,000) rows of an 8-column table through the bulk
 * endpoint, measures list queries while the index merge that follows runs, then measures pages,
 * search, aggregate, distinct and GET by id over HTTP with the server idle, GET by id throughput
 * against Bun's hello-world server, memory, and start-up time with the rows on disk.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { latency, machine, waitIdle, memoryMiB, percentile, printTable, startHelloWorld, startRowsmith, throughput, type Child } from './lib';

const N = Number(process.env.BENCH_ROWS ?? 1_000_000);
const KEY = 'bench-admin-key-0123456789abcdef';
const STATUSES = ['new', 'open', 'sent', 'paid', 'late', 'void', 'held', 'draft', 'disputed', 'refunded'];
const WORDS = ['freight', 'invoice', 'consulting', 'license', 'hardware', 'travel', 'catering', 'storage', 'repair', 'training', 'shipping', 'software'];

let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
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

/** Resident memory, and how much of it is the process's own (anonymous) rather than LMDB's mapped file. */
function rss(proc: Child['proc']): string {
  const mib = (field: 'VmRSS' | 'RssAnon' | 'RssFile') => memoryMiB(proc.pid, field);
  return `${mib('VmRSS')} MiB (own ${mib('RssAnon')} MiB, mapped store ${mib('RssFile')} MiB)`;
}

const warmups = Number(process.env.BENCH_WARMUP ?? 1000);

export async function run(): Promise<void> {
  let server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY });
  const dataDir = server.dataDir;
  const headers = { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' };
  const results: Array<{ measure: string; value: string; target: string; merging?: string }> = [];
  try {
    const createTable = async (name: string) => {
      const created = await fetch(`${server.url}/v1/projects/proj_default/tables`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name,
          columns_json: [
            { id: 'name', name: 'Name', type: 'string' },
            { id: 'qty', name: 'Qty', type: 'number' },
            { id: 'price', name: 'Price', type: 'currency', currency_code: 'USD' },
            { id: 'due', name: 'Due', type: 'date' },
            { id: 'status', name: 'Status', type: 'enum', options: STATUSES },
            { id: 'paid', name: 'Paid', type: 'boolean' },
            { id: 'email', name: 'Email', type: 'email' },
            { id: 'notes', name: 'Notes', type: 'text' },
          ],
        }),
      });
      return `${server.url}/v1/projects/proj_default/tables/${((await created.json()) as { id: string }).id}`;
    };
    const ok = (r: Response) => {
      if (!r.ok) throw new Error(`${r.url}: ${r.status}`);
    };
    // The list queries measured both while the merge runs and with the server idle.
    const lists = (base: string) => ({
      offset: (i: number) => new Request(`${base}/rows?page=${491 + (i % 20)}&limit=20`, { headers }),
      eq: (i: number) => new Request(`${base}/rows?filter=status.eq.${STATUSES[i % 10]}`, { headers }),
      range: (i: number) => new Request(`${base}/rows?filter=qty.gte.${(i % 9) * 1000},qty.lt.${(i % 9) * 1000 + 1000}&order=due.desc`, { headers }),
      q: (i: number) => new Request(`${base}/rows?q=${WORDS[i % WORDS.length]}`, { headers }),
    });

    // The list queries are warmed up on a small table of their own first (loaded in bulk and
    // merged like the large one), so the figures during the merge are not the JIT's first compiles.
    const warmBase = await createTable('Warm-up');
    for (let i = 0; i < 20_000; i += 1000) {
      const reply = await fetch(`${warmBase}/rows/bulk`, { method: 'POST', headers, body: JSON.stringify({ creates: Array.from({ length: 1000 }, (_, j) => row(i + j)) }) });
      if (!reply.ok) throw new Error(`bulk: ${reply.status} ${await reply.text()}`);
    }
    await waitIdle(server.proc.pid);
    for (const make of Object.values(lists(warmBase))) await latency(Math.min(warmups, 1000), make, ok);
    await waitIdle(server.proc.pid);

    // The large table gets the same rows as before the warm-up table was added.
    seed = 1;
    const base = await createTable('Bench');
    const shapes = lists(base);

    // Bulk load: 1000 rows a request, two requests in flight (the machine has two cores).
    const ids: string[] = [];
    const bodies = function* () {
      for (let i = 0; i < N; i += 1000) yield JSON.stringify({ creates: Array.from({ length: Math.min(1000, N - i) }, (_, j) => row(i + j)) });
    };
    const gen = bodies();
    const t0 = performance.now();
    let loaded = 0;
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = gen.next(); !next.done; next = gen.next()) {
          const reply = await fetch(`${base}/rows/bulk`, { method: 'POST', headers, body: next.value });
          if (!reply.ok) throw new Error(`bulk: ${reply.status} ${await reply.text()}`);
          const body = (await reply.json()) as { created: Array<{ id: string }> };
          for (const r of body.created) if (rand() < 0.001) ids.push(r.id);
          loaded += body.created.length;
          if (loaded % 100_000 === 0) console.error(`loaded ${loaded}`);
        }
      }),
    );
    const loadedAt = performance.now();
    const loadSeconds = (loadedAt - t0) / 1000;
    results.push({ measure: `bulk load ${N} rows (1000/request, 2 in flight)`, value: `${Math.round(N / loadSeconds)} rows/s`, target: '>= 50,000 rows/s' });
    // The first aggregate waits for the column cache, built in the background from LMDB (filtered
    // walks then read it too); the first q waits for the search index the same way. Both come
    // right after the load, as a user's would (builds go before the index merge); a wait longer
    // than the request deadline is answered 408 and asked again.
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
    results.push({ measure: 'first aggregate after the load (waits for the column cache, built in the background)', value: await firstAnswer('/rows/aggregate?aggs=sum:price&filter=status.eq.new'), target: '-' });
    results.push({ measure: 'first q, after it (waits for the search index, built in the background)', value: await firstAnswer('/rows?q=freight'), target: '-' });
    // The loaded rows' index entries are merged in the background once the load stops: the list
    // queries are measured, one request at a time in turns, for as long as the table has rows not
    // merged (the store's merge marks, read from this process; LMDB allows readers beside the
    // server), then the server is left to finish the builds that follow.
    const store = open({ path: join(dataDir, 'db'), readOnly: true });
    const marks = store.openDB({ name: 'index_marks' });
    const unmerged = () => {
      marks.resetReadTxn();
      return marks.getKeysCount() > 0;
    };
    const during = { offset: [] as number[], eq: [] as number[], range: [] as number[], q: [] as number[] };
    for (let i = 0; unmerged(); i++) {
      for (const [name, make] of Object.entries(shapes) as Array<[keyof typeof during, (i: number) => Request]>) {
        const t = performance.now();
        const reply = await fetch(make(i));
        await reply.arrayBuffer();
        during[name].push(performance.now() - t);
        ok(reply);
      }
    }
    const mergeSeconds = (performance.now() - loadedAt) / 1000;
    await store.close();
    results.push({ measure: 'index merge, from the end of the load (builds go first), list queries running', value: `${mergeSeconds.toFixed(1)} s`, target: '-' });
    const buildSeconds = await waitIdle(server.proc.pid);
    results.push({ measure: 'background work after the merge (builds), until the server is idle', value: `${buildSeconds.toFixed(1)} s`, target: '-' });
    const duringMerge = (name: keyof typeof during) => {
      const times = during[name].sort((a, b) => a - b);
      return `p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms (${times.length})`;
    };

    const get = (path: string) => () => new Request(`${base}${path}`, { headers });
    // Each query shape is warmed up first, as on a server in use: the JIT compiles a path over its
    // first few hundred requests, and with the server on one core that compiling takes turns with
    // the requests (their p95 is then 1.5-2.5 ms in-process against 0.3-0.8 ms once compiled).
    const measure = async (name: string, target: string, make: (i: number) => Request, count = 200, merging?: keyof typeof during) => {
      await latency(Math.min(warmups, count * 5), make, ok);
      const l = await latency(count, make, ok);
      results.push({ measure: name, value: `p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms`, target, merging: merging && duringMerge(merging) });
    };

    // Latencies are measured with the server idle: after the builds, and after their garbage.
    await measure('offset page (page=501&limit=20: offset 10,000), newest first', 'p95 < 1.5 ms', shapes.offset, 200, 'offset');
    await measure('offset page with eq filter (status.eq.X, page=201&limit=20)', 'p95 < 1.5 ms', (i) => get(`/rows?filter=status.eq.${STATUSES[i % 10]}&page=${191 + (i % 20)}&limit=20`)());
    await measure('eq filter (status.eq.X), newest first, limit 20', 'p95 < 1.4 ms', shapes.eq, 200, 'eq');
    await measure('range filter + order on another column (qty 10% band, order=due.desc)', 'p95 < 3 ms', shapes.range, 200, 'range');
    await measure('or(...) filter', 'p95 < 20 ms', (i) => get(`/rows?filter=or(status.eq.${STATUSES[i % 10]},qty.lt.${i % 50})&order=price.asc`)());
    // The cursor of the page after the 10,000th row.
    let cursor = '';
    for (let page = 0; page < 100; page++) {
      const r = await fetch(`${base}/rows?limit=100&order=price.desc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
      cursor = ((await r.json()) as { nextCursor: string }).nextCursor;
    }
    await measure('deep cursor page (after the 10,000th row, order=price.desc)', 'p95 < 3 ms', () => get(`/rows?order=price.desc&cursor=${encodeURIComponent(cursor)}`)());
    await measure('q, one term, newest first', 'p95 < 2.5 ms', shapes.q, 200, 'q');
    await measure('q, two terms that must both match', 'p95 < 2.3 ms', (i) => get(`/rows?q=${WORDS[i % WORDS.length]}%20${WORDS[(i + 5) % WORDS.length]}`)());
    await measure('q, a rare term (user<n> of one email)', 'p95 < 10 ms', (i) => get(`/rows?q=user${(i * 7919) % N}`)(), 50);
    await measure('aggregate sum+avg over ~100,000 rows (status.eq.X)', 'p95 < 30 ms', (i) => get(`/rows/aggregate?aggs=sum:price,avg:price&filter=status.eq.${STATUSES[i % 10]}`)(), 50);
    await measure('aggregate sum+avg, whole table', '-', () => get(`/rows/aggregate?aggs=sum:price,avg:price`)(), 50);
    await measure('distinct on the enum', '-', () => get(`/columns/status/distinct`)(), 50);
    await measure('GET row by id', 'p95 < 3 ms', (i) => get(`/rows/${ids[i % ids.length]}`)(), 1000);

    const hello = await startHelloWorld();
    const helloRate = await throughput(5, 32, () => new Request(hello.url));
    await hello.stop();
    let i = 0;
    const rowRate = await throughput(5, 32, () => get(`/rows/${ids[i++ % ids.length]}`)());
    results.push({ measure: 'GET by id req/s (32 clients, 5 s) vs Bun hello world', value: `${Math.round(rowRate)} vs ${Math.round(helloRate)} = ${Math.round((rowRate / helloRate) * 100)}%`, target: '>= 40%' });
    results.push({ measure: 'resident memory after the queries', value: rss(server.proc), target: '< 2048 MiB' });

    await server.stop();
    server = await startRowsmith({}, dataDir);
    results.push({ measure: `start-up to ready with ${N} rows on disk`, value: `${(server.startedInMs / 1000).toFixed(2)} s`, target: '< 10 s' });
    results.push({ measure: 'resident memory after start-up', value: rss(server.proc), target: '-' });
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const table = results.map(({ measure, value, merging, target }) => ({ measure, value, 'during the merge (requests measured)': merging ?? '-', target }));
  printTable(`Rows benchmark (${machine()}), ${N} rows, server and client on one machine over loopback; latencies from sequential requests after ${warmups} warm-up requests each (at most 5 times the measured count)${process.env.BENCH_SERVER_CPUS ? `, the server pinned to CPU ${process.env.BENCH_SERVER_CPUS}` : ''}; "during the merge": the same queries in turns, from the end of the load until every row is merged`, table);
}
