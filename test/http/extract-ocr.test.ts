/** Scans through HTTP: an image and an image-only PDF read by OCR into rows, with page progress in the stream. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app';
import { drawInvoice, INVOICE_ROWS, scannedPdf } from '../extract/ocr/draw';

const P = '/v1/projects/proj_default';
const COLUMNS = [
  { id: 'item', name: 'Item', type: 'string' },
  { id: 'qty', name: 'Quantity', type: 'number' },
  { id: 'price', name: 'Unit price', type: 'currency', currency_code: 'USD' },
];
const EXPECTED = INVOICE_ROWS.map(([item, qty, price]) => ({ item, qty: Number(qty), price: Number(price) }));

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

function form(name: string, bytes: Uint8Array, type: string): FormData {
  const data = new FormData();
  data.append('file', new File([bytes], name, { type }));
  return data;
}

async function table(): Promise<string> {
  const reply = await app.request('POST', `${P}/tables`, { body: { name: `Scans ${Math.random()}`, columns_json: COLUMNS } });
  return reply.body.id;
}

test('a PNG of an invoice gives its line items as rows; the extraction says it was an image', async () => {
  const id = await table();
  const reply = await app.request('POST', `${P}/tables/${id}/extract`, { raw: form('photo.png', drawInvoice().png, 'image/png') });
  expect(reply.body).toMatchObject({ status: 'complete', total_rows: 3 });
  const rows = (await app.request('GET', `${P}/tables/${id}/rows?order=created_at.asc`)).body.rows;
  expect(rows.map((r: any) => ({ item: r.item, qty: r.qty, price: r.price }))).toEqual(EXPECTED);
  const batch = (await app.request('GET', `${P}/batches/${reply.body.batch_id}`)).body;
  expect(JSON.stringify(batch)).toContain('"file_type":"image"');
}, 60_000);

test('a photo turned by 90 and by 180 degrees gives the same rows', async () => {
  for (const quarters of [1, 2]) {
    const id = await table();
    const reply = await app.request('POST', `${P}/tables/${id}/extract`, { raw: form('turned.png', drawInvoice(quarters).png, 'image/png') });
    expect({ quarters, status: reply.body.status }).toEqual({ quarters, status: 'complete' });
    const rows = (await app.request('GET', `${P}/tables/${id}/rows?order=created_at.asc`)).body.rows;
    expect({ quarters, rows: rows.map((r: any) => ({ item: r.item, qty: r.qty, price: r.price })) }).toEqual({ quarters, rows: EXPECTED });
  }
}, 90_000);

test('a scanned PDF streams a progress event per page and its rows', async () => {
  const id = await table();
  const pdf = await scannedPdf(drawInvoice());
  const response = await app.app.handle(
    new Request(`http://localhost${P}/tables/${id}/extract-stream`, { method: 'POST', headers: { authorization: `ApiKey ${ADMIN_KEY}` }, body: form('scan.pdf', pdf, 'application/pdf') }),
  );
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) parser.feed(decoder.decode(chunk, { stream: true }));
  const pages = events.filter((e) => e.event === 'progress').map((e) => JSON.parse(e.data)).filter((d) => d.page_count);
  expect(pages.map((d) => [d.pages_done, d.page_count, d.file_name])).toEqual([[1, 1, 'scan.pdf']]);
  const rows = events.filter((e) => e.event === 'rows').flatMap((e) => JSON.parse(e.data).rows);
  expect(rows.map((r: any) => r.item)).toEqual(EXPECTED.map((r) => r.item));
}, 60_000);
