/**
 * A bulk load killed with SIGKILL, while loading and while its index entries are being merged:
 * after each restart every acknowledged row is there, index answers equal a scan of the rows, and
 * LMDB's index holds exactly the entries of the rows up to the merge mark; once the merge is done,
 * of every row.
 */
import { afterAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { startApp, tempDir } from '../helpers/app';
import { indexProblems, storeIndexProblems } from '../helpers/index-check';
import { startServer, type ServerProcess } from '../helpers/process';
import { Store } from '../../src/store/db';
import { RowsStore } from '../../src/store/rows.store';
import { TablesStore } from '../../src/store/tables.store';

const KEY = 'bulk-crash-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const STATES = ['open', 'paid', 'void'];
const dataDir = tempDir('rowsmith-bulk-crash-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

type Row = { id: string; code: string; qty: number; state: string };

const start = () => startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_RATE_LIMIT_PER_SECOND: '0', ROWSMITH_INDEX_MERGE_IDLE_MS: '50', ROWSMITH_PREBUILD: 'false' });
const call = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
  const reply = await fetch(`${server.url}${path}`, { method, headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: reply.status, body: (await reply.json()) as any };
};

/** Loads bulks of 500 rows, two in flight, until `stop()`; acknowledged rows go into `acked`. */
function load(server: ServerProcess, table: string, acked: Map<string, Row>, from: { n: number }) {
  let running = true;
  const worker = async () => {
    while (running) {
      const creates = Array.from({ length: 500 }, () => {
        const n = from.n++;
        return { code: `K${n}`, qty: Math.floor(rand() * 50), state: STATES[n % 3] };
      });
      try {
        const reply = await call(server, 'POST', `${P}/tables/${table}/rows/bulk`, { creates });
        if (reply.status === 200) for (const r of reply.body.created as Row[]) acked.set(r.id, r);
      } catch {
        return; // killed: not acknowledged
      }
    }
  };
  const workers = [worker(), worker()];
  return async () => {
    running = false;
    await Promise.all(workers);
  };
}

async function allRows(server: ServerProcess, table: string, qs = ''): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: string | null = null;
  do {
    const reply = await call(server, 'GET', `${P}/tables/${table}/rows?limit=100&order=id.asc${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    out.push(...reply.body.rows);
    cursor = reply.body.nextCursor;
  } while (cursor);
  return out;
}

/** Every acknowledged row is there; index answers (equality and range lists, counts) equal a scan. */
async function check(server: ServerProcess, table: string, acked: Map<string, Row>) {
  const rows = await allRows(server, table);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const [id, row] of acked) expect(byId.get(id)).toEqual(row);
  for (const state of STATES) {
    const listed = (await allRows(server, table, `&filter=state.eq.${state}`)).map((r) => r.id);
    expect(listed).toEqual(rows.filter((r) => r.state === state).map((r) => r.id));
  }
  const few = (await allRows(server, table, '&filter=qty.gte.48')).map((r) => r.id);
  expect(few).toEqual(rows.filter((r) => r.qty >= 48).map((r) => r.id));
  const counted = await call(server, 'GET', `${P}/tables/${table}/rows/aggregate?aggs=count:qty,max:qty`);
  expect(counted.body).toEqual({ count_qty: rows.length, max_qty: Math.max(...rows.map((r) => r.qty)) });
  return rows.length;
}

function storeProblems(table: string): string[] {
  const store = new Store(dataDir);
  try {
    const record = new TablesStore(store).get(table)!;
    return storeIndexProblems(new RowsStore(store), record);
  } finally {
    void store.close();
  }
}

test('SIGKILL during bulk loads and during their merge: nothing acknowledged lost, indexes equal a scan', async () => {
  let server = await start();
  const created = await call(server, 'POST', `${P}/tables`, {
    name: 'Load',
    columns_json: [{ id: 'code', name: 'Code' }, { id: 'qty', name: 'Qty', type: 'number' }, { id: 'state', name: 'State', type: 'enum', options: STATES }],
  });
  expect(created.status).toBe(201);
  const table = created.body.id as string;
  const acked = new Map<string, Row>();
  const from = { n: 0 };
  for (let life = 0; life < 4; life++) {
    const stop = load(server, table, acked, from);
    await Bun.sleep(300 + rand() * 700);
    if (life % 2 === 1) {
      // Stop loading and kill once the merge has begun.
      await stop();
      await Bun.sleep(60 + rand() * 100);
      server.proc.kill('SIGKILL');
    } else {
      server.proc.kill('SIGKILL');
      await stop();
    }
    await server.proc.exited;
    expect(storeProblems(table)).toEqual([]);
    server = await start();
    await check(server, table, acked);
  }
  expect(acked.size).toBeGreaterThan(1000);
  await server.stop();

  // The tail left by the last kill is merged after a start.
  const app = await startApp({ dataDir, config: { indexMergeIdleMs: 86_400_000 } });
  try {
    app.services.merger.resume();
    await app.services.merger.drain();
    const record = app.services.tablesStore.get(table)!;
    expect(app.services.rowsStore.mark(record.seq)).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', table)).toEqual([]);
  } finally {
    await app.close(true);
  }
}, 90_000);
