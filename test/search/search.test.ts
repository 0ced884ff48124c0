/** The row matcher and the MiniSearch index must agree on every query, or lists would differ by path. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { queryTerms } from '../../src/search/search';
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

test.each([
  'freight', 'FREIGHT', 'frei', 'fr', 'freihgt', 'consultnig', 'invoice travel', 'travel invoice receipt', 'zurich', 'zürich',
  'naive', 'e-mail', 'mail', 'co op', "o'brien", 'brien', 'example.com', '123', '#12', 'licence', 'hardwar', 'xyzzy', 'cat cat',
])('matcher and index agree on %p', (q) => {
  const table = app.services.tables.get('proj_default', tableId);
  const terms = queryTerms(q);
  const matcher = app.services.search.matcher(table, terms);
  const viaMatcher = [...app.services.rowsStore.scanRows(table.seq, false)].filter(matcher).map((r) => r.id).sort();
  const viaIndex = [...app.services.search.search(table, terms)].sort();
  expect(viaMatcher).toEqual(viaIndex);
});
