import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import ExcelJS from 'exceljs';
import { columnsFromSuggestion } from '../../web/src/draft';
import { expectError, startApp, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

function upload(name: string, content: string | Uint8Array, type = ''): FormData {
  const form = new FormData();
  form.append('file', new File([content], name, { type }));
  return form;
}

/**
 * Suggests from a sample, creates a table from the suggestion as the web console does (ids from the
 * names, a currency's code and options from the descriptions), and extracts the same sample into it.
 */
async function roundTrip(sample: () => FormData) {
  const suggestion = await app.request('POST', `${P}/suggest-schema`, { raw: sample() });
  expect(suggestion.status).toBe(200);
  // The reference's shape exactly: a strict client takes nothing more.
  for (const column of suggestion.body.columns) expect(Object.keys(column)).toEqual(['name', 'type', 'description']);
  const columns = columnsFromSuggestion(suggestion.body.columns);
  const table = await app.request('POST', `${P}/tables`, { body: { name: `Suggested ${Math.random()}`, columns_json: columns, instruction: suggestion.body.instruction } });
  expect(table.status).toBe(201);
  const extracted = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: sample() });
  expect(extracted.body).toMatchObject({ status: 'complete', fail_count: 0 });
  expect(extracted.body.files[0].error).toBeNull();
  const rows = (await app.request('GET', `${P}/tables/${table.body.id}/rows?order=created_at.asc&limit=100`)).body.rows;
  return { suggestion: suggestion.body, columns, rows };
}

const typesOf = (s: { columns: Array<{ name: string; type: string }> }) => Object.fromEntries(s.columns.map((c) => [c.name, c.type]));

describe('suggest-schema', () => {
  test('CSV: names from the header, every type inferred from the values', async () => {
    const csv = [
      'Order ID,Placed on,Amount,Paid,Contact,Website,Status,Tags,Notes',
      ...Array.from({ length: 8 }, (_, i) =>
        [
          `SO-${100 + i}`,
          `2024-03-${String(i + 1).padStart(2, '0')}`,
          `"$${(i + 1) * 1000}.50"`,
          i % 2 ? 'yes' : 'no',
          `buyer${i}@shop.example`,
          `https://shop${i}.example`,
          ['open', 'closed'][i % 2],
          `"${['red, blue', 'blue', 'red, green', 'green, blue'][i % 4]}"`,
          `"${'Long remark about the order. '.repeat(10)}"`,
        ].join(','),
      ),
    ].join('\n');
    const { suggestion, columns, rows } = await roundTrip(() => upload('orders.csv', csv, 'text/csv'));
    expect(typesOf(suggestion)).toEqual({
      'Order ID': 'string', 'Placed on': 'date', Amount: 'currency', Paid: 'boolean', Contact: 'email', Website: 'url',
      Status: 'enum', Tags: 'multi_select', Notes: 'text',
    });
    const described = (name: string) => suggestion.columns.find((c: any) => c.name === name).description;
    expect(described('Amount')).toBe('Amount in USD, from "Amount", for example "$1000.50"');
    expect(described('Status')).toBe('One of a few values, from "Status". Options: ["open","closed"]');
    expect(described('Tags')).toStartWith('Several of a few values, from "Tags". Options: [');
    const column = (id: string) => columns.find((c) => c.id === id)!;
    expect(column('amount').currency_code).toBe('USD');
    expect(column('status').options).toEqual(['open', 'closed']);
    expect(column('tags').options!.sort()).toEqual(['blue', 'green', 'red']);
    expect(suggestion.confidence).toBe(1);
    expect(suggestion.instruction.length).toBeGreaterThan(10);
    expect(rows).toHaveLength(8);
    expect(rows[0]).toMatchObject({ order_id: 'SO-100', placed_on: '2024-03-01', amount: 1000.5, paid: false, status: 'open', tags: ['red', 'blue'] });
  });

  test('XLSX: typed cells give their types', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Stock');
    sheet.addRow(['SKU', 'Received', 'Quantity', 'Unit cost']);
    for (let i = 0; i < 5; i++) sheet.addRow([`SKU-${i}`, new Date(Date.UTC(2024, 0, i + 1)), i * 10, 2.5 * i]);
    const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
    const { suggestion, rows } = await roundTrip(() => upload('stock.xlsx', bytes));
    expect(typesOf(suggestion)).toEqual({ SKU: 'string', Received: 'date', Quantity: 'number', 'Unit cost': 'number' });
    expect(rows[1]).toMatchObject({ sku: 'SKU-1', received: '2024-01-02', quantity: 10, unit_cost: 2.5 });
  });

  test('JSON: keys (nested ones dotted) become columns; reserved names are renamed', async () => {
    const json = JSON.stringify({
      items: [
        { id: 7, name: 'Ada', contact: { email: 'ada@x.example' }, active: true },
        { id: 8, name: 'Grace', contact: { email: 'grace@x.example' }, active: false },
      ],
    });
    const { columns, rows } = await roundTrip(() => upload('people.json', json, 'application/json'));
    expect(columns.map((c) => [c.id, c.name, c.type])).toEqual([
      ['id_col', 'id', 'number'],
      ['name', 'name', 'string'],
      ['contact_email', 'contact.email', 'email'],
      ['active', 'active', 'boolean'],
    ]);
    expect(rows[1]).toMatchObject({ id_col: 8, name: 'Grace', contact_email: 'grace@x.example', active: false });
  });

  test('text: key: value blocks, as multipart text or JSON', async () => {
    const text = 'Name: Ada Lovelace\nEmail: ada@x.example\nJoined: March 5, 2024\n\nName: Alan Turing\nEmail: alan@x.example\nJoined: June 23, 2024\n';
    const form = () => {
      const data = new FormData();
      data.append('text', text);
      return data;
    };
    const { suggestion, rows } = await roundTrip(form);
    expect(typesOf(suggestion)).toEqual({ Name: 'string', Email: 'email', Joined: 'date' });
    expect(rows.map((r: any) => r.joined)).toEqual(['2024-03-05', '2024-06-23']);
    const json = await app.request('POST', `${P}/suggest-schema`, { body: { text } });
    expect(json.body.columns).toEqual(suggestion.columns);
  });

  test('options too many to state in a description make a text column', async () => {
    const kinds = Array.from({ length: 10 }, (_, i) => `Category number ${i} of the long kind list`.slice(0, 38));
    const csv = ['Item,Kind', ...Array.from({ length: 30 }, (_, i) => `I-${i},${kinds[i % 10]}`)].join('\n');
    const { suggestion, rows } = await roundTrip(() => upload('items.csv', csv, 'text/csv'));
    expect(typesOf(suggestion)).toEqual({ Item: 'string', Kind: 'string' });
    expect(suggestion.columns[1].description).toBe(`Text, from "Kind", for example "${kinds[0]}"`);
    expect(rows[3]).toMatchObject({ item: 'I-3', kind: kinds[3] });
  });

  test('a header of years names columns too', async () => {
    const csv = 'Country,2019,2020\nFrance,1.5,1.75\nGermany,2.25,2\nItaly,0.5,3\n';
    const { suggestion, rows } = await roundTrip(() => upload('years.csv', csv, 'text/csv'));
    expect(suggestion.columns.map((c: any) => [c.name, c.type])).toEqual([['Country', 'string'], ['2019', 'number'], ['2020', 'number']]);
    expect(rows.map((r: any) => r.country)).toEqual(['France', 'Germany', 'Italy']);
  });

  test('errors: nothing sent, an unreadable format, a sample without records', async () => {
    expectError(await app.request('POST', `${P}/suggest-schema`, { body: {} }), 400, 'invalid_input');
    expectError(await app.request('POST', `${P}/suggest-schema`, { raw: upload('photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'image/png') }), 415, 'unsupported_media_type');
    expectError(await app.request('POST', `${P}/suggest-schema`, { body: { text: 'just a sentence without any fields' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${P}/suggest-schema`, { raw: upload('broken.json', '{nope', 'application/json') }), 400, 'invalid_input');
  });
});
