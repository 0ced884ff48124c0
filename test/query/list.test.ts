/** The engine on a plain collection: every operator on every type against a direct evaluation. */
import { describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../src/lib/errors';
import { CursorCodec } from '../../src/query/cursor';
import type { ListSpec } from '../../src/query/fields';
import { listInMemory, parseListQuery, type ListParams, type ListQuery, type Page } from '../../src/query/list';

interface Item {
  id: string;
  created_at: number;
  name: string | null;
  amount: number | null;
  paid: boolean | null;
  tags: string[] | null;
}

const SPEC: ListSpec = {
  resource: 'items',
  fields: {
    id: { type: 'string', filterable: true, sortable: true },
    created_at: { type: 'number', filterable: true, sortable: true },
    name: { type: 'string', filterable: true, sortable: true },
    amount: { type: 'number', filterable: true, sortable: true },
    paid: { type: 'boolean', filterable: true, sortable: true },
    tags: { type: 'array', filterable: true },
  },
  searchable: ['name'],
};

const codec = new CursorCodec(randomBytes(32));
const access = { get: (i: Item, f: string) => i[f as keyof Item], id: (i: Item) => i.id };

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const NAMES = ['Acme', 'acme corp', 'Beta', 'beta', 'Gamma (EU)', 'a,b', 'Zed'];
const TAGS = ['red', 'green', 'blue'];

const items: Item[] = Array.from({ length: 400 }, (_, i) => ({
  id: `itm_${String(i).padStart(4, '0')}`,
  created_at: 1000 + Math.floor(rand() * 50),
  name: rand() < 0.1 ? null : pick(NAMES),
  amount: rand() < 0.1 ? null : Math.round(rand() * 200) / 2,
  paid: rand() < 0.1 ? null : rand() < 0.5,
  tags: rand() < 0.1 ? null : TAGS.filter(() => rand() < 0.4),
}));

function run(params: ListParams): Item[] {
  const query = parseListQuery(SPEC, { limit: 100, ...params }, codec);
  const out: Item[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = listInMemory(items, SPEC, { ...query, cursor: cursor ? codec.decode(cursor, query.binding) : null, page: cursor ? null : 1 }, access, codec);
    out.push(...page.items);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

const isNull = (v: unknown) => v === null || v === undefined;
const CASES: Array<[string, (i: Item) => boolean]> = [
  ['name.eq.Acme', (i) => i.name === 'Acme'],
  ['name.neq.Acme', (i) => !isNull(i.name) && i.name !== 'Acme'],
  ['name.ne.Acme', (i) => !isNull(i.name) && i.name !== 'Acme'],
  ['name.like.*cme*', (i) => typeof i.name === 'string' && i.name.includes('cme')],
  ['name.like.a*', (i) => typeof i.name === 'string' && i.name.startsWith('a')],
  ['name.ilike.ACME*', (i) => typeof i.name === 'string' && i.name.toLowerCase().startsWith('acme')],
  ['name.in.(Beta,"a,b")', (i) => i.name === 'Beta' || i.name === 'a,b'],
  ['name.nin.(Beta,Zed)', (i) => !isNull(i.name) && i.name !== 'Beta' && i.name !== 'Zed'],
  ['name.is.null', (i) => isNull(i.name)],
  ['name.is.notnull', (i) => !isNull(i.name)],
  ['name.contains.eta', (i) => typeof i.name === 'string' && i.name.includes('eta')],
  ['name.eq."Gamma (EU)"', (i) => i.name === 'Gamma (EU)'],
  ['amount.eq.50', (i) => i.amount === 50],
  ['amount.neq.50', (i) => !isNull(i.amount) && i.amount !== 50],
  ['amount.gt.50', (i) => i.amount !== null && i.amount > 50],
  ['amount.gte.50', (i) => i.amount !== null && i.amount >= 50],
  ['amount.lt.10.5', (i) => i.amount !== null && i.amount < 10.5],
  ['amount.lte.10.5', (i) => i.amount !== null && i.amount <= 10.5],
  ['amount.in.(1,2,3.5)', (i) => i.amount === 1 || i.amount === 2 || i.amount === 3.5],
  ['amount.nin.(1,2)', (i) => i.amount !== null && i.amount !== 1 && i.amount !== 2],
  ['amount.is.null', (i) => isNull(i.amount)],
  ['paid.eq.true', (i) => i.paid === true],
  ['paid.neq.true', (i) => i.paid === false],
  ['paid.is.notnull', (i) => !isNull(i.paid)],
  ['tags.contains.red', (i) => !!i.tags?.includes('red')],
  ['tags.is.null', (i) => isNull(i.tags)],
  ['or(amount.lt.10,and(paid.eq.true,name.ilike.beta))', (i) => (i.amount !== null && i.amount < 10) || (i.paid === true && i.name?.toLowerCase() === 'beta')],
  ['amount.gt.20,tags.contains.blue', (i) => i.amount !== null && i.amount > 20 && !!i.tags?.includes('blue')],
];

describe('every operator on every type matches a direct evaluation', () => {
  for (const [filter, expected] of CASES) {
    test(filter, () => {
      const got = run({ filter, order: 'id.asc' }).map((i) => i.id);
      const want = items.filter(expected).map((i) => i.id);
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
    });
  }
});

describe('ordering and paging', () => {
  test('nulls last ascending and first descending by default, and as told', () => {
    const asc = run({ order: 'amount.asc' }).map((i) => i.amount);
    expect(asc.slice(-5).every((a) => a === null)).toBe(true);
    expect(asc.filter((a) => a !== null)).toEqual([...asc.filter((a) => a !== null)].sort((a, b) => a! - b!));
    const desc = run({ order: 'amount.desc' }).map((i) => i.amount);
    expect(desc.slice(0, 5).every((a) => a === null)).toBe(true);
    const descLast = run({ order: 'amount.desc.nullslast' }).map((i) => i.amount);
    expect(descLast.slice(-5).every((a) => a === null)).toBe(true);
    const ascFirst = run({ order: 'amount.asc.nullsfirst' }).map((i) => i.amount);
    expect(ascFirst.slice(0, 5).every((a) => a === null)).toBe(true);
  });

  test('cursor pages cover every item once, in order, for multi-key orders', () => {
    for (const order of ['created_at.desc', 'name.asc,amount.desc', 'paid.desc.nullslast,created_at,amount']) {
      const query = parseListQuery(SPEC, { limit: 7, order }, codec);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: ListQuery = cursor ? parseListQuery(SPEC, { limit: 7, order, cursor }, codec) : query;
        const page: Page<Item> = listInMemory(items, SPEC, q, access, codec);
        seen.push(...page.items.map((i) => i.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toHaveLength(items.length);
      expect(new Set(seen).size).toBe(items.length);
    }
  });

  test('a cursor is bound to its order and filter, and cannot be forged', () => {
    const first = listInMemory(items, SPEC, parseListQuery(SPEC, { limit: 5, order: 'amount.asc' }, codec), access, codec);
    const cursor = first.nextCursor!;
    expect(() => parseListQuery(SPEC, { order: 'amount.desc', cursor }, codec)).toThrow('belongs to another order, filter or q');
    expect(() => parseListQuery(SPEC, { order: 'amount.asc', filter: 'paid.eq.true', cursor }, codec)).toThrow('belongs to another');
    const [v, payload, sig] = cursor.split('.');
    const edited = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace('itm_', 'itm_9'), 'utf8').toString('base64url');
    expect(() => parseListQuery(SPEC, { order: 'amount.asc', cursor: `${v}.${edited}.${sig}` }, codec)).toThrow('not a cursor this server issued');
    expect(() => parseListQuery(SPEC, { order: 'amount.asc', cursor: 'garbage' }, codec)).toThrow(ApiError);
  });

  test('q needs every term; select and limits are checked', () => {
    const got = run({ q: 'ACME corp', order: 'id.asc' }).map((i) => i.id);
    expect(got).toEqual(items.filter((i) => i.name?.toLowerCase().includes('acme') && i.name.toLowerCase().includes('corp')).map((i) => i.id));
    expect(() => parseListQuery(SPEC, { q: 'x'.repeat(201) }, codec)).toThrow('q: at most 200 characters');
    expect(() => parseListQuery(SPEC, { select: 'id,nope' }, codec)).toThrow('select: unknown field "nope"');
    expect(() => parseListQuery(SPEC, { limit: 101 }, codec)).toThrow('limit: must be a whole number from 1 to 100');
  });
});
