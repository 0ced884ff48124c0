/** A real HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate made for the test. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './app';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Responder = (request: Received, index: number) => Response | Promise<Response>;

/** A certificate for `localhost` and 127.0.0.1, valid for a day; `cert` doubles as the CA to trust. */
export function selfSignedCert(): { cert: string; key: string; certFile: string } {
  const dir = tempDir('rowsmith-cert-');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}

export function startReceiver(tls = selfSignedCert()) {
  const received: Received[] = [];
  let respond: Responder = () => new Response('ok');
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls: { cert: tls.cert, key: tls.key },
    async fetch(request) {
      const url = new URL(request.url);
      const entry: Received = { path: url.pathname, headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() };
      received.push(entry);
      return respond(entry, received.length - 1);
    },
  });
  return {
    tls,
    received,
    port: server.port,
    /** A URL of this receiver by host name, so TLS checks the certificate's name. */
    url: (path = '/hook') => `https://localhost:${server.port}${path}`,
    respondWith(fn: Responder) {
      respond = fn;
    },
    /** Waits until `count` requests (or ones matching `where`) arrived. */
    async waitFor(count: number, where: (r: Received) => boolean = () => true, timeoutMs = 10_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(where);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${matching.length}`);
        await Bun.sleep(10);
      }
    },
    stop: () => server.stop(true),
  };
}

export type Receiver = ReturnType<typeof startReceiver>;
