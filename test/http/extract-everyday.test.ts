/**
 * Everyday files through HTTP: headers that are years or quarters, total and subtotal rows, day/month
 * order decided from the whole column (or the document's language, or the server's setting), and
 * one table in every structured format coming out identical.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Document, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import ExcelJS from 'exceljs';
import { startApp, type TestApp, form, type Part } from '../helpers/app';

const P = '/v1/projects/proj_default';

let app: TestApp;
let dmyApp: TestApp;
beforeAll(async () => {
  app = await startApp();
  dmyApp = await startApp({ config: { dateOrder: 'dmy' } });
});
afterAll(async () => {
  await app.close();
  await dmyApp.close();
});

async function extract(columns: unknown[], parts: Part[], on: TestApp = app) {
  const table = await on.request('POST', `${P}/tables`, { body: { name: `Everyday ${Math.random()}`, columns_json: columns } });
  expect(table.status).toBe(201);
  const reply = await on.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form(parts) });
  const rows = await on.request('GET', `${P}/tables/${table.body.id}/rows?limit=100&order=created_at.asc`);
  return { reply: reply.body, rows: (rows.body.rows ?? []) as Array<Record<string, any>> };
}

const pick = (rows: Array<Record<string, any>>, ids: string[]) => rows.map((r) => Object.fromEntries(ids.map((id) => [id, r[id] ?? null])));

const YEAR_COLUMNS = [
  { id: 'country', name: 'Country', type: 'string' },
  { id: 'y2019', name: '2019', type: 'number' },
  { id: 'y2020', name: '2020', type: 'number' },
];
const YEAR_ROWS = [
  { country: 'France', y2019: 1.5, y2020: 1.75 },
  { country: 'Germany', y2019: 2.25, y2020: 2 },
  { country: 'Italy', y2019: 0.5, y2020: 3 },
];
const YEAR_GRID = [
  ['Country', '2019', '2020'],
  ['France', '1.5', '1.75'],
  ['Germany', '2.25', '2'],
  ['Italy', '0.5', '3'],
];
const ids = (columns: Array<{ id: string }>) => columns.map((c) => c.id);

async function xlsx(grid: unknown[][]): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Data');
  for (const row of grid) sheet.addRow(row);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

async function docx(grid: string[][]): Promise<Uint8Array> {
  const table = new Table({ rows: grid.map((row) => new TableRow({ children: row.map((c) => new TableCell({ children: [new Paragraph(c)] })) })) });
  const doc = new Document({ sections: [{ children: [new Paragraph('Figures'), table] }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

const html = (grid: string[][]) => `<html><body><h2>Figures</h2><table>${grid.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table></body></html>`;
const markdown = (grid: string[][]) => [`| ${grid[0]!.join(' | ')} |`, `|${grid[0]!.map(() => '---').join('|')}|`, ...grid.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
const delimited = (grid: string[][], d: string) => grid.map((r) => r.join(d)).join('\n');

describe('headers that are numbers', () => {
  test('a CSV whose header is Country,2019,2020', async () => {
    const { reply, rows } = await extract(YEAR_COLUMNS, [['years.csv', delimited(YEAR_GRID, ','), 'text/csv']]);
    expect(reply.status).toBe('complete');
    expect(pick(rows, ids(YEAR_COLUMNS))).toEqual(YEAR_ROWS);
  });

  test('the same table as XLSX (numbers as numbers, the header years as numbers), HTML and Markdown', async () => {
    const typed = [[ 'Country', 2019, 2020 ], ...YEAR_ROWS.map((r) => [r.country, r.y2019, r.y2020])];
    for (const part of [
      ['years.xlsx', await xlsx(typed)],
      ['years.html', html(YEAR_GRID), 'text/html'],
      ['years.md', markdown(YEAR_GRID), 'text/markdown'],
    ] as Part[]) {
      const { rows } = await extract(YEAR_COLUMNS, [part]);
      expect({ file: part[0], rows: pick(rows, ids(YEAR_COLUMNS)) }).toEqual({ file: part[0], rows: YEAR_ROWS });
    }
  });

  test('quarters and fiscal years as headers, columns in another order, semicolons', async () => {
    const columns = [
      { id: 'fy', name: 'FY2023', type: 'number' },
      { id: 'region', name: 'Region', type: 'string' },
      { id: 'q1', name: 'Q1 2024', type: 'number' },
    ];
    const csv = 'Region;Q1 2024;FY2023\nNorth;10;40\nSouth;12;44\n';
    const { rows } = await extract(columns, [['q.csv', csv, 'text/csv']]);
    expect(pick(rows, ['region', 'q1', 'fy'])).toEqual([
      { region: 'North', q1: 10, fy: 40 },
      { region: 'South', q1: 12, fy: 44 },
    ]);
  });
});

const SALES_COLUMNS = [
  { id: 'vendor', name: 'Vendor', type: 'string' },
  { id: 'amount', name: 'Amount', type: 'number' },
];

describe('summary rows', () => {
  test('a title line above and a Total line below are not rows', async () => {
    const csv = 'Expenses March,,\nVendor,Amount,Note\nAcme,10.50,\nGlobex,5.00,late\nTotal,15.50,,\n';
    const { rows } = await extract(SALES_COLUMNS, [['e.csv', csv, 'text/csv']]);
    expect(pick(rows, ['vendor', 'amount'])).toEqual([
      { vendor: 'Acme', amount: 10.5 },
      { vendor: 'Globex', amount: 5 },
    ]);
  });

  test('subtotals in the middle, a German Gesamt and an unlabeled sum row are left out', async () => {
    const csv = 'Vendor,Amount\nAcme,1\nGlobex,2\nSubtotal,3\nInitech,4\nGesamt,7\n';
    const { rows } = await extract(SALES_COLUMNS, [['s.csv', csv, 'text/csv']]);
    expect(rows.map((r) => r.vendor)).toEqual(['Acme', 'Globex', 'Initech']);
    const tsv = 'Vendor\tAmount\nAcme\t1\nGlobex\t2\n\t3\n';
    const unlabeled = await extract(SALES_COLUMNS, [['u.tsv', tsv, 'text/tab-separated-values']]);
    expect(unlabeled.rows.map((r) => r.vendor)).toEqual(['Acme', 'Globex']);
  });

  test('a table that asks for its totals keeps them', async () => {
    const columns = [{ ...SALES_COLUMNS[0]!, description: 'vendor, including the total row' }, SALES_COLUMNS[1]!];
    const { rows } = await extract(columns, [['t.csv', 'Vendor,Amount\nAcme,1\nTotal,1\n', 'text/csv']]);
    expect(rows.map((r) => r.vendor)).toEqual(['Acme', 'Total']);
  });

  test('a total row of an HTML table and of a JSON array', async () => {
    const grid = [['Vendor', 'Amount'], ['Acme', '1'], ['Globex', '2'], ['Total', '3']];
    const fromHtml = await extract(SALES_COLUMNS, [['t.html', html(grid), 'text/html']]);
    expect(fromHtml.rows.map((r) => r.vendor)).toEqual(['Acme', 'Globex']);
    const json = JSON.stringify([{ Vendor: 'Acme', Amount: 1 }, { Vendor: 'Globex', Amount: 2 }, { Vendor: 'Total', Amount: 3 }]);
    const fromJson = await extract(SALES_COLUMNS, [['t.json', json, 'application/json']]);
    expect(fromJson.rows.map((r) => r.vendor)).toEqual(['Acme', 'Globex']);
  });
});

const DATE_COLUMNS = [
  { id: 'what', name: 'What', type: 'string' },
  { id: 'when', name: 'When', type: 'date' },
];

describe('day/month order from the whole column', () => {
  test('a later day above 12 makes the whole column day-first', async () => {
    const csv = 'What,When\nA,01/02/2024\nB,13/02/2024\n';
    const { rows } = await extract(DATE_COLUMNS, [['d.csv', csv, 'text/csv']]);
    expect(pick(rows, ['what', 'when'])).toEqual([
      { what: 'A', when: '2024-02-01' },
      { what: 'B', when: '2024-02-13' },
    ]);
  });

  test('a later day above 12 in second place makes it month-first, with dashes too', async () => {
    const csv = 'What,When\nA,01-02-2024\nB,02-13-2024\n';
    const { rows } = await extract(DATE_COLUMNS, [['d.csv', csv, 'text/csv']]);
    expect(rows.map((r) => r.when)).toEqual(['2024-01-02', '2024-02-13']);
  });

  test('no evidence: the document language decides, then the server setting, and the row says it guessed', async () => {
    const german = 'Was,Wann,Notiz\nMiete für den Monat,03/04/2024,bitte bis zum Ende der Woche zahlen\nStrom und Wasser,05/06/2024,die Rechnung ist für das Büro\n';
    const de = await extract([{ id: 'what', name: 'Was', type: 'string' }, { id: 'when', name: 'Wann', type: 'date' }], [['d.csv', german, 'text/csv']]);
    expect(de.rows.map((r) => r.when)).toEqual(['2024-04-03', '2024-06-05']);

    const english = 'What,When\nRent,03/04/2024\nPower,05/06/2024\n';
    const us = await extract(DATE_COLUMNS, [['e.csv', english, 'text/csv']]);
    expect(us.rows.map((r) => r.when)).toEqual(['2024-03-04', '2024-05-06']);
    const dmy = await extract(DATE_COLUMNS, [['e.csv', english, 'text/csv']], dmyApp);
    expect(dmy.rows.map((r) => r.when)).toEqual(['2024-04-03', '2024-06-05']);

    const decided = await extract(DATE_COLUMNS, [['x.csv', 'What,When\nRent,03/04/2024\nPower,13/06/2024\n', 'text/csv']]);
    expect(us.reply.confidence).toBeLessThan(decided.reply.confidence);
  });
});

describe('one table in every structured format', () => {
  const columns = [
    { id: 'country', name: 'Country', type: 'string' },
    { id: 'y2023', name: '2023', type: 'number' },
    { id: 'y2024', name: '2024', type: 'number' },
    { id: 'updated', name: 'Updated', type: 'date' },
  ];
  const grid = [
    ['Country', '2023', '2024', 'Updated'],
    ['Spain', '1,200.5', '1,300', '2024-05-01'],
    ['Portugal', '800', '850.25', '2024-05-02'],
    ['Total', '2,000.5', '2,150.25', ''],
  ];
  const expected = [
    { country: 'Spain', y2023: 1200.5, y2024: 1300, updated: '2024-05-01' },
    { country: 'Portugal', y2023: 800, y2024: 850.25, updated: '2024-05-02' },
  ];
  const records = grid.slice(1).map((r) => Object.fromEntries(grid[0]!.map((h, i) => [h, r[i]])));

  test('CSV, TSV, XLSX, JSON, NDJSON, Markdown, HTML and DOCX give the same rows', async () => {
    const quoted = grid.map((r) => r.map((c) => (c.includes(',') ? `"${c}"` : c)).join(',')).join('\n');
    const parts: Part[] = [
      ['t.csv', quoted, 'text/csv'],
      ['t.tsv', delimited(grid, '\t'), 'text/tab-separated-values'],
      ['t.xlsx', await xlsx(grid)],
      ['t.json', JSON.stringify(records), 'application/json'],
      ['t.ndjson', records.map((r) => JSON.stringify(r)).join('\n'), 'application/x-ndjson'],
      ['t.md', markdown(grid), 'text/markdown'],
      ['t.html', html(grid), 'text/html'],
      ['t.docx', await docx(grid)],
    ];
    for (const part of parts) {
      const { rows } = await extract(columns, [part]);
      expect({ file: part[0], rows: pick(rows, ids(columns)) }).toEqual({ file: part[0], rows: expected });
    }
  });
});

describe('the issuer of a plain-text invoice', () => {
  const columns = [
    { id: 'vendor', name: 'Vendor', type: 'string' },
    { id: 'invoice_date', name: 'Invoice date', type: 'date' },
    { id: 'total', name: 'Total', type: 'currency', currency_code: 'EUR' },
  ];
  const variants: Array<[string, string, Record<string, unknown>]> = [
    ['English, letterhead then labels', 'ACME GmbH\nHauptstrasse 1, 10115 Berlin\nInvoice date: 2024-03-01\nTotal due: 119.00 EUR\n', { vendor: 'ACME GmbH', invoice_date: '2024-03-01', total: 119 }],
    ['German labels', 'Bergmann & Söhne KG\nLindenweg 4\n80331 München\n\nRechnungsdatum: 05.02.2024\nGesamtbetrag: 1.190,00 EUR\n', { vendor: 'Bergmann & Söhne KG', invoice_date: '2024-02-05', total: 1190 }],
    ['French labels, a blank line first', '\nAtelier Dupont SARL\n12 rue des Lilas, 75011 Paris\nDate de facture : 14/03/2024\nTotal TTC : 240,00 €\n', { vendor: 'Atelier Dupont SARL', invoice_date: '2024-03-14', total: 240 }],
    ['the party with the VAT number when the first line is a title', 'INVOICE\n\nNorthwind Traders Ltd\nVAT No: GB123456789\n12 Harbour Road, Leeds\nDate: 2024-06-30\nAmount due: 75.50 EUR\n', { vendor: 'Northwind Traders Ltd', invoice_date: '2024-06-30', total: 75.5 }],
  ];
  for (const [what, text, expected] of variants) {
    test(what, async () => {
      const { rows } = await extract(columns, [['invoice.txt', text, 'text/plain']]);
      expect(pick(rows, ['vendor', 'invoice_date', 'total'])).toEqual([expected]);
    });
  }
});

describe('the items of a plain-text invoice', () => {
  const columns = [
    { id: 'description', name: 'Description', type: 'string' },
    { id: 'quantity', name: 'Quantity', type: 'number' },
    { id: 'unit_price', name: 'Unit price', type: 'number' },
    { id: 'amount', name: 'Amount', type: 'number' },
  ];
  test('a note under an item joins its description, and the items after it are kept', async () => {
    const text = [
      'INVOICE 2024-0117',
      'Description                 Qty     Rate      Amount',
      'Logo design                   1   800.00      800.00',
      'Business cards                2   125.00      250.00',
      '  (premium paper, 2 boxes)',
      'Website banner                3    50.00      150.00',
      '',
      'Total                                       1,200.00',
    ].join('\n');
    const { rows } = await extract(columns, [['invoice.txt', text, 'text/plain']]);
    expect(pick(rows, ['description', 'quantity', 'unit_price', 'amount'])).toEqual([
      { description: 'Logo design', quantity: 1, unit_price: 800, amount: 800 },
      { description: 'Business cards (premium paper, 2 boxes)', quantity: 2, unit_price: 125, amount: 250 },
      { description: 'Website banner', quantity: 3, unit_price: 50, amount: 150 },
    ]);
  });

  test('an item list set with single spaces is read by its header: figures before and after each description', async () => {
    const text = [
      'Bill of sale 88',
      'Qty Description Unit price Line total',
      '3 Widget, blue 2.50 7.50',
      '10 Bolt M6 0.20 2.00',
      '1 Service fee 15.00 15.00',
      'for the spring visit',
      '2 Hinge 4.00 8.00',
      'Total 32.50',
    ].join('\n');
    const { rows } = await extract(columns, [['sale.txt', text, 'text/plain']]);
    expect(pick(rows, ['description', 'quantity', 'unit_price', 'amount'])).toEqual([
      { description: 'Widget, blue', quantity: 3, unit_price: 2.5, amount: 7.5 },
      { description: 'Bolt M6', quantity: 10, unit_price: 0.2, amount: 2 },
      { description: 'Service fee for the spring visit', quantity: 1, unit_price: 15, amount: 15 },
      { description: 'Hinge', quantity: 2, unit_price: 4, amount: 8 },
    ]);
  });
});

describe('invoice fields typed as plain numbers or without a currency sign', () => {
  const columns = [
    { id: 'number', name: 'Invoice number', type: 'string' },
    { id: 'net', name: 'Net amount', type: 'number' },
    { id: 'tax', name: 'Tax amount', type: 'number' },
    { id: 'total', name: 'Total amount', type: 'number' },
    { id: 'currency', name: 'Currency', type: 'string', description: 'ISO 4217 code of the invoice currency' },
  ];

  test("a spreadsheet's net typed as a whole number without a number format is the net: it adds up with the tax and total", async () => {
    const bytes = await xlsx([
      ['Kestrel Parts Ltd'],
      ['14 Mill Lane, Leeds LS1 4AB'],
      [],
      ['Invoice', 'K-5521'],
      [],
      ['Description', 'Qty', 'Unit price', 'Amount'],
      ['Shelving unit', 4, 120, 480],
      ['Installation', 2, 203, 406],
      [],
      ['', '', 'Net', 886],
      ['', '', 'VAT 19%', 168.34],
      ['', '', 'Total', 1054.34],
    ]);
    const { rows } = await extract(columns, [['invoice.xlsx', bytes, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
    expect(pick(rows, ['number', 'net', 'tax', 'total', 'currency'])).toEqual([{ number: 'K-5521', net: 886, tax: 168.34, total: 1054.34, currency: 'GBP' }]);
  });

  test("a CSV invoice's letterhead over its items gives the seller and, by its postcode, the currency", async () => {
    const csv = ['Kestrel Parts Ltd', '"14 Mill Lane, Leeds LS1 4AB"', '', 'Description,Qty,Unit price,Amount', 'Shelving unit,4,120.00,480.00', 'Installation,2,203.00,406.00'].join('\n');
    const sellerColumns = [{ id: 'seller', name: 'Seller', type: 'string' }, columns[4]!];
    const { rows } = await extract(sellerColumns, [['invoice.csv', csv, 'text/csv']]);
    expect(pick(rows, ['seller', 'currency'])).toEqual([{ seller: 'Kestrel Parts Ltd', currency: 'GBP' }]);
  });

  test("a US invoice without a dollar sign has the currency its issuer's town, state and ZIP code name", async () => {
    const text = [
      'Bluegate Supply Co.',
      '1200 Harbor Blvd, Suite 4',
      'Oakland, CA 94607',
      'INVOICE',
      'Invoice # 2291',
      'Bill To: Marlow Designs LLC, 55 Pine St, Leeds LS1 4AB',
      'Subtotal 630.00',
      'Sales Tax (8.25%) 51.98',
      'Total 681.98',
    ].join('\n');
    const { rows } = await extract(columns, [['invoice.txt', text, 'text/plain']]);
    expect(pick(rows, ['number', 'net', 'tax', 'total', 'currency'])).toEqual([{ number: '2291', net: 630, tax: 51.98, total: 681.98, currency: 'USD' }]);
  });
});
