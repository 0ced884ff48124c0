/**
 * 1,000 connections that never finish their request (headers cut off, or a body stopped after one
 * byte) and slow readers that never read their answer do not stall other clients of a child server.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tempDir } from '../helpers/app';
import { startServer, type ServerProcess } from '../helpers/process';

const KEY = 'connections-admin-key-0123456789';
const dataDir = tempDir();
let server: ServerProcess;
const sockets: Socket[] = [];
beforeAll(async () => {
  server = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_RATE_LIMIT_PER_SECOND: '0' });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function open(request: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(request);
      resolve();
    });
    socket.on('error', () => resolve());
    // Paused: whatever the server answers stays unread, as with a slow reader.
    socket.pause();
    sockets.push(socket);
  });
}

test('1,000 stalled connections and slow readers leave other clients answered at once', async () => {
  const cutHeaders = 'GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n';
  const stoppedBody = `POST /v1/projects/proj_default/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ApiKey ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{`;
  const unreadAnswer = 'GET /swagger/json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(20);
  await Promise.all(Array.from({ length: 1000 }, (_, i) => open(i % 20 === 0 ? unreadAnswer : i % 2 ? cutHeaders : stoppedBody)));

  const slowest = { ms: 0 };
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const reply = await fetch(`${server.url}/v1/me`, { headers: { authorization: `ApiKey ${KEY}` } });
    expect(reply.status).toBe(200);
    await reply.text();
    slowest.ms = Math.max(slowest.ms, performance.now() - started);
  }
  expect(slowest.ms).toBeLessThan(1000);
}, 30_000);
