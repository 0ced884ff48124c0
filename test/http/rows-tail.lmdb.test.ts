/**
 * Bulk loads leave their rows' index entries to a background merge (the unmerged tail): every
 * kind of write and table change while a tail exists keeps answers and, after the merge, LMDB's
 * index exactly as if each row had been indexed in its own transaction. The tail and the merge are
 * LMDB's: these tests run on LMDB whatever ROWSMITH_TEST_STORE says.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { slotSpecs } from '../../src/store/slots';
import { DEFER_INDEX_ROWS } from '../../src/services/rows.service';
import { startLmdbApp, type TestApp } from '../helpers/app';
import { indexProblems } from '../helpers/index-check';

const TABLES = '/v1/projects/proj_default/tables';
const COLUMNS = [
  { id: 'code', name: 'Code' },
  { id: 'qty', name: 'Qty', type: 'number' },
  { id: 'state', name: 'State', type: 'enum', options: ['open', 'paid'] },
];

let app: TestApp;
beforeAll(async () => {
  // No merge until a test asks for one.
  app = await startLmdbApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000 } });
});
afterAll(() => app.close());

const load = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ code: `C${from + i}`, qty: (from + i) % 17, state: (from + i) % 3 ? 'open' : 'paid' }));

async function tableWith(rows: unknown[], extra: Record<string, unknown> = {}) {
  const created = await app.request('POST', TABLES, { body: { name: 'Tail', columns_json: COLUMNS, ...extra } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const base = `${TABLES}/${id}`;
  if (rows.length) expect((await app.request('POST', `${base}/rows/bulk`, { body: { creates: rows } })).status).toBe(200);
  return { id, base, seq: () => app.services.tablesStore.get(id)!.seq };
}

/** Every row a list gives, page by page. */
async function list(base: string, qs: string): Promise<Array<{ id: string; code: string }>> {
  const out = [];
  let cursor: string | null = null;
  do {
    const reply: { status: number; body: any } = await app.request('GET', `${base}/rows?limit=100&${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    out.push(...reply.body.rows);
    cursor = reply.body.nextCursor;
  } while (cursor);
  return out;
}
const codes = async (base: string, qs: string) => (await list(base, qs)).map((r) => r.code);

describe('the unmerged tail', () => {
  test('a small write indexes its rows at once; a bulk load of DEFER_INDEX_ROWS rows or more leaves them to the merge', async () => {
    const small = await tableWith(load(DEFER_INDEX_ROWS - 1));
    expect(app.services.rowsStore.mark(small.seq())).toBeUndefined();
    const large = await tableWith(load(DEFER_INDEX_ROWS));
    expect(app.services.rowsStore.mark(large.seq())).toBe('');
    // Single rows written while a tail exists join it.
    expect((await app.request('POST', `${large.base}/rows`, { body: { code: 'single', qty: 5 } })).status).toBe(201);
    expect(await codes(large.base, 'filter=code.eq.single')).toEqual(['single']);
    expect(indexProblems(app.services, 'proj_default', large.id)).toEqual([]);
    expect(app.services.rowsStore.countIndex(large.seq(), 1, null, null, Infinity)).toBe(0);
    await app.services.merger.drain();
    expect(app.services.rowsStore.mark(large.seq())).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', large.id)).toEqual([]);
    expect(await codes(large.base, 'filter=code.eq.single')).toEqual(['single']);
  });

  test('rows loaded after the merge form a new tail after the indexed ones', async () => {
    const t = await tableWith(load(150));
    await app.services.merger.drain();
    const before = app.services.rowsStore.lastRowId(t.seq());
    expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(150, 150) } })).status).toBe(200);
    expect(app.services.rowsStore.mark(t.seq())).toBe(before);
    const want = load(300).filter((r) => r.qty === 4).map((r) => r.code).reverse();
    expect(await codes(t.base, 'filter=qty.eq.4')).toEqual(want);
    const agg = await app.request('GET', `${t.base}/rows/aggregate?aggs=count:qty,min:qty,max:qty`);
    expect(agg.body).toEqual({ count_qty: 300, min_qty: 0, max_qty: 16 });
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });

  test('updates and deletes of tail rows, and replace mode, keep the index exact', async () => {
    const t = await tableWith(load(200));
    const all = await list(t.base, 'order=id.asc');
    const reply = await app.request('POST', `${t.base}/rows/bulk`, {
      body: { updates: all.slice(0, 10).map((r) => ({ id: r.id, data: { qty: 100 } })), deletes: all.slice(10, 20).map((r) => r.id) },
    });
    expect(reply.status).toBe(200);
    expect((await codes(t.base, 'filter=qty.eq.100&order=id.asc'))).toEqual(all.slice(0, 10).map((r) => r.code));
    expect(await codes(t.base, `filter=code.eq.${all[15]!.code}`)).toEqual([]);
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect((await codes(t.base, 'filter=qty.eq.100&order=id.asc'))).toEqual(all.slice(0, 10).map((r) => r.code));

    const replaced = await app.request('PATCH', t.base, { body: { insert_mode: 'replace' } });
    expect(replaced.status).toBe(200);
    expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(120, 1000) } })).status).toBe(200);
    expect(await codes(t.base, 'filter=code.eq.C5')).toEqual([]);
    expect(await codes(t.base, 'filter=code.eq.C1005')).toEqual(['C1005']);
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect((await app.request('GET', `${t.base}/rows/aggregate?aggs=count`)).body).toEqual({ count: 120 });
  });

  test('a table that turns to dedup merges its tail first, so matches among the loaded rows are found', async () => {
    const t = await tableWith(load(150));
    expect(app.services.rowsStore.mark(t.seq())).toBe('');
    expect((await app.request('PATCH', t.base, { body: { insert_mode: 'dedup', merge_columns_json: ['code'] } })).status).toBe(200);
    const again = await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: [...load(3, 10), { code: 'fresh', qty: 1, state: 'open' }] } });
    expect(again.status).toBe(200);
    expect(again.body.created.map((r: { code: string }) => r.code)).toEqual(['fresh']);
    expect(app.services.rowsStore.mark(t.seq())).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    // A dedup table's loads index at once.
    expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(150, 500) } })).status).toBe(200);
    expect(app.services.rowsStore.mark(t.seq())).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });

  test('a column added while a tail exists is indexed for the rows up to the mark; the merge does the rest', async () => {
    const t = await tableWith(load(150));
    await app.services.merger.drain();
    expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(150, 150) } })).status).toBe(200);
    expect((await app.request('POST', `${t.base}/columns`, { body: { id: 'note', name: 'Note', default: 'n/a' } })).status).toBe(200);
    const rows = await list(t.base, 'order=id.asc');
    const updates = rows.filter((_, i) => i % 50 === 0).map((r) => ({ id: r.id, data: { note: 'marked' } }));
    expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { updates } })).status).toBe(200);
    await app.services.tables.buildPendingSlots(t.id);
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect((await codes(t.base, 'filter=note.eq.marked')).length).toBe(updates.length);
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect((await codes(t.base, 'filter=note.eq.marked')).length).toBe(updates.length);
  });

  test('rows updated, deleted and added while a merge run writes their entries end up indexed with their current values', async () => {
    const t = await tableWith([]);
    for (let n = 0; n < 6000; n += 1000) expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(1000, n) } })).status).toBe(200);
    const all = await list(t.base, 'order=id.asc');
    const merging = app.services.merger.drain();
    // Each write waits for its turn between the run's transactions.
    for (let k = 0; k < 6; k++) {
      const some = all.slice(k * 900, k * 900 + 30);
      const reply = await app.request('POST', `${t.base}/rows/bulk`, {
        body: { updates: some.slice(0, 20).map((r) => ({ id: r.id, data: { qty: 1000 + k, state: 'paid' } })), deletes: some.slice(20).map((r) => r.id), creates: load(2, 90_000 + k * 2) },
      });
      expect(reply.status).toBe(200);
      expect(await codes(t.base, `filter=qty.eq.${1000 + k}`)).toEqual(some.slice(0, 20).map((r) => r.code).reverse());
    }
    await merging;
    await app.services.merger.drain();
    expect(app.services.rowsStore.mark(t.seq())).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    const rows = await list(t.base, 'order=id.asc');
    expect(rows.length).toBe(6000 - 60 + 12);
    for (const state of ['open', 'paid']) expect((await list(t.base, `filter=state.eq.${state}&order=id.asc`)).map((r) => r.id)).toEqual(rows.filter((r: any) => r.state === state).map((r) => r.id));
  });

  test('a long tail is merged in several runs, each moving the mark, with writes between them', async () => {
    const dataDir = app.dataDir;
    await app.close(true);
    app = await startLmdbApp({ dataDir, config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeRunRows: 700 } });
    const t = await tableWith([]);
    for (let n = 0; n < 3000; n += 1000) expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(1000, n) } })).status).toBe(200);
    const s = app.services;
    const marks = new Set<string | undefined>();
    let merged = false;
    const merging = s.merger.drain().then(() => (merged = true));
    // Writes go on until the merge ends (how many runs fit between two writes depends on the machine).
    for (let k = 0; k < 40 && !merged; k++) {
      // In-process requests never leave the event loop a turn; the merge needs some.
      await Bun.sleep(10);
      marks.add(s.rowsStore.mark(t.seq()));
      const first = (await list(t.base, 'order=id.asc'))[k * 70]!;
      expect((await app.request('PATCH', `${t.base}/rows/${first.id}`, { body: { qty: 500 + k } })).status).toBe(200);
      expect(await codes(t.base, `filter=qty.eq.${500 + k}`)).toEqual([first.code]);
    }
    await merging;
    await s.merger.drain();
    expect(s.rowsStore.mark(t.seq())).toBeUndefined();
    expect(marks.size).toBeGreaterThan(2);
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    // 3,000 rows loaded and merged, with 40 lists between: seconds on a machine busy with other work.
  }, 30_000);

  test('a load that finds the tail full waits for the merge to make room', async () => {
    const dataDir = app.dataDir;
    await app.close(true);
    app = await startLmdbApp({ dataDir, config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeRunRows: 300, indexTailMaxRows: 1000 } });
    const t = await tableWith([]);
    for (let n = 0; n < 1000; n += 500) expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(500, n) } })).status).toBe(200);
    expect(app.services.tails.size(t.seq())).toBe(1000);
    // Full: the next load waits until runs bring the tail under the limit (no idle time passes).
    const reply = await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(500, 1000) } });
    expect(reply.status).toBe(200);
    expect(app.services.tails.size(t.seq())).toBeLessThanOrEqual(1000 - 300 + 500);
    expect(await codes(t.base, 'filter=code.eq.C1499')).toEqual(['C1499']);
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });

  test('a tail left by a stop is read back after the restart and merged by resume()', async () => {
    const t = await tableWith(load(400));
    const dataDir = app.dataDir;
    await app.close(true);
    app = await startLmdbApp({ dataDir, config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000 } });
    expect(app.services.rowsStore.mark(t.seq())).toBe('');
    expect(await codes(t.base, 'filter=code.eq.C399')).toEqual(['C399']);
    expect((await codes(t.base, 'filter=qty.eq.3&order=code.asc')).length).toBe(load(400).filter((r) => r.qty === 3).length);
    app.services.merger.resume();
    await app.services.merger.drain();
    expect(app.services.rowsStore.mark(t.seq())).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });

  test('after a restart the tail is read back in the background; writes meanwhile are followed', async () => {
    const t = await tableWith([]);
    for (let n = 0; n < 6000; n += 1000) expect((await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(1000, n) } })).status).toBe(200);
    const dataDir = app.dataDir;
    await app.close(true);
    app = await startLmdbApp({ dataDir, config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000 } });
    const all = await list(t.base, 'order=id.asc');
    await app.close(true);
    app = await startLmdbApp({ dataDir, config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000 } });
    // Slices of 256 rows: the writes below commit while it reads (each commit lets a slice run).
    const loading = app.services.tails.preload(t.seq(), slotSpecs(app.services.tablesStore.get(t.id)!), 0);
    // Writes while it reads: updates before and after where it has got to, a delete, new rows.
    for (const k of [0, 3000, 5999]) expect((await app.request('PATCH', `${t.base}/rows/${all[k]!.id}`, { body: { qty: 700 + k } })).status).toBe(200);
    expect((await app.request('DELETE', `${t.base}/rows/${all[10]!.id}`)).status).toBe(200);
    expect((await app.request('POST', `${t.base}/rows`, { body: { code: 'late', qty: 9 } })).status).toBe(201);
    await loading;
    expect(app.services.tails.size(t.seq())).toBe(6000);
    for (const k of [0, 3000, 5999]) expect(await codes(t.base, `filter=qty.eq.${700 + k}`)).toEqual([all[k]!.code]);
    expect(await codes(t.base, `filter=code.eq.${all[10]!.code}`)).toEqual([]);
    expect(await codes(t.base, 'filter=code.eq.late')).toEqual(['late']);
    expect((await codes(t.base, 'filter=qty.eq.9')).length).toBe(all.filter((r: any) => r.qty === 9).length + 1);
  });
});
