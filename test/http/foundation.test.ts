import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Gateway } from '../../src/http/gateway';
import { ManualClock } from '../../src/lib/clock';
import { createLogger } from '../../src/lib/log';
import { ADMIN_KEY, expectError, startApp, TEST_STORE, testConfig, type Reply, type TestApp } from '../helpers/app';

const TABLES = '/v1/projects/proj_default/tables';
const tableBody = (name = 'Invoices') => ({ name, columns_json: [{ id: 'amount', name: 'Amount', type: 'number' }] });

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

describe('authentication', () => {
  test('ApiKey and Bearer schemes both work; /v1/me describes the key', async () => {
    for (const scheme of ['ApiKey', 'Bearer', 'apikey', 'bearer']) {
      const reply = await app.request('GET', '/v1/me', { headers: { authorization: `${scheme} ${ADMIN_KEY}` } });
      expect(reply.status).toBe(200);
      expect(reply.body.key.role).toBe('admin');
      expect(reply.body.organization).toEqual({ id: 'org_default', name: 'Default organization' });
      expect(reply.body.projects.map((p: { id: string }) => p.id)).toEqual(['proj_default']);
    }
  });

  test('missing, malformed and unknown keys are 401 unauthorized', async () => {
    expectError(await app.request('GET', '/v1/me', { key: null }), 401, 'unauthorized');
    expectError(await app.request('GET', '/v1/me', { headers: { authorization: ADMIN_KEY } }), 401, 'unauthorized');
    expectError(await app.request('GET', '/v1/me', { headers: { authorization: `Basic ${ADMIN_KEY}` } }), 401, 'unauthorized');
    expectError(await app.request('GET', '/v1/me', { key: 'rsk_not_a_real_key_at_all' }), 401, 'unauthorized');
    expectError(await app.request('GET', TABLES, { key: 'rsk_not_a_real_key_at_all' }), 401, 'unauthorized');
  });

  test('a revoked key is 401 from the moment it is revoked', async () => {
    const { record, secret } = await app.services.accounts.createKey({ organizationId: 'org_default' });
    expect((await app.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    await app.services.accounts.revokeKey(record.id);
    expectError(await app.request('GET', '/v1/me', { key: secret }), 401, 'unauthorized');
  });

  test('an expired key is 401', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock });
    try {
      const { secret } = await local.services.accounts.createKey({ organizationId: 'org_default', expiresAt: clock.now() + 60_000 });
      expect((await local.request('GET', '/v1/me', { key: secret })).status).toBe(200);
      clock.advance(60_000);
      expectError(await local.request('GET', '/v1/me', { key: secret }), 401, 'unauthorized');
    } finally {
      await local.close();
    }
  });

  test("another organization's key sees 404 for our project and organization", async () => {
    const other = await app.services.accounts.createOrg({ name: 'Other' });
    const { secret } = await app.services.accounts.createKey({ organizationId: other.id, role: 'admin' });
    expectError(await app.request('GET', TABLES, { key: secret }), 404, 'not_found');
    expectError(await app.request('POST', TABLES, { key: secret, body: tableBody() }), 404, 'not_found');
    expectError(await app.request('GET', '/v1/projects/proj_nope/tables'), 404, 'not_found');
  });

  test('a key limited to some projects sees only those', async () => {
    const second = await app.services.accounts.createProject({ organizationId: 'org_default', name: 'Second' });
    const { secret } = await app.services.accounts.createKey({ organizationId: 'org_default', projectIds: [second.id] });
    expect((await app.request('GET', `/v1/projects/${second.id}/tables`, { key: secret })).status).toBe(200);
    expectError(await app.request('GET', TABLES, { key: secret }), 404, 'not_found');
    const me = await app.request('GET', '/v1/me', { key: secret });
    expect(me.body.projects.map((p: { id: string }) => p.id)).toEqual([second.id]);
  });

  test('a read key reads but cannot write (403 forbidden)', async () => {
    const { secret } = await app.services.accounts.createKey({ organizationId: 'org_default', role: 'read' });
    expect((await app.request('GET', TABLES, { key: secret })).status).toBe(200);
    expectError(await app.request('POST', TABLES, { key: secret, body: tableBody() }), 403, 'forbidden');
  });

  test('a suspended organization gets 403 org_suspended until reinstated', async () => {
    const org = await app.services.accounts.createOrg({ name: 'Suspendable' });
    const { secret } = await app.services.accounts.createKey({ organizationId: org.id });
    await app.services.accounts.setSuspended(org.id, true);
    expectError(await app.request('GET', '/v1/me', { key: secret }), 403, 'org_suspended');
    await app.services.accounts.setSuspended(org.id, false);
    expect((await app.request('GET', '/v1/me', { key: secret })).status).toBe(200);
  });

  test('a monthly quota ends in 402 api_request_limit_exceeded, and the count survives a flush', async () => {
    const org = await app.services.accounts.createOrg({ name: 'Metered', monthlyRequestQuota: 3 });
    const { secret } = await app.services.accounts.createKey({ organizationId: org.id });
    for (let i = 0; i < 2; i++) expect((await app.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    await app.services.usage.flush();
    expect(await app.services.usage.used(org.id)).toBe(2);
    expect((await app.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    expectError(await app.request('GET', '/v1/me', { key: secret }), 402, 'api_request_limit_exceeded');
    await app.services.accounts.setQuota(org.id, null);
    expect((await app.request('GET', '/v1/me', { key: secret })).status).toBe(200);
  });

  test('only /healthz, /readyz and the OpenAPI document are public', async () => {
    expect((await app.request('GET', '/healthz', { key: null })).body).toEqual({ status: 'ok' });
    expect((await app.request('GET', '/readyz', { key: null })).body).toEqual({ status: 'ready' });
    const doc = await app.request('GET', '/swagger/json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.info.version).toBe('1.0.0');
    expect(doc.body.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(Object.keys(doc.body.paths)).toContain('/v1/projects/{project_id}/tables/{table_id}/columns/order');
    expect((await app.request('GET', '/swagger', { key: null })).status).toBe(200);
  });
});

describe('error envelope', () => {
  test('validation failures are 400 invalid_input with fields', async () => {
    const reply = await app.request('POST', TABLES, { body: { name: '', columns_json: [] } });
    const body = expectError(reply, 400, 'invalid_input');
    expect(Object.keys(body.fields).sort()).toEqual(['columns_json', 'name']);
    expect(body.fields.name[0]).toMatchObject({ path: 'name', error_key: 'invalid' });
  });

  test('query parameters are named in fields', async () => {
    const body = expectError(await app.request('GET', `${TABLES}?limit=0`), 400, 'invalid_input');
    expect(body.fields.limit[0].message).toContain('greater or equal to 1');
    expectError(await app.request('GET', `${TABLES}?limit=101`), 400, 'invalid_input');
    expect(expectError(await app.request('GET', `${TABLES}?page=abc`), 400, 'invalid_input').fields).toHaveProperty('page');
  });

  test('malformed JSON is 400, a non-JSON body is 415, an oversized one 413', async () => {
    const bad = expectError(await app.request('POST', TABLES, { raw: '{"name": ', headers: { 'content-type': 'application/json' } }), 400, 'invalid_input');
    expect(bad.message).toContain('not valid JSON');
    expectError(await app.request('POST', TABLES, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    expectError(await app.request('POST', TABLES, { raw: '<x/>', headers: { 'content-type': 'text/xml' } }), 415, 'unsupported_media_type');

    const small = await startApp({ config: { maxBodyBytes: 2048 } });
    try {
      const big = JSON.stringify({ name: 'x'.repeat(4000), columns_json: [] });
      expectError(await small.request('POST', TABLES, { raw: big, headers: { 'content-type': 'application/json' } }), 413, 'content_too_large');
      // A chunked body has no length to check up front; it is cut off while it is read.
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      expectError(await small.request('POST', TABLES, { raw: stream, headers: { 'content-type': 'application/json' } }), 413, 'content_too_large');
    } finally {
      await small.close();
    }
  });

  test('U+0000 in a JSON string or key, a URL or a form field is 400 naming where, on both stores', async () => {
    const table = (await app.request('POST', TABLES, { body: { name: 'Nul', columns_json: [{ id: 's', name: 'S' }, { id: 'tags', name: 'Tags', type: 'array' }] } })).body.id;
    const rows = `${TABLES}/${table}/rows`;
    const refused = async (reply: Promise<Reply>, where: string) => {
      const body = expectError(await reply, 400, 'invalid_input');
      expect(body.fields[where]).toEqual([expect.objectContaining({ path: where, error_key: 'invalid_character' })]);
    };
    await refused(app.request('POST', TABLES, { body: { name: 'a\u0000b', columns_json: [] } }), 'name');
    await refused(app.request('POST', rows, { body: { s: 'x\u0000' } }), 's');
    await refused(app.request('POST', `${rows}/bulk`, { body: { creates: [{ s: 'fine' }, { tags: ['ok', 'x\u0000y'] }] } }), 'creates[1].tags[1]');
    await refused(app.request('POST', rows, { body: { 's\u0000': 'x' } }), 's\u0000');
    await refused(app.request('GET', `${TABLES}/tbl%00x`), 'url');
    await refused(app.request('GET', `${rows}?filter=s.eq.a%00b`), 'url');
    await refused(app.request('GET', `${rows}?q=a%00`), 'url');
    const fields = new FormData();
    fields.append('text', 'Name: Ada');
    fields.append('table_id', `${table}\u0000`);
    await refused(app.request('POST', '/v1/projects/proj_default/extract', { raw: fields }), 'table_id');
    expect((await app.request('GET', rows)).body.count).toBe(0);
    // A backslash and "u0000" are six characters of text like any others.
    expect((await app.request('POST', rows, { raw: '{"s":"\\\\u0000"}', headers: { 'content-type': 'application/json' } })).body.s).toBe('\\u0000');
  });

  test('unknown routes are 404 not_found', async () => {
    expectError(await app.request('GET', '/v1/nothing-here'), 404, 'not_found');
    expectError(await app.request('GET', '/nope', { key: null }), 404, 'not_found');
  });

  test('an unexpected failure is 500 with no internals', async () => {
    const local = await startApp();
    // A real unexpected failure: every read throws deep inside the store.
    await local.breakStore();
    const reply = await local.request('GET', TABLES);
    const body = expectError(reply, 500, 'internal_server_error');
    expect(body.message).toBe('Something went wrong on our side');
    expect(JSON.stringify(body)).not.toContain('at ');
    await local.close();
  });

  test('a request past the deadline is 408 request_timeout', async () => {
    const local = await startApp({ config: { requestTimeoutMs: 100 } });
    try {
      // A client that sends its body too slowly keeps the request open past the deadline.
      const slow = new ReadableStream({
        async pull(controller) {
          await Bun.sleep(400);
          controller.enqueue(new TextEncoder().encode(JSON.stringify(tableBody())));
          controller.close();
        },
      });
      expectError(await local.request('POST', TABLES, { raw: slow, headers: { 'content-type': 'application/json' } }), 408, 'request_timeout');
    } finally {
      await local.close();
    }
  });

  test('overlapping slow requests each time out at their own deadline; quick ones between them answer', async () => {
    const local = await startApp({ config: { requestTimeoutMs: 150 } });
    try {
      const slowBody = () =>
        new ReadableStream({
          async pull(controller) {
            await Bun.sleep(1000);
            controller.close();
          },
        });
      const started = performance.now();
      const slow = async () => {
        const reply = await local.request('POST', TABLES, { raw: slowBody(), headers: { 'content-type': 'application/json' } });
        return { status: reply.status, at: performance.now() - started };
      };
      const first = slow();
      await Bun.sleep(60);
      const second = slow();
      expect((await local.request('GET', '/v1/me')).status).toBe(200);
      await Bun.sleep(60);
      const third = slow();
      const done = await Promise.all([first, second, third]);
      expect(done.map((d) => d.status)).toEqual([408, 408, 408]);
      // Each at about its own start + 150 ms, not all at the first one's deadline or the bodies' end.
      expect(done[0]!.at).toBeGreaterThanOrEqual(145);
      expect(done[1]!.at).toBeGreaterThanOrEqual(done[0]!.at + 40);
      expect(done[2]!.at).toBeGreaterThanOrEqual(done[1]!.at + 40);
      expect(done[2]!.at).toBeLessThan(900);
    } finally {
      await local.close();
    }
  });

  test('503 service_unavailable before the store is open and while shutting down', async () => {
    const gateway = new Gateway(testConfig('/tmp/unused'), createLogger(false));
    const starting = await gateway.fetch(new Request('http://localhost/v1/me'));
    expect(starting.status).toBe(503);
    expect(((await starting.json()) as any).error_key).toBe('service_unavailable');
    expect((await gateway.fetch(new Request('http://localhost/readyz'))).status).toBe(503);
    expect((await gateway.fetch(new Request('http://localhost/healthz'))).status).toBe(200);

    const local = await startApp();
    try {
      await local.app.gateway.drain(1000);
      expectError(await local.request('GET', '/v1/me'), 503, 'service_unavailable');
      expect((await local.request('GET', '/readyz', { key: null })).status).toBe(503);
    } finally {
      await local.close();
    }
  });
});

describe('rate limiting', () => {
  // PostgreSQL's buckets refill by the database's clock, which a test cannot move: postgres-nodes.test.ts waits for them.
  test.skipIf(TEST_STORE === 'postgres')('past the burst a key gets 429 with Retry-After, and recovers as tokens refill', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock, config: { rateLimitPerSecond: 2, rateLimitBurst: 3 } });
    try {
      for (let i = 0; i < 3; i++) expect((await local.request('GET', '/v1/me')).status).toBe(200);
      const limited = await local.request('GET', '/v1/me');
      expectError(limited, 429, 'too_many_requests');
      expect(limited.headers.get('retry-after')).toBe('1');
      // Another key has its own bucket.
      const { secret } = await local.services.accounts.createKey({ organizationId: 'org_default' });
      expect((await local.request('GET', '/v1/me', { key: secret })).status).toBe(200);
      clock.advance(500);
      expect((await local.request('GET', '/v1/me')).status).toBe(200);
      expect((await local.request('GET', '/v1/me')).status).toBe(429);
    } finally {
      await local.close();
    }
  });
});

describe('Idempotency-Key', () => {
  test('the same key and body replays the first response instead of acting twice', async () => {
    const headers = { 'idempotency-key': 'create-invoices-1' };
    const first = await app.request('POST', TABLES, { body: tableBody('Idem'), headers });
    expect(first.status).toBe(201);
    const second = await app.request('POST', TABLES, { body: tableBody('Idem'), headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const list = await app.request('GET', `${TABLES}?filter=name.eq.Idem`);
    expect(list.body.count).toBe(1);
  });

  test('concurrent requests with one key act once', async () => {
    const headers = { 'idempotency-key': 'create-concurrent' };
    const replies = await Promise.all([1, 2, 3].map(() => app.request('POST', TABLES, { body: tableBody('Concurrent'), headers })));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect((await app.request('GET', `${TABLES}?filter=name.eq.Concurrent`)).body.count).toBe(1);
  });

  test('the same key with another body is 422; keys are per API key', async () => {
    const headers = { 'idempotency-key': 'create-invoices-2' };
    expect((await app.request('POST', TABLES, { body: tableBody('Idem2'), headers })).status).toBe(201);
    expectError(await app.request('POST', TABLES, { body: tableBody('Different'), headers }), 422, 'unprocessable_entity');
    const { secret } = await app.services.accounts.createKey({ organizationId: 'org_default' });
    const other = await app.request('POST', TABLES, { body: tableBody('Idem2'), headers, key: secret });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  test('a record older than 24 hours no longer replays, and is purged', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock });
    try {
      const headers = { 'idempotency-key': 'old' };
      const first = await local.request('POST', TABLES, { body: tableBody('Old'), headers });
      clock.advance(24 * 3600 * 1000 + 1);
      const again = await local.request('POST', TABLES, { body: tableBody('Old'), headers });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(first.body.id);
      clock.advance(24 * 3600 * 1000 + 1);
      expect(await local.services.idempotency.purgeExpired()).toBe(1);
    } finally {
      await local.close();
    }
  });
});

describe('request ids', () => {
  test('every response carries X-Request-Id, the given one when it is sane', async () => {
    const given = await app.request('GET', '/v1/me', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await app.request('GET', '/nope', { key: null });
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{26}$/);
    const unsafe = await app.request('GET', '/v1/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
