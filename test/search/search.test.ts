/**
 * The search index must answer every query exactly as the MiniSearch class itself would (same
 * tokenizer, prefix and fuzzy rules, all terms required), also after rows are rewritten and removed
 * and its postings compacted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import MiniSearch from 'minisearch';
import { queryTerms } from '../../src/query/terms';
import { isSearchable } from '../../src/domain/columns';
import type { RowRecord } from '../../src/store/rows.store';
import { startApp, type TestApp } from '../helpers/app';

let app: TestApp;
let tableId: string;
const WORDS = ['freight', 'invoice', 'consulting', 'license', 'hardware', 'travel', 'catering', 'Zürich', 'naïve', 'e-mail', 'co-op', 'O\'Brien'];
beforeAll(async () => {
  app = await startApp();
  const reply = await app.request('POST', '/v1/projects/proj_default/tables', {
    body: {
      name: 'Search',
      columns_json: [
        { id: 'title', name: 'Title' },
        { id: 'body', name: 'Body', type: 'text' },
        { id: 'email', name: 'Email', type: 'email' },
        { id: 'kind', name: 'Kind', type: 'enum', options: ['Invoice', 'Receipt'] },
        { id: 'n', name: 'N', type: 'number', searchable: true },
      ],
    },
  });
  tableId = reply.body.id;
  let seed = 3;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const creates = Array.from({ length: 600 }, (_, i) => ({
    title: `${pick()} ${pick()}`,
    body: `${pick()}, ${pick()}; ${pick()}.\\n${pick()} #${i}`,
    email: `${pick().toLowerCase().replace(/[^a-z]/g, '')}${i}@example.com`,
    kind: rand() < 0.5 ? 'Invoice' : 'Receipt',
    n: Math.floor(rand() * 1000),
  }));
  expect((await app.request('POST', `/v1/projects/proj_default/tables/${tableId}/rows/bulk`, { body: { creates } })).status).toBe(200);
});
afterAll(() => app.close());

const QUERIES = [
  'freight', 'FREIGHT', 'frei', 'fr', 'freihgt', 'consultnig', 'invoice travel', 'travel invoice receipt', 'zurich', 'zürich',
  'naive', 'e-mail', 'mail', 'co op', "o'brien", 'brien', 'example.com', '123', '#12', 'licence', 'hardwar', 'xyzzy', 'cat cat', 'freight12', 'fraight12', 'invoice3', '10001',
];

/** Row ids MiniSearch itself finds for `q` over the table's rows as they are in the store. */
function reference(q: string): string[] {
  const table = app.services.tablesStore.get(tableId)!;
  const slots = table.columns_json.filter(isSearchable).map((c) => table.slots[c.id]!);
  const mini = new MiniSearch<RowRecord>({
    fields: ['text'],
    extractField: (row, field) => (field === 'id' ? row.id : slots.map((s) => [row.values[s] ?? ''].flat().join(' ')).join('\n')),
  });
  mini.addAll([...app.services.rowsStore.scanRows(table.seq, false)]);
  const found = mini.search(q, { combineWith: 'AND', prefix: true, fuzzy: (term) => (term.length > 4 && !/\d/.test(term) ? 0.2 : false) });
  return found.map((r) => r.id as string).sort();
}

/** The ids the index finds for `q`, after checking its `has` on every row and its `size`. */
async function viaIndex(q: string, tombstones = false): Promise<string[]> {
  const table = app.services.tablesStore.get(tableId)!;
  await app.services.search.load(table);
  const hits = app.services.search.search(table, queryTerms(q));
  const ids = hits.ids().sort();
  const found = new Set(ids);
  for (const row of app.services.rowsStore.scanRows(table.seq, false)) expect({ id: row.id, has: hits.has(row.id) }).toEqual({ id: row.id, has: found.has(row.id) });
  // Many hits are counted from the postings, where rewritten rows' old entries may still count.
  if (tombstones) expect(hits.size).toBeGreaterThanOrEqual(ids.length);
  else expect(hits.size).toBe(ids.length);
  return ids;
}

describe('on the rows as written', () => {
  test.each(QUERIES)('index and MiniSearch agree on %p', async (q) => {
    const want = reference(q);
    expect(await viaIndex(q)).toEqual(want);
  });
  test('the queries are not trivial', () => {
    const sizes = QUERIES.map((q) => reference(q).length);
    expect(sizes.filter((n) => n === 0).length).toBeLessThan(5);
    expect(sizes.some((n) => n > 0 && n < 600)).toBe(true);
  });
});

describe('after rewrites and deletes (tombstones, then compaction)', () => {
  beforeAll(async () => {
    const base = `/v1/projects/proj_default/tables/${tableId}/rows`;
    const ids: string[] = (await app.request('GET', `${base}?limit=100&order=id.asc`)).body.rows.map((r: { id: string }) => r.id);
    // Build the index first, so the writes below go through its in-place upkeep.
    await viaIndex('freight');
    expect((await app.request('POST', `${base}/bulk`, { body: { deletes: ids.slice(0, 40) } })).status).toBe(200);
    const page = (await app.request('GET', `${base}?limit=100&order=id.asc`)).body.rows as Array<{ id: string }>;
    const updates = page.map((r, i) => ({ id: r.id, data: { title: i % 2 ? 'zanzibar madagascar' : 'freight' } }));
    // Enough rewrites for tombstones to outnumber live rows, which compacts the postings.
    for (let round = 0; round < 12; round++) expect((await app.request('POST', `${base}/bulk`, { body: { updates } })).status).toBe(200);
  });
  test.each([...QUERIES, 'zanzibar', 'madagascar zanzibar', 'zanzibar freight'])('index and MiniSearch agree on %p', async (q) => {
    expect(await viaIndex(q, true)).toEqual(reference(q));
  });
});

test('a search of more terms than a byte can count is refused, not answered wrongly', async () => {
  const table = app.services.tablesStore.get(tableId)!;
  await app.services.search.load(table);
  expect(() => app.services.search.search(table, Array.from({ length: 252 }, (_, i) => `word${i}`))).toThrow('too many search terms');
  // 251 distinct terms still fit (none of these words is in the rows, so nothing matches all).
  expect(app.services.search.search(table, Array.from({ length: 251 }, (_, i) => `word${i}`)).size).toBe(0);
});
