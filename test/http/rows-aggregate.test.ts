/** Sums and averages come out as the amounts' own digits say: no binary noise, currencies in their minor unit. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startApp, type TestApp } from '../helpers/app';

const TABLES = '/v1/projects/proj_default/tables';

let app: TestApp;
let base: string;
/** Amounts whose float sum is noisy: 1000.01 + 383.88 ... */
const TOTALS = [1000.01, 383.88, 0.1, 0.2, 19.99, 19.99, 19.99, 0.07];
const cents = (xs: number[]) => xs.reduce((a, b) => a + Math.round(b * 100), 0);

beforeAll(async () => {
  app = await startApp();
  const table = await app.request('POST', `${TABLES}`, {
    body: {
      name: 'Amounts',
      columns_json: [
        { id: 'kind', name: 'Kind', type: 'enum', options: ['a', 'b'] },
        { id: 'total', name: 'Total', type: 'currency', currency_code: 'USD' },
        { id: 'yen', name: 'Yen', type: 'currency', currency_code: 'JPY' },
        { id: 'qty', name: 'Qty', type: 'number' },
      ],
    },
  });
  base = `${TABLES}/${table.body.id}`;
  const creates = TOTALS.map((total, i) => ({ kind: i % 2 ? 'b' : 'a', total, yen: [100, 251][i % 2], qty: [0.1, 0.2, 0.7][i % 3] }));
  expect((await app.request('POST', `${base}/rows/bulk`, { body: { creates } })).status).toBe(200);
});
afterAll(() => app.close());

/** The answer's own text: a number printed with noise would show there even where toBe rounds nothing. */
async function aggregate(query: string): Promise<{ body: Record<string, number>; text: string }> {
  const response = await app.app.handle(new Request(`http://localhost${base}/rows/aggregate?${query}`, { headers: { authorization: 'ApiKey rsk_test_admin_key_0123456789' } }));
  const text = await response.text();
  return { body: JSON.parse(text), text };
}

test('currency sums are exact in minor units and averages are rounded to them', async () => {
  const float = TOTALS.reduce((a, b) => a + b, 0);
  expect(String(float)).not.toBe(String(cents(TOTALS) / 100));
  const { body, text } = await aggregate('aggs=sum:total,avg:total,sum:yen,avg:yen');
  expect(body.sum_total).toBe(cents(TOTALS) / 100);
  expect(body.avg_total).toBe(Math.round(cents(TOTALS) / TOTALS.length) / 100);
  expect(body.sum_yen).toBe(4 * 351);
  // 175.5 yen has no minor unit to hold its half.
  expect(body.avg_yen).toBe(176);
  for (const number of text.match(/-?\d+\.\d+/g) ?? []) expect(number.split('.')[1]!.length).toBeLessThanOrEqual(2);
});

test('under a filter too (rows fetched, and the column cache)', async () => {
  const a = TOTALS.filter((_, i) => i % 2 === 0);
  const few = await aggregate('aggs=sum:total,avg:total&filter=kind.eq.a');
  expect(few.body).toEqual({ sum_total: cents(a) / 100, avg_total: Math.round(cents(a) / a.length) / 100 });
  const wide = await aggregate('aggs=sum:total&filter=qty.gt.0');
  expect(wide.body.sum_total).toBe(cents(TOTALS) / 100);
});

test('number columns: sums without binary noise, averages as exact as a division gives', async () => {
  const qty = TOTALS.map((_, i) => [0.1, 0.2, 0.7][i % 3]!);
  const tenths = qty.reduce((a, b) => a + Math.round(b * 10), 0);
  const { body } = await aggregate('aggs=sum:qty,avg:qty');
  expect(qty.reduce((a, b) => a + b, 0)).not.toBe(tenths / 10);
  expect(body.sum_qty).toBe(tenths / 10);
  expect(body.avg_qty).toBe(tenths / (10 * qty.length));
});
