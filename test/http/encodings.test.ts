/**
 * Every body encoding the reference clients send, on every endpoint that takes form fields: the
 * same request as JSON, as multipart/form-data and as application/x-www-form-urlencoded gets the
 * same answer, errors included.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectError, startApp, type Reply, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';

type Fields = Record<string, unknown>;
type Encoding = 'json' | 'multipart' | 'urlencoded';
const ENCODINGS: Encoding[] = ['json', 'multipart', 'urlencoded'];

/**
 * The official TypeScript SDK's form encoding: with a file anywhere, multipart with array items as
 * repeated fields; without, urlencoded with each field set once from `String(value)`. Objects (the
 * `schema`) are sent as JSON strings by the caller, as they must be in a form.
 */
function sdkForm(form: Fields): { raw: FormData | string; headers: Record<string, string> } {
  const isFile = (v: unknown) => v instanceof Blob;
  const hasFiles = Object.values(form).some((v) => isFile(v) || (Array.isArray(v) && v.some(isFile)));
  if (hasFiles) {
    const data = new FormData();
    for (const [k, v] of Object.entries(form)) {
      for (const item of Array.isArray(v) ? v : [v]) data.append(k, isFile(item) ? (item as Blob) : String(item));
    }
    return { raw: data, headers: {} };
  }
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) params.set(k, String(v));
  return { raw: params.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

/** A multipart body with the same text fields and no file (what a browser form or curl -F sends). */
function multipart(form: Fields): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) data.append(k, String(item));
  return data;
}

/** One request in one encoding; `schema` is an object in JSON and a JSON string in a form. */
function send(app: TestApp, path: string, fields: Fields, encoding: Encoding): Promise<Reply> {
  if (encoding === 'json') return app.request('POST', path, { body: fields });
  const form = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, k === 'schema' && typeof v === 'object' ? JSON.stringify(v) : v]));
  if (encoding === 'multipart') return app.request('POST', path, { raw: multipart(form) });
  return app.request('POST', path, sdkForm(form));
}

const VOLATILE_KEYS = new Set(['id', 'batch_id', 'extraction_id', 'duration_ms', 'created_at', 'updated_at', 'last_used_at']);

/** The answer without what differs between two runs of one request (ids, times). */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE_KEYS.has(k) ? typeof v : stable(v)]));
  }
  return value;
}

/** An event stream as its events, in order, with their data parsed. */
function events(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => ({
      event: block.match(/^event: (.*)$/m)?.[1] ?? 'message',
      data: JSON.parse(block.match(/^data: (.*)$/m)![1]!),
    }));
}

/** Sends the request in all three encodings and returns the three answers, made comparable. */
async function inEveryEncoding(app: TestApp, path: string, fields: Fields) {
  const replies: Array<{ status: number; body: unknown }> = [];
  for (const encoding of ENCODINGS) {
    const reply = await send(app, path, fields, encoding);
    const body = typeof reply.body === 'string' && path.endsWith('-stream') ? events(reply.body) : reply.body;
    replies.push({ status: reply.status, body: stable(body) });
  }
  return replies;
}

async function expectSameAnswers(app: TestApp, path: string, fields: Fields, status: number) {
  const [json, ...forms] = await inEveryEncoding(app, path, fields);
  expect(json!.status).toBe(status);
  for (const form of forms) expect(form).toEqual(json!);
  return json!.body as any;
}

const INVOICE = 'Invoice number: INV-7\nCustomer: Hollow Pine Ltd\nTotal: 120.50\nDue date: 2024-05-01';
const SCHEMA = {
  columns: [
    { name: 'Invoice number', type: 'string', required: true },
    { name: 'Total', type: 'number', description: 'amount due' },
    { name: 'Status', type: 'enum', options: ['open', 'paid'] },
  ],
  strictness: 'balanced',
};

let app: TestApp;
let tableId: string;
beforeAll(async () => {
  app = await startApp();
  const table = await app.request('POST', `${P}/tables`, {
    body: {
      name: 'Invoices',
      columns_json: [
        { id: 'invoice_number', name: 'Invoice number', type: 'string', required: true },
        { id: 'customer', name: 'Customer', type: 'string' },
        { id: 'total', name: 'Total', type: 'number' },
      ],
    },
  });
  tableId = table.body.id;
});
afterAll(() => app.close());

describe('the same 200 answer whichever encoding carried the fields', () => {
  test('project-level extract with text and no schema', async () => {
    const body = await expectSameAnswers(app, `${P}/extract`, { text: INVOICE }, 200);
    expect(body.status).toBe('complete');
    expect(body.result.rows[0]).toMatchObject({ invoice_number: 'INV-7', customer: 'Hollow Pine Ltd' });
  });

  test('project-level extract with text and a schema (an object in JSON, a JSON string in a form)', async () => {
    const body = await expectSameAnswers(app, `${P}/extract`, { text: INVOICE, schema: SCHEMA }, 200);
    expect(body.result.rows).toEqual([{ invoice_number: 'INV-7', total: 120.5 }]);
  });

  test('table-level extract', async () => {
    const body = await expectSameAnswers(app, `${P}/tables/${tableId}/extract`, { text: INVOICE }, 200);
    expect(body).toMatchObject({ status: 'complete', total_rows: 1, result: { table_id: tableId, created: 1 } });
    const rows = await app.request('GET', `${P}/tables/${tableId}/rows?limit=10`);
    expect(rows.body.rows.map((r: any) => r.invoice_number)).toEqual(['INV-7', 'INV-7', 'INV-7']);
  });

  test('project- and table-level extract-stream: the same events', async () => {
    const project = await expectSameAnswers(app, `${P}/extract-stream`, { text: INVOICE, schema: SCHEMA }, 200);
    expect(project.map((e: any) => e.event)).toContain('done');
    const table = await expectSameAnswers(app, `${P}/tables/${tableId}/extract-stream`, { text: INVOICE }, 200);
    expect(table.at(-1).event).toBe('done');
  });

  test('suggest-schema with text', async () => {
    const body = await expectSameAnswers(app, `${P}/suggest-schema`, { text: INVOICE }, 200);
    expect(body.columns.map((c: any) => c.name)).toEqual(['Invoice number', 'Customer', 'Total', 'Due date']);
  });

  test('text the encodings treat specially: +, &, =, %, line breaks and non-ASCII arrive unchanged', async () => {
    const text = 'Invoice number: A+B&C=D 100%\r\nCustomer: Zoë Ångström\r\nTotal: 1';
    const body = await expectSameAnswers(app, `${P}/extract`, { text, schema: SCHEMA }, 200);
    expect(body.result.rows[0].invoice_number).toBe('A+B&C=D 100%');
  });
});

describe('the same errors whichever encoding carried the fields', () => {
  test('a schema that breaks the rules names the same fields', async () => {
    const badSchema = { columns: [{ name: 'bad/name', type: 'money' }] };
    const body = await expectSameAnswers(app, `${P}/extract`, { text: INVOICE, schema: badSchema }, 400);
    expect(Object.keys(body.fields).sort()).toEqual(['schema.columns[0].name', 'schema.columns[0].type']);
  });

  test('a url past its length limit, text of the wrong kind of value, nothing to read', async () => {
    const long = await expectSameAnswers(app, `${P}/extract`, { url: `https://example.com/${'a'.repeat(2100)}` }, 400);
    expect(Object.keys(long.fields)).toEqual(['url']);
    const nothing = await expectSameAnswers(app, `${P}/extract`, { text: '' }, 400);
    expect(nothing.error_key).toBe('invalid_input');
    await expectSameAnswers(app, `${P}/suggest-schema`, { text: '' }, 400);
    await expectSameAnswers(app, `${P}/tables/tbl_missing/extract`, { text: INVOICE }, 404);
  });

  test('suggest-schema without text: the same 400 as JSON without its required field', async () => {
    const body = await expectSameAnswers(app, `${P}/suggest-schema`, { unrelated: 'x' }, 400);
    expect(Object.keys(body.fields)).toEqual(['text']);
  });
});

describe('form specifics', () => {
  test('a schema field that is not JSON is 400 in both form encodings', async () => {
    for (const encoding of ['multipart', 'urlencoded'] as const) {
      const reply = await send(app, `${P}/extract`, { text: INVOICE, schema: '{nope' }, encoding);
      expect(expectError(reply, 400, 'invalid_input').fields.schema[0].error_key).toBe('invalid_json');
    }
  });

  test('an object passed as a form field (String() of it) is a clear 400, not a silent default', async () => {
    const reply = await app.request('POST', `${P}/extract`, sdkForm({ text: INVOICE, schema: { columns: [] } }));
    expect(expectError(reply, 400, 'invalid_input').fields.schema[0].error_key).toBe('invalid_json');
  });

  test('a field sent twice is 400 naming it; several files are several documents', async () => {
    const twice = await app.request('POST', `${P}/extract`, { raw: 'text=a%3A%201&text=b%3A%202', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(expectError(twice, 400, 'invalid_input').fields.text[0].message).toContain('2 times');
    const twiceMultipart = await app.request('POST', `${P}/extract`, { raw: multipart({ text: ['a: 1', 'b: 2'] }) });
    expect(expectError(twiceMultipart, 400, 'invalid_input').fields).toEqual(twice.body.fields);

    const files = [new File(['Invoice number,Total\nA-1,5\n'], 'a.csv', { type: 'text/csv' }), new File(['Invoice number,Total\nB-1,7\n'], 'b.csv', { type: 'text/csv' })];
    const reply = await app.request('POST', `${P}/extract`, sdkForm({ file: files, schema: JSON.stringify(SCHEMA) }));
    expect(reply.body).toMatchObject({ status: 'complete', success_count: 2, total_rows: 2 });
    expect(reply.body.result.rows.map((r: any) => r.invoice_number)).toEqual(['A-1', 'B-1']);
  });

  test('a file field holding text (a path or a link) is 400 pointing at url, in either form encoding', async () => {
    for (const encoding of ['multipart', 'urlencoded'] as const) {
      const reply = await send(app, `${P}/extract`, { file: '/home/me/invoice.pdf' }, encoding);
      expect(expectError(reply, 400, 'invalid_input').fields.file[0].message).toContain('url');
    }
  });

  test('charset parameters are fine; an empty urlencoded body is the empty request; other routes still take JSON only', async () => {
    const charset = await app.request('POST', `${P}/extract`, {
      raw: new URLSearchParams({ text: INVOICE }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(charset.body.status).toBe('complete');
    const empty = await app.request('POST', `${P}/extract`, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const emptyJson = await app.request('POST', `${P}/extract`, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(stable(empty.body)).toEqual(stable(emptyJson.body));
    expectError(empty, 400, 'invalid_input');
    const table = await app.request('POST', `${P}/tables`, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(expectError(table, 415, 'unsupported_media_type').message).toContain('application/json');
    const csv = await app.request('POST', `${P}/extract`, { raw: 'a,b', headers: { 'content-type': 'text/csv' } });
    expect(expectError(csv, 415, 'unsupported_media_type').message).toContain('application/x-www-form-urlencoded');
  });
});
