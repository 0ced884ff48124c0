import { afterAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { AddressPolicy } from '../../src/lib/address';
import { ADMIN_KEY, startApp, tempDir } from '../helpers/app';
import { startServer } from '../helpers/process';
import { startReceiver } from '../helpers/receiver';

const EVENTS = 10;
const receiver = startReceiver();
afterAll(() => receiver.stop());

test('SIGKILL mid-retry loses no delivery: after a restart every event arrives', async () => {
  const dataDir = tempDir();
  try {
    // Queue the events through the service, as extraction does, before any server runs.
    const setup = await startApp({ dataDir, config: { outboundPolicy: AddressPolicy.parse('loopback'), webhookCa: receiver.tls.cert } });
    const created = await setup.request('POST', '/v1/organizations/org_default/webhooks', { body: { url: receiver.url(), events: ['batch.complete'] } });
    expect(created.status).toBe(201);
    for (let i = 0; i < EVENTS; i++) await setup.services.webhooks.emit('org_default', 'batch.complete', { id: `batch_${i}` });
    await setup.close(true);

    // First life: every first attempt fails, every second attempt hangs until the process dies.
    const attempts = new Map<string, number>();
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => (release = resolve));
    receiver.respondWith(async (r) => {
      const n = (attempts.get(r.headers['webhook-id']!) ?? 0) + 1;
      attempts.set(r.headers['webhook-id']!, n);
      if (n === 1) return new Response('fail', { status: 500 });
      await hung;
      return new Response('too late', { status: 503 });
    });
    const env = {
      DATA_DIR: dataDir,
      ROWSMITH_WEBHOOK_ALLOWED_HOSTS: 'loopback',
      ROWSMITH_WEBHOOK_CA_FILE: receiver.tls.certFile,
      ROWSMITH_WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200',
      ROWSMITH_WEBHOOK_TIMEOUT_MS: '2000',
      ROWSMITH_WEBHOOK_MIN_BACKOFF_MS: '0',
    };
    const first = await startServer(env);
    await receiver.waitFor(EVENTS + 3);
    first.proc.kill('SIGKILL');
    await first.proc.exited;
    release();
    const messageIds = new Set(receiver.received.map((r) => r.headers['webhook-id']!));
    expect(messageIds.size).toBe(EVENTS);

    // Second life: the receiver is healthy; queued retries and expired leases are all sent.
    const okFrom = receiver.received.length;
    receiver.respondWith(() => new Response('ok'));
    const second = await startServer(env);
    try {
      const delivered = () => new Set(receiver.received.slice(okFrom).map((r) => r.headers['webhook-id']!));
      const deadline = Date.now() + 20_000;
      while (delivered().size < EVENTS && Date.now() < deadline) await Bun.sleep(50);
      expect([...messageIds].filter((id) => !delivered().has(id))).toEqual([]);

      const list = async (status: string) => {
        const reply = await fetch(`${second.url}/v1/organizations/org_default/webhooks/${created.body.id}/deliveries?status=${status}&limit=100`, {
          headers: { authorization: `ApiKey ${ADMIN_KEY}` },
        });
        return ((await reply.json()) as { deliveries: Array<{ payload_json: string }> }).deliveries;
      };
      let successes: Array<{ payload_json: string }> = [];
      while (Date.now() < deadline) {
        successes = await list('success');
        if (successes.length >= EVENTS) break;
        await Bun.sleep(50);
      }
      const batches = new Set(successes.map((d) => JSON.parse(d.payload_json).data.id));
      expect(batches.size).toBe(EVENTS);
      expect(await list('pending')).toHaveLength(0);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
