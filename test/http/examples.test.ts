/**
 * Review and learn through HTTP: a person's correction of an extracted invoice becomes an example,
 * the next invoice of the same issuer is read the example's way, removing the example forgets it,
 * another table never sees it; provenance, page images and evaluation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { makePdf } from '../extract/layout/pdf-fixtures';
import { expectError, form, startApp, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';

const COLUMNS = [
  { id: 'vendor', name: 'Vendor', type: 'string' },
  { id: 'invoice_number', name: 'Invoice number', type: 'string' },
  { id: 'invoice_date', name: 'Invoice date', type: 'date' },
  { id: 'total', name: 'Total', type: 'number' },
];

interface Invoice {
  number: string;
  date: string;
  items: Array<[string, string]>;
  carried: string;
  total: string;
  customer: string;
}

/**
 * An issuer whose statements the general model reads wrongly: the amount due stands beside a
 * phrase no lexicon knows as a total, under a larger amount (a credit limit), and the date is
 * printed day first with nothing on the page saying so.
 */
function statement(v: Invoice): Promise<Uint8Array> {
  return makePdf([
    (d) => {
      d.text('Quillfeather Bindery Ltd', 50, 40, { size: 16, bold: true });
      d.text('12 Parchment Row, Inkford IF3 9ZZ', 50, 62);
      d.text('VAT GB 987 6543 21', 50, 76);
      d.text(v.customer, 50, 130);
      d.text('Statement', 380, 130, { size: 14, bold: true });
      d.text(`Ref ${v.number}`, 380, 150);
      d.text(v.date, 380, 164);
      d.text('Credit limit 2,500.00', 380, 178);
      let y = 220;
      for (const [item, amount] of v.items) {
        d.text(item, 50, y);
        d.text(amount, 480, y);
        y += 16;
      }
      d.text('Carried forward', 300, y + 20);
      d.text(v.carried, 480, y + 20);
      d.text('Settle by transfer', 300, y + 36);
      d.text(v.total, 480, y + 36);
    },
  ]);
}

const FIRST: Invoice = { number: 'QB-4471', date: '03/04/2024', items: [['Binding, 40 volumes', '420.00'], ['Gilding', '85.50']], carried: '12.00', total: '517.50', customer: 'Harrow & Finch Books' };
const SECOND: Invoice = {
  number: 'QB-4502',
  date: '05/06/2024',
  items: [['Rebinding, 12 volumes', '180.00'], ['Repairs', '44.25'], ['Slipcases', '60.00']],
  carried: '0.00',
  total: '284.25',
  customer: 'Lantern Street Library',
};

let app: TestApp;
let first: Uint8Array;
let second: Uint8Array;

beforeAll(async () => {
  app = await startApp();
  [first, second] = await Promise.all([statement(FIRST), statement(SECOND)]);
});
afterAll(() => app.close());

async function newTable(name: string): Promise<string> {
  const created = await app.request('POST', `${P}/tables`, { body: { name, columns_json: COLUMNS, strictness: 'balanced' } });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** Extracts one PDF into a table and returns the row it wrote. */
async function extract(tableId: string, bytes: Uint8Array, name: string): Promise<Record<string, any>> {
  const reply = await app.request('POST', `${P}/tables/${tableId}/extract`, { raw: form([[name, bytes, 'application/pdf']]) });
  expect(reply.status).toBe(200);
  expect(reply.body.status).toBe('complete');
  return reply.body.result.rows[0];
}

const fields = (row: Record<string, any>) => ({ invoice_number: row.invoice_number, invoice_date: row.invoice_date, total: row.total });
const SECOND_RIGHT = { invoice_number: 'QB-4502', invoice_date: '2024-06-05', total: 284.25 };

describe('review and learn', () => {
  let tableId = '';
  let firstRow: Record<string, any>;
  let exampleId = '';

  test('a table without examples lists none and evaluates to nothing; unknown examples are 404', async () => {
    tableId = await newTable('Bindery statements');
    expect((await app.request('GET', `${P}/tables/${tableId}/examples`)).body).toMatchObject({ count: 0, examples: [] });
    const empty = await app.request('POST', `${P}/tables/${tableId}/evaluate`);
    expect(empty.body).toMatchObject({ documents: 0, precision: null, recall: null, f1: null, worst: [] });
    expectError(await app.request('GET', `${P}/tables/${tableId}/examples/exmp_01unknown`), 404, 'not_found');
    expectError(await app.request('DELETE', `${P}/tables/${tableId}/examples/exmp_01unknown`), 404, 'not_found');
    expectError(await app.request('POST', `${P}/tables/tbl_01unknown/evaluate`), 404, 'table_not_found');
  });

  test('the general model reads the issuer wrongly', async () => {
    firstRow = await extract(tableId, first, 'statement-4471.pdf');
    expect(firstRow.vendor).toBe('Quillfeather Bindery Ltd');
    expect(fields(firstRow)).not.toEqual({ invoice_number: 'QB-4471', invoice_date: '2024-04-03', total: 517.5 });
    const other = await newTable('Before any example');
    expect(fields(await extract(other, second, 'statement-4502.pdf'))).not.toEqual(SECOND_RIGHT);
  });

  test('a correction through PATCH becomes an example, with where the document prints each value', async () => {
    const got = await app.request('GET', `${P}/tables/${tableId}/rows/${firstRow.id}`);
    const patched = await app.request('PATCH', `${P}/tables/${tableId}/rows/${firstRow.id}`, {
      body: { invoice_date: '2024-04-03', total: 517.5 },
      headers: { 'if-match': got.headers.get('etag')! },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.confidence).toBe(1);
    const list = await app.request('GET', `${P}/tables/${tableId}/examples`);
    expect(list.status).toBe(200);
    expect(list.body.examples).toHaveLength(1);
    const example = list.body.examples[0];
    exampleId = example.id;
    expect(example).toMatchObject({ table_id: tableId, row_id: firstRow.id, file_name: 'statement-4471.pdf' });
    expect(example.identifiers).toContain('GB987654321');
    const total = example.fields.find((f: { column_id: string }) => f.column_id === 'total');
    expect(total).toMatchObject({ value: 517.5, corrected: true, page: 1, label: 'Settle by transfer' });
    // Right of the phrase, on its line, in points from the top-left.
    expect(total.box.x0).toBeGreaterThanOrEqual(475);
    expect(total.box.y0).toBeGreaterThan(250);
    const vendor = example.fields.find((f: { column_id: string }) => f.column_id === 'vendor');
    expect(vendor).toMatchObject({ value: 'Quillfeather Bindery Ltd', corrected: false, page: 1 });
    expect((await app.request('GET', `${P}/tables/${tableId}/examples/${exampleId}`)).body.id).toBe(exampleId);
    // A second write to the row updates its example: still one, the earlier correction still marked.
    const again = await app.request('GET', `${P}/tables/${tableId}/rows/${firstRow.id}`);
    await app.request('PATCH', `${P}/tables/${tableId}/rows/${firstRow.id}`, { body: { invoice_number: 'QB-4471' }, headers: { 'if-match': again.headers.get('etag')! } });
    const updated = (await app.request('GET', `${P}/tables/${tableId}/examples`)).body.examples;
    expect(updated.map((e: { id: string }) => e.id)).toEqual([exampleId]);
    expect(updated[0].fields.find((f: { column_id: string }) => f.column_id === 'total').corrected).toBe(true);
  });

  test("the issuer's next document comes out right; another table's does not", async () => {
    const row = await extract(tableId, second, 'statement-4502.pdf');
    expect(fields(row)).toEqual(SECOND_RIGHT);
    expect(row.vendor).toBe('Quillfeather Bindery Ltd');
    const other = await newTable('Another table');
    expect(fields(await extract(other, second, 'statement-4502.pdf'))).not.toEqual(SECOND_RIGHT);
    expect((await app.request('GET', `${P}/tables/${other}/examples`)).body.examples).toEqual([]);
  });

  test('provenance gives each value its page and box, and the page renders', async () => {
    const rows = (await app.request('GET', `${P}/tables/${tableId}/rows?order=created_at.asc`)).body.rows;
    const row = rows[1];
    const provenance = await app.request('GET', `${P}/tables/${tableId}/rows/${row.id}/provenance`);
    expect(provenance.status).toBe(200);
    expect(provenance.body).toMatchObject({ row_id: row.id, file_name: 'statement-4502.pdf', pages: [{ number: 1, width: 612, height: 792, image: true }] });
    const total = provenance.body.fields.find((f: { column_id: string }) => f.column_id === 'total');
    expect(total).toMatchObject({ page: 1, text: '284.25', label: 'Settle by transfer' });
    const response = await app.app.handle(new Request(`http://localhost${P}/tables/${tableId}/rows/${row.id}/source/pages/1`, { headers: { authorization: 'ApiKey rsk_test_admin_key_0123456789' } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await response.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect((await app.request('GET', `${P}/tables/${tableId}/rows/${row.id}/source/pages/2`)).status).toBe(404);
    const typed = await app.request('POST', `${P}/tables/${tableId}/rows`, { body: { vendor: 'Typed in' } });
    expectError(await app.request('GET', `${P}/tables/${tableId}/rows/${typed.body.id}/provenance`), 404, 'row_source_not_found');
    expectError(await app.request('GET', `${P}/tables/${tableId}/rows/${typed.body.id}/source/pages/1`), 404, 'row_source_not_found');
  });

  test('evaluate scores the corrected documents, each without its own example', async () => {
    const alone = await app.request('POST', `${P}/tables/${tableId}/evaluate`);
    expect(alone.status).toBe(200);
    // One example: the document is re-read without it, by the general model, which misses.
    expect(alone.body.documents).toBe(1);
    expect(alone.body.f1).toBeLessThan(1);
    expect(alone.body.worst[0]).toMatchObject({ example_id: exampleId, file_name: 'statement-4471.pdf' });
    // The second document reviewed (a date the person confirms by changing the vendor's spelling back and forth is no change): correct its vendor.
    const rows = (await app.request('GET', `${P}/tables/${tableId}/rows?order=created_at.asc`)).body.rows;
    const got = await app.request('GET', `${P}/tables/${tableId}/rows/${rows[1].id}`);
    await app.request('PATCH', `${P}/tables/${tableId}/rows/${rows[1].id}`, { body: { vendor: 'Quillfeather Bindery Ltd.' }, headers: { 'if-match': got.headers.get('etag')! } });
    const both = await app.request('POST', `${P}/tables/${tableId}/evaluate`);
    expect(both.body.documents).toBe(2);
    expect(both.body.f1).toBeGreaterThan(alone.body.f1);
    const total = both.body.columns.find((c: { column_id: string }) => c.column_id === 'total');
    expect(total).toMatchObject({ precision: 1, recall: 1, f1: 1, support: 2 });
  });

  test('after DELETE of the examples the issuer is read wrongly again', async () => {
    const removed = await app.request('DELETE', `${P}/tables/${tableId}/examples`);
    expect(removed.body.deleted).toBe(2);
    expect(fields(await extract(tableId, second, 'statement-4502.pdf'))).not.toEqual(SECOND_RIGHT);
    expect((await app.request('GET', `${P}/tables/${tableId}/examples/${exampleId}`)).status).toBe(404);
  });

  test('an update in rows/bulk is a review too; one that changes nothing confirms the row', async () => {
    const rows = (await app.request('GET', `${P}/tables/${tableId}/rows?order=created_at.asc`)).body.rows;
    const last = rows.at(-1);
    const same = await app.request('POST', `${P}/tables/${tableId}/rows/bulk`, { body: { updates: [{ id: last.id, data: { vendor: last.vendor } }] } });
    expect(same.status).toBe(200);
    const confirmed = (await app.request('GET', `${P}/tables/${tableId}/examples`)).body.examples;
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0].fields.every((f: { corrected: boolean }) => !f.corrected)).toBe(true);
    const fixed = await app.request('POST', `${P}/tables/${tableId}/rows/bulk`, { body: { updates: [{ id: last.id, data: { total: 284.25, invoice_date: '2024-06-05' } }] } });
    expect(fixed.status).toBe(200);
    const examples = (await app.request('GET', `${P}/tables/${tableId}/examples`)).body.examples;
    expect(examples.map((e: { row_id: string }) => e.row_id)).toEqual([last.id]);
    expect(examples[0].fields.find((f: { column_id: string }) => f.column_id === 'total')).toMatchObject({ value: 284.25, corrected: true, label: 'Settle by transfer' });
  });
});
