/**
 * Every answer of a session that touches every operation of the reference OpenAPI (and its error
 * statuses) is checked against the reference's response schemas; the places where rowsmith knowingly
 * differs are the allow-list in test/helpers/reference-shapes.ts, each with its reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AddressPolicy } from '../../src/lib/address';
import { startApp, type Reply, type TestApp } from '../helpers/app';
import { KNOWN_DIFFERENCES, referenceShapes, type KnownDifference } from '../helpers/reference-shapes';

const ORG = 'org_default';
const P = '/v1/projects/proj_default';
/** Null without the reference beside the repository: then every test here is skipped and `shapes` goes unused. */
const reference = referenceShapes();
const shapes = reference!;

const problems: string[] = [];
const explained = new Set<KnownDifference>();
const operationsSeen = new Set<string>();

let app: TestApp;
/** The test client, with every answer checked against the reference as it arrives. */
async function call(method: string, path: string, init: Parameters<TestApp['request']>[2] = {}): Promise<Reply> {
  const reply = await app.request(method, path, init);
  const result = shapes.check(method, path, reply.status, reply.headers.get('content-type') ?? '', reply.body);
  problems.push(...result.problems);
  for (const known of result.explained) explained.add(known);
  if (result.operation) operationsSeen.add(result.operation);
  return reply;
}

/** A call the session expects to succeed: an error envelope would fit the reference too and hide a skipped check. */
async function ok(method: string, path: string, init: Parameters<TestApp['request']>[2] = {}): Promise<Reply> {
  const reply = await call(method, path, init);
  expect({ call: `${method} ${path}`, status: reply.status < 300 ? 'success' : reply.status }).toEqual({ call: `${method} ${path}`, status: 'success' });
  return reply;
}

beforeAll(async () => {
  if (!reference) return;
  app = await startApp({
    // Webhook urls on a name that resolves to loopback, where nothing listens: tests fail fast.
    network: { resolver: async () => ['127.0.0.1'], random: () => 0.5 },
    config: { outboundPolicy: AddressPolicy.parse('loopback'), webhookTimeoutMs: 1000, maxBodyBytes: 64 * 1024 },
  });
});
afterAll(() => app?.close());

describe.skipIf(!reference)('a session over every reference operation', () => {
  test('webhooks', async () => {
    const base = `/v1/organizations/${ORG}/webhooks`;
    const created = await ok('POST', base, { body: { url: 'https://hooks.test:9/in', events: ['batch.complete', 'ping'], name: 'Ops' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await ok('GET', base);
    await ok('GET', `${base}/${id}`);
    await ok('PATCH', `${base}/${id}`, { body: { name: 'Ops 2' } });
    await ok('POST', `${base}/${id}/test`);
    await ok('GET', `${base}/${id}/deliveries`);
    await ok('POST', `${base}/${id}/rotate-secret`);
    expect((await ok('DELETE', `${base}/${id}`)).status).toBe(200);
  });

  test('tables, columns and rows', async () => {
    const created = await ok('POST', `${P}/tables`, {
      body: {
        name: 'Orders',
        columns_json: [
          { id: 'order_id', name: 'Order ID', type: 'string', required: true },
          { id: 'total', name: 'Total', type: 'currency', currency_code: 'EUR' },
          { id: 'status', name: 'Status', type: 'enum', options: ['open', 'paid'] },
          { id: 'rush', name: 'Rush', type: 'boolean' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const t = `${P}/tables/${created.body.id}`;
    await ok('GET', `${P}/tables`);
    await ok('GET', t);
    await ok('PATCH', t, { body: { instruction: 'One row per order' } });
    await ok('POST', `${t}/columns`, { body: { id: 'placed', name: 'Placed', type: 'date' } });
    await ok('PATCH', `${t}/columns/placed`, { body: { description: 'Order date' } });
    await ok('PUT', `${t}/columns/order`, { body: { order: ['placed', 'order_id', 'total', 'status', 'rush'] } });

    const row = await ok('POST', `${t}/rows`, { body: { order_id: 'A-1', total: 10, status: 'open', rush: true } });
    await ok('POST', `${t}/rows/bulk`, { body: { creates: [{ order_id: 'A-2', total: 5, status: 'paid', rush: false }] } });
    await ok('GET', `${t}/rows?limit=10&order=total.desc`);
    await ok('GET', `${t}/rows/${row.body.id}`);
    await ok('PATCH', `${t}/rows/${row.body.id}`, { body: { total: 12 } });
    await ok('GET', `${t}/rows/aggregate?aggs=count,sum:total`);
    await ok('GET', `${t}/columns/status/distinct`);
    await ok('GET', `${t}/columns/rush/distinct`);
    await ok('DELETE', `${t}/rows/${row.body.id}`);
    await ok('DELETE', `${t}/columns/placed`);

    const copy = await ok('POST', `${t}/duplicate`, { body: { name: 'Orders copy', slug: 'orders-copy' } });
    await ok('DELETE', `${P}/tables/${copy.body.id}`);
    await ok('POST', `${P}/tables/${copy.body.id}/restore`, { body: {} });

    const exported = await ok('GET', `${t}/export?format=csv`);
    for (let i = 0; i < 50 && exported.body.status === 'processing'; i++) {
      await Bun.sleep(20);
      if ((await ok('GET', `${P}/exports/${exported.body.id}`)).body.status !== 'processing') break;
    }
  });

  test('extraction, batches and schema suggestion', async () => {
    const table = await ok('POST', `${P}/tables`, { body: { name: 'Invoices', columns_json: [{ id: 'number', name: 'Invoice number' }, { id: 'total', name: 'Total', type: 'number' }] } });
    const text = 'Invoice number: INV-1\nTotal: 20';
    const intoTable = await ok('POST', `${P}/tables/${table.body.id}/extract`, { body: { text } });
    expect(intoTable.body.status).toBe('complete');
    const stream = await ok('POST', `${P}/tables/${table.body.id}/extract-stream`, { body: { text } });
    // The stream's `batch` event (and the webhook payloads) are the batch resource too, past Elysia's response schemas.
    const batchEvent = JSON.parse((stream.body as string).match(/^event: batch\ndata: (.*)$/m)![1]!);
    expect(batchEvent.schema_json.columns).toEqual([{ name: 'Invoice number', type: 'string' }, { name: 'Total', type: 'number' }]);
    const schema = { columns: [{ name: 'Invoice number' }, { name: 'Total', type: 'number', description: 'amount due' }] };
    const project = await ok('POST', `${P}/extract`, { body: { text, schema } });
    await ok('POST', `${P}/extract-stream`, { body: { text } });
    const inferred = await ok('POST', `${P}/extract`, { body: { text } });
    const nothingToInfer = await ok('POST', `${P}/extract`, { body: { text: 'a few words of prose' } });
    expect(nothingToInfer.body.status).toBe('failed');

    await ok('GET', `${P}/batches`);
    await ok('GET', `${P}/batches?select=id,schema_json`);
    for (const batchId of [intoTable.body.batch_id, project.body.batch_id, inferred.body.batch_id, nothingToInfer.body.batch_id]) {
      const batch = await ok('GET', `${P}/batches/${batchId}`);
      // The reference's closed schema: nothing but these four on a batch's columns.
      for (const column of batch.body.schema_json.columns) expect(Object.keys(column).every((k) => ['name', 'type', 'description', 'instruction'].includes(k))).toBe(true);
      for (const format of ['csv', 'json', 'xlsx']) await ok('GET', `${P}/batches/${batchId}/download/${format}`);
    }
    await ok('POST', `${P}/suggest-schema`, { body: { text } });
  });

  test('templates', async () => {
    const own = { name: 'Field reports', category: 'Operations', columns_json: [{ id: 'site', name: 'Site' }, { id: 'visited', name: 'Visited', type: 'date' }] };
    const created = await ok('POST', '/v1/table-templates', { body: own });
    expect(created.status).toBe(201);
    await ok('GET', '/v1/table-templates/mine');
    await ok('PATCH', `/v1/table-templates/${created.body.id}`, { body: { description: 'Weekly' } });
    await ok('GET', `${P}/table-templates`);
    await ok('GET', `${P}/table-templates/${created.body.id}`);
    await ok('POST', `${P}/table-templates/${created.body.id}/use`, { body: { name: 'Reports' } });
    await ok('DELETE', `/v1/table-templates/${created.body.id}`);
  });

  test("rowsmith's own endpoints", async () => {
    for (const path of ['/healthz', '/readyz', '/swagger/json', '/v1/me']) await ok('GET', path);
  });

  test('the error statuses', async () => {
    await call('GET', '/v1/no-such-route');
    await call('POST', `${P}/tables`, { body: { name: '' } });
    await call('GET', `${P}/tables`, { key: null });
    const read = await app.services.accounts.createKey({ organizationId: ORG, role: 'read' });
    await call('POST', `${P}/tables`, { key: read.secret, body: { name: 'x', columns_json: [{ name: 'a' }] } });
    await call('GET', `${P}/tables/tbl_missing`);
    await call('POST', `${P}/tables`, { raw: JSON.stringify({ name: 'x'.repeat(70 * 1024) }), headers: { 'content-type': 'application/json' } });
    await call('POST', `${P}/tables`, { raw: '<x/>', headers: { 'content-type': 'text/xml' } });
    await call('POST', `${P}/extract`, { raw: 'text=a', headers: { 'content-type': 'text/plain' } });
  });
});

describe.skipIf(!reference)('the check itself', () => {
  test('every answer fits the reference, but for the listed known differences', () => {
    expect(problems).toEqual([]);
  });

  test('every reference operation was checked', () => {
    expect(shapes.operations().filter((op) => !operationsSeen.has(op))).toEqual([]);
  });

  test('every known difference still occurs (a fixed one leaves the list)', () => {
    expect(KNOWN_DIFFERENCES.filter((d) => !explained.has(d)).map((d) => d.reason)).toEqual([]);
  });

  test('the check catches what does not fit: an extra field, a missing one, a wrong type', () => {
    const batch = { columns: [{ name: 'a', type: 'string', id: 'a' }], strictness: 'strict' };
    const extra = shapes.check('GET', `${P}/batches/batch_1?x=1`, 200, 'application/json', { schema_json: batch });
    expect(extra.problems.join('\n')).toContain('/schema_json/columns/0 must NOT have additional properties (id)');
    const missing = shapes.check('POST', `${P}/suggest-schema`, 200, 'application/json', { columns: [] });
    expect(missing.problems.join('\n')).toContain("must have required property 'confidence'");
    const unknown = shapes.check('GET', '/v1/nowhere', 200, 'application/json', {});
    expect(unknown.problems).toEqual(['GET /v1/nowhere is neither in the reference nor a listed rowsmith addition']);
    const distinct = shapes.check('GET', `${P}/tables/t/columns/c/distinct`, 200, 'application/json', { values: ['a', true, [1]] });
    // The boolean is the known difference; the array is not, and neither are its failed branches.
    expect(distinct.problems).toContain('GET /v1/projects/{project_id}/tables/{table_id}/columns/{col_id}/distinct 200: /values/2 must match exactly one schema in oneOf');
    expect(distinct.problems.filter((p) => !p.includes(' /values/2 '))).toEqual([]);
    expect(distinct.explained.map((d) => d.keyword)).toEqual(['oneOf']);
    expect(shapes.check('GET', '/v1/me', 200, 'application/json', {}).problems).toEqual([]);
  });
});
