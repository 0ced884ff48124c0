/** The server as a user runs it: first start, restart, bad configuration, graceful shutdown. */
import { afterAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { tempDir } from '../helpers/app';
import { startServer } from '../helpers/process';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const dir = tempDir('rowsmith-proc-');
  dirs.push(dir);
  return dir;
};

describe('start-up', () => {
  test('the first start creates the default organization, project and a printed admin key, once', async () => {
    const dataDir = freshDir();
    const first = await startServer({ DATA_DIR: dataDir });
    const key = first.output().match(/(rsk_[A-Za-z0-9_-]{20,})/)?.[1];
    expect(key).toBeDefined();
    const me = await fetch(`${first.url}/v1/me`, { headers: { authorization: `ApiKey ${key}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).projects).toEqual([expect.objectContaining({ id: 'proj_default' })]);
    expect(await first.stop()).toBe(0);

    const second = await startServer({ DATA_DIR: dataDir });
    expect(second.output()).not.toContain('first start');
    expect(second.output()).not.toMatch(/rsk_/);
    const again = await fetch(`${second.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  test('ROWSMITH_BOOTSTRAP_KEY becomes the admin key and is not printed', async () => {
    const key = 'my-chosen-bootstrap-key-123';
    const server = await startServer({ DATA_DIR: freshDir(), ROWSMITH_BOOTSTRAP_KEY: key });
    try {
      expect(server.output()).not.toContain(key);
      const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `ApiKey ${key}` } });
      expect(((await me.json()) as any).key.role).toBe('admin');
    } finally {
      await server.stop();
    }
  });

  test('a bad setting stops the process with one line naming the variable', async () => {
    for (const [name, value] of [['PORT', 'abc'], ['ROWSMITH_RATE_LIMIT_PER_SECOND', '-1'], ['ROWSMITH_LOG_REQUESTS', 'maybe'],
      ['ROWSMITH_WEBHOOK_ALLOWED_HOSTS', 'loopback, 10.0.0.0/40'], ['ROWSMITH_WEBHOOK_CA_FILE', '/nonexistent/ca.pem'],
      ['ROWSMITH_WEBHOOK_RETRY_DELAYS_MS', '5000,soon'], ['ROWSMITH_PREBUILD', 'sometimes'], ['ROWSMITH_DATE_ORDER', 'ymd']] as const) {
      const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
        env: { ...process.env, DATA_DIR: freshDir(), [name]: value },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const code = await proc.exited;
      const stderr = (await new Response(proc.stderr).text()).trim();
      expect(code).toBe(1);
      expect(stderr.split('\n')).toHaveLength(1);
      expect(stderr).toStartWith(`rowsmith: ${name} `);
    }
  }, 30_000);
});

describe('prebuild', () => {
  test('after a restart, large tables have their caches built in the background unless ROWSMITH_PREBUILD=false', async () => {
    const dataDir = freshDir();
    const key = 'prebuild-test-bootstrap-key-1234';
    const headers = { authorization: `ApiKey ${key}`, 'content-type': 'application/json' };
    const first = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: key, ROWSMITH_RATE_LIMIT_PER_SECOND: '0' });
    const created = await fetch(`${first.url}/v1/projects/proj_default/tables`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Large', columns_json: [{ id: 'note', name: 'Note', type: 'text' }] }),
    });
    const rows = `${first.url}/v1/projects/proj_default/tables/${((await created.json()) as { id: string }).id}/rows`;
    for (let n = 0; n < 10_001; n += 1000) {
      const creates = Array.from({ length: Math.min(1000, 10_001 - n) }, (_, i) => ({ note: `parcel ${n + i}` }));
      expect((await fetch(`${rows}/bulk`, { method: 'POST', headers, body: JSON.stringify({ creates }) })).status).toBe(200);
    }
    expect(first.output()).not.toContain('in the background');
    expect(await first.stop()).toBe(0);

    const second = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: key });
    // The line follows the listening line; the pipe may bring it a little later.
    for (let i = 0; i < 100 && !second.output().includes('in the background'); i++) await Bun.sleep(20);
    expect(second.output()).toContain('rowsmith: building the column cache and search index of 1 large table(s) in the background');
    const search = await fetch(`${rows.replace(first.url, second.url)}?q=parcel`, { headers });
    expect(((await search.json()) as { count: number }).count).toBe(20);
    expect(await second.stop()).toBe(0);

    const third = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: key, ROWSMITH_PREBUILD: 'false' });
    expect((await fetch(`${rows.replace(first.url, third.url)}?limit=1`, { headers })).status).toBe(200);
    expect(third.output()).not.toContain('in the background');
    expect(await third.stop()).toBe(0);
  }, 20_000);
});

describe('logging', () => {
  test('one JSON line per request, with its request id, status and key', async () => {
    const key = 'logging-test-key-0123456789';
    const server = await startServer({ DATA_DIR: freshDir(), ROWSMITH_BOOTSTRAP_KEY: key, ROWSMITH_LOG_REQUESTS: 'true' });
    try {
      await fetch(`${server.url}/v1/me`, { headers: { authorization: `ApiKey ${key}`, 'x-request-id': 'log-check-1' } });
      await fetch(`${server.url}/v1/me`, { headers: { 'x-request-id': 'log-check-2' } });
      await Bun.sleep(100);
      const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
      const ok = lines.find((l) => l.request_id === 'log-check-1');
      const denied = lines.find((l) => l.request_id === 'log-check-2');
      expect(ok).toMatchObject({ level: 'info', event: 'request', method: 'GET', path: '/v1/me', status: 200, key_id: expect.stringMatching(/^key_/) });
      expect(typeof ok.ms).toBe('number');
      expect(denied).toMatchObject({ status: 401 });
      expect(denied.key_id).toBeUndefined();
    } finally {
      await server.stop();
    }
  });
});

describe('shutdown', () => {
  test('SIGTERM lets an in-flight request finish, then exits 0; requests after it are refused', async () => {
    const key = 'shutdown-test-key-0123456789';
    const server = await startServer({ DATA_DIR: freshDir(), ROWSMITH_BOOTSTRAP_KEY: key });
    const body = JSON.stringify({ name: 'Slow', columns_json: [{ id: 'a', name: 'A' }] });
    // The body arrives slowly, so the request is still in flight when the signal comes.
    const slowBody = new ReadableStream({
      async pull(controller) {
        await Bun.sleep(500);
        controller.enqueue(new TextEncoder().encode(body));
        controller.close();
      },
    });
    const inFlight = fetch(`${server.url}/v1/projects/proj_default/tables`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
      body: slowBody,
      duplex: 'half',
    } as RequestInit);
    await Bun.sleep(150);
    server.proc.kill('SIGTERM');
    await Bun.sleep(50);
    const late = await fetch(`${server.url}/v1/me`, { headers: { authorization: `ApiKey ${key}` } }).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    const reply = await inFlight;
    expect(reply.status).toBe(201);
    expect(await server.proc.exited).toBe(0);
    expect(server.output()).toContain('rowsmith: stopped');
  });
});
