import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { AddressPolicy } from '../../src/lib/address';
import { ManualClock } from '../../src/lib/clock';
import { expectError, startApp, type TestApp } from '../helpers/app';
import { selfSignedCert, startReceiver, type Receiver } from '../helpers/receiver';

const ORG = 'org_default';
const BASE = `/v1/organizations/${ORG}/webhooks`;
const tls = selfSignedCert();

/** Names the tests resolve themselves: one public address, one private, changeable mid-test. */
const dnsTable = new Map<string, string[]>([['public.test', ['93.184.216.34']], ['internal.test', ['10.0.0.7']]]);
const resolver = async (host: string) => {
  if (host === 'localhost') return ['127.0.0.1'];
  const found = dnsTable.get(host);
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

/** An app that may reach the loopback receiver, with fast retries and no jitter. */
function webhookApp(config: Record<string, unknown> = {}, clock?: ManualClock) {
  return startApp({
    clock,
    network: { resolver, random: () => 0.5 },
    config: {
      outboundPolicy: AddressPolicy.parse('loopback'),
      webhookCa: tls.cert,
      webhookTimeoutMs: 2000,
      webhookRetryDelaysMs: [100, 100, 100],
      webhookMinBackoffMs: 0,
      ...config,
    },
  });
}

async function createWebhook(app: TestApp, receiver: Receiver, body: Record<string, unknown> = {}) {
  const reply = await app.request('POST', BASE, { body: { url: receiver.url(), events: ['batch.complete', 'batch.failed'], ...body } });
  expect(reply.status).toBe(201);
  return reply.body as { id: string; secret: string };
}

async function deliveries(app: TestApp, id: string, query = '') {
  const reply = await app.request('GET', `${BASE}/${id}/deliveries${query}`);
  expect(reply.status).toBe(200);
  return reply.body.deliveries as any[];
}

async function until<T>(fn: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await Bun.sleep(20);
  }
}

function verify(secret: string, received: { body: string; headers: Record<string, string> }) {
  return new StandardWebhook(secret).verify(received.body, {
    'webhook-id': received.headers['webhook-id']!,
    'webhook-timestamp': received.headers['webhook-timestamp']!,
    'webhook-signature': received.headers['webhook-signature']!,
  });
}

let receiver: Receiver;
beforeAll(() => {
  receiver = startReceiver(tls);
});
afterAll(() => receiver.stop());
afterEach(() => {
  receiver.received.length = 0;
  receiver.respondWith(() => new Response('ok'));
});

describe('webhook resource', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await webhookApp();
  });
  afterAll(() => app.close());

  test('create answers 201 with the secret once; no other read shows it', async () => {
    const created = await createWebhook(app, receiver, { name: 'Ops' });
    expect(created).toMatchObject({
      organization_id: ORG,
      name: 'Ops',
      url: receiver.url(),
      events: ['batch.complete', 'batch.failed'],
      events_json: ['batch.complete', 'batch.failed'],
      active: true,
      failure_count: 0,
      last_triggered_at: null,
      secret_rotated_at: null,
    });
    expect(created.id).toMatch(/^whook_[0-9a-z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const reads = [
      await app.request('GET', `${BASE}/${created.id}`),
      await app.request('GET', BASE),
      await app.request('PATCH', `${BASE}/${created.id}`, { body: { name: 'Ops 2' } }),
      await app.request('POST', `${BASE}/${created.id}/test`),
      await app.request('GET', `${BASE}/${created.id}/deliveries`),
    ];
    for (const reply of reads) {
      expect(reply.status).toBe(200);
      expect(JSON.stringify(reply.body)).not.toContain(created.secret);
      expect(JSON.stringify(reply.body)).not.toContain('"secret"');
    }
    expect(reads[0]!.body).not.toHaveProperty('secret');
  });

  test('validation: https only, at most 2048 characters, known events, name up to 64', async () => {
    const bad = [
      { url: 'http://localhost/hook', events: ['ping'] },
      { url: `https://localhost/${'a'.repeat(2048)}`, events: ['ping'] },
      { url: 'https://user:pw@localhost/hook', events: ['ping'] },
      { url: receiver.url(), events: [] },
      { url: receiver.url(), events: ['batch.started'] },
      { url: receiver.url(), events: ['ping'], name: 'n'.repeat(65) },
      { events: ['ping'] },
    ];
    for (const body of bad) {
      const error = expectError(await app.request('POST', BASE, { body }), 400, 'invalid_input');
      expect(Object.keys(error.fields).length).toBeGreaterThan(0);
    }
    const { id } = await createWebhook(app, receiver);
    expectError(await app.request('PATCH', `${BASE}/${id}`, { body: { url: 'ftp://x' } }), 400, 'invalid_input');
    expectError(await app.request('PATCH', `${BASE}/${id}`, { body: { events: [] } }), 400, 'invalid_input');
  });

  test('get, update, delete and 404 webhook_not_found', async () => {
    const { id } = await createWebhook(app, receiver);
    const updated = await app.request('PATCH', `${BASE}/${id}`, { body: { events: ['ping'], active: false, name: 'renamed' } });
    expect(updated.body).toMatchObject({ id, events: ['ping'], events_json: ['ping'], active: false, name: 'renamed' });
    expect(updated.body.updated_at).toBeGreaterThanOrEqual(updated.body.created_at);
    expect((await app.request('DELETE', `${BASE}/${id}`)).body).toEqual({ id });
    for (const [method, path] of [
      ['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/deliveries'], ['POST', '/rotate-secret'], ['POST', '/test'],
    ] as const) {
      expectError(await app.request(method, `${BASE}/${id}${path}`, method === 'PATCH' ? { body: { name: 'x' } } : {}), 404, 'webhook_not_found');
    }
  });

  test('list: order, filter, q, cursor', async () => {
    const local = await webhookApp();
    try {
      const names = ['alpha', 'beta', 'gamma'];
      const ids: string[] = [];
      for (const name of names) ids.push((await createWebhook(local, receiver, { name })).id);
      await local.request('PATCH', `${BASE}/${ids[1]}`, { body: { active: false } });

      const all = await local.request('GET', BASE);
      expect(all.body).toMatchObject({ count: 3, hasMore: false, limit: 20, nextCursor: null, page: 1 });
      expect(all.body.webhooks.map((w: any) => w.name)).toEqual(['gamma', 'beta', 'alpha']);

      const inactive = await local.request('GET', `${BASE}?filter=active.eq.false`);
      expect(inactive.body.webhooks.map((w: any) => w.id)).toEqual([ids[1]]);
      const byActive = await local.request('GET', `${BASE}?order=active.asc,created_at.asc`);
      expect(byActive.body.webhooks.map((w: any) => w.name)).toEqual(['beta', 'alpha', 'gamma']);
      const q = await local.request('GET', `${BASE}?q=gam`);
      expect(q.body.webhooks.map((w: any) => w.name)).toEqual(['gamma']);
      const byUrl = await local.request('GET', `${BASE}?q=localhost`);
      expect(byUrl.body.count).toBe(3);

      const first = await local.request('GET', `${BASE}?limit=2&order=created_at.asc`);
      expect(first.body.webhooks.map((w: any) => w.name)).toEqual(['alpha', 'beta']);
      const second = await local.request('GET', `${BASE}?limit=2&order=created_at.asc&cursor=${first.body.nextCursor}`);
      expect(second.body.webhooks.map((w: any) => w.name)).toEqual(['gamma']);
      expectError(await local.request('GET', `${BASE}?order=url.asc`), 400, 'invalid_input');
      expectError(await local.request('GET', `${BASE}?filter=url.eq.x`), 400, 'invalid_input');
      const selected = await local.request('GET', `${BASE}?select=id,events_json`);
      expect(Object.keys(selected.body.webhooks[0]).sort()).toEqual(['events_json', 'id']);
    } finally {
      await local.close();
    }
  });

  test('organization-wide keys only; changes need an admin key; other organizations are 404', async () => {
    const { id } = await createWebhook(app, receiver);
    const write = await app.services.accounts.createKey({ organizationId: ORG, role: 'write' });
    const read = await app.services.accounts.createKey({ organizationId: ORG, role: 'read' });
    const limited = await app.services.accounts.createKey({ organizationId: ORG, role: 'admin', projectIds: ['proj_default'] });
    expect((await app.request('GET', `${BASE}/${id}`, { key: read.secret })).status).toBe(200);
    expect((await app.request('GET', `${BASE}/${id}`, { key: write.secret })).status).toBe(200);
    expectError(await app.request('PATCH', `${BASE}/${id}`, { key: write.secret, body: { name: 'x' } }), 403, 'forbidden');
    expectError(await app.request('POST', BASE, { key: read.secret, body: { url: receiver.url(), events: ['ping'] } }), 403, 'forbidden');
    expectError(await app.request('GET', BASE, { key: limited.secret }), 403, 'forbidden');

    const other = await app.services.accounts.createOrg({ name: 'Other' });
    const otherKey = await app.services.accounts.createKey({ organizationId: other.id, role: 'admin' });
    expectError(await app.request('GET', `${BASE}/${id}`, { key: otherKey.secret }), 404, 'not_found');
    expectError(await app.request('GET', `/v1/organizations/${other.id}/webhooks/${id}`, { key: otherKey.secret }), 404, 'webhook_not_found');
  });
});

describe('address rules', () => {
  test('without the operator allowlist a loopback receiver is refused on create, update and send', async () => {
    const app = await startApp({ network: { resolver }, config: { webhookCa: tls.cert } });
    try {
      const error = expectError(await app.request('POST', BASE, { body: { url: receiver.url(), events: ['ping'] } }), 400, 'invalid_input');
      expect(error.fields.url[0].message).toContain('loopback');
      expectError(await app.request('POST', BASE, { body: { url: 'https://127.0.0.1:1/x', events: ['ping'] } }), 400, 'invalid_input');
      expectError(await app.request('POST', BASE, { body: { url: 'https://[::ffff:127.0.0.1]/x', events: ['ping'] } }), 400, 'invalid_input');
      expectError(await app.request('POST', BASE, { body: { url: 'https://169.254.169.254/latest', events: ['ping'] } }), 400, 'invalid_input');
      expectError(await app.request('POST', BASE, { body: { url: 'https://nowhere.test/x', events: ['ping'] } }), 400, 'invalid_input');

      const privateName = expectError(await app.request('POST', BASE, { body: { url: 'https://internal.test/x', events: ['ping'] } }), 400, 'invalid_input');
      expect(privateName.fields.url[0].message).toContain('10.0.0.7');

      // A name that passed on create and now points inside: every send checks again (no rebinding).
      dnsTable.set('rebind.test', ['93.184.216.34']);
      const created = await app.request('POST', BASE, { body: { url: 'https://rebind.test/x', events: ['ping'] } });
      expect(created.status).toBe(201);
      dnsTable.set('rebind.test', ['127.0.0.1']);
      const result = await app.request('POST', `${BASE}/${created.body.id}/test`);
      expect(result.body).toMatchObject({ status: 'error', http_status: null });
      expect(result.body.response_body).toContain('refused');
      expect(receiver.received).toHaveLength(0);
      expectError(await app.request('PATCH', `${BASE}/${created.body.id}`, { body: { url: 'https://internal.test/y' } }), 400, 'invalid_input');
    } finally {
      await app.close();
    }
  });

  test('the operator can open loopback; the certificate must still be trusted', async () => {
    const app = await webhookApp({ webhookCa: null });
    try {
      // Without the receiver's CA its self-signed certificate is not trusted.
      const { id } = await createWebhook(app, receiver);
      const result = await app.request('POST', `${BASE}/${id}/test`);
      expect(result.body.status).toBe('error');
      expect(result.body.response_body).toMatch(/SELF_SIGNED|certificate/i);
    } finally {
      await app.close();
    }
  });

  test('the connection goes to the checked address, yet TLS checks the certificate against the host name', async () => {
    // other.test resolves to the receiver, whose certificate names only localhost and 127.0.0.1.
    dnsTable.set('other.test', ['127.0.0.1']);
    const app = await webhookApp();
    try {
      const hook = await app.request('POST', BASE, { body: { url: `https://other.test:${receiver.port}/hook`, events: ['ping'] } });
      expect(hook.status).toBe(201);
      const result = await app.request('POST', `${BASE}/${hook.body.id}/test`);
      expect(result.body.status).toBe('error');
      expect(result.body.response_body).toMatch(/ALTNAME|other\.test/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await app.close();
    }
  });
});

describe('delivery', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await webhookApp();
    app.services.dispatcher.start();
  });
  afterAll(() => app.close());

  test('an event is posted once per subscribed webhook, signed, with the payload of DESIGN.md', async () => {
    const hook = await createWebhook(app, receiver);
    const other = await createWebhook(app, receiver, { events: ['batch.partial'], url: receiver.url('/other') });
    expect(await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'batch_1', status: 'complete' })).toBe(1);
    const [got] = await receiver.waitFor(1);
    expect(got!.path).toBe('/hook');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toBe('rowsmith/1.0.0');
    expect(got!.headers['webhook-id']).toMatch(/^msg_/);
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    const payload = verify(hook.secret, got!) as any;
    expect(payload).toMatchObject({ type: 'batch.complete', data: { id: 'batch_1', status: 'complete' } });
    expect(typeof payload.timestamp).toBe('number');
    expect(() => verify(other.secret, got!)).toThrow();

    const [delivery] = await until(() => deliveries(app, hook.id), (d) => d[0]?.status === 'success');
    expect(delivery).toMatchObject({
      webhook_id: hook.id,
      event: 'batch.complete',
      status: 'success',
      http_status: 200,
      response_body: 'ok',
      attempt: 1,
      next_retry_at: null,
    });
    expect(JSON.parse(delivery.payload_json)).toEqual(payload);
    expect(delivery.delivered_at).toBeGreaterThanOrEqual(delivery.created_at);
    const webhook = (await app.request('GET', `${BASE}/${hook.id}`)).body;
    expect(webhook.last_triggered_at).toBeGreaterThan(0);
    expect(await deliveries(app, other.id)).toHaveLength(0);
    await app.request('DELETE', `${BASE}/${hook.id}`);
    await app.request('DELETE', `${BASE}/${other.id}`);
  });

  test('500, then a retry with the same webhook-id, then success', async () => {
    const hook = await createWebhook(app, receiver);
    receiver.respondWith((_r, i) => (i === 0 ? new Response('boom', { status: 500 }) : new Response('fine')));
    await app.services.webhooks.emit(ORG, 'batch.failed', { id: 'batch_2' });
    const [first, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']!);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(90);
    verify(hook.secret, second!);

    const list = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d.length === 2 && d[1].status === 'success');
    expect(list[0]).toMatchObject({ attempt: 1, status: 'failed', http_status: 500, response_body: 'boom', delivered_at: null });
    expect(list[0].next_retry_at).toBe(list[1].created_at + 100);
    expect(list[1]).toMatchObject({ attempt: 2, status: 'success', http_status: 200, response_body: 'fine', next_retry_at: null });
    expect((await app.request('GET', `${BASE}/${hook.id}`)).body.failure_count).toBe(0);
    await app.request('DELETE', `${BASE}/${hook.id}`);
  });

  test('every attempt failing: the last one is failed with no next_retry_at, failure_count counts them', async () => {
    const hook = await createWebhook(app, receiver);
    receiver.respondWith(() => new Response('x'.repeat(5000), { status: 502 }));
    await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'batch_3' });
    const list = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d.length === 4 && d[3].status === 'failed');
    expect(list.map((d) => d.attempt)).toEqual([1, 2, 3, 4]);
    expect(list.every((d) => d.status === 'failed' && d.http_status === 502)).toBe(true);
    expect(list[0].response_body).toHaveLength(4096);
    expect(list[3].next_retry_at).toBeNull();
    expect(list.slice(0, 3).every((d) => d.next_retry_at !== null)).toBe(true);
    expect(receiver.received).toHaveLength(4);
    const webhook = (await app.request('GET', `${BASE}/${hook.id}`)).body;
    expect(webhook).toMatchObject({ failure_count: 4, active: true });
    await app.request('DELETE', `${BASE}/${hook.id}`);
  });

  test('turning a webhook off marks its queued attempts failed, unsent', async () => {
    const local = await webhookApp();
    try {
      const hook = await createWebhook(local, receiver);
      // The dispatcher is not started: the delivery stays queued.
      await local.services.webhooks.emit(ORG, 'batch.complete', { id: 'queued' });
      expect((await deliveries(local, hook.id)).map((d) => d.status)).toEqual(['pending']);
      await local.request('PATCH', `${BASE}/${hook.id}`, { body: { active: false } });
      const [cancelled] = await deliveries(local, hook.id);
      expect(cancelled).toMatchObject({ status: 'failed', next_retry_at: null, http_status: null, response_body: 'not sent: the webhook was deactivated' });
      local.services.dispatcher.start();
      await Bun.sleep(200);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await local.close();
    }
  });

  test('410 Gone deactivates the webhook; later events are not sent', async () => {
    const hook = await createWebhook(app, receiver);
    receiver.respondWith(() => new Response('gone', { status: 410 }));
    await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'batch_4' });
    const [delivery] = await until(() => deliveries(app, hook.id), (d) => d[0]?.status === 'failed');
    expect(delivery).toMatchObject({ http_status: 410, next_retry_at: null });
    expect((await app.request('GET', `${BASE}/${hook.id}`)).body).toMatchObject({ active: false, failure_count: 1 });
    expect(await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'batch_5' })).toBe(0);
    await Bun.sleep(300);
    expect(receiver.received).toHaveLength(1);
    await app.request('DELETE', `${BASE}/${hook.id}`);
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const hook = await createWebhook(app, receiver, { events: ['batch.partial'] });
    receiver.respondWith((r) => (r.path === '/hook' ? new Response(null, { status: 302, headers: { location: receiver.url('/elsewhere') } }) : new Response('ok')));
    await app.services.webhooks.emit(ORG, 'batch.partial', { id: 'batch_6' });
    const [first] = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d[0]?.status === 'failed');
    expect(first).toMatchObject({ http_status: 302, status: 'failed' });
    await Bun.sleep(100);
    expect(receiver.received.some((r) => r.path === '/elsewhere')).toBe(false);
    await app.request('DELETE', `${BASE}/${hook.id}`);
  });

  test('deliveries list: filters by event and status, orders by status, pages with a cursor', async () => {
    const hook = await createWebhook(app, receiver, { events: ['batch.complete', 'batch.partial'] });
    await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'a' });
    await app.services.webhooks.emit(ORG, 'batch.partial', { id: 'b' });
    await app.request('POST', `${BASE}/${hook.id}/test`);
    await until(() => deliveries(app, hook.id, '?status=success'), (d) => d.length === 3);
    expect((await deliveries(app, hook.id, '?event=ping')).map((d) => d.event)).toEqual(['ping']);
    expect((await deliveries(app, hook.id, '?event=batch.partial')).map((d) => JSON.parse(d.payload_json).data.id)).toEqual(['b']);
    expect(await deliveries(app, hook.id, '?status=failed')).toHaveLength(0);
    expect(await deliveries(app, hook.id, '?status=pending')).toHaveLength(0);

    const first = await app.request('GET', `${BASE}/${hook.id}/deliveries?limit=2&order=created_at.asc`);
    expect(first.body).toMatchObject({ count: 2, hasMore: true });
    const second = await app.request('GET', `${BASE}/${hook.id}/deliveries?limit=2&order=created_at.asc&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ count: 1, hasMore: false, nextCursor: null });
    expect(second.body.deliveries[0].event).toBe('ping');
    expect((await app.request('GET', `${BASE}/${hook.id}/deliveries?order=status.asc`)).status).toBe(200);

    expectError(await app.request('GET', `${BASE}/${hook.id}/deliveries?status=lost`), 400, 'invalid_input');
    expectError(await app.request('GET', `${BASE}/${hook.id}/deliveries?filter=event.eq.ping`), 400, 'invalid_input');
    expectError(await app.request('GET', `${BASE}/${hook.id}/deliveries?q=x`), 400, 'invalid_input');
    await app.request('DELETE', `${BASE}/${hook.id}`);
  });
});

describe('timeouts, Retry-After and deactivation', () => {
  test('a timeout is retried no sooner than the minimum backoff', async () => {
    const app = await webhookApp({ webhookTimeoutMs: 200, webhookMinBackoffMs: 60_000 });
    app.services.dispatcher.start();
    try {
      const hook = await createWebhook(app, receiver);
      receiver.respondWith(async () => {
        await Bun.sleep(1000);
        return new Response('late');
      });
      await app.services.webhooks.emit(ORG, 'batch.complete', { id: 't' });
      const list = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d.length === 2);
      expect(list[0]).toMatchObject({ status: 'failed', http_status: null });
      expect(list[0].response_body).toStartWith('timeout');
      expect(list[1]).toMatchObject({ status: 'pending', attempt: 2 });
      expect(list[0].next_retry_at - list[1].created_at).toBeGreaterThanOrEqual(60_000);
    } finally {
      await app.close();
    }
  });

  test('Retry-After is honoured within the scheduled delay and twice it', async () => {
    const app = await webhookApp({ webhookRetryDelaysMs: [1000, 1000] });
    app.services.dispatcher.start();
    try {
      const hook = await createWebhook(app, receiver);
      receiver.respondWith(() => new Response('busy', { status: 503, headers: { 'retry-after': '30' } }));
      await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'r' });
      const list = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d.length === 2);
      // Asked for 30 s; capped at twice the scheduled 1 s.
      expect(list[0].next_retry_at - list[1].created_at).toBe(2000);
      receiver.respondWith(() => new Response('busy', { status: 429, headers: { 'retry-after': '1' } }));
      const after = await until(() => deliveries(app, hook.id, '?order=created_at.asc'), (d) => d.length === 3, 5000);
      // Asked for 1 s, which the schedule allows.
      expect(after[1].next_retry_at - after[2].created_at).toBe(1000);
    } finally {
      await app.close();
    }
  });

  test('a failure streak longer than the limit deactivates the webhook, cancels its queued retries and records the send under way', async () => {
    // No jitter (random 0.5): attempt 1 of the first event fails at 0, its retry fails at 400 and
    // deactivates (the streak is over 250). Meanwhile a second event has failed once and waits for
    // its retry (due after 400), and a third is being sent (its receiver answers after 300 ms).
    const app = await webhookApp({ webhookRetryDelaysMs: [400, 400, 400], webhookDeactivateAfterMs: 250 });
    app.services.dispatcher.start();
    try {
      const hook = await createWebhook(app, receiver, { events: ['batch.complete', 'batch.failed', 'batch.partial'] });
      receiver.respondWith(async (request) => {
        if (request.body.includes('"batch.partial"')) await Bun.sleep(300);
        return new Response('down', { status: 500 });
      });
      const type = (r: { body: string }) => JSON.parse(r.body).type as string;
      await app.services.webhooks.emit(ORG, 'batch.complete', { id: 'x' });
      await receiver.waitFor(1);
      await Bun.sleep(100);
      await app.services.webhooks.emit(ORG, 'batch.failed', { id: 'y' });
      await receiver.waitFor(1, (r) => type(r) === 'batch.failed');
      await Bun.sleep(100);
      await app.services.webhooks.emit(ORG, 'batch.partial', { id: 'z' });
      await until(() => app.request('GET', `${BASE}/${hook.id}`), (r) => r.body.active === false);
      const all = await until(() => deliveries(app, hook.id), (list) => !list.some((d) => d.status === 'pending'));
      const seen = all.map((d) => [d.event, d.attempt, d.status, d.http_status, d.response_body?.startsWith('not sent') ? 'not sent' : d.response_body]);
      expect(seen.sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`))).toEqual([
        ['batch.complete', 1, 'failed', 500, 'down'],
        ['batch.complete', 2, 'failed', 500, 'down'],
        ['batch.failed', 1, 'failed', 500, 'down'],
        ['batch.failed', 2, 'failed', null, 'not sent'],
        ['batch.partial', 1, 'failed', 500, 'down'],
      ]);
      expect(all.find((d) => d.event === 'batch.failed' && d.attempt === 2).response_body).toBe('not sent: the webhook was deactivated because its deliveries kept failing');
      // Every request the receiver got is one recorded attempt, and nothing is sent after.
      expect(receiver.received.length).toBe(4);
      await Bun.sleep(500);
      expect(receiver.received.length).toBe(4);
      expect((await app.request('GET', `${BASE}/${hook.id}`)).body.failure_count).toBe(4);
    } finally {
      await app.close();
    }
  });
});

describe('test endpoint and secret rotation', () => {
  test('success, error and timeout', async () => {
    const app = await webhookApp({ webhookTimeoutMs: 300 });
    try {
      const hook = await createWebhook(app, receiver, { events: ['batch.complete'] });
      receiver.respondWith(() => new Response('y'.repeat(3000)));
      const ok = await app.request('POST', `${BASE}/${hook.id}/test`);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'success', http_status: 200 });
      expect(ok.body.response_body).toBe('y'.repeat(1024));
      const ping = verify(hook.secret, receiver.received[0]!) as any;
      expect(ping).toMatchObject({ type: 'ping', data: { webhook_id: hook.id } });

      receiver.respondWith(() => new Response('nope', { status: 500 }));
      expect((await app.request('POST', `${BASE}/${hook.id}/test`)).body).toEqual({ status: 'error', http_status: 500, response_body: 'nope' });

      receiver.respondWith(async () => {
        await Bun.sleep(1000);
        return new Response('late');
      });
      const slow = await app.request('POST', `${BASE}/${hook.id}/test`);
      expect(slow.body).toMatchObject({ status: 'timeout', http_status: null });

      const list = await deliveries(app, hook.id, '?order=created_at.asc');
      expect(list.map((d) => [d.event, d.status, d.next_retry_at])).toEqual([
        ['ping', 'success', null], ['ping', 'failed', null], ['ping', 'failed', null],
      ]);
      expect((await app.request('GET', `${BASE}/${hook.id}`)).body.failure_count).toBe(0);
    } finally {
      await app.close();
    }
  });

  test('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    const clock = new ManualClock();
    const app = await webhookApp({}, clock);
    try {
      const hook = await createWebhook(app, receiver);
      const rotated = await app.request('POST', `${BASE}/${hook.id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(hook.secret);
      expect(rotated.body.secret_rotated_at).toBe(clock.now());
      expect((await app.request('GET', `${BASE}/${hook.id}`)).body.secret_rotated_at).toBe(clock.now());

      await app.request('POST', `${BASE}/${hook.id}/test`);
      const signed = receiver.received[0]!;
      expect(signed.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      verify(rotated.body.secret, signed);
      verify(hook.secret, signed);

      clock.advance(24 * 3600 * 1000 + 1);
      await app.request('POST', `${BASE}/${hook.id}/test`);
      const later = receiver.received[1]!;
      const signatures = later.headers['webhook-signature']!.split(' ');
      expect(signatures).toHaveLength(1);
      // The receiver's clock is real, so check the HMAC directly rather than through the package's time window.
      const key = Buffer.from(rotated.body.secret.slice('whsec_'.length), 'base64');
      const expected = createHmac('sha256', key).update(`${later.headers['webhook-id']}.${later.headers['webhook-timestamp']}.${later.body}`).digest('base64');
      expect(signatures[0]).toBe(`v1,${expected}`);
    } finally {
      await app.close();
    }
  });
});
