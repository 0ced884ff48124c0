import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectError, startApp, type TestApp } from '../helpers/app';

const TABLES = '/v1/projects/proj_default/tables';
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function newTable(extra: Record<string, unknown> = {}) {
  const reply = await app.request('POST', TABLES, {
    body: {
      name: 'Orders',
      columns_json: [
        { id: 'total', name: 'Total', type: 'number' },
        { id: 'customer', name: 'Customer' },
        { id: 'note', name: 'Note', type: 'text' },
      ],
      ...extra,
    },
  });
  expect(reply.status).toBe(201);
  return { table: reply.body, etag: reply.headers.get('etag')!, url: `${TABLES}/${reply.body.id}/columns` };
}

describe('add column', () => {
  test('returns the whole table; ids come from names; counters move', async () => {
    const { table, url } = await newTable();
    const reply = await app.request('POST', url, { body: { name: 'Due Date', type: 'date', description: 'When it is due' } });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(table.id);
    expect(reply.body.columns_json.at(-1)).toEqual({ id: 'due_date', name: 'Due Date', type: 'date', required: false, description: 'When it is due' });
    expect(reply.body.data_version).toBe(table.data_version + 1);
    // A date column is not searched by default, so the search index is unchanged.
    expect(reply.body.fts_version).toBe(table.fts_version);
    expect(reply.headers.get('etag')).toBe(`"${table.id}.2"`);

    const text = await app.request('POST', url, { body: { id: 'memo', name: 'Memo', type: 'string' } });
    expect(text.body.fts_version).toBe(table.fts_version + 1);
    const same = await app.request('POST', url, { body: { name: 'Due-Date' } });
    expect(same.body.columns_json.at(-1).id).toBe('due_date_2');
  });

  test('rules and errors', async () => {
    const { url } = await newTable();
    expectError(await app.request('POST', url, { body: { name: 'total' } }), 400, 'invalid_input');
    expect(expectError(await app.request('POST', url, { body: { id: 'total', name: 'Other' } }), 400, 'invalid_input').fields).toHaveProperty('id');
    expect(expectError(await app.request('POST', url, { body: { name: 'Kind', type: 'enum' } }), 400, 'invalid_input').fields).toHaveProperty('options');
    expectError(await app.request('POST', url, { body: { name: 'Bad (name)' } }), 400, 'invalid_input');
    expectError(await app.request('POST', url, { body: { name: 'x', currency_code: 'EURO' } }), 400, 'invalid_input');
    expectError(await app.request('POST', url, { body: { id: 'batch_id', name: 'Batch' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${TABLES}/tbl_nope/columns`, { body: { name: 'x' } }), 404, 'table_not_found');
  });

  test('the 101st column is refused', async () => {
    const columns = Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, name: `C${i}` }));
    const reply = await app.request('POST', TABLES, { body: { name: 'Wide', columns_json: columns } });
    const extra = await app.request('POST', `${TABLES}/${reply.body.id}/columns`, { body: { name: 'One more' } });
    expectError(extra, 400, 'invalid_input');
  });
});

describe('optimistic locking', () => {
  test('If-Match with the current ETag succeeds; a stale one is 409 with the current ETag', async () => {
    const { url, etag } = await newTable();
    const first = await app.request('POST', url, { body: { name: 'A1' }, headers: { 'if-match': etag } });
    expect(first.status).toBe(200);
    const stale = await app.request('POST', url, { body: { name: 'A2' }, headers: { 'if-match': etag } });
    expectError(stale, 409, 'optimistic_lock_conflict');
    expect(stale.headers.get('etag')).toBe(first.headers.get('etag'));
    for (const [method, path, body] of [
      ['PUT', `${url}/order`, { order: ['note', 'customer', 'total', 'a1'] }],
      ['PATCH', `${url}/note`, { name: 'Notes' }],
      ['DELETE', `${url}/note`, undefined],
    ] as const) {
      expectError(await app.request(method, path, { body, headers: { 'if-match': etag } }), 409, 'optimistic_lock_conflict');
    }
    const current = first.headers.get('etag')!;
    expect((await app.request('PATCH', `${url}/note`, { body: { name: 'Notes' }, headers: { 'if-match': `W/${current}` } })).status).toBe(200);
    expect((await app.request('PATCH', `${url}/note`, { body: { name: 'Notes 2' }, headers: { 'if-match': '*' } })).status).toBe(200);
  });

  test('two concurrent column adds without If-Match are both kept', async () => {
    const { url, table } = await newTable();
    const replies = await Promise.all(['North', 'South', 'East', 'West'].map((name) => app.request('POST', url, { body: { name } })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const final = await app.request('GET', `${TABLES}/${table.id}`);
    expect(final.body.columns_json.map((c: { id: string }) => c.id).slice(3).sort()).toEqual(['east', 'north', 'south', 'west']);
    expect(final.body.data_version).toBe(table.data_version + 4);
  });

  test('concurrent adds with the same If-Match: exactly one wins', async () => {
    const { url, etag } = await newTable();
    const replies = await Promise.all(['One', 'Two'].map((name) => app.request('POST', url, { body: { name }, headers: { 'if-match': etag } })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});

describe('reorder', () => {
  test('the full list of ids sets the order', async () => {
    const { url } = await newTable();
    const reply = await app.request('PUT', `${url}/order`, { body: { order: ['note', 'total', 'customer'] } });
    expect(reply.status).toBe(200);
    expect(reply.body.columns_json.map((c: { id: string }) => c.id)).toEqual(['note', 'total', 'customer']);
  });

  test('missing, repeated and unknown ids', async () => {
    const { url } = await newTable();
    const missing = expectError(await app.request('PUT', `${url}/order`, { body: { order: ['note', 'total'] } }), 400, 'invalid_input');
    expect(missing.message).toContain('missing: customer');
    expectError(await app.request('PUT', `${url}/order`, { body: { order: ['note', 'note', 'total', 'customer'] } }), 400, 'invalid_input');
    expectError(await app.request('PUT', `${url}/order`, { body: { order: ['note', 'total', 'customer', 'ghost'] } }), 404, 'column_not_found');
    expectError(await app.request('PUT', `${url}/order`, { body: { order: [] } }), 400, 'invalid_input');
    expectError(await app.request('PUT', `${TABLES}/tbl_nope/columns/order`, { body: { order: ['a'] } }), 404, 'table_not_found');
  });
});

describe('update column', () => {
  test('each field; searchable changes move fts_version', async () => {
    const { url, table } = await newTable();
    const reply = await app.request('PATCH', `${url}/customer`, {
      body: { name: 'Client', type: 'enum', options: ['acme', 'beta'], required: true, description: 'who', instruction: 'the buyer', searchable: false },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.columns_json[1]).toEqual({
      id: 'customer', name: 'Client', type: 'enum', options: ['acme', 'beta'], required: true, description: 'who', instruction: 'the buyer', searchable: false,
    });
    expect(reply.body.fts_version).toBe(table.fts_version + 1);
    const cleared = await app.request('PATCH', `${url}/customer`, { body: { description: null, instruction: null } });
    expect(cleared.body.columns_json[1]).toMatchObject({ description: null, instruction: null });
    expect(cleared.body.fts_version).toBe(reply.body.fts_version);
  });

  test('errors', async () => {
    const { url } = await newTable();
    expectError(await app.request('PATCH', `${url}/ghost`, { body: { name: 'x' } }), 404, 'column_not_found');
    expectError(await app.request('PATCH', `${url}/customer`, { body: { name: 'Total' } }), 400, 'invalid_input');
    expectError(await app.request('PATCH', `${url}/customer`, { body: { type: 'multi_select' } }), 400, 'invalid_input');
    expectError(await app.request('PATCH', `${url}/customer`, { body: { name: 'n'.repeat(65) } }), 400, 'invalid_input');
    expectError(await app.request('PATCH', `${url}/customer`, { body: { options: Array.from({ length: 501 }, (_, i) => `${i}`) } }), 400, 'invalid_input');
    expectError(await app.request('PATCH', `${TABLES}/tbl_nope/columns/customer`, { body: { name: 'x' } }), 404, 'table_not_found');
  });
});

describe('remove column', () => {
  test('drops it, and from merge columns and default sort', async () => {
    const { url, table } = await newTable({ merge_columns_json: ['customer', 'total'], default_sort: 'total.desc' });
    const reply = await app.request('DELETE', `${url}/total`);
    expect(reply.status).toBe(200);
    expect(reply.body.columns_json.map((c: { id: string }) => c.id)).toEqual(['customer', 'note']);
    expect(reply.body.merge_columns_json).toEqual(['customer']);
    expect(reply.body.default_sort).toBeNull();
    expect(reply.body.data_version).toBe(table.data_version + 1);
    const again = await app.request('DELETE', `${url}/customer`);
    expect(again.body.merge_columns_json).toBeNull();
    expect(again.body.fts_version).toBe(table.fts_version + 1);
  });

  test('errors: unknown column, last column, unknown table', async () => {
    const { url } = await newTable();
    expectError(await app.request('DELETE', `${url}/ghost`), 404, 'column_not_found');
    await app.request('DELETE', `${url}/total`);
    await app.request('DELETE', `${url}/customer`);
    expectError(await app.request('DELETE', `${url}/note`), 400, 'invalid_input');
    expectError(await app.request('DELETE', `${TABLES}/tbl_nope/columns/note`), 404, 'table_not_found');
  });
});
