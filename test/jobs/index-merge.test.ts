/**
 * A merge run under way: while LMDB holds part of the run's entries past the mark, index reads
 * answer exactly as after the merge; between its steps the run lets requests go first, yet it
 * finishes under a steady stream of them and does not keep a load that waits for room waiting.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { startApp, type TestApp } from '../helpers/app';
import { indexProblems } from '../helpers/index-check';

const TABLES = '/v1/projects/proj_default/tables';
const COLUMNS = [
  { id: 'code', name: 'Code' },
  { id: 'qty', name: 'Qty', type: 'number' },
  { id: 'state', name: 'State', type: 'enum', options: ['open', 'paid', 'void'] },
];
const load = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ code: `C${from + i}`, qty: ((from + i) * 7) % 17, state: ['open', 'paid', 'open', 'void'][(from + i) % 4] }));

interface Row {
  id: string;
  code: string;
  qty: number;
  state: string;
}

let app: TestApp;
afterEach(() => app.close());

async function tableWith(count: number) {
  const created = await app.request('POST', TABLES, { body: { name: 'Merge', columns_json: COLUMNS } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const base = `${TABLES}/${id}`;
  for (let n = 0; n < count; n += 1000) expect((await app.request('POST', `${base}/rows/bulk`, { body: { creates: load(Math.min(1000, count - n), n) } })).status).toBe(200);
  const table = () => app.services.tablesStore.get(id)!;
  return { id, base, table };
}

/** Every row a list gives, page by page (cursor pages), or one offset page. */
async function list(base: string, qs: string): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: string | null = null;
  do {
    const reply: { status: number; body: any } = await app.request('GET', `${base}/rows?${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.status).toBe(200);
    out.push(...reply.body.rows);
    cursor = qs.includes('page=') ? null : reply.body.nextCursor;
  } while (cursor);
  return out;
}

const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What the list queries below must answer, from the rows themselves. */
function expected(rows: Row[]) {
  const ids = (xs: Row[]) => xs.map((r) => r.id);
  const asc = [...rows].sort(byId);
  const paid = asc.filter((r) => r.state === 'paid');
  const open = asc.filter((r) => r.state === 'open');
  return {
    'filter=state.eq.paid&limit=100': ids([...paid].reverse()),
    'filter=state.eq.paid&order=id.asc&limit=70': ids(paid),
    'filter=state.eq.open&page=4&limit=50': ids([...open].reverse().slice(150, 200)),
    'filter=qty.gte.3,qty.lt.6&order=code.asc&limit=100': ids(asc.filter((r) => r.qty >= 3 && r.qty < 6).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : byId(a, b)))),
    'filter=qty.eq.16&order=qty.desc,id.desc&limit=100': ids(asc.filter((r) => r.qty === 16).reverse()),
    'filter=code.eq.C777': ids(asc.filter((r) => r.code === 'C777')),
  };
}

async function answers(base: string, queries: string[]) {
  const out: Record<string, string[]> = {};
  for (const q of queries) out[q] = (await list(base, q)).map((r) => r.id);
  return out;
}

/** Entries LMDB holds past the mark in one slot (a run's, written so far). */
function pastMark(seq: number, slot: number): number {
  const mark = app.services.rowsStore.mark(seq);
  if (mark === undefined) return 0;
  let n = 0;
  for (const [, id] of app.services.rowsStore.scanIndex(seq, slot, null, null)) if (id > mark) n++;
  return n;
}

/**
 * Starts a merge of the table's tail and holds it between two steps once a run has written some
 * of a column's entries (columns go one by one, state last), the first run or a later one (the
 * mark then past some rows); returns its release.
 */
async function holdMidRun(table: () => { seq: number; slots: Record<string, number> }, column: string, laterRun = false) {
  let held = false;
  app.services.foreground.quietFor = () => (held ? 0 : Infinity);
  const { seq, slots } = table();
  const merging = app.services.merger.drain();
  while (pastMark(seq, slots[column]!) === 0 || (laterRun && app.services.rowsStore.mark(seq) === '')) await Bun.sleep(1);
  held = true;
  await Bun.sleep(20);
  return {
    release: async () => {
      held = false;
      await merging;
      await app.services.merger.drain();
    },
  };
}

describe('a merge run under way', () => {
  test('index reads answer as after the merge while LMDB holds part of the run entries; writes meanwhile too', async () => {
    // A pause between two steps lasts as long as requests are said to keep coming (up to 10 s).
    app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeSliceMs: 1, backgroundYieldMs: 10_000 } });
    const t = await tableWith(12_000);
    const { seq, slots } = t.table();
    const run = await holdMidRun(t.table, 'qty');
    const written = pastMark(seq, slots.qty!);
    expect(app.services.rowsStore.markRecord(seq)?.runTo).toBeDefined();
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(12_000);
    expect(pastMark(seq, slots.state!)).toBe(0);

    let rows = (await list(t.base, 'order=id.asc&limit=100')) as Row[];
    expect(rows.length).toBe(12_000);
    const want = expected(rows);
    const queries = Object.keys(want);
    expect(await answers(t.base, queries)).toEqual(want);

    // Writes during the run: rows the run has written, rows it has not, and new ones.
    const changed = [rows[5]!, rows[6000]!, rows[11_990]!];
    const reply = await app.request('POST', `${t.base}/rows/bulk`, {
      body: { updates: changed.map((r) => ({ id: r.id, data: { state: 'paid', qty: 16 } })), deletes: [rows[7]!.id, rows[8000]!.id], creates: load(3, 50_000) },
    });
    expect(reply.status).toBe(200);
    rows = (await list(t.base, 'order=id.asc&limit=100')) as Row[];
    expect(rows.length).toBe(12_000 - 2 + 3);
    const now = expected(rows);
    expect(await answers(t.base, queries)).toEqual(now);

    await run.release();
    expect(app.services.rowsStore.mark(seq)).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect(await answers(t.base, queries)).toEqual(now);
  });

  test('a later run: LMDB holds merged rows, part of the run, and the mark between them', async () => {
    app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeSliceMs: 1, indexMergeRunRows: 4000, backgroundYieldMs: 10_000 } });
    const t = await tableWith(12_000);
    const run = await holdMidRun(t.table, 'qty', true);
    const { seq } = t.table();
    expect(app.services.rowsStore.mark(seq)! > '').toBe(true);
    expect(app.services.rowsStore.markRecord(seq)?.runTo).toBeDefined();
    const rows = (await list(t.base, 'order=id.asc&limit=100')) as Row[];
    const want = expected(rows);
    expect(await answers(t.base, Object.keys(want))).toEqual(want);
    await run.release();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
    expect(await answers(t.base, Object.keys(want))).toEqual(want);
  });

  // 300 writes and reads, each its own commit: several seconds on a slow machine; what counts is the reader slots.
  test('reads that stop early while a run commits between them leave no LMDB reader open', async () => {
    app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeSliceMs: 1, backgroundYieldMs: 10_000 } });
    const t = await tableWith(12_000);
    const run = await holdMidRun(t.table, 'state');
    const [first] = await list(t.base, 'order=id.asc&limit=1');
    // Each write commits, so each read has a snapshot of its own; LMDB has 126 reader slots. The
    // reads stop early in the state column's entries, which LMDB holds in part.
    for (let k = 0; k < 300; k++) {
      expect((await app.request('PATCH', `${t.base}/rows/${first!.id}`, { body: { qty: k % 17 } })).status).toBe(200);
      const reply = await app.request('GET', `${t.base}/rows?filter=state.eq.open&limit=5`);
      expect(reply.status).toBe(200);
      expect(reply.body.rows.length).toBe(5);
    }
    expect(app.store.env.readerList().split('\n').length).toBeLessThan(10);
    await run.release();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  }, 60_000);

  test('under a steady stream of requests a run pauses between its steps and still finishes', async () => {
    app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeSliceMs: 1, backgroundYieldMs: 20 } });
    let asked = 0;
    // Requests always coming: every pause lasts its whole 20 ms.
    app.services.foreground.quietFor = () => {
      asked++;
      return 0;
    };
    const t = await tableWith(2000);
    await app.services.merger.drain();
    expect(asked).toBeGreaterThan(0);
    expect(app.services.rowsStore.mark(t.table().seq)).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });

  test('a load waiting for room in a full tail is not kept waiting by the pauses', async () => {
    app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000, indexMergeRunRows: 300, indexTailMaxRows: 1000, backgroundYieldMs: 10_000 } });
    app.services.foreground.quietFor = () => 0;
    const t = await tableWith(1000);
    expect(app.services.tails.size(t.table().seq)).toBe(1000);
    const started = performance.now();
    const reply = await app.request('POST', `${t.base}/rows/bulk`, { body: { creates: load(500, 1000) } });
    expect(reply.status).toBe(200);
    // A pause of its own would be 10 s at every step.
    expect(performance.now() - started).toBeLessThan(5000);
    app.services.foreground.quietFor = () => Infinity;
    await app.services.merger.drain();
    expect(indexProblems(app.services, 'proj_default', t.id)).toEqual([]);
  });
});
