/**
 * Outbound HTTPS with the address rules applied: the host is resolved and checked, then the
 * connection goes to that very address while TLS still verifies the certificate for the host name.
 * Redirects are never followed, responses are read up to a size cap, and a deadline covers it all.
 */
import net from 'node:net';
import tls from 'node:tls';
import { OutboundRefused, resolveChecked, urlProblem, type AddressPolicy, type Resolver } from './address';

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is not read. */
  maxBytes: number;
}

export type OutboundResult =
  | { kind: 'response'; status: number; headers: Headers; body: Uint8Array; truncated: boolean }
  | { kind: 'timeout'; message: string }
  | { kind: 'error'; message: string };

export class Outbound {
  private readonly ca: string[] | undefined;

  constructor(
    private readonly policy: AddressPolicy,
    private readonly resolver: Resolver,
    extraCa: string | null,
    private readonly userAgent: string,
  ) {
    // Giving Bun a CA list replaces the system roots, so the extra CA is added to them.
    this.ca = extraCa ? [...tls.rootCertificates, extraCa] : undefined;
  }

  /** Checks a URL as create and update do: its form, then where its host points now. */
  async check(raw: string): Promise<string | null> {
    const problem = urlProblem(raw);
    if (problem) return `url ${problem}`;
    try {
      await resolveChecked(new URL(raw), this.policy, this.resolver);
      return null;
    } catch (error) {
      if (error instanceof OutboundRefused) return error.message;
      throw error;
    }
  }

  async request(req: OutboundRequest): Promise<OutboundResult> {
    const problem = urlProblem(req.url);
    if (problem) return { kind: 'error', message: `refused: url ${problem}` };
    const url = new URL(req.url);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, req.timeoutMs);
    try {
      const address = await resolveChecked(url, this.policy, this.resolver);
      const target = new URL(url);
      target.hostname = net.isIP(address) === 6 ? `[${address}]` : address;
      const response = await fetch(target, {
        method: req.method,
        headers: { 'user-agent': this.userAgent, ...req.headers, host: url.host },
        body: req.body,
        redirect: 'manual',
        signal: controller.signal,
        tls: {
          ...(this.ca ? { ca: this.ca } : {}),
          ...(net.isIP(host) ? {} : { serverName: host }),
          checkServerIdentity: (_name: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(host, cert),
        },
      } as RequestInit);
      const { body, truncated } = await readCapped(response, req.maxBytes);
      return { kind: 'response', status: response.status, headers: response.headers, body, truncated };
    } catch (error) {
      if (timedOut) return { kind: 'timeout', message: `no response within ${req.timeoutMs} ms` };
      if (error instanceof OutboundRefused) return { kind: 'error', message: error.message };
      const code = (error as NodeJS.ErrnoException).code;
      return { kind: 'error', message: `${code ? `${code}: ` : ''}${(error as Error).message ?? String(error)}` };
    } finally {
      clearTimeout(timer);
    }
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!response.body) return { body: new Uint8Array(), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { body: Buffer.concat(chunks), truncated };
}
