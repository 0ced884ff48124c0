import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ManualClock } from '../../src/lib/clock';
import { expectError, startApp, TEST_STORE, type TestApp } from '../helpers/app';

/** Tests of LMDB's own index entries: PostgreSQL keeps its own indexes, which the tests of its adapter check. */
const lmdbTest = test.skipIf(TEST_STORE === 'postgres');

const TABLES = '/v1/projects/proj_default/tables';
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function makeTable(columns: unknown[], extra: Record<string, unknown> = {}) {
  const reply = await app.request('POST', TABLES, { body: { name: 'Rows test', columns_json: columns, ...extra } });
  expect(reply.status).toBe(201);
  return `${TABLES}/${reply.body.id}`;
}

const INVOICE = [
  { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'EUR', required: true },
  { id: 'vendor', name: 'Vendor' },
  { id: 'due', name: 'Due date', type: 'date' },
  { id: 'status', name: 'Status', type: 'enum', options: ['open', 'paid'], default: 'open' },
];

describe('row CRUD', () => {
  test('create, get, update, delete; names accepted on write, stored by id', async () => {
    const t = await makeTable(INVOICE);
    const created = await app.request('POST', `${t}/rows`, { body: { Amount: '1.234,50 €', 'due date': '2024-05-01', vendor: 'Acme' } });
    expect(created.status).toBe(201);
    const row = created.body;
    expect(row).toEqual({
      id: expect.stringMatching(/^row_[0-9a-z]{26}$/),
      created_at: expect.any(Number),
      updated_at: row.created_at,
      batch_id: null,
      confidence: null,
      needs_review: false,
      amount: 1234.5,
      vendor: 'Acme',
      due: '2024-05-01',
      status: 'open',
    });
    expect((await app.request('GET', `${t}/rows/${row.id}`)).body).toEqual(row);

    const patched = await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: null, status: 'paid' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: row.id, amount: 1234.5, vendor: null, status: 'paid', created_at: row.created_at });
    expect(patched.body.updated_at).toBeGreaterThanOrEqual(row.updated_at);
    const cleared = await app.request('PATCH', `${t}/rows/${row.id}`, { body: { amount: null } });
    expect(expectError(cleared, 400, 'invalid_input').fields.amount[0].error_key).toBe('required');

    expect((await app.request('DELETE', `${t}/rows/${row.id}`)).body).toEqual({ id: row.id });
    expectError(await app.request('GET', `${t}/rows/${row.id}`), 404, 'row_not_found');
    expectError(await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'x' } }), 404, 'row_not_found');
    expectError(await app.request('DELETE', `${t}/rows/${row.id}`), 404, 'row_not_found');
    expectError(await app.request('GET', `${TABLES}/tbl_nope/rows`), 404, 'table_not_found');
    expectError(await app.request('POST', `${TABLES}/tbl_nope/rows`, { body: {} }), 404, 'table_not_found');
    expectError(await app.request('GET', `${TABLES}/tbl_nope/rows/row_x`), 404, 'table_not_found');
  });

  test('optimistic locking: a row carries an ETag; a stale If-Match is 409 with the current one, a fresh one updates', async () => {
    const t = await makeTable(INVOICE);
    const row = (await app.request('POST', `${t}/rows`, { body: { amount: 5 } })).body;
    const read = await app.request('GET', `${t}/rows/${row.id}`);
    const etag = read.headers.get('etag')!;
    expect(etag).toBe(`"${row.id}.${row.updated_at}"`);
    // Someone else writes the row: even within the same millisecond its ETag moves on.
    const other = await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Globex' } });
    expect(other.headers.get('etag')).not.toBe(etag);
    const stale = await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Acme' }, headers: { 'if-match': etag } });
    expectError(stale, 409, 'optimistic_lock_conflict');
    expect(stale.headers.get('etag')).toBe(other.headers.get('etag'));
    expect((await app.request('GET', `${t}/rows/${row.id}`)).body.vendor).toBe('Globex');
    const fresh = await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Acme' }, headers: { 'if-match': other.headers.get('etag')! } });
    expect(fresh.body.vendor).toBe('Acme');
    expect((await app.request('PATCH', `${t}/rows/${row.id}`, { body: { vendor: 'Initech' }, headers: { 'if-match': '*' } })).status).toBe(200);
  });

  test('row_count is exact and data_version moves by one on every write', async () => {
    const t = await makeTable(INVOICE);
    const version = async () => (await app.request('GET', t)).body as { row_count: number; data_version: number };
    const start = await version();
    const a = await app.request('POST', `${t}/rows`, { body: { amount: 1 } });
    await app.request('POST', `${t}/rows`, { body: { amount: 2 } });
    await app.request('PATCH', `${t}/rows/${a.body.id}`, { body: { amount: 3 } });
    await app.request('DELETE', `${t}/rows/${a.body.id}`);
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 4 }, { amount: 5 }] } });
    const end = await version();
    expect(end.row_count).toBe(3);
    expect(end.data_version).toBe(start.data_version + 5);
    await app.request('POST', `${t}/rows`, { body: {} });
    expect((await version()).data_version).toBe(end.data_version);
  });

  test('a rejected write names every bad column', async () => {
    const t = await makeTable(INVOICE);
    const reply = await app.request('POST', `${t}/rows`, { body: { amount: 'lots', due: 'someday', status: 'lost' } });
    const body = expectError(reply, 400, 'invalid_input');
    expect(Object.keys(body.fields).sort()).toEqual(['amount', 'due', 'status']);
    expect(body.fields.status[0].message).toContain('expected one of "open", "paid"');
    expect((await app.request('GET', t)).body.row_count).toBe(0);
    const both = await app.request('POST', `${t}/rows`, { body: { amount: 1, Amount: 2 } });
    expect(expectError(both, 400, 'invalid_input').fields.Amount[0].error_key).toBe('duplicate');
  });
});

test('column ids that are names of object properties work like any other', async () => {
  const t = await makeTable([
    { id: 'constructor', name: 'Maker' },
    { id: 'toString', name: 'Text form', type: 'number' },
    { id: 'valueOf', name: 'Worth', type: 'number' },
  ]);
  await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ constructor: 'b', toString: 2, valueOf: 20 }, { constructor: 'a', toString: 1 }] } });
  const list = await app.request('GET', `${t}/rows?order=toString.desc&filter=constructor.in.(a,b)`);
  expect(list.body.rows.map((r: { constructor: string }) => r.constructor)).toEqual(['b', 'a']);
  const agg = await app.request('GET', `${t}/rows/aggregate?aggs=sum:valueOf,count:toString&filter=constructor.is.notnull`);
  expect(agg.body).toEqual({ sum_valueOf: 20, count_toString: 2 });
  expect((await app.request('GET', `${t}/columns/constructor/distinct`)).body.values.sort()).toEqual(['a', 'b']);
  const plain = await makeTable([{ id: 'x', name: 'X' }]);
  expectError(await app.request('GET', `${plain}/columns/hasOwnProperty/distinct`), 404, 'column_not_found');
  expectError(await app.request('GET', `${plain}/rows?filter=toString.eq.1`), 400, 'invalid_input');
});

test('a flexible number column that gains text keeps aggregating right', async () => {
  const t = await makeTable([{ id: 'n', name: 'N', type: 'number' }, { id: 'k', name: 'K' }], { strictness: 'flexible' });
  await app.request('POST', `${t}/rows/bulk`, { body: { creates: Array.from({ length: 400 }, (_, i) => ({ n: i, k: i % 2 ? 'odd' : 'even' })) } });
  const ask = async () => (await app.request('GET', `${t}/rows/aggregate?aggs=count:n,sum:n,count_distinct:n&filter=k.eq.odd`)).body;
  expect(await ask()).toEqual({ count_n: 200, sum_n: 40000, count_distinct_n: 200 });
  await app.request('POST', `${t}/rows`, { body: { n: 'many', k: 'odd' } });
  await app.request('POST', `${t}/rows`, { body: { n: 1, k: 'odd' } });
  expect(await ask()).toEqual({ count_n: 202, sum_n: 40001, count_distinct_n: 201 });
  // A string column that gains a value that is not a string (flexible keeps it as given).
  const kinds = async () => (await app.request('GET', `${t}/rows/aggregate?aggs=count:k,count_distinct:k&filter=n.gte.0`)).body;
  expect(await kinds()).toEqual({ count_k: 401, count_distinct_k: 2 });
  expect((await app.request('POST', `${t}/rows`, { body: { n: 0, k: { nested: true } } })).body.k).toEqual({ nested: true });
  expect(await kinds()).toEqual({ count_k: 402, count_distinct_k: 3 });
});

describe('strictness, required, defaults, unknown keys', () => {
  const columns = [
    { id: 'n', name: 'N', type: 'number' },
    { id: 'd', name: 'D', type: 'date' },
    { id: 'b', name: 'B', type: 'boolean' },
    { id: 'r', name: 'R', type: 'string', required: true },
    { id: 'k', name: 'K', type: 'enum', options: ['x', 'y'], required: true, default: 'y' },
  ];
  const input = { n: '1,234.5', d: 'March 5, 2024', b: 'yes', r: 'here' };

  test('strict takes only canonical values and no unknown keys', async () => {
    const t = await makeTable(columns, { strictness: 'strict' });
    const body = expectError(await app.request('POST', `${t}/rows`, { body: { ...input, extra: 1 } }), 400, 'invalid_input');
    expect(Object.keys(body.fields).sort()).toEqual(['b', 'd', 'extra', 'n']);
    const okRow = await app.request('POST', `${t}/rows`, { body: { n: 1234.5, d: '2024-03-05', b: true, r: 'here' } });
    expect(okRow.body).toMatchObject({ n: 1234.5, d: '2024-03-05', b: true, r: 'here', k: 'y' });
    expect(expectError(await app.request('POST', `${t}/rows`, { body: { n: 1 } }), 400, 'invalid_input').fields).toHaveProperty('r');
  });

  test('balanced converts what is unambiguous and drops unknown keys', async () => {
    const t = await makeTable(columns, { strictness: 'balanced' });
    const reply = await app.request('POST', `${t}/rows`, { body: { ...input, extra: 1 } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ n: 1234.5, d: '2024-03-05', b: true, r: 'here', k: 'y' });
    expect(reply.body).not.toHaveProperty('extra');
    expectError(await app.request('POST', `${t}/rows`, { body: { ...input, n: '1,234' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${t}/rows`, { body: { n: 1 } }), 400, 'invalid_input');
  });

  test('flexible keeps what it cannot convert and lets required values be missing', async () => {
    const t = await makeTable(columns, { strictness: 'flexible' });
    const reply = await app.request('POST', `${t}/rows`, { body: { n: 'lots', d: '03/04/2024', b: 'maybe' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ n: 'lots', d: '2024-03-04', b: 'maybe', r: null, k: 'y' });
  });
});

describe('bulk', () => {
  test('1000 of each is accepted, 1001 is 400', async () => {
    const t = await makeTable(INVOICE);
    const creates = Array.from({ length: 1000 }, (_, i) => ({ amount: i }));
    const reply = await app.request('POST', `${t}/rows/bulk`, { body: { creates } });
    expect(reply.status).toBe(200);
    expect(reply.body.created).toHaveLength(1000);
    const ids = reply.body.created.map((r: { id: string }) => r.id);
    const both = await app.request('POST', `${t}/rows/bulk`, {
      body: { updates: ids.map((id: string) => ({ id, data: { vendor: 'V' } })), deletes: ids },
    });
    expect(both.status).toBe(200);
    expect(both.body.updated).toHaveLength(1000);
    expect(both.body.deleted).toHaveLength(1000);
    for (const key of ['creates', 'deletes', 'updates']) {
      const items = Array.from({ length: 1001 }, (_, i) => (key === 'creates' ? { amount: i } : key === 'deletes' ? `row_${i}` : { id: `row_${i}`, data: {} }));
      expect(Object.keys(expectError(await app.request('POST', `${t}/rows/bulk`, { body: { [key]: items } }), 400, 'invalid_input').fields)).toEqual([key]);
    }
  });

  test('one bad item fails the whole request, naming it', async () => {
    const t = await makeTable(INVOICE);
    const seed = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 1 }, { amount: 2 }, { amount: 3 }] } });
    const [a, b, c] = seed.body.created.map((r: { id: string }) => r.id);
    const reply = await app.request('POST', `${t}/rows/bulk`, {
      body: {
        creates: [{ amount: 10 }, { amount: 11 }, { amount: 12 }, { amount: 'ten' }],
        updates: [{ id: a, data: { amount: 5 } }, { id: b, data: {} }, { id: c, data: { amount: 'x' } }, { id: 'row_missing', data: {} }],
        deletes: [a, 'row_gone'],
      },
    });
    const body = expectError(reply, 400, 'invalid_input');
    expect(Object.keys(body.fields).sort()).toEqual(['creates[3].amount', 'deletes[1]', 'updates[2].data.amount', 'updates[3].id']);
    const after = await app.request('GET', `${t}/rows?order=amount.asc`);
    expect(after.body.rows.map((r: { amount: number }) => r.amount)).toEqual([1, 2, 3]);
  });
});

describe('insert modes (bulk creates)', () => {
  const columns = [
    { id: 'sku', name: 'SKU' },
    { id: 'qty', name: 'Qty', type: 'number' },
  ];
  const amounts = async (t: string) =>
    (await app.request('GET', `${t}/rows?order=sku.asc,qty.asc&limit=100`)).body.rows.map((r: { sku: string; qty: number }) => `${r.sku}:${r.qty}`);

  test('append adds everything', async () => {
    const t = await makeTable(columns, { insert_mode: 'append' });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1 }, { sku: 'a', qty: 1 }] } });
    expect(await amounts(t)).toEqual(['a:1', 'a:1']);
  });

  test('dedup skips rows equal on the merge columns (all columns when none)', async () => {
    const t = await makeTable(columns, { insert_mode: 'dedup' });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1 }, { sku: 'a', qty: 1 }, { sku: 'a', qty: 2 }] } });
    const second = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 1 }] } });
    expect(second.body.created).toHaveLength(1);
    expect(await amounts(t)).toEqual(['a:1', 'a:2', 'b:1']);
    const bySku = await makeTable(columns, { insert_mode: 'dedup', merge_columns_json: ['sku'] });
    await app.request('POST', `${bySku}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1 }, { sku: 'a', qty: 2 }, { sku: null, qty: 3 }, { sku: null, qty: 4 }] } });
    expect(await amounts(bySku)).toEqual(['a:1', 'null:3']);
  });

  test('merge updates the row matching on the merge columns and adds the rest', async () => {
    const t = await makeTable(columns, { insert_mode: 'merge', merge_columns_json: ['sku'] });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1 }] } });
    const reply = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 5 }, { sku: 'c', qty: 1 }] } });
    expect(reply.body.created.map((r: { sku: string }) => r.sku)).toEqual(['c']);
    expect(reply.body.updated.map((r: { sku: string; qty: number }) => `${r.sku}:${r.qty}`)).toEqual(['a:5']);
    expect(await amounts(t)).toEqual(['a:5', 'b:1', 'c:1']);
    expect((await app.request('GET', t)).body.row_count).toBe(3);
  });

  test('merge changes only the values given, never resetting others to their defaults', async () => {
    const withDefault = [...columns, { id: 'state', name: 'State', type: 'enum', options: ['new', 'seen'], default: 'new' }];
    const t = await makeTable(withDefault, { insert_mode: 'merge', merge_columns_json: ['sku'] });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1, state: 'seen' }] } });
    const reply = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 2 }] } });
    expect(reply.body.updated).toEqual([expect.objectContaining({ sku: 'a', qty: 2, state: 'seen' })]);
    const fresh = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'b', qty: 1 }] } });
    expect(fresh.body.created).toEqual([expect.objectContaining({ sku: 'b', state: 'new' })]);
  });

  test('a list column matches as any other: equal lists, in the same order, and no list', async () => {
    const listed = [
      { id: 'tags', name: 'Tags', type: 'multi_select', options: ['a', 'b', 'c'] },
      { id: 'qty', name: 'Qty', type: 'number' },
    ];
    const byTags = async (t: string) =>
      (await app.request('GET', `${t}/rows?order=created_at.asc&limit=100`)).body.rows.map((r: { tags: string[] | null; qty: number }) => `${JSON.stringify(r.tags)}:${r.qty}`);
    const merged = await makeTable(listed, { insert_mode: 'merge', merge_columns_json: ['tags'] });
    await app.request('POST', `${merged}/rows/bulk`, { body: { creates: [{ tags: ['a', 'b'], qty: 1 }, { tags: ['c'], qty: 1 }, { tags: null, qty: 1 }] } });
    const reply = await app.request('POST', `${merged}/rows/bulk`, {
      body: { creates: [{ tags: ['a', 'b'], qty: 2 }, { tags: ['b', 'a'], qty: 3 }, { qty: 4 }, { tags: ['c'], qty: 5 }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.updated.map((r: { qty: number }) => r.qty)).toEqual([2, 4, 5]);
    expect(reply.body.created.map((r: { qty: number }) => r.qty)).toEqual([3]);
    expect(await byTags(merged)).toEqual(['["a","b"]:2', '["c"]:5', 'null:4', '["b","a"]:3']);
    // Keyed on every column, the list first.
    const deduped = await makeTable(listed, { insert_mode: 'dedup' });
    await app.request('POST', `${deduped}/rows/bulk`, { body: { creates: [{ tags: ['a'], qty: 1 }, { tags: ['a'], qty: 1 }, { qty: 1 }, { qty: 1 }, { tags: ['a'], qty: 2 }] } });
    expect(await byTags(deduped)).toEqual(['["a"]:1', 'null:1', '["a"]:2']);
  });

  test('replace swaps every row for the new ones in one transaction', async () => {
    const t = await makeTable(columns, { insert_mode: 'replace' });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 1 }, { sku: 'c', qty: 1 }] } });
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'x', qty: 9 }] } });
    expect(await amounts(t)).toEqual(['x:9']);
    expect((await app.request('GET', t)).body.row_count).toBe(1);
    expect((await app.request('GET', `${t}/rows?filter=sku.eq.a`)).body.count).toBe(0);
    const bad = await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ sku: 'y', qty: 'many' }] } });
    expectError(bad, 400, 'invalid_input');
    expect(await amounts(t)).toEqual(['x:9']);
  });
});

describe('column changes reach the rows', () => {
  test('removing a column removes its values; re-adding the id starts empty; the removed slot is cleaned up', async () => {
    const t = await makeTable(INVOICE);
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 1, vendor: 'A' }, { amount: 2, vendor: 'B' }] } });
    const id = (await app.request('GET', t)).body.id;
    const record = async () => (await app.services.port.tables.get(id))!;
    const vendorSlot = (await record()).slots.vendor!;
    await app.request('DELETE', `${t}/columns/vendor`);
    const rows = (await app.request('GET', `${t}/rows`)).body.rows;
    expect(rows.every((r: object) => !('vendor' in r))).toBe(true);
    expectError(await app.request('GET', `${t}/rows?filter=vendor.eq.A`), 400, 'invalid_input');
    await app.request('POST', `${t}/columns`, { body: { id: 'vendor', name: 'Vendor' } });
    expect((await app.request('GET', `${t}/rows?filter=vendor.is.null`)).body.count).toBe(2);
    expect((await app.request('GET', `${t}/rows?filter=vendor.eq.A`)).body.count).toBe(0);
    expect((await record()).slots.vendor).not.toBe(vendorSlot);
    expect((await record()).dropped_slots).toEqual([vendorSlot]);
    await app.services.tables.cleanDroppedSlots();
    expect((await record()).dropped_slots).toEqual([]);
  });

  lmdbTest("a removed column's index entries are deleted by the clean-up", async () => {
    const t = await makeTable(INVOICE);
    await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 1, vendor: 'A' }, { amount: 2, vendor: 'B' }] } });
    const table = (await app.request('GET', t)).body;
    const record = app.services.tablesStore.get(table.id)!;
    const vendorSlot = record.slots.vendor!;
    await app.request('DELETE', `${t}/columns/vendor`);
    await app.request('POST', `${t}/columns`, { body: { id: 'vendor', name: 'Vendor' } });
    const count = () => app.services.rowsStore.countIndex(record.seq, vendorSlot, null, null, 1000);
    expect(count()).toBe(2);
    expect(await app.services.tables.cleanDroppedSlots()).toBe(2);
    expect(count()).toBe(0);
    expect(app.services.tablesStore.get(table.id)!.dropped_slots).toEqual([]);
  });

  test('changing a column type keeps stored values; new writes follow the new type', async () => {
    const t = await makeTable([{ id: 'code', name: 'Code' }]);
    await app.request('POST', `${t}/rows`, { body: { code: 'A-1' } });
    await app.request('PATCH', `${t}/columns/code`, { body: { type: 'number' } });
    const rows = (await app.request('GET', `${t}/rows`)).body.rows;
    expect(rows[0].code).toBe('A-1');
    expectError(await app.request('POST', `${t}/rows`, { body: { code: 'B-2' } }), 400, 'invalid_input');
    expect((await app.request('POST', `${t}/rows`, { body: { code: '42' } })).body.code).toBe(42);
    expect((await app.request('GET', `${t}/rows?filter=code.gt.10`)).body.count).toBe(1);
  });

  test('a purged table is gone, 72 hours after its deletion', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock });
    try {
      const created = await local.request('POST', TABLES, { body: { name: 'Purged', columns_json: INVOICE } });
      const t = `${TABLES}/${created.body.id}`;
      await local.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 1 }, { amount: 2 }] } });
      await local.request('DELETE', t);
      clock.advance(71 * 3600 * 1000);
      expect(await local.services.tables.purgeDeleted()).toEqual([]);
      expect(await local.services.port.tables.get(created.body.id)).toMatchObject({ id: created.body.id });
      clock.advance(2 * 3600 * 1000);
      expect(await local.services.tables.purgeDeleted()).toEqual([created.body.id]);
      expect(await local.services.port.tables.get(created.body.id)).toBeUndefined();
      expectError(await local.request('POST', `${t}/restore`), 404, 'table_not_found');
    } finally {
      await local.close();
    }
  });

  lmdbTest('a purged table takes its rows and index entries with it', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock });
    try {
      const created = await local.request('POST', TABLES, { body: { name: 'Purged', columns_json: INVOICE } });
      const t = `${TABLES}/${created.body.id}`;
      await local.request('POST', `${t}/rows/bulk`, { body: { creates: [{ amount: 1 }, { amount: 2 }] } });
      const seq = local.services.tablesStore.get(created.body.id)!.seq;
      await local.request('DELETE', t);
      clock.advance(73 * 3600 * 1000);
      expect(await local.services.tables.purgeDeleted()).toEqual([created.body.id]);
      expect([...local.services.rowsStore.scanRows(seq, false)]).toHaveLength(0);
      expect(local.services.rowsStore.countIndex(seq, 1, null, null, 10)).toBe(0);
    } finally {
      await local.close();
    }
  });
});
