/**
 * E-invoices through HTTP: a Factur-X PDF made here (its CII attached by pdf-lib, or only as an
 * associated file), UBL and CII uploaded as XML. Rows from XML are exact, of confidence 1, and the
 * file's result says where they came from; a printed total that disagrees with the XML is
 * recorded; broken XML and XML that is no invoice fail only their own file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ciiInvoice, facturX, INVOICE, ublInvoice } from '../fixtures/extract/einvoices';
import { ADMIN_KEY, startApp, type TestApp, form, rowSource, type Part } from '../helpers/app';

const P = '/v1/projects/proj_default';
const I = INVOICE;

const HEADER_COLUMNS = [
  { id: 'invoice_number', name: 'Invoice number', type: 'string' },
  { id: 'issue_date', name: 'Issue date', type: 'date' },
  { id: 'due_date', name: 'Due date', type: 'date' },
  { id: 'seller', name: 'Seller', type: 'string' },
  { id: 'buyer', name: 'Buyer', type: 'string' },
  { id: 'net', name: 'Net amount', type: 'number' },
  { id: 'tax', name: 'Tax amount', type: 'number' },
  { id: 'total', name: 'Total amount', type: 'number' },
  { id: 'currency', name: 'Currency', type: 'string' },
];
const HEADER_ROW = { invoice_number: I.number, issue_date: I.issued, due_date: I.due, seller: I.seller.name, buyer: I.buyer.name, net: I.net, tax: I.tax, total: I.total, currency: 'EUR' };

const LINE_COLUMNS = [
  { id: 'invoice', name: 'Invoice number', type: 'string' },
  { id: 'description', name: 'Description', type: 'string' },
  { id: 'quantity', name: 'Quantity', type: 'number' },
  { id: 'unit_price', name: 'Unit price', type: 'number' },
  { id: 'line_total', name: 'Line total', type: 'number' },
];
const LINE_ROWS = I.lines.map((l) => ({ invoice: I.number, description: l.name, quantity: l.quantity, unit_price: l.price, line_total: l.total }));

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
});

async function extract(columns: unknown[], parts: Part[]) {
  const table = await app.request('POST', `${P}/tables`, { body: { name: `E-invoices ${Math.random()}`, columns_json: columns, strictness: 'strict' } });
  expect(table.status).toBe(201);
  const reply = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form(parts) });
  expect(reply.status).toBe(200);
  const rows = await app.request('GET', `${P}/tables/${table.body.id}/rows?limit=100&order=created_at.asc`);
  return { tableId: table.body.id as string, reply: reply.body, rows: (rows.body.rows ?? []) as Array<Record<string, any>> };
}

const pick = (rows: Array<Record<string, any>>, columns: Array<{ id: string }>) => rows.map((r) => Object.fromEntries(columns.map((c) => [c.id, r[c.id] ?? null])));

describe('Factur-X / ZUGFeRD PDFs', () => {
  test('the embedded CII gives the row: exact, confidence 1, and the file says it was read from the XML', async () => {
    const pdf = await facturX(ciiInvoice('EN 16931'));
    const { tableId, reply, rows } = await extract(HEADER_COLUMNS, [['invoice.pdf', pdf, 'application/pdf']]);
    expect(reply.status).toBe('complete');
    expect(pick(rows, HEADER_COLUMNS)).toEqual([HEADER_ROW]);
    expect(rows[0]!.confidence).toBe(1);
    expect(reply.files[0]).toMatchObject({ file_name: 'invoice.pdf', status: 'complete', rows: 1, confidence: 1 });
    expect(reply.files[0].error).toBe('read from the e-invoice XML embedded in the PDF (factur-x.xml; UN/CEFACT CII, EN 16931): every value exact');
    // The row's source is the PDF as uploaded.
    expect((await rowSource(app, tableId, rows[0]!.id)).bytes).toEqual(pdf);
  });

  test("a column the XML does not state is read from the printed page, at the confidence of the layout", async () => {
    const columns = [...HEADER_COLUMNS, { id: 'customer_number', name: 'Customer number', type: 'string' }];
    const { reply, rows } = await extract(columns, [['invoice.pdf', await facturX(ciiInvoice('EN 16931')), 'application/pdf']]);
    expect(pick(rows, columns)).toEqual([{ ...HEADER_ROW, customer_number: 'K-778' }]);
    expect(rows[0]!.confidence).toBeLessThan(1);
    expect(rows[0]!.confidence).toBeGreaterThan(0.9);
    expect(reply.files[0].status).toBe('complete');
  });

  test('an XML attached only as an associated file (/AF) is found too', async () => {
    const pdf = await facturX(ciiInvoice('BASIC'), { associatedOnly: true });
    const { reply, rows } = await extract(HEADER_COLUMNS, [['af.pdf', pdf, 'application/pdf']]);
    expect(pick(rows, HEADER_COLUMNS)).toEqual([HEADER_ROW]);
    expect(reply.files[0].error).toContain('read from the e-invoice XML embedded in the PDF (embedded XML; UN/CEFACT CII, Factur-X / ZUGFeRD BASIC)');
  });

  test('when the printed total disagrees with the XML, the XML wins and the file records it', async () => {
    const pdf = await facturX(ciiInvoice('EN 16931'), { printedTotal: '1,600.00' });
    const { reply, rows } = await extract(HEADER_COLUMNS, [['disagrees.pdf', pdf, 'application/pdf']]);
    expect(rows[0]!.total).toBe(I.total);
    expect(reply.files[0].error).toContain("the printed total amount 1600 differs from the XML's 1574.1; the XML's is used");
    expect(reply.files[0].error).not.toContain('net amount');
  });

  test('the lines of the embedded XML fill an item table', async () => {
    const { rows } = await extract(LINE_COLUMNS, [['lines.pdf', await facturX(ciiInvoice('EXTENDED')), 'application/pdf']]);
    expect(pick(rows, LINE_COLUMNS)).toEqual(LINE_ROWS);
    expect(rows.every((r) => r.confidence === 1)).toBe(true);
  });

  test('a PDF whose embedded XML is broken is read from its page, and says why', async () => {
    const pdf = await facturX(ciiInvoice('EN 16931').replace('</rsm:ExchangedDocument>', ''));
    const { reply, rows } = await extract(HEADER_COLUMNS, [['broken-xml.pdf', pdf, 'application/pdf']]);
    expect(reply.status).toBe('complete');
    expect(rows[0]!.invoice_number).toBe(I.number);
    expect(rows[0]!.confidence).toBeLessThan(1);
    expect(reply.files[0].error).toMatch(/the embedded factur-x\.xml could not be read \(not well-formed XML: .*\); the printed page was read instead/);
  });
});

describe('UBL and CII uploaded as XML', () => {
  test('UBL Invoice, UBL CreditNote and CII, each a file with its rows', async () => {
    const { reply, rows } = await extract(HEADER_COLUMNS, [
      ['peppol.xml', ublInvoice(), 'application/xml'],
      ['credit.xml', ublInvoice('CreditNote'), 'text/xml'],
      ['xrechnung.xml', ciiInvoice('XRechnung'), ''],
    ]);
    expect(reply.status).toBe('complete');
    expect(reply.files.map((f: any) => [f.file_name, f.status, f.rows, f.confidence])).toEqual([
      ['peppol.xml', 'complete', 1, 1],
      ['credit.xml', 'complete', 1, 1],
      ['xrechnung.xml', 'complete', 1, 1],
    ]);
    expect(reply.files[1].error).toBe('read from the e-invoice XML (UBL 2.1 CreditNote, Peppol BIS Billing): every value exact');
    expect(pick(rows, HEADER_COLUMNS)).toEqual([HEADER_ROW, HEADER_ROW, HEADER_ROW]);
  });

  test('malformed XML and XML that is no invoice fail only themselves, each with its reason', async () => {
    const { reply, rows } = await extract(LINE_COLUMNS, [
      ['broken.xml', ciiInvoice('BASIC').slice(0, 900), 'application/xml'],
      ['books.xml', '<?xml version="1.0"?><catalog xmlns="urn:example:books"><book>Dune</book></catalog>', 'application/xml'],
      ['good.xml', ublInvoice(), 'application/xml'],
    ]);
    expect(reply.status).toBe('partial');
    expect(reply.files[0]).toMatchObject({ status: 'failed', rows: 0 });
    expect(reply.files[0].error).toStartWith('not well-formed XML:');
    expect(reply.files[1].error).toBe('the XML is no e-invoice (its root element is {urn:example:books}catalog); rowsmith reads UBL 2.1 Invoice and CreditNote and UN/CEFACT CII (Factur-X, ZUGFeRD, XRechnung)');
    expect(reply.files[2]).toMatchObject({ status: 'complete', rows: 3 });
    expect(pick(rows, LINE_COLUMNS)).toEqual(LINE_ROWS);
  });

  test('a project-level extract without a schema infers one from the XML', async () => {
    const reply = await app.request('POST', `${P}/extract`, { raw: form([['peppol.xml', ublInvoice(), 'application/xml']]) });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('complete');
    expect(reply.body.result.rows.length).toBeGreaterThan(0);
  });
});
