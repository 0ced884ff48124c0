/**
 * The process's front door, around the Elysia app: request ids, one log line per request, health
 * and readiness, 503 before the store is open and while shutting down, the body-size check on the
 * declared length, the request deadline (408), and Idempotency-Key replay for every POST.
 */
import type { Config } from '../config';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { IdempotencyService } from '../services/idempotency.service';
import { presentedKey } from './auth';
import { readLimited, tooLarge } from './body';
import { errorResponse } from './errors';
import { requestInfo } from './request-info';

export type Lifecycle = 'starting' | 'ready' | 'stopping';

export interface Handler {
  handle(request: Request): Promise<Response>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

interface Deadline {
  at: number;
  expire(): void;
}

export class Gateway {
  state: Lifecycle = 'starting';
  private app: Handler | null = null;
  private idempotency: IdempotencyService | null = null;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** When a request last started or ended (performance.now()). */
  private lastEvent = 0;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  attach(app: Handler, idempotency: IdempotencyService): void {
    this.app = app;
    this.idempotency = idempotency;
    this.state = 'ready';
  }

  /** Bound so it can be handed to Bun.serve as is. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const started = performance.now();
    const given = request.headers.get('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : newId('req');
    const url = new URL(request.url);
    this.inFlight++;
    this.lastEvent = started;
    let response: Response;
    let keyId: string | undefined;
    try {
      const result = await this.route(request, url);
      response = result.response;
      keyId = result.keyId;
    } catch (error) {
      response = errorResponse(error instanceof ApiError ? error : new ApiError(500, 'internal_server_error', 'Something went wrong on our side'));
      if (!(error instanceof ApiError)) this.log.error('request_failed', { request_id: requestId, error: String((error as Error)?.stack ?? error) });
    } finally {
      this.inFlight--;
      this.lastEvent = performance.now();
      if (this.inFlight === 0) this.idle.splice(0).forEach((resolve) => resolve());
    }
    response = withHeader(response, 'x-request-id', requestId);
    this.log.info('request', {
      request_id: requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      key_id: keyId,
    });
    return response;
  };

  private async route(request: Request, url: URL): Promise<{ response: Response; keyId?: string }> {
    if (url.pathname === '/healthz') return { response: Response.json({ status: 'ok' }) };
    if (url.pathname === '/readyz') {
      if (this.state === 'ready') return { response: Response.json({ status: 'ready' }) };
      throw this.unavailable();
    }
    if (this.state !== 'ready' || !this.app) throw this.unavailable();
    if (this.config.role === 'worker') {
      throw new ApiError(404, 'not_found', 'This node is a worker (ROWSMITH_ROLE=worker): it runs extraction and export jobs and serves no API; send requests to an api or all node');
    }

    const declared = Number(request.headers.get('content-length') ?? 0);
    const limit = this.bodyLimit(request);
    if (declared > limit) throw tooLarge(limit);

    let inner = request;
    let watched!: Deadline;
    const deadline = new Promise<Response>((resolve) => {
      watched = {
        at: performance.now() + this.config.requestTimeoutMs,
        expire: () => resolve(errorResponse(new ApiError(408, 'request_timeout', `The request took longer than ${this.config.requestTimeoutMs} ms`))),
      };
    });
    this.watch(watched);
    const key = request.method === 'POST' ? request.headers.get('idempotency-key') : null;
    let work: Promise<Response>;
    if (key !== null && this.idempotency) {
      const body = await readLimited(request, limit);
      inner = new Request(request, { body: body.byteLength ? body : null });
      const scope = sha256Hex(presentedKey(request.headers.get('authorization')) ?? '');
      const fingerprint = sha256Hex(`${request.method} ${url.pathname}${url.search}\n${sha256Hex(body)}`);
      work = this.idempotency.run(scope, key, fingerprint, () => this.app!.handle(inner));
    } else {
      work = this.app.handle(inner);
    }
    try {
      const response = await Promise.race([work, deadline]);
      return { response, keyId: requestInfo(inner).keyId };
    } finally {
      this.deadlines.delete(watched);
    }
  }

  /**
   * Deadlines of requests in flight, oldest first. All share one timeout, so arrival order is
   * deadline order and one timer, set for the oldest, serves them all: a timer per request cost
   * the server 2-5 us of CPU a request.
   */
  private readonly deadlines = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  private watch(deadline: Deadline): void {
    this.deadlines.add(deadline);
    if (!this.timer) this.arm();
  }

  private arm(): void {
    const oldest = this.deadlines.values().next();
    if (oldest.done) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => this.expire(), Math.max(0, oldest.value.at - performance.now()));
    this.timer.unref();
  }

  private expire(): void {
    const now = performance.now();
    for (const deadline of this.deadlines) {
      if (deadline.at > now) break;
      this.deadlines.delete(deadline);
      deadline.expire();
    }
    this.arm();
  }

  private bodyLimit(request: Request): number {
    const type = request.headers.get('content-type') ?? '';
    return type.toLowerCase().startsWith('multipart/') ? this.config.maxUploadBytes : this.config.maxBodyBytes;
  }

  private unavailable(): ApiError {
    const message = this.state === 'stopping' ? 'The server is shutting down' : 'The server is starting';
    return new ApiError(503, 'service_unavailable', message, {}, { 'Retry-After': '1' });
  }

  /**
   * Milliseconds since a request last started or ended (background work lets requests go first).
   * A request in flight for longer is waiting (for a build, for room in a tail, for its body) and
   * would only wait longer if background work held back for it.
   */
  quietFor(): number {
    return performance.now() - this.lastEvent;
  }

  /** Stops taking requests and resolves once those in flight are done, or after `graceMs`. */
  async drain(graceMs: number): Promise<void> {
    this.state = 'stopping';
    if (this.inFlight === 0) return;
    await Promise.race([
      new Promise<void>((resolve) => this.idle.push(resolve)),
      new Promise<void>((resolve) => setTimeout(resolve, graceMs)),
    ]);
  }
}

function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    // Responses built from fetch() have immutable headers; copy them.
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}
