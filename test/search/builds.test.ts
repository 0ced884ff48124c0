/**
 * Background builds of the search index and the column cache on a table larger than the build-at-
 * once size, with creates, updates and deletes committing while the build runs: the answers once
 * built must equal a plain evaluation of the rows as they finally are.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { BUILD_AT_ONCE_ROWS } from '../../src/search/builds';
import { scheduleMaintenance } from '../../src/jobs/maintenance';
import { Scheduler } from '../../src/jobs/scheduler';
import { createLogger } from '../../src/lib/log';
import { startApp, testConfig, type TestApp } from '../helpers/app';

const TABLES = '/v1/projects/proj_default/tables';
const WORDS = ['freight', 'invoice', 'consulting', 'license', 'hardware', 'travel'];
type Row = { id: string; note: string; amount: number; kind: string };

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const makeRow = (i: number) => ({ note: `${pick(WORDS)} ${pick(WORDS)} ${i}`, amount: Math.floor(rand() * 1000), kind: pick(['a', 'b', 'c']) });

let app: TestApp;
let base: string;
let tableId: string;
const live = new Map<string, Row>();

beforeAll(async () => {
  app = await startApp();
  const table = await app.request('POST', TABLES, {
    body: { name: 'Big', columns_json: [{ id: 'note', name: 'Note', type: 'text' }, { id: 'amount', name: 'Amount', type: 'number' }, { id: 'kind', name: 'Kind', type: 'enum', options: ['a', 'b', 'c'] }] },
  });
  tableId = table.body.id;
  base = `${TABLES}/${tableId}`;
  for (let n = 0; n < BUILD_AT_ONCE_ROWS + 2000; n += 1000) {
    const reply = await app.request('POST', `${base}/rows/bulk`, { body: { creates: Array.from({ length: 1000 }, (_, i) => makeRow(n + i)) } });
    expect(reply.status).toBe(200);
    for (const r of reply.body.created) live.set(r.id, r);
  }
});
afterAll(() => app.close());

/** Writes of every kind, one request at a time, for as long as `busy()` says a build runs; returns how many went. */
async function writeWhile(busy: () => boolean): Promise<number> {
  let writes = 0;
  for (let i = 0; busy() || writes === 0; i++) {
    const ids = [...live.keys()];
    const victim = ids[Math.floor(rand() * ids.length)]!;
    const updated = ids[Math.floor(rand() * ids.length)]!;
    const body = {
      creates: [{ note: `zanzibar ${pick(WORDS)} new${i}`, amount: 5000 + i, kind: 'c' }],
      updates: updated === victim ? [] : [{ id: updated, data: { note: `madagascar ${i}`, amount: 7000 + i } }],
      deletes: [victim],
    };
    const reply = await app.request('POST', `${base}/rows/bulk`, { body });
    expect(reply.status).toBe(200);
    live.delete(victim);
    for (const r of [...reply.body.created, ...reply.body.updated]) live.set(r.id, r);
    writes++;
  }
  return writes;
}

async function listAll(qs: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const reply = await app.request('GET', `${base}/rows?limit=100&${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    out.push(...reply.body.rows.map((r: Row) => r.id));
    cursor = reply.body.nextCursor;
  } while (cursor);
  return out.sort();
}

const words = (r: Row) => r.note.toLowerCase().split(/[^a-z0-9]+/);

test('the search index built in the background follows the writes made meanwhile', async () => {
  expect(app.services.builds.size).toBe(0);
  const searching = app.request('GET', `${base}/rows?q=zanzibar&limit=5`);
  const writes = await writeWhile(() => app.services.builds.size > 0);
  expect(writes).toBeGreaterThan(1);
  expect((await searching).status).toBe(200);
  for (const q of ['zanzibar', 'madagascar', 'freight', 'travel hardware']) {
    const terms = q.split(' ');
    const want = [...live.values()].filter((r) => terms.every((t) => words(r).includes(t))).map((r) => r.id).sort();
    expect(want.length).toBeGreaterThan(0);
    expect(await listAll(`q=${encodeURIComponent(q)}`)).toEqual(want);
  }
});

test('the column cache built in the background follows the writes made meanwhile', async () => {
  const table = app.services.tablesStore.get(tableId)!;
  expect(app.services.columnCache.peek(table, [table.slots.amount!])).toBeNull();
  const aggregating = app.request('GET', `${base}/rows/aggregate?aggs=sum:amount,count&filter=kind.eq.c`);
  const writes = await writeWhile(() => app.services.builds.size > 0);
  expect(writes).toBeGreaterThan(1);
  expect((await aggregating).status).toBe(200);
  const current = app.services.tablesStore.get(tableId)!;
  expect(app.services.columnCache.peek(current, [current.slots.amount!])).not.toBeNull();
  const of = (kind: string) => [...live.values()].filter((r) => r.kind === kind);
  for (const kind of ['a', 'c']) {
    const reply = await app.request('GET', `${base}/rows/aggregate?aggs=sum:amount,count&filter=kind.eq.${kind}`);
    expect(reply.body).toEqual({ sum_amount: of(kind).reduce((s, r) => s + r.amount, 0), count: of(kind).length });
  }
  // Filtered walks read the cache too.
  const want = [...live.values()].filter((r) => r.amount < 500).map((r) => r.id).sort();
  expect(want.length).toBeGreaterThan(1000);
  expect(await listAll('filter=amount.lt.500&order=note.asc')).toEqual(want);
});

test('after a restart, prebuild builds both for every large table in the background', async () => {
  const dataDir = app.dataDir;
  await app.close(true);
  app = await startApp({ dataDir });
  const table = app.services.tablesStore.get(tableId)!;
  expect(app.services.columnCache.peek(table, [table.slots.amount!])).toBeNull();
  expect(() => app.services.search.search(table, ['zanzibar'])).toThrow();
  expect(await app.services.rows.prebuild()).toBe(1);
  while (app.services.builds.size > 0) await Bun.sleep(5);
  expect(app.services.columnCache.peek(table, [table.slots.amount!])).not.toBeNull();
  const want = [...live.values()].filter((r) => words(r).includes('zanzibar')).map((r) => r.id).sort();
  expect(app.services.search.search(table, ['zanzibar']).ids().sort()).toEqual(want);
});

test('a large table that has stopped changing gets its builds from the periodic prebuild, not while it changes', async () => {
  const dataDir = app.dataDir;
  await app.close(true);
  app = await startApp({ dataDir });
  const scheduler = new Scheduler(createLogger(false));
  scheduleMaintenance(scheduler, app.services, testConfig(dataDir, { prebuild: true }));
  try {
    const built = () => {
      const table = app.services.tablesStore.get(tableId)!;
      return app.services.columnCache.peek(table, [table.slots.amount!]) !== null;
    };
    // First seen, then changed since: nothing is built yet.
    await scheduler.runNow('prebuild-settled');
    await writeWhile(() => false);
    await scheduler.runNow('prebuild-settled');
    expect(app.services.builds.size).toBe(0);
    expect(built()).toBe(false);
    // Unchanged since the last check: both builds start in the background.
    await scheduler.runNow('prebuild-settled');
    expect(app.services.builds.size).toBeGreaterThan(0);
    while (app.services.builds.size > 0) await Bun.sleep(5);
    expect(built()).toBe(true);
    const table = app.services.tablesStore.get(tableId)!;
    const want = [...live.values()].filter((r) => words(r).includes('zanzibar')).map((r) => r.id).sort();
    expect(app.services.search.search(table, ['zanzibar']).ids().sort()).toEqual(want);
  } finally {
    await scheduler.stop();
  }
  const off = new Scheduler(createLogger(false));
  scheduleMaintenance(off, app.services, testConfig(dataDir, { prebuild: false }));
  await expect(off.runNow('prebuild-settled')).rejects.toThrow('no job named prebuild-settled');
  await off.stop();
});

test('a search while the searchable columns keep changing gets a 503 with Retry-After; once they settle it answers', async () => {
  let changing = true;
  let added = 0;
  const changer = (async () => {
    // Each text column added (or removed again, so the table stays under its column limit)
    // changes the searchable columns, so the index is built again.
    while (changing) {
      const reply =
        added % 2 === 0
          ? await app.request('POST', `${base}/columns`, { body: { id: 'extra', name: 'Extra', type: 'text' } })
          : await app.request('DELETE', `${base}/columns/extra`);
      expect(reply.status).toBe(200);
      added++;
      await Bun.sleep(5);
    }
  })();
  while (added === 0) await Bun.sleep(1);
  const searching = await app.request('GET', `${base}/rows?q=freight`);
  changing = false;
  await changer;
  expect(searching.status).toBe(503);
  expect(searching.body.error_key).toBe('service_unavailable');
  expect(searching.headers.get('retry-after')).toBe('1');
  const settled = await app.request('GET', `${base}/rows?q=freight&limit=1`);
  expect(settled.status).toBe(200);
  expect(settled.body.rows.length).toBe(1);
});

test('a build cut short (the service closing) is not kept, and what waited on it gets a 503', async () => {
  const dataDir = app.dataDir;
  await app.close(true);
  app = await startApp({ dataDir });
  const aggregating = app.request('GET', `${base}/rows/aggregate?aggs=sum:amount&filter=kind.eq.c`);
  const searching = app.request('GET', `${base}/rows?q=freight`);
  while (app.services.builds.size === 0) await Bun.sleep(1);
  app.services.builds.close();
  const [aggregate, search] = await Promise.all([aggregating, searching]);
  expect([aggregate.status, search.status]).toEqual([503, 503]);
  const table = app.services.tablesStore.get(tableId)!;
  expect(app.services.columnCache.peek(table, [table.slots.amount!])).toBeNull();
  expect(() => app.services.search.search(table, ['freight'])).toThrow();
});
