/**
 * Row queries through HTTP against a plain evaluation written independently here: every filter
 * operator on every column type, orderings with nulls, cursors, q, aggregates and distinct.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectError, startApp, TEST_STORE, type TestApp } from '../helpers/app';
import { indexProblems } from '../helpers/index-check';

const TABLES = '/v1/projects/proj_default/tables';
const COLUMNS = [
  { id: 'name', name: 'Name' },
  { id: 'num', name: 'Num', type: 'number' },
  { id: 'cur', name: 'Cur', type: 'currency', currency_code: 'USD' },
  { id: 'dt', name: 'Dt', type: 'date' },
  { id: 'st', name: 'St', type: 'enum', options: ['open', 'paid', 'void', 'draft'] },
  { id: 'ok', name: 'Ok', type: 'boolean' },
  { id: 'em', name: 'Em', type: 'email' },
  { id: 'txt', name: 'Txt', type: 'text' },
  { id: 'tags', name: 'Tags', type: 'multi_select', options: ['a', 'b', 'c', 'd'] },
];
type Row = Record<string, any>;

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const maybe = <T>(v: T) => (rand() < 0.1 ? null : v);
const NAMES = ['Acme', 'acme corp', 'Beta', 'Gamma (EU)', 'delta, inc.', 'Zed', 'Émile'];
const WORDS = ['invoice', 'freight', 'consulting', 'license', 'hardware', 'travel', 'catering'];

function makeRow(i: number): Row {
  return {
    name: maybe(pick(NAMES)),
    num: maybe(rand() < 0.2 ? Math.round(rand() * 2000) / 10 - 50 : Math.floor(rand() * 200) - 50),
    cur: maybe(Math.round(rand() * 100000) / 100),
    dt: maybe(`2024-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`),
    st: maybe(pick(['open', 'paid', 'void', 'draft'])),
    ok: maybe(rand() < 0.5),
    em: maybe(`user${i}@${pick(['x.com', 'y.org'])}`),
    txt: maybe(`${pick(WORDS)} ${pick(WORDS)} ${i}`),
    tags: maybe(['a', 'b', 'c', 'd'].filter(() => rand() < 0.35)),
  };
}

/** Tests of LMDB's own parts (the index tail and merge, the column cache): PostgreSQL keeps its own indexes and has none of them. */
const lmdbTest = test.skipIf(TEST_STORE === 'postgres');

let app: TestApp;
let base: string;
let rows: Row[] = [];
beforeAll(async () => {
  // Thousands of list requests: the rate limit is not what this file tests. The bulk-loaded rows
  // stay in the unmerged tail (no background merge) until 'after the background merge' below.
  app = await startApp({ config: { rateLimitPerSecond: 0, indexMergeIdleMs: 86_400_000 } });
  const table = await app.request('POST', TABLES, { body: { name: 'Query', columns_json: COLUMNS } });
  base = `${TABLES}/${table.body.id}`;
  for (let b = 0; b < 3; b++) {
    const creates = Array.from({ length: 1000 }, (_, i) => makeRow(b * 1000 + i));
    const reply = await app.request('POST', `${base}/rows/bulk`, { body: { creates } });
    expect(reply.status).toBe(200);
    rows.push(...reply.body.created);
  }
});
afterAll(() => app.close());

async function all(qs: string): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${base}/rows?limit=100&${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const reply = await app.request('GET', url);
    expect(reply.status).toBe(200);
    out.push(...reply.body.rows);
    cursor = reply.body.nextCursor;
  } while (cursor);
  return out;
}

// ------------------------------------------------------------ the independent evaluation
const isNull = (v: unknown) => v === null || v === undefined;
const like = (pattern: string, flags = '') => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, flags);
type Pred = (r: Row) => boolean;
const cmp = (f: string, op: (a: number) => boolean): Pred => (r) => typeof r[f] === 'number' && op(r[f]);

const CASES: Array<[string, Pred]> = [
  ['name.eq.Acme', (r) => r.name === 'Acme'],
  ['name.neq.Acme', (r) => !isNull(r.name) && r.name !== 'Acme'],
  ['name.like.*cme*', (r) => typeof r.name === 'string' && like('*cme*').test(r.name)],
  ['name.like.acme*', (r) => typeof r.name === 'string' && r.name.startsWith('acme')],
  ['name.ilike.ACME*', (r) => typeof r.name === 'string' && r.name.toLowerCase().startsWith('acme')],
  ['name.in.("delta, inc.","Gamma (EU)")', (r) => r.name === 'delta, inc.' || r.name === 'Gamma (EU)'],
  ['name.nin.(Zed,Beta)', (r) => !isNull(r.name) && r.name !== 'Zed' && r.name !== 'Beta'],
  ['name.is.null', (r) => isNull(r.name)],
  ['name.is.notnull', (r) => !isNull(r.name)],
  ['name.contains.ta', (r) => typeof r.name === 'string' && r.name.includes('ta')],
  ['name.eq.Émile', (r) => r.name === 'Émile'],
  ['num.eq.7', (r) => r.num === 7],
  ['num.neq.7', (r) => !isNull(r.num) && r.num !== 7],
  ['num.gt.100', cmp('num', (a) => a > 100)],
  ['num.gte.100', cmp('num', (a) => a >= 100)],
  ['num.lt.-40', cmp('num', (a) => a < -40)],
  ['num.lte.-40.5', cmp('num', (a) => a <= -40.5)],
  ['num.gt.0', cmp('num', (a) => a > 0)],
  ['num.in.(1,2,3,50.5)', (r) => [1, 2, 3, 50.5].includes(r.num)],
  ['num.nin.(1,2)', (r) => !isNull(r.num) && r.num !== 1 && r.num !== 2],
  ['num.is.null', (r) => isNull(r.num)],
  ['cur.gte.900', cmp('cur', (a) => a >= 900)],
  ['cur.lt.10.5', cmp('cur', (a) => a < 10.5)],
  ['dt.eq.2024-03-05', (r) => r.dt === '2024-03-05'],
  ['dt.like.2024-03*', (r) => typeof r.dt === 'string' && r.dt.startsWith('2024-03')],
  ['dt.in.(2024-01-01,2024-12-28)', (r) => r.dt === '2024-01-01' || r.dt === '2024-12-28'],
  ['dt.is.notnull', (r) => !isNull(r.dt)],
  ['st.eq.paid', (r) => r.st === 'paid'],
  ['st.neq.paid', (r) => !isNull(r.st) && r.st !== 'paid'],
  ['st.in.(void,draft)', (r) => r.st === 'void' || r.st === 'draft'],
  ['st.is.null', (r) => isNull(r.st)],
  ['ok.eq.true', (r) => r.ok === true],
  ['ok.neq.true', (r) => r.ok === false],
  ['ok.ne.false', (r) => r.ok === true],
  ['ok.is.null', (r) => isNull(r.ok)],
  ['em.eq.user77@x.com', (r) => r.em === 'user77@x.com'],
  ['em.ilike.*@Y.ORG', (r) => typeof r.em === 'string' && r.em.endsWith('@y.org')],
  ['txt.like.freight*', (r) => typeof r.txt === 'string' && r.txt.startsWith('freight')],
  ['txt.contains.travel', (r) => typeof r.txt === 'string' && r.txt.includes('travel')],
  ['tags.contains.a', (r) => Array.isArray(r.tags) && r.tags.includes('a')],
  ['tags.is.null', (r) => isNull(r.tags)],
  ['created_at.gt.0', () => true],
  ['batch_id.is.null', () => true],
  ['or(st.eq.paid,num.gt.140)', (r) => r.st === 'paid' || (typeof r.num === 'number' && r.num > 140)],
  ['or(em.eq.user5@x.com,em.eq.user6@y.org,num.eq.-50)', (r) => r.em === 'user5@x.com' || r.em === 'user6@y.org' || r.num === -50],
  ['st.eq.open,ok.eq.true,num.gte.0', (r) => r.st === 'open' && r.ok === true && typeof r.num === 'number' && r.num >= 0],
  ['and(tags.contains.b,or(name.ilike.acme*,dt.like.2024-0*))', (r) =>
    Array.isArray(r.tags) && r.tags.includes('b') && ((typeof r.name === 'string' && r.name.toLowerCase().startsWith('acme')) || (typeof r.dt === 'string' && r.dt.startsWith('2024-0')))],
];

function filterCases() {
  for (const [filter, pred] of CASES) {
    test(filter, async () => {
      const got = (await all(`filter=${encodeURIComponent(filter)}&order=id.asc`)).map((r) => r.id);
      const want = rows.filter(pred).map((r) => r.id);
      expect(got).toEqual(want);
    });
  }
}

function distinctCases() {
  test('values by frequency, limit and q; 404 for unknown columns', async () => {
    const frequent = (column: string) => {
      const counts = new Map<unknown, number>();
      for (const r of rows) if (r[column] !== null) counts.set(r[column], (counts.get(r[column]) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1] || ((a[0] as any) < (b[0] as any) ? -1 : 1)).map(([v]) => v);
    };
    const want = frequent('st');
    expect((await app.request('GET', `${base}/columns/st/distinct`)).body).toEqual({ values: want });
    expect((await app.request('GET', `${base}/columns/st/distinct?limit=2`)).body.values).toEqual(want.slice(0, 2));
    expect((await app.request('GET', `${base}/columns/st/distinct?q=AI`)).body.values).toEqual(['paid']);
    // Strings and numbers (held as codes and as numbers in the column cache), whole order.
    expect((await app.request('GET', `${base}/columns/name/distinct?limit=500`)).body.values).toEqual(frequent('name'));
    expect((await app.request('GET', `${base}/columns/dt/distinct?limit=500`)).body.values).toEqual(frequent('dt').slice(0, 500));
    expect((await app.request('GET', `${base}/columns/dt/distinct?limit=500&q=-03-`)).body.values).toEqual(frequent('dt').filter((d) => String(d).includes('-03-')));
    expect((await app.request('GET', `${base}/columns/num/distinct?limit=500`)).body.values).toEqual(frequent('num').slice(0, 500));
    expect((await app.request('GET', `${base}/columns/ok/distinct`)).body.values).toEqual(frequent('ok'));
    const tags = (await app.request('GET', `${base}/columns/tags/distinct`)).body.values;
    expect([...tags].sort()).toEqual(['a', 'b', 'c', 'd']);
    expectError(await app.request('GET', `${base}/columns/st/distinct?limit=0`), 400, 'invalid_input');
    expectError(await app.request('GET', `${base}/columns/st/distinct?limit=501`), 400, 'invalid_input');
    expectError(await app.request('GET', `${base}/columns/st/distinct?q=${'x'.repeat(201)}`), 400, 'invalid_input');
    expectError(await app.request('GET', `${base}/columns/ghost/distinct`), 404, 'column_not_found');
    expectError(await app.request('GET', `${TABLES}/tbl_nope/columns/st/distinct`), 404, 'table_not_found');
  });
}

const tableId = () => base.split('/').pop()!;

describe('every filter operator on every column type matches the plain evaluation', () => {
  lmdbTest('the bulk-loaded rows are in the unmerged tail: LMDB has no index entries for them yet', () => {
    const table = app.services.tablesStore.get(tableId())!;
    expect(app.services.rowsStore.mark(table.seq)).toBe('');
    expect(app.services.rowsStore.countIndex(table.seq, table.slots.st!, null, null, Infinity)).toBe(0);
    expect(indexProblems(app.services, 'proj_default', tableId())).toEqual([]);
  });
  filterCases();
});
describe('distinct, counted from the index', () => {
  lmdbTest('the column cache is not current yet', () => {
    const table = app.services.tablesStore.get(tableId())!;
    expect(app.services.columnCache.peek(table, [table.slots.st!])).toBeNull();
  });
  distinctCases();
});

const compareRows = (keys: Array<[string, boolean, boolean]>) => (a: Row, b: Row) => {
  for (const [f, desc, nullsFirst] of keys) {
    const [x, y] = [a[f], b[f]];
    if (isNull(x) || isNull(y)) {
      if (isNull(x) && isNull(y)) continue;
      return isNull(x) === nullsFirst ? -1 : 1;
    }
    if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
  }
  return (a.id < b.id ? -1 : 1) * (keys[keys.length - 1]![1] ? -1 : 1);
};

function orderingCases() {
  const cases: Array<[string, Array<[string, boolean, boolean]>, string?, Pred?]> = [
    ['num.asc', [['num', false, false]]],
    ['num.desc', [['num', true, true]]],
    ['num.desc.nullslast', [['num', true, false]]],
    ['num.asc.nullsfirst', [['num', false, true]]],
    ['dt.desc,num.asc', [['dt', true, true], ['num', false, false]]],
    ['st.asc,ok.desc.nullslast,cur.desc', [['st', false, false], ['ok', true, false], ['cur', true, true]]],
    ['created_at.desc', [['created_at', true, true]]],
    ['name.asc', [['name', false, false]], 'num.gt.50', cmp('num', (a) => a > 50)],
    ['em.desc', [['em', true, true]], 'st.eq.paid', (r) => r.st === 'paid'],
    ['cur.asc', [['cur', false, false]], 'or(st.eq.void,ok.eq.false)', (r) => r.st === 'void' || r.ok === false],
    ['txt.desc', [['txt', true, true]], 'num.lt.0', cmp('num', (a) => a < 0)],
    ['dt.asc.nullsfirst', [['dt', false, true]], 'st.in.(open,void)', (r) => r.st === 'open' || r.st === 'void'],
    ['created_at.desc', [['created_at', true, true]], 'num.gte.0', cmp('num', (a) => a >= 0)],
    ['id.asc', [['id', false, false]], 'or(ok.eq.true,cur.lt.100)', (r) => r.ok === true || (typeof r.cur === 'number' && r.cur < 100)],
  ];
  for (const [order, keys, filter, pred = () => true] of cases) {
    test(`${order}${filter ? ` with ${filter}` : ''}`, async () => {
      const got = (await all(`order=${order}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`)).map((r) => r.id);
      const want = [...rows].filter(pred).sort(compareRows(keys)).map((r) => r.id);
      expect(got).toEqual(want);
    });
  }
  // Offset pages pass over the rows before them without reading them where the walk can tell.
  const offsets: Array<[string, Pred]> = [
    ['', () => true],
    ['filter=st.eq.paid', (r) => r.st === 'paid'],
    ['filter=st.eq.paid&order=created_at.asc', (r) => r.st === 'paid'],
    ['filter=num.gte.0', cmp('num', (a) => a >= 0)],
    ['order=cur.desc', () => true],
    ['order=dt.asc&filter=ok.eq.true', (r) => r.ok === true],
    ['q=freight', (r) => typeof r.txt === 'string' && r.txt.includes('freight')],
  ];
  for (const [qs, pred] of offsets) {
    test(`page=N gives the rows of the cursor walk: ${qs || 'newest first'}`, async () => {
      const byCursor = (await all(qs)).map((r) => r.id);
      expect(byCursor.length).toBe(rows.filter(pred).length);
      const last = (limit: number) => [Math.max(1, Math.ceil(byCursor.length / limit)), limit] as const;
      for (const [page, limit] of [[1, 7], [3, 50], [9, 70], [40, 50], [200, 20], last(50), last(33), [Math.max(1, last(100)[0] - 1), 100]] as const) {
        const reply = await app.request('GET', `${base}/rows?${qs}&page=${page}&limit=${limit}`);
        expect(reply.status).toBe(200);
        expect(reply.body.rows.map((r: Row) => r.id)).toEqual(byCursor.slice((page - 1) * limit, page * limit));
        expect(reply.body.hasMore).toBe(byCursor.length > page * limit);
      }
    });
  }
}

describe('ordering', () => {
  orderingCases();

  test('page paging gives the same sequence as cursors', async () => {
    const byCursor = (await all('order=num.desc')).map((r) => r.id);
    const byPage: string[] = [];
    for (let page = 1; ; page++) {
      const reply = await app.request('GET', `${base}/rows?order=num.desc&limit=100&page=${page}`);
      byPage.push(...reply.body.rows.map((r: Row) => r.id));
      if (!reply.body.hasMore) break;
    }
    expect(byPage).toEqual(byCursor);
  });

  test("the table's default_sort applies when no order is given", async () => {
    const t = await app.request('POST', TABLES, { body: { name: 'Sorted', columns_json: [{ id: 'n', name: 'N', type: 'number' }], default_sort: 'n.asc' } });
    const url = `${TABLES}/${t.body.id}`;
    await app.request('POST', `${url}/rows/bulk`, { body: { creates: [{ n: 3 }, { n: 1 }, { n: 2 }] } });
    expect((await app.request('GET', `${url}/rows`)).body.rows.map((r: Row) => r.n)).toEqual([1, 2, 3]);
    expect((await app.request('GET', `${url}/rows?order=n.desc`)).body.rows.map((r: Row) => r.n)).toEqual([3, 2, 1]);
  });

  test('a list query that breaks the rules is 400', async () => {
    for (const qs of ['order=tags', 'order=nope', 'filter=num.like.1*', 'filter=tags.eq.a', 'filter=ok.gt.true', 'select=id,nope', 'limit=101']) {
      expectError(await app.request('GET', `${base}/rows?${qs}`), 400, 'invalid_input');
    }
  });
});

function pagingUnderInserts() {
  test('paging while rows are added skips and repeats nothing that was there before', async () => {
    for (const order of ['created_at.desc', 'num.asc', 'st.asc,cur.desc']) {
      const before = new Set((await all(`order=${order}`)).map((r) => r.id));
      const seen: string[] = [];
      let cursor: string | null = null;
      let round = 0;
      do {
        const url: string = `${base}/rows?limit=100&order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const [reply] = await Promise.all([
          app.request('GET', url),
          app.request('POST', `${base}/rows/bulk`, { body: { creates: Array.from({ length: 20 }, (_, i) => makeRow(10_000 + round * 100 + i)) } }),
        ]);
        expect({ status: reply.status, order, error: reply.body.message }).toEqual({ status: 200, order, error: undefined });
        seen.push(...reply.body.rows.map((r: Row) => r.id));
        cursor = reply.body.nextCursor;
        round++;
      } while (cursor);
      const old = seen.filter((id) => before.has(id));
      expect(new Set(seen).size).toBe(seen.length);
      expect(old.length).toBe(before.size);
    }
    rows = (await all('order=id.asc')) as Row[];
    // Pages through the whole table three times while it grows (the second run meets twice the rows).
  }, 30_000);
}

describe('cursors under concurrent inserts', pagingUnderInserts);

describe('after the background merge (every row in LMDB\'s index)', () => {
  beforeAll(async () => {
    // Rows written since the load: updates and deletes of tail rows, and new rows in it.
    const some = rows.slice(200, 260);
    const updates = some.slice(0, 40).map((r, i) => ({ id: r.id, data: { num: i % 2 ? null : i * 3 - 50, st: pick(['open', 'paid', 'void', 'draft']), tags: ['b', 'd'] } }));
    const reply = await app.request('POST', `${base}/rows/bulk`, { body: { updates, deletes: some.slice(40).map((r) => r.id), creates: [makeRow(9001), makeRow(9002)] } });
    expect(reply.status).toBe(200);
    rows = (await all('order=id.asc')) as Row[];
    if (TEST_STORE === 'lmdb') await app.services.merger.drain();
  });
  lmdbTest('the mark is gone and the index holds exactly every row', () => {
    const table = app.services.tablesStore.get(tableId())!;
    expect(app.services.rowsStore.mark(table.seq)).toBeUndefined();
    expect(indexProblems(app.services, 'proj_default', tableId())).toEqual([]);
    expect(app.services.rowsStore.countIndex(table.seq, table.slots.em!, null, null, Infinity)).toBe(rows.length);
  });
  describe('filters', filterCases);
  describe('ordering', orderingCases);
  describe('distinct', distinctCases);
});

describe('the same with the column cache current (walks in its sorted orders, filters by position)', () => {
  const current = () => app.services.tablesStore.get(base.split('/').pop()!)!;
  beforeAll(async () => {
    // A filtered aggregate over more rows than a candidate fetch loads the column cache.
    expect((await app.request('GET', `${base}/rows/aggregate?aggs=count&filter=num.gt.-1000`)).status).toBe(200);
  });
  lmdbTest('the cache is current and sorted orders serve numbers and strings', () => {
    const table = current();
    expect(app.services.columnCache.peek(table, [table.slots.num!])).not.toBeNull();
    for (const column of ['num', 'cur', 'dt', 'st', 'name', 'em', 'txt']) expect(app.services.columnCache.sorted(table, table.slots[column]!)).not.toBeNull();
  });
  // Nothing was written since the last round: on PostgreSQL, which has no cache, these would ask the same again.
  describe.skipIf(TEST_STORE === 'postgres')('filters', filterCases);
  describe.skipIf(TEST_STORE === 'postgres')('ordering', orderingCases);
  describe.skipIf(TEST_STORE === 'postgres')('distinct, counted from the cache', distinctCases);
  describe('after updates, new values and deletes (the orders walk their dirty rows in step)', () => {
    beforeAll(async () => {
      const some = rows.slice(0, 120);
      const updates = some.slice(0, 80).map((r, i) => ({
        id: r.id,
        data: { num: i % 3 ? Math.floor(rand() * 400) - 200 : null, dt: `2025-0${1 + (i % 9)}-1${i % 10}`, name: i % 4 ? `New name ${i % 7}` : null, st: pick(['open', 'paid', 'void', 'draft']) },
      }));
      const reply = await app.request('POST', `${base}/rows/bulk`, { body: { updates, deletes: some.slice(80).map((r) => r.id) } });
      expect(reply.status).toBe(200);
      rows = (await all('order=id.asc')) as Row[];
    });
    lmdbTest('the column cache is still current', () => {
      const table = current();
      expect(app.services.columnCache.peek(table, [table.slots.num!])).not.toBeNull();
    });
    filterCases();
    orderingCases();
    distinctCases();
  });
  describe('cursors under concurrent inserts', pagingUnderInserts);
});

describe('q (full-text search)', () => {
  const words = (r: Row) => [r.name, r.em, r.txt, r.st].filter((v) => typeof v === 'string').join(' ').toLowerCase();
  test('every term must match; combines with filter and order; prefixes match', async () => {
    const want = (pred: Pred) => rows.filter(pred).map((r) => r.id).sort();
    const got = (await all('q=freight%20travel&order=id.asc')).map((r) => r.id).sort();
    expect(got).toEqual(want((r) => words(r).includes('freight') && words(r).includes('travel')));
    const filtered = await all('q=consulting&filter=st.eq.paid&order=num.desc');
    expect(filtered.map((r) => r.id).sort()).toEqual(want((r) => words(r).includes('consulting') && r.st === 'paid'));
    expect(filtered.every((r, i) => i === 0 || isNull(r.num) || isNull(filtered[i - 1]!.num) || filtered[i - 1]!.num >= r.num)).toBe(true);
    expect((await all('q=consul')).length).toBe(want((r) => words(r).includes('consult')).length);
    expect(await all('q=nothingmatchesthis')).toEqual([]);
  });

  // PostgreSQL's q matches prefixes with no typo tolerance, the one difference docs/scale-out.md lists.
  lmdbTest('small typos match', async () => {
    expect((await all('q=catterng')).length).toBe(rows.filter((r) => words(r).includes('catering')).length);
  });

  test('the index follows writes and searchable changes, and is right after a restart', async () => {
    const created = await app.request('POST', `${base}/rows`, { body: { txt: 'zanzibar shipment', num: 1 } });
    expect((await all('q=zanzibar')).map((r) => r.id)).toEqual([created.body.id]);
    await app.request('PATCH', `${base}/rows/${created.body.id}`, { body: { txt: 'madagascar shipment' } });
    expect(await all('q=zanzibar')).toEqual([]);
    expect((await all('q=madagascar')).map((r) => r.id)).toEqual([created.body.id]);
    await app.request('PATCH', `${base}/columns/txt`, { body: { searchable: false } });
    expect(await all('q=madagascar')).toEqual([]);
    await app.request('PATCH', `${base}/columns/txt`, { body: { searchable: true } });
    expect((await all('q=madagascar')).map((r) => r.id)).toEqual([created.body.id]);

    const restarted = await startApp({ dataDir: app.dataDir });
    try {
      const reply = await restarted.request('GET', `${base}/rows?q=madagascar`);
      expect(reply.body.rows.map((r: Row) => r.id)).toEqual([created.body.id]);
    } finally {
      await restarted.close(true);
    }
    await app.request('DELETE', `${base}/rows/${created.body.id}`);
    expect(await all('q=madagascar')).toEqual([]);
  });
});

describe('aggregate', () => {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  test('without and with a filter, every function, aliases and defaults', async () => {
    const nums = rows.map((r) => r.num).filter((v) => typeof v === 'number');
    const reply = await app.request('GET', `${base}/rows/aggregate?aggs=count,count:num,sum:num,avg:num,min:num,max:num,n=count_distinct:st,tags=count:tags`);
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBe(rows.length);
    expect(reply.body.count_num).toBe(nums.length);
    expect(reply.body.sum_num).toBeCloseTo(sum(nums), 6);
    expect(reply.body.avg_num).toBeCloseTo(sum(nums) / nums.length, 6);
    expect(reply.body.min_num).toBe(Math.min(...nums));
    expect(reply.body.max_num).toBe(Math.max(...nums));
    expect(reply.body.n).toBe(4);
    expect(reply.body.tags).toBe(rows.filter((r) => Array.isArray(r.tags)).length);
    expect(Object.keys(reply.body)).toEqual(['count', 'count_num', 'sum_num', 'avg_num', 'min_num', 'max_num', 'n', 'tags']);

    const paid = rows.filter((r) => r.st === 'paid');
    const curs = paid.map((r) => r.cur).filter((v) => typeof v === 'number');
    const filtered = await app.request('GET', `${base}/rows/aggregate?aggs=count,total=sum:cur,max:cur,count_distinct:dt&filter=st.eq.paid`);
    expect(filtered.body.count).toBe(paid.length);
    expect(filtered.body.total).toBeCloseTo(sum(curs), 6);
    expect(filtered.body.max_cur).toBe(Math.max(...curs));
    expect(filtered.body.count_distinct_dt).toBe(new Set(paid.map((r) => r.dt).filter((v) => v !== null)).size);
    const none = await app.request('GET', `${base}/rows/aggregate?aggs=sum:num,avg:num,count&filter=num.gt.100000`);
    expect(none.body).toEqual({ sum_num: null, avg_num: null, count: 0 });
  });

  test('filtered aggregates stay right across writes (the column cache follows them)', async () => {
    const expected = (list: Row[]) => {
      const hit = list.filter((r) => r.st === 'void' || (typeof r.num === 'number' && r.num > 140));
      const curs = hit.map((r) => r.cur).filter((v) => typeof v === 'number');
      return { count: hit.length, sum: sum(curs), distinct: new Set(hit.map((r) => r.name).filter((v) => v !== null)).size };
    };
    const ask = async () => {
      const reply = await app.request('GET', `${base}/rows/aggregate?aggs=count,s=sum:cur,d=count_distinct:name&filter=${encodeURIComponent('or(st.eq.void,num.gt.140)')}`);
      expect(reply.status).toBe(200);
      return { count: reply.body.count, sum: reply.body.s, distinct: reply.body.d };
    };
    const check = async () => {
      const got = await ask();
      const want = expected(rows);
      expect(got.count).toBe(want.count);
      expect(got.sum).toBeCloseTo(want.sum, 6);
      expect(got.distinct).toBe(want.distinct);
    };
    await check();
    const made = await app.request('POST', `${base}/rows/bulk`, { body: { creates: [{ st: 'void', cur: 1000, name: 'Brand new' }, { num: 150, cur: 5 }] } });
    rows.push(...made.body.created);
    await check();
    const target = rows.find((r) => r.st === 'void' && typeof r.cur === 'number')!;
    const changed = await app.request('PATCH', `${base}/rows/${target.id}`, { body: { st: 'open', num: 0 } });
    rows[rows.findIndex((r) => r.id === target.id)] = changed.body;
    await check();
    const gone = rows.find((r) => typeof r.num === 'number' && r.num > 140)!;
    await app.request('DELETE', `${base}/rows/${gone.id}`);
    rows = rows.filter((r) => r.id !== gone.id);
    await check();
  });

  test('bad aggregates are 400 naming the item', async () => {
    const cases: Array<[string, string]> = [
      ['sum:name', 'needs a number'],
      ['sum:ghost', 'unknown column "ghost"'],
      ['median:num', 'unknown function'],
      ['sum', 'needs a column'],
      ['count,,sum:num', 'comma-separated'],
      ['sum:num,sum:num', 'named twice'],
      ['x y=count', 'is not fn'],
    ];
    for (const [aggs, message] of cases) {
      const body = expectError(await app.request('GET', `${base}/rows/aggregate?aggs=${encodeURIComponent(aggs)}`), 400, 'invalid_input');
      expect(body.message).toContain(message);
      expect(body.fields).toHaveProperty('aggs');
    }
    expectError(await app.request('GET', `${base}/rows/aggregate`), 400, 'invalid_input');
    expectError(await app.request('GET', `${base}/rows/aggregate?aggs=count&filter=ghost.eq.1`), 400, 'invalid_input');
    expectError(await app.request('GET', `${TABLES}/tbl_nope/rows/aggregate?aggs=count`), 404, 'table_not_found');
  });
});

describe('walks checked against the column cache', () => {
  lmdbTest('a long walk warms the cache; answers are the same before and after, and across writes', async () => {
    const t = await app.request('POST', TABLES, {
      body: { name: 'Walks', columns_json: [{ id: 'k', name: 'K', type: 'number' }, { id: 'tag', name: 'Tag' }, { id: 'at', name: 'At', type: 'date' }] },
    });
    const url = `${TABLES}/${t.body.id}`;
    let local: Row[] = [];
    for (let b = 0; b < 12; b++) {
      const creates = Array.from({ length: 1000 }, (_, i) => ({
        k: (b * 1000 + i) % 97,
        tag: rand() < 0.5 ? 'x' : 'y',
        at: `2024-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`,
      }));
      local.push(...(await app.request('POST', `${url}/rows/bulk`, { body: { creates } })).body.created);
    }
    // About 5% of rows match: too many to fetch by id, so each page walks the date index.
    const filter = encodeURIComponent('and(k.lt.5,tag.eq.x)');
    const page = async () => (await app.request('GET', `${url}/rows?filter=${filter}&order=at.desc&limit=100`)).body.rows.map((r: Row) => r.id);
    const want = () =>
      local
        .filter((r) => r.k < 5 && r.tag === 'x')
        .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
        .slice(0, 100)
        .map((r) => r.id);
    expect(await page()).toEqual(want());
    const table = () => app.services.tablesStore.get(t.body.id)!;
    const slots = () => [table().slots.k!, table().slots.tag!];
    for (let i = 0; i < 100 && !app.services.columnCache.peek(table(), slots()); i++) await Bun.sleep(20);
    expect(app.services.columnCache.peek(table(), slots())).not.toBeNull();
    expect(await page()).toEqual(want());
    // Writes keep the cache current: a row that now matches, one that no longer does.
    const flip = local.find((r) => r.k < 5 && r.tag === 'x')!;
    const changed = await app.request('PATCH', `${url}/rows/${flip.id}`, { body: { tag: 'y' } });
    local[local.findIndex((r) => r.id === flip.id)] = changed.body;
    const made = await app.request('POST', `${url}/rows`, { body: { k: 1, tag: 'x', at: '2024-12-31' } });
    local.push(made.body);
    expect(app.services.columnCache.peek(table(), slots())).not.toBeNull();
    expect(await page()).toEqual(want());
  });

  lmdbTest('closing while a background build runs stops it cleanly', async () => {
    const local = await startApp();
    const t = await local.request('POST', TABLES, { body: { name: 'Closing', columns_json: [{ id: 'k', name: 'K', type: 'number' }, { id: 'at', name: 'At', type: 'date' }] } });
    const url = `${TABLES}/${t.body.id}`;
    for (let b = 0; b < 12; b++) {
      await local.request('POST', `${url}/rows/bulk`, { body: { creates: Array.from({ length: 1000 }, (_, i) => ({ k: i % 50, at: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}` })) } });
    }
    const walked = await local.request('GET', `${url}/rows?filter=k.lt.3&order=at.desc&limit=100`);
    expect(walked.status).toBe(200);
    await local.close();
    // A build step left running would now read a closed store and throw from its timer.
    await Bun.sleep(100);
  });
});

describe('distinct of long strings', () => {
  const long = 'x'.repeat(200);
  let url: string;
  let fromIndex: unknown[];
  test('strings are counted by their first 200 characters', async () => {
    const t = await app.request('POST', TABLES, { body: { name: 'Long', columns_json: [{ id: 's', name: 'S' }] } });
    url = `${TABLES}/${t.body.id}`;
    const creates = [`${long}a`, `${long}b`, `${long}b`, 'short', 'short', 'short', 'other'].map((s) => ({ s }));
    expect((await app.request('POST', `${url}/rows/bulk`, { body: { creates } })).status).toBe(200);
    fromIndex = (await app.request('GET', `${url}/columns/s/distinct`)).body.values;
    expect(fromIndex).toEqual(['short', long, 'other']);
  });
  lmdbTest('the column cache counts them as the index does', async () => {
    expect((await app.request('GET', `${url}/rows/aggregate?aggs=count&filter=s.is.notnull`)).status).toBe(200);
    const table = app.services.tablesStore.get(url.split('/').pop()!)!;
    expect(app.services.columnCache.peek(table, [table.slots.s!])).not.toBeNull();
    expect((await app.request('GET', `${url}/columns/s/distinct`)).body.values).toEqual(fromIndex);
  });
});

describe('negative zero', () => {
  let url: string;
  let want: string[];
  test('a row written with -0 sorts with the zeros, by id', async () => {
    const t = await app.request('POST', TABLES, { body: { name: 'Zeros', columns_json: [{ id: 'n', name: 'N', type: 'number' }] } });
    url = `${TABLES}/${t.body.id}`;
    // -0 has no JSON form of its own: sent as a raw body, JSON.parse reads it as -0.
    const raw = '{"creates":[{"n":0},{"n":-0},{"n":1},{"n":-0.0},{"n":0},{"n":-1}]}';
    const created = (await app.request('POST', `${url}/rows/bulk`, { raw, headers: { 'content-type': 'application/json' } })).body.created as Row[];
    want = [created[5]!, created[0]!, created[1]!, created[3]!, created[4]!, created[2]!].map((r) => r.id);
    expect((await app.request('GET', `${url}/rows?order=n.asc`)).body.rows.map((r: Row) => r.id)).toEqual(want);
    expect((await app.request('GET', `${url}/rows?filter=n.eq.0&order=n.asc`)).body.rows.map((r: Row) => r.id)).toEqual(want.slice(1, 5));
    expect((await app.request('GET', `${url}/rows/aggregate?aggs=sum:n`)).body).toEqual({ sum_n: 0 });
  });
  lmdbTest('the column cache sorts it as the index does', async () => {
    const table = app.services.tablesStore.get(url.split('/').pop()!)!;
    expect(app.services.columnCache.sorted(table, table.slots.n!)).not.toBeNull();
    expect((await app.request('GET', `${url}/rows?order=n.asc`)).body.rows.map((r: Row) => r.id)).toEqual(want);
  });
});
