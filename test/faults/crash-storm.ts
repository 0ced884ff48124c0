/**
 * The crash storm shared by `npm run bench -- crash` and its short test: a child server on a temp
 * DATA_DIR, client workers doing mixed writes at once (single and bulk creates, updates, deletes,
 * merge-mode bulks, column changes, extractions of a real CSV, exports) while webhooks go to an
 * HTTPS receiver that fails a share of deliveries; SIGKILL at random moments, then restart. After
 * every restart the clients' own log of acknowledged operations is checked against a full scan,
 * and the indexes, search and aggregates against that scan.
 *
 * Each worker owns its rows (the `owner` column), so at most one of its operations is in flight
 * when the process dies; that operation is unacknowledged and must have happened entirely or not
 * at all, which is decided from the first read after the restart.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type ServerProcess } from '../helpers/process';
import { startReceiver } from '../helpers/receiver';
import { tempDir } from '../helpers/app';
import { random, type Rng } from './fuzzer';

const KEY = 'crash-storm-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
const ORDERS_CSV = readFileSync(join(import.meta.dir, '..', 'fixtures', 'extract', 'files', 'orders-plain.csv'));
const ORDERS_IN_CSV = 6;

export interface StormOptions {
  seed: number;
  kills: number;
  workers: number;
  /** How long each life lasts before the SIGKILL, picked at random in this range. */
  lifeMs: [number, number];
  log?: (line: string) => void;
}

export interface StormReport {
  seed: number;
  kills: number;
  acknowledged: number;
  unacknowledgedResolved: number;
  lost: number;
  changed: number;
  phantom: number;
  partial: number;
  duplicated: number;
  indexMismatches: number;
  batches: number;
  batchesStuck: number;
  batchesFailedWithoutReason: number;
  exports: number;
  exportsStuck: number;
  webhookEventsExpected: number;
  webhookEventsMissing: number;
  webhookDuplicateDeliveries: number;
  problems: string[];
}

type Values = { owner: string; k: string; n: number; w: string; tag: string | null };
type Row = Values & { id: string };

/** The acknowledged state, as the clients know it. */
interface Model {
  rows: Map<string, Values>;
  merged: Map<string, number>;
  columns: Set<string>;
  batches: Map<string, number>;
  /** Export ids, and whether each has ended (complete or failed), after which it is not read again. */
  exports: Map<string, boolean>;
}

/** What an unacknowledged operation may have done: each outcome is checked against the scan. */
interface Pending {
  describe: string;
  /** Returns true when the observed state is exactly one of the operation's outcomes, adopting it. */
  resolve: (scan: Scan) => boolean;
}

interface Scan {
  rows: Row[];
  merged: Row[];
  columns: string[];
  batches: Array<{ id: string; status: string; error: string | null; total_rows: number | null; table_id: string | null; created_at: number }>;
}

class Down extends Error {}

export async function runStorm(options: StormOptions): Promise<StormReport> {
  const log = options.log ?? (() => {});
  const rng = random(options.seed);
  const receiver = startReceiver();
  // A receiver that fails a fifth of deliveries, so retries cross the kills too.
  const receiverRng = random(options.seed + 1);
  receiver.respondWith(() => (receiverRng.chance(0.2) ? new Response('fail', { status: 503 }) : new Response('ok')));
  const dataDir = tempDir('rowsmith-crash-');
  const env = {
    DATA_DIR: dataDir,
    ROWSMITH_BOOTSTRAP_KEY: KEY,
    ROWSMITH_RATE_LIMIT_PER_SECOND: '0',
    ROWSMITH_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    ROWSMITH_WEBHOOK_CA_FILE: receiver.tls.certFile,
    ROWSMITH_WEBHOOK_RETRY_DELAYS_MS: '100,200,300,500,800,1000,1000,1000,1000,1000',
    ROWSMITH_WEBHOOK_TIMEOUT_MS: '2000',
    ROWSMITH_WEBHOOK_MIN_BACKOFF_MS: '0',
  };
  const report: StormReport = {
    seed: options.seed, kills: 0, acknowledged: 0, unacknowledgedResolved: 0, lost: 0, changed: 0, phantom: 0, partial: 0, duplicated: 0,
    indexMismatches: 0, batches: 0, batchesStuck: 0, batchesFailedWithoutReason: 0, exports: 0, exportsStuck: 0,
    webhookEventsExpected: 0, webhookEventsMissing: 0, webhookDuplicateDeliveries: 0, problems: [],
  };
  const problem = (text: string) => {
    if (report.problems.length < 50) report.problems.push(text);
  };
  const model: Model = { rows: new Map(), merged: new Map(), columns: new Set(['k']), batches: new Map(), exports: new Map() };
  let server: ServerProcess = await startServer(env);

  const call = async (method: string, path: string, body?: unknown, form?: FormData): Promise<any> => {
    let response: Response;
    try {
      response = await fetch(server.url + path, {
        method,
        headers: { authorization: `ApiKey ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
      });
    } catch {
      throw new Down();
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new Down();
    }
    if (response.status === 503) throw new Down();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : null;
  };

  const columns = [
    { id: 'owner', name: 'Owner', required: true },
    { id: 'k', name: 'K', required: true },
    { id: 'n', name: 'N', type: 'number' },
    { id: 'w', name: 'W' },
    { id: 'tag', name: 'Tag' },
  ];
  const tables = {
    append: (await call('POST', `${P}/tables`, { name: 'Append', columns_json: columns })).id as string,
    merge: (await call('POST', `${P}/tables`, { name: 'Merge', columns_json: columns, insert_mode: 'merge', merge_columns_json: ['k'] })).id as string,
    schema: (await call('POST', `${P}/tables`, { name: 'Schema', columns_json: [{ id: 'k', name: 'K' }] })).id as string,
    extract: (await call('POST', `${P}/tables`, {
      name: 'Orders',
      columns_json: [
        { id: 'order_id', name: 'Order ID', required: true },
        { id: 'customer', name: 'Customer' },
        { id: 'total', name: 'Total', type: 'number' },
      ],
    })).id as string,
  };
  await call('POST', '/v1/organizations/org_default/webhooks', { url: receiver.url(), events: ['batch.complete', 'batch.partial', 'batch.failed'] });

  const pending = new Map<number, Pending>();
  let seq = 0;
  let running = true;
  let lifeStarted = Date.now();

  /** Reads every row of a table through the cursor, as a full scan. */
  const scanTable = async (table: string): Promise<Row[]> => {
    const out: Row[] = [];
    let cursor = '';
    for (;;) {
      const page = await call('GET', `${P}/tables/${table}/rows?limit=100&order=created_at.asc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      out.push(...page.rows);
      if (!page.hasMore) return out;
      cursor = page.nextCursor;
    }
  };
  const scanAll = async (): Promise<Scan> => {
    const batches: Scan['batches'] = [];
    let cursor = '';
    for (;;) {
      const page = await call('GET', `${P}/batches?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      batches.push(...page.batches);
      if (!page.hasMore) break;
      cursor = page.nextCursor;
    }
    const schema = await call('GET', `${P}/tables/${tables.schema}`);
    return { rows: await scanTable(tables.append), merged: await scanTable(tables.merge), columns: schema.columns_json.map((c: { id: string }) => c.id), batches };
  };

  const same = (row: Row | undefined, values: Values | undefined) =>
    row !== undefined && values !== undefined && row.owner === values.owner && row.k === values.k && (row.n ?? null) === values.n && (row.w ?? null) === values.w && (row.tag ?? null) === values.tag;

  /** One operation of worker `w`; on a dead server it leaves what it may have done in `pending`. */
  const operate = async (w: number, r: Rng) => {
    const owner = `w${w}`;
    const mine = [...model.rows].filter(([, v]) => v.owner === owner);
    const values = (): Values => ({ owner, k: `${owner}-${++seq}`, n: r.int(1000), w: r.pick(WORDS), tag: null });
    const choice = r.int(w === 0 ? 10 : 9);
    if (mine.length > 300) {
      // Keeps each life's full scan short: a bulk delete, itself all or nothing.
      const gone = mine.slice(0, 50);
      pending.set(w, {
        describe: `bulk delete of ${gone.length}`,
        resolve: (scan) => {
          const left = gone.filter(([id]) => scan.rows.some((row) => row.id === id));
          if (left.length === 0) for (const [id] of gone) model.rows.delete(id);
          return left.length === 0 || left.length === gone.length;
        },
      });
      await call('POST', `${P}/tables/${tables.append}/rows/bulk`, { deletes: gone.map(([id]) => id) });
      for (const [id] of gone) model.rows.delete(id);
    } else if (choice === 0 || mine.length < 3) {
      const v = values();
      pending.set(w, {
        describe: `create ${v.k}`,
        resolve: (scan) => {
          const found = scan.rows.filter((row) => row.k === v.k);
          if (found.length === 1 && same(found[0], v)) model.rows.set(found[0]!.id, v);
          return found.length === 0 || (found.length === 1 && same(found[0], v));
        },
      });
      const row = await call('POST', `${P}/tables/${tables.append}/rows`, v);
      model.rows.set(row.id, v);
    } else if (choice <= 2) {
      const tag = `bulk-${owner}-${++seq}`;
      // One in four is large enough to leave its index entries to the background merge.
      const creates = Array.from({ length: r.int(4) === 0 ? 100 + r.int(60) : 2 + r.int(40) }, () => ({ ...values(), tag }));
      pending.set(w, {
        describe: `bulk create ${tag} (${creates.length})`,
        resolve: (scan) => {
          const found = scan.rows.filter((row) => row.tag === tag);
          if (found.length === creates.length) for (const row of found) model.rows.set(row.id, creates.find((c) => c.k === row.k)!);
          return found.length === 0 || found.length === creates.length;
        },
      });
      const reply = await call('POST', `${P}/tables/${tables.append}/rows/bulk`, { creates });
      for (const row of reply.created) model.rows.set(row.id, creates.find((c) => c.k === row.k)!);
    } else if (choice <= 4) {
      const [id, old] = r.pick(mine);
      const next: Values = { ...old, n: r.int(1000), w: r.pick(WORDS) };
      pending.set(w, {
        describe: `update ${id}`,
        resolve: (scan) => {
          const row = scan.rows.find((x) => x.id === id);
          if (same(row, next)) model.rows.set(id, next);
          return same(row, old) || same(row, next);
        },
      });
      await call('PATCH', `${P}/tables/${tables.append}/rows/${id}`, { n: next.n, w: next.w });
      model.rows.set(id, next);
    } else if (choice === 5) {
      const [id, old] = r.pick(mine);
      pending.set(w, {
        describe: `delete ${id}`,
        resolve: (scan) => {
          const row = scan.rows.find((x) => x.id === id);
          if (!row) model.rows.delete(id);
          return !row || same(row, old);
        },
      });
      await call('DELETE', `${P}/tables/${tables.append}/rows/${id}`);
      model.rows.delete(id);
    } else if (choice === 6) {
      // Creates, updates and deletes in one request: all of it or none of it.
      const picked = [...new Set([r.pick(mine), r.pick(mine), r.pick(mine)])];
      const [toDelete, ...toUpdate] = picked;
      const tag = `mixed-${owner}-${++seq}`;
      const creates = Array.from({ length: 3 }, () => ({ ...values(), tag }));
      const updates = toUpdate.map(([id, old]) => ({ id, old, next: { ...old, n: r.int(1000) } }));
      pending.set(w, {
        describe: `mixed bulk ${tag}`,
        resolve: (scan) => {
          const created = scan.rows.filter((row) => row.tag === tag);
          const deleted = !scan.rows.some((row) => row.id === toDelete![0]);
          const updated = updates.every((u) => same(scan.rows.find((x) => x.id === u.id), u.next));
          const untouched = updates.every((u) => same(scan.rows.find((x) => x.id === u.id), u.old));
          const applied = created.length === creates.length && deleted && updated;
          if (applied) {
            model.rows.delete(toDelete![0]);
            for (const u of updates) model.rows.set(u.id, u.next);
            for (const row of created) model.rows.set(row.id, creates.find((c) => c.k === row.k)!);
          }
          return applied || (created.length === 0 && !deleted && untouched);
        },
      });
      const reply = await call('POST', `${P}/tables/${tables.append}/rows/bulk`, {
        creates,
        updates: updates.map((u) => ({ id: u.id, data: { n: u.next.n } })),
        deletes: [toDelete![0]],
      });
      model.rows.delete(toDelete![0]);
      for (const u of updates) model.rows.set(u.id, u.next);
      for (const row of reply.created) model.rows.set(row.id, creates.find((c) => c.k === row.k)!);
    } else if (choice === 7) {
      // Merge mode: the worker's ten keys are updated in place, never duplicated.
      const n = r.int(1000);
      const keys = [...new Set(Array.from({ length: 4 }, () => `${owner}-m${r.int(10)}`))];
      const before = new Map(keys.map((k) => [k, model.merged.get(k)]));
      pending.set(w, {
        describe: `merge bulk ${keys.join(',')}`,
        resolve: (scan) => {
          const now = keys.map((k) => scan.merged.filter((row) => row.k === k));
          const applied = now.every((rows) => rows.length === 1 && rows[0]!.n === n);
          const untouched = now.every((rows, i) => (before.get(keys[i]!) === undefined ? rows.length === 0 : rows.length === 1 && rows[0]!.n === before.get(keys[i]!)));
          if (applied) for (const k of keys) model.merged.set(k, n);
          return applied || untouched;
        },
      });
      await call('POST', `${P}/tables/${tables.merge}/rows/bulk`, { creates: keys.map((k) => ({ owner, k, n })) });
      for (const k of keys) model.merged.set(k, n);
    } else if (choice === 8) {
      if (w === 1) {
        // Column changes on a table of this worker alone.
        const existing = [...model.columns].filter((c) => c !== 'k');
        if (existing.length && r.chance(0.4)) {
          const id = r.pick(existing);
          pending.set(w, { describe: `remove column ${id}`, resolve: (scan) => (scan.columns.includes(id) ? true : (model.columns.delete(id), true)) });
          await call('DELETE', `${P}/tables/${tables.schema}/columns/${id}`);
          model.columns.delete(id);
        } else {
          const name = `c${++seq}`;
          pending.set(w, {
            describe: `add column ${name}`,
            resolve: (scan) => {
              if (scan.columns.includes(name)) model.columns.add(name);
              return true;
            },
          });
          const table = await call('POST', `${P}/tables/${tables.schema}/columns`, { name });
          model.columns.add(table.columns_json.at(-1).id);
        }
      } else {
        pending.set(w, { describe: 'export', resolve: () => true });
        const started = await call('GET', `${P}/tables/${tables.append}/export?format=csv`);
        model.exports.set(started.id, false);
      }
    } else {
      // Extraction of a real CSV; batches are checked against their rows after each restart.
      const form = new FormData();
      form.append('file', new File([ORDERS_CSV], 'orders.csv', { type: 'text/csv' }));
      pending.set(w, { describe: 'extraction', resolve: () => true });
      const reply = await call('POST', `${P}/tables/${tables.extract}/extract`, undefined, form);
      model.batches.set(reply.batch_id, reply.result.created);
    }
    pending.delete(w);
    report.acknowledged++;
  };

  const worker = async (w: number) => {
    const r = random(options.seed * 7919 + w);
    while (running) {
      if (pending.has(w)) {
        await Bun.sleep(20);
        continue;
      }
      try {
        await operate(w, r);
      } catch (error) {
        if (!(error instanceof Down)) {
          problem(`worker ${w}: ${(error as Error).message}`);
          pending.delete(w);
        }
      }
    }
  };

  /** Every check that must hold after a restart, on a store nobody writes meanwhile. */
  const verify = async (final: boolean) => {
    const scan = await scanAll();
    for (const [w, op] of pending) {
      if (op.resolve(scan)) report.unacknowledgedResolved++;
      else {
        report.partial++;
        problem(`worker ${w}: unacknowledged ${op.describe} left a partial trace`);
      }
    }
    pending.clear();
    const byId = new Map(scan.rows.map((row) => [row.id, row]));
    for (const [id, values] of model.rows) {
      const row = byId.get(id);
      if (!row) {
        report.lost++;
        problem(`acknowledged row ${id} (${values.k}) is missing`);
      } else if (!same(row, values)) {
        report.changed++;
        problem(`row ${id} is ${JSON.stringify(row)}, acknowledged as ${JSON.stringify(values)}`);
      }
    }
    for (const row of scan.rows) {
      if (!model.rows.has(row.id)) {
        report.phantom++;
        problem(`row ${row.id} (${row.k}) was never acknowledged`);
      }
    }
    const mergedKeys = new Map<string, number>();
    for (const row of scan.merged) mergedKeys.set(row.k, (mergedKeys.get(row.k) ?? 0) + 1);
    for (const [k, n] of mergedKeys) {
      if (n > 1) {
        report.duplicated += n - 1;
        problem(`merge key ${k} has ${n} rows`);
      }
    }
    for (const [k, n] of model.merged) {
      const row = scan.merged.find((x) => x.k === k);
      if (!row) report.lost++;
      else if (row.n !== n) report.changed++;
    }
    for (const id of model.columns) {
      if (!scan.columns.includes(id)) {
        report.lost++;
        problem(`acknowledged column ${id} is missing`);
      }
    }
    await checkIndexes(scan.rows);
    await checkBatches(scan, final);
    await checkExports(final);
  };

  const mismatch = (what: string, got: unknown, want: unknown) => {
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    report.indexMismatches++;
    problem(`${what}: the API says ${JSON.stringify(got).slice(0, 200)}, a full scan ${JSON.stringify(want).slice(0, 200)}`);
  };

  /** Filters, order, q, aggregates, distinct and row_count against the scan. */
  const checkIndexes = async (rows: Row[]) => {
    const T = `${P}/tables/${tables.append}`;
    const table = await call('GET', T);
    mismatch('row_count', table.row_count, rows.length);
    const word = WORDS[report.kills % WORDS.length]!;
    const filtered = await call('GET', `${T}/rows/aggregate?aggs=count,sum:n&filter=${encodeURIComponent(`n.gt.500,w.eq.${word}`)}`);
    const expected = rows.filter((row) => row.n > 500 && row.w === word);
    mismatch(`aggregate under n.gt.500,w.eq.${word}`, [filtered.count, filtered.sum_n ?? 0], [expected.length, expected.reduce((s, row) => s + row.n, 0)]);
    const whole = await call('GET', `${T}/rows/aggregate?aggs=count,min:n,max:n`);
    mismatch('aggregate of the table', [whole.count, whole.min_n, whole.max_n], [rows.length, rows.length ? Math.min(...rows.map((x) => x.n)) : null, rows.length ? Math.max(...rows.map((x) => x.n)) : null]);
    const top = await call('GET', `${T}/rows?order=n.desc&limit=20&select=id,n`);
    mismatch('order n.desc (top 20 values)', top.rows.map((x: Row) => x.n), rows.map((x) => x.n).sort((a, b) => b - a).slice(0, 20));
    const searched = await call('GET', `${T}/rows/aggregate?aggs=count&filter=${encodeURIComponent(`w.eq.${word}`)}`);
    const q = await scanQuery(`${T}/rows?q=${word}&limit=100&select=id`);
    mismatch(`q=${word}`, q.length, searched.count);
    mismatch(`filter w.eq.${word}`, searched.count, rows.filter((row) => row.w === word).length);
    const distinct = await call('GET', `${T}/columns/w/distinct?limit=500`);
    mismatch('distinct w', [...distinct.values].sort(), [...new Set(rows.map((row) => row.w))].sort());
  };

  const scanQuery = async (path: string): Promise<unknown[]> => {
    const out: unknown[] = [];
    let cursor = '';
    for (;;) {
      const page = await call('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      out.push(...page.rows);
      if (!page.hasMore) return out;
      cursor = page.nextCursor;
    }
  };

  const checkBatches = async (scan: Scan, final: boolean) => {
    report.batches = scan.batches.length;
    const extractRows = await scanTable(tables.extract);
    for (const batch of scan.batches) {
      const rows = extractRows.filter((row: any) => row.batch_id === batch.id).length;
      if (batch.status === 'processing' && (final || batch.created_at < lifeStarted)) {
        report.batchesStuck++;
        problem(`batch ${batch.id} is still processing after the restart`);
      }
      if (batch.status === 'failed' && !batch.error) {
        report.batchesFailedWithoutReason++;
        problem(`batch ${batch.id} failed without a reason`);
      }
      if (batch.status === 'complete' && rows !== ORDERS_IN_CSV) {
        report.lost += Math.max(0, ORDERS_IN_CSV - rows);
        problem(`complete batch ${batch.id} has ${rows} rows of ${ORDERS_IN_CSV}`);
      }
      if (batch.status === 'failed' && rows !== 0) {
        report.partial++;
        problem(`failed batch ${batch.id} left ${rows} rows`);
      }
    }
    for (const [id, created] of model.batches) {
      const batch = scan.batches.find((b) => b.id === id);
      if (!batch || batch.status !== 'complete' || created !== ORDERS_IN_CSV) {
        report.lost++;
        problem(`acknowledged batch ${id} is ${batch?.status ?? 'missing'}`);
      }
    }
  };

  const checkExports = async (final: boolean) => {
    report.exports = model.exports.size;
    for (const [id, ended] of model.exports) {
      if (ended) continue;
      let exported: { status: string; created_at: number };
      try {
        exported = await call('GET', `${P}/exports/${id}`);
      } catch (error) {
        if (error instanceof Down) throw error;
        report.lost++;
        problem(`acknowledged export ${id}: ${(error as Error).message}`);
        continue;
      }
      model.exports.set(id, exported.status !== 'processing');
      if (exported.status === 'processing' && (final || exported.created_at < lifeStarted)) {
        report.exportsStuck++;
        problem(`export ${id} is still processing after the restart`);
      }
    }
  };

  try {
    for (let life = 0; life < options.kills; life++) {
      lifeStarted = Date.now();
      running = true;
      const workers = Array.from({ length: options.workers }, (_, w) => worker(w));
      await Bun.sleep(options.lifeMs[0] + rng.int(options.lifeMs[1] - options.lifeMs[0]));
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      report.kills++;
      running = false;
      await Promise.all(workers);
      server = await startServer(env);
      lifeStarted = Date.now();
      await verify(false);
      log(`kill ${report.kills}: ${report.acknowledged} acknowledged, ${model.rows.size} rows, ${report.problems.length} problems`);
    }
    // The last life: no kill, a healthy receiver; every event of an acknowledged batch must arrive.
    receiver.respondWith(() => new Response('ok'));
    await Bun.sleep(1000);
    await verify(true);
    const expected = [...model.batches.keys()];
    report.webhookEventsExpected = expected.length;
    const deadline = Date.now() + 30_000;
    const missing = () => expected.filter((id) => !receiver.received.some((r) => r.body.includes(id)));
    while (missing().length && Date.now() < deadline) await Bun.sleep(200);
    report.webhookEventsMissing = missing().length;
    for (const id of missing()) problem(`no webhook event for acknowledged batch ${id}`);
    const deliveries = new Map<string, number>();
    for (const r of receiver.received) deliveries.set(r.headers['webhook-id']!, (deliveries.get(r.headers['webhook-id']!) ?? 0) + 1);
    report.webhookDuplicateDeliveries = [...deliveries.values()].reduce((n, c) => n + c - 1, 0);
  } finally {
    running = false;
    await server.stop('SIGKILL');
    receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return report;
}

export function formatStorm(report: StormReport): Array<Record<string, string | number>> {
  return [
    { figure: 'kills (SIGKILL, then restart)', value: report.kills },
    { figure: 'operations acknowledged', value: report.acknowledged },
    { figure: 'unacknowledged operations found whole or absent', value: report.unacknowledgedResolved },
    { figure: 'lost (acknowledged, then missing)', value: report.lost },
    { figure: 'changed (not as acknowledged)', value: report.changed },
    { figure: 'never acknowledged yet present', value: report.phantom },
    { figure: 'partial (half of one request)', value: report.partial },
    { figure: 'duplicated rows (merge keys)', value: report.duplicated },
    { figure: 'index, search or aggregate unequal to a full scan', value: report.indexMismatches },
    { figure: 'batches / stuck / failed without reason', value: `${report.batches} / ${report.batchesStuck} / ${report.batchesFailedWithoutReason}` },
    { figure: 'exports / stuck in processing', value: `${report.exports} / ${report.exportsStuck}` },
    { figure: 'webhook events expected / missing', value: `${report.webhookEventsExpected} / ${report.webhookEventsMissing}` },
    { figure: 'duplicate webhook deliveries (at-least-once)', value: report.webhookDuplicateDeliveries },
  ];
}
