/**
 * The SQL translation of the list grammar against the engine, on a real PostgreSQL: the same rows
 * in both, and every filter, order, cursor walk, offset page, `q`, aggregate and distinct list must
 * give the same ids in the same order (and the same cursors, sums and counts).
 *
 * Table A holds generated rows (ties, nulls, values of another type than their column's, awkward
 * text) and is checked against the engine's in-memory pieces (compileFilter, sortByOrder,
 * pageOfSorted); table B is written through the API and checked against the rows service itself,
 * for aggregates and distinct values.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { needsReview, type Column } from '../../src/domain/columns';
import { minorUnits } from '../../src/lib/decimal';
import { CursorCodec } from '../../src/query/cursor';
import { accessorOf, compileFilter } from '../../src/query/evaluate';
import { OPS_BY_TYPE } from '../../src/query/fields';
import { pageOfSorted, parseListQuery, sortByOrder, type Access, type ListParams, type Page } from '../../src/query/list';
import { parseAggs } from '../../src/query/aggs';
import { parseFilter } from '../../src/query/filter';
import { filterLookup, lookupIn } from '../../src/query/list';
import { queryTerms } from '../../src/query/terms';
import { maxDistance } from '../../src/search/search';
import { rowListSpec } from '../../src/services/row-fields';
import { INDEX_PREFIX } from '../../src/store/rows.store';
import { ROWS_SCHEMA } from '../../src/store/postgres/schema';
import {
  aggregateResult,
  aggregateSql,
  distinctSql,
  listSql,
  pageOfRows,
  Params,
  rowFieldSql,
  searchVectorSql,
  searchWords,
  type SqlRow,
  type Statement,
} from '../../src/store/postgres/sql';
import { startApp, type TestApp } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

const col = (id: string, type: Column['type'], extra: Partial<Column> = {}): Column => ({ id, name: id, type, required: false, ...extra });
const COLUMNS: Column[] = [
  col('name', 'string'),
  col('note', 'text'),
  col('email', 'email'),
  col('amount', 'number'),
  col('price', 'currency', { currency_code: 'USD' }),
  col('paid', 'boolean'),
  col('day', 'date'),
  col('tags', 'array'),
  // Left by type changes: mostly numbers, some strings and booleans.
  col('mixed', 'number'),
];
const SPEC = rowListSpec(COLUMNS);
const fieldSql = rowFieldSql(COLUMNS);
const codec = new CursorCodec(randomBytes(32));

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const maybe = <T>(p: number, make: () => T): T | null => (rand() < p ? null : make());

const INJECTION = "'); drop table rows; --";
/** Longer than the index keeps of a string: two values alike up to there are one distinct value. */
const LONG = 'L'.repeat(INDEX_PREFIX + 5);
const TEXTS = [
  'Acme', 'acme corp', 'ACME Corp.', 'Beta', 'beta', 'Gamma (EU)', 'a,b', 'x.y', '100%', '50% off', 'under_score', 'under-score',
  'back\\slash', "it's", '"quoted"', 'Ünïcödé', 'straße', 'STRASSE', '日本語のテキスト', 'emoji 😀 smile', 'tab\there', '', INJECTION,
  'Ωmega', 'zeta', 'a*b', '%_\\', 'ACMEacme', `${LONG}1`, `${LONG}2`, 'Éclair', 'éclair',
] as const;
const TAGS = ['red', 'green', 'blue', '5', 'true', 'a,b', 'Red'] as const;

const number = () => pick([() => Math.round((rand() - 0.5) * 2000) / 100, () => Math.round((rand() - 0.5) * 100), () => pick([0, -0.5, 0.1, 0.2, 123456.789, -7, 1e-7])])();

function columnValues(): Record<string, unknown> {
  const r = rand();
  return {
    name: maybe(0.1, () => pick(TEXTS)),
    note: maybe(0.2, () => `${pick(TEXTS)} ${pick(TEXTS)}`),
    email: maybe(0.3, () => `${pick(['ann', 'bob', 'o.brien', 'x_y'])}@${pick(['example.com', 'acme.co'])}`),
    amount: maybe(0.1, number),
    price: maybe(0.15, () => Math.round(rand() * 100000) / 1000),
    paid: maybe(0.15, () => rand() < 0.5),
    day: maybe(0.1, () => `2024-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`),
    tags: maybe(0.2, () => [...TAGS.filter(() => rand() < 0.3), ...(rand() < 0.1 ? [5, true] : [])]),
    mixed: r < 0.15 ? null : r < 0.7 ? number() : r < 0.9 ? pick(['12', 'abc', '', 'Acme']) : rand() < 0.5,
  };
}

/** A row of table A, as the engine reads it. */
interface Item {
  id: string;
  created_at: number;
  updated_at: number;
  batch_id: string | null;
  confidence: number | null;
  values: Record<string, unknown>;
}

const ITEMS: Item[] = Array.from({ length: 300 }, (_, i) => {
  const values = columnValues();
  // A few values of another type than their column's, as a type change leaves them.
  if (rand() < 0.05) values.amount = pick(['12', true]);
  if (rand() < 0.05) values.name = pick([42, false]);
  const created = 1_700_000_000_000 + Math.floor(rand() * 60) * 1000;
  return {
    id: `row_${String((i * 7919) % 1000).padStart(3, '0')}${pick(['a', 'B', 'c'])}`,
    created_at: created,
    updated_at: created + Math.floor(rand() * 3),
    batch_id: maybe(0.5, () => pick(['batch_1', 'batch_2', 'batch_3'])),
    confidence: maybe(0.3, () => Math.round(rand() * 1000) / 1000),
    values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null)),
  };
});

const get = (item: Item, field: string): unknown => {
  switch (field) {
    case 'id':
    case 'created_at':
    case 'updated_at':
    case 'batch_id':
    case 'confidence':
      return item[field];
    case 'needs_review':
      return needsReview(item.confidence);
    default:
      return item.values[field] ?? null;
  }
};
const access: Access<Item> = { get, id: (i) => i.id };
const searchable = SPEC.searchable;
/** The words of a row as the search index takes them: `q`'s terms must each start one (MiniSearch, without typos). */
const wordsOf = new Map(ITEMS.map((i) => [i.id, queryTerms(searchable.map((f) => (Array.isArray(get(i, f)) ? (get(i, f) as unknown[]).join(' ') : String(get(i, f) ?? ''))).join('\n'))]));

let pg: PgCluster;
const run = async (s: Statement) => [...(await pg.sql.unsafe(s.text, s.params))] as any[];

async function insertRows(tableId: string, rows: Item[]): Promise<void> {
  for (const row of rows) {
    const p = new Params();
    const words = searchWords(searchable.map((f) => row.values[f]));
    const text =
      `INSERT INTO rows (project_id, table_id, id, created_at, updated_at, batch_id, confidence, "values", search) VALUES (` +
      `${p.add('proj_default', 'text')}, ${p.add(tableId, 'text')}, ${p.add(row.id, 'text')}, ${p.add(String(row.created_at), 'numeric')}, ${p.add(String(row.updated_at), 'numeric')}, ` +
      `${row.batch_id === null ? 'NULL' : p.add(row.batch_id, 'text')}, ${row.confidence === null ? 'NULL' : p.add(String(row.confidence), 'float8')}, ` +
      `${p.add(JSON.stringify(row.values), 'jsonb')}, ${searchVectorSql(words, p)})`;
    await run({ text, params: p.values });
  }
}

function enginePage(params: ListParams, cursor: string | null): Page<Item> {
  const query = parseListQuery(SPEC, params, codec);
  const q = { ...query, cursor: cursor ? codec.decode(cursor, query.binding) : null, page: cursor ? null : query.page };
  const matches = compileFilter(q.filter, accessorOf(get));
  const terms = [...new Set(q.terms.flatMap(queryTerms))];
  const found = ITEMS.filter((i) => matches(i) && terms.every((t) => wordsOf.get(i.id)!.some((w) => w.startsWith(t))));
  return pageOfSorted(sortByOrder(found, q, access), q, access, codec);
}

async function sqlPage(params: ListParams, cursor: string | null): Promise<Page<SqlRow>> {
  const query = parseListQuery(SPEC, params, codec);
  const q = { ...query, cursor: cursor ? codec.decode(cursor, query.binding) : null, page: cursor ? null : query.page };
  return pageOfRows(await run(listSql('tbl_a', q, fieldSql)), q, codec);
}

const shape = (page: Page<{ id: string }>) => ({ ids: page.items.map((i) => i.id), hasMore: page.hasMore, nextCursor: page.nextCursor });

/** Walks every page by cursor in both and checks each; returns the ids in order. */
async function walk(params: ListParams): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 400; n++) {
    const want = shape(enginePage(params, cursor));
    const got = shape(await sqlPage(params, cursor));
    expect({ params, cursor, ...got }).toEqual({ params, cursor, ...want });
    ids.push(...got.ids);
    if (!got.nextCursor) return ids;
    cursor = got.nextCursor;
  }
  throw new Error('no end of pages');
}

const quote = (v: string) => `"${v.replace(/[\\"]/g, '\\$&')}"`;
const literal = (v: unknown) => (typeof v === 'string' ? quote(v) : String(v));

/** Every operator on every field, with values the rows hold and some they do not. */
function conditions(): string[] {
  const out: string[] = [];
  for (const [field, spec] of Object.entries(SPEC.fields)) {
    const seen = ITEMS.map((i) => get(i, field)).filter((v) => v !== null && !Array.isArray(v));
    const ofType = (t: string) => seen.filter((v) => typeof v === t);
    const samples = spec.type === 'number' ? [...ofType('number').slice(0, 4), 0, -1.5, 1e9, 1e-7] : spec.type === 'string' ? [...ofType('string').slice(0, 4), ...TEXTS.slice(0, 8), INJECTION, '', 'nope'] : [true, false];
    for (const op of OPS_BY_TYPE[spec.type]) {
      if (op === 'is') out.push(`${field}.is.null`, `${field}.is.notnull`);
      else if (op === 'in' || op === 'nin') out.push(`${field}.${op}.(${samples.slice(0, 3).map(literal).join(',')})`, `${field}.${op}.(${literal(samples[5]!)})`);
      else if (op === 'like' || op === 'ilike')
        for (const p of ['acme*', '*ACME*', '*%*', '*_*', '*\\*', '*', 'Acme', '*😀*', '*é*', `${LONG.slice(0, 3)}*2`, '*,*', "*'*", 'a*b', '*.'])
          out.push(`${field}.${op}.${quote(p)}`);
      else if (op === 'contains') for (const v of ['a', '%', '_', '\\', 'é', '5', 'true', 'red', 'a,b', '', 'nope', 'Red']) out.push(`${field}.contains.${quote(v)}`);
      else for (const v of samples) out.push(`${field}.${op}.${literal(v)}`);
    }
  }
  return out;
}
const CONDITIONS = conditions();

function groups(n: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    const a = pick(CONDITIONS);
    const b = pick(CONDITIONS);
    const c = pick(CONDITIONS);
    out.push(pick([`or(${a},${b})`, `${a},or(${b},${c})`, `or(${a},and(${b},${c}))`, `and(or(${a},${b}),or(${c},${a}))`, `or(${a},${b},${c})`]));
  }
  return out;
}

const SORTABLE = Object.entries(SPEC.fields).filter(([, s]) => s.sortable).map(([f]) => f);
function orders(): string[] {
  const out: string[] = [];
  for (const f of SORTABLE) out.push(f, `${f}.desc`, `${f}.asc.nullsfirst`, `${f}.desc.nullslast`);
  const key = () => `${pick(SORTABLE)}${pick(['', '.desc', '.asc.nullsfirst', '.desc.nullslast', '.nullsfirst'])}`;
  for (let k = 0; k < 30; k++) {
    const keys = [key(), key(), key()].slice(0, 2 + (k % 2));
    if (new Set(keys.map((x) => x.split('.')[0])).size === keys.length) out.push(keys.join(','));
  }
  return out;
}

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  pg = await startPostgres();
  await pg.sql.unsafe(ROWS_SCHEMA);
  await insertRows('tbl_a', ITEMS);
}, 120_000);

afterAll(async () => {
  await pg?.stop();
});

describe.skipIf(!POSTGRES_BIN)('lists on PostgreSQL equal the engine', () => {
  test('the generated rows hold what the cases need', () => {
    expect(ITEMS.some((i) => typeof i.values.amount === 'string')).toBe(true);
    expect(new Set(ITEMS.map((i) => i.created_at)).size).toBeLessThan(ITEMS.length);
    expect(new Set(ITEMS.map((i) => i.id)).size).toBe(ITEMS.length);
    expect(CONDITIONS.length).toBeGreaterThan(300);
  });

  test('every operator on every field, and nested groups', async () => {
    let nonEmpty = 0;
    for (const filter of [...CONDITIONS, ...groups(150)]) {
      const ids = await walk({ filter, limit: 100 });
      if (ids.length > 0 && ids.length < ITEMS.length) nonEmpty++;
    }
    // Most conditions split the rows: a translation that matched all or none would show.
    expect(nonEmpty).toBeGreaterThan(CONDITIONS.length / 2);
  }, 120_000);

  test('every order, with ties and nulls, walked by cursor to the end', async () => {
    const filters = ['', 'amount.is.notnull', 'or(paid.eq.true,mixed.gt.0)'];
    for (const order of orders()) {
      for (const filter of filters) {
        const ids = await walk({ order, filter, limit: 17 });
        if (!filter) expect(ids.length).toBe(ITEMS.length);
      }
    }
  }, 120_000);

  test('offset pages', async () => {
    for (const order of orders().slice(0, 40)) {
      for (const page of [1, 2, 5, 12, 40]) {
        const params: ListParams = { order, page, limit: 9, filter: page % 2 ? '' : 'name.is.notnull' };
        expect({ params, ...shape(await sqlPage(params, null)) }).toEqual({ params, ...shape(enginePage(params, null)) });
      }
    }
  }, 60_000);

  test('q as prefix terms over the searchable columns, with filters and orders', async () => {
    const qs = ['acme', 'ac', 'ACME corp', 'stra', 'STRA', '日本', '日本語の', '😀', 'smil', 'it', 's', 'back', 'a b', 'lll', 'zz', 'beta acme', '100', 'o', 'x_y', 'tab', "'); drop rows; --", '...', 'é', 'ün'];
    let hits = 0;
    for (const q of qs) {
      // Terms the in-memory search matches with typos too are left out: PostgreSQL takes prefixes only.
      expect(queryTerms(q).every((t) => maxDistance(t) === 0)).toBe(true);
      for (const order of ['created_at.desc', 'name,id.desc', 'amount.desc.nullslast']) {
        hits += (await walk({ q, order, limit: 11 })).length;
        await walk({ q, order, filter: 'paid.is.notnull', limit: 50 });
      }
    }
    expect(hits).toBeGreaterThan(0);
  }, 60_000);

  test('values are parameters: an injection attempt is only text', async () => {
    for (const filter of [`name.eq.${quote(INJECTION)}`, `name.in.(${quote(INJECTION)},"x")`, `note.like.${quote(`*${INJECTION}*`)}`, `tags.contains.${quote(INJECTION)}`]) {
      const ids = await walk({ filter, limit: 100 });
      if (filter.startsWith('name.eq')) expect(ids.length).toBeGreaterThan(0);
    }
    await walk({ q: "'); drop rows; --", limit: 100 });
    const [{ n }] = await run({ text: 'SELECT count(*)::int AS n FROM rows WHERE table_id = $1::text', params: ['tbl_a'] });
    expect(n).toBe(ITEMS.length);
  });
});

describe.skipIf(!POSTGRES_BIN)('aggregates and distinct values on PostgreSQL equal the rows service', () => {
  let app: TestApp;
  let tableId: string;
  const P = '/v1/projects/proj_default';
  const digits = (field: string) => {
    const c = COLUMNS.find((x) => x.id === field);
    return c?.type === 'currency' ? minorUnits(c.currency_code) : undefined;
  };

  beforeAll(async () => {
    app = await startApp();
    const created = await app.request('POST', `${P}/tables`, { body: { name: 'B', columns_json: COLUMNS.map(({ required: _, ...c }) => c) } });
    expect(created.status).toBe(201);
    tableId = created.body.id;
    const inputs = ITEMS.map((i) => ({ ...i.values, mixed: typeof i.values.mixed === 'number' ? i.values.mixed : null, amount: typeof i.values.amount === 'number' ? i.values.amount : null, name: typeof i.values.name === 'string' ? i.values.name : null }));
    const bulk = await app.request('POST', `${P}/tables/${tableId}/rows/bulk`, { body: { creates: inputs } });
    expect(bulk.status).toBe(200);
    // A type change converts nothing: strings written while `mixed` is text stay beside its numbers.
    expect((await app.request('PATCH', `${P}/tables/${tableId}/columns/mixed`, { body: { type: 'string' } })).status).toBe(200);
    const updates = bulk.body.created.filter((_: unknown, k: number) => k % 4 === 0).map((r: { id: string }, k: number) => ({ id: r.id, data: { mixed: pick(['12', 'abc', 'Acme', `${LONG}${k % 2}`]) } }));
    expect((await app.request('POST', `${P}/tables/${tableId}/rows/bulk`, { body: { updates } })).status).toBe(200);
    expect((await app.request('PATCH', `${P}/tables/${tableId}/columns/mixed`, { body: { type: 'number' } })).status).toBe(200);
    const rows: Item[] = [];
    let cursor: string | undefined;
    do {
      const body = await app.services.rows.list('proj_default', tableId, { limit: 100, order: 'id', cursor });
      for (const r of body.rows as Array<Record<string, unknown>>) {
        const values = Object.fromEntries(COLUMNS.map((c) => [c.id, r[c.id]]).filter(([, v]) => v !== null));
        rows.push({ id: r.id as string, created_at: r.created_at as number, updated_at: r.updated_at as number, batch_id: r.batch_id as string | null, confidence: r.confidence as number | null, values });
      }
      cursor = body.nextCursor ?? undefined;
    } while (cursor);
    expect(rows.length).toBe(ITEMS.length);
    await insertRows(tableId, rows);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  const AGGS = [
    'count,count:amount,sum:amount,avg:amount,min:amount,max:amount,count_distinct:amount',
    'count:price,sum:price,avg:price,min:price,max:price,count_distinct:price',
    'sum:mixed,avg:mixed,min:mixed,max:mixed,count:mixed,count_distinct:mixed',
    'count_distinct:name,count_distinct:tags,count_distinct:paid,count_distinct:day,count:tags,count:note,count_distinct:email',
    'sum:created_at,min:updated_at,count_distinct:id,count_distinct:batch_id,count:confidence,total=count',
  ];

  test('every aggregate, whole table and filtered', async () => {
    const filters = ['', 'amount.gt.0', 'name.ilike.*acme*', 'or(paid.eq.true,tags.contains.red)', 'mixed.is.notnull', 'price.lt.-1', ...groups(20)];
    const spec = rowListSpec(COLUMNS);
    for (const aggs of AGGS) {
      for (const filter of filters) {
        const want = await app.services.rows.aggregate('proj_default', tableId, aggs, filter);
        const parsed = parseAggs(aggs, lookupIn(spec));
        const [row] = await run(aggregateSql(tableId, parsed, parseFilter(filter, filterLookup(spec)), fieldSql));
        expect({ aggs, filter, got: aggregateResult(parsed, row, digits) }).toEqual({ aggs, filter, got: want });
      }
    }
  }, 60_000);

  test('distinct values, most frequent first, with and without q', async () => {
    for (const column of COLUMNS) {
      for (const q of [undefined, 'a', 'ACME', 'é', '1', 'red', 'l', 'STRASSE']) {
        for (const limit of [100, 5]) {
          const want = (await app.services.rows.distinct('proj_default', tableId, column.id, limit, q)).values;
          const got = (await run(distinctSql(tableId, column.id, limit, q, fieldSql))).map((r) => r.value);
          expect({ column: column.id, q, limit, got }).toEqual({ column: column.id, q, limit, got: want });
        }
      }
    }
  }, 60_000);
});
