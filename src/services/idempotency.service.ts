/**
 * Idempotency-Key on POST: the same key with the same request within 24 hours replays the first
 * response instead of acting twice; the same key with another request is 422.
 */
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import type { IdempotencyRepository } from '../store/port';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Outcomes about the caller's standing or a passing condition are not kept: a retry should act. */
const NOT_KEPT = new Set([401, 402, 403, 408, 429]);

export class IdempotencyService {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  async run(scope: string, key: string, fingerprint: string, exec: () => Promise<Response>): Promise<Response> {
    if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ApiError(400, 'invalid_input', 'Idempotency-Key must be 1 to 255 printable characters', {
        'Idempotency-Key': [{ error_key: 'invalid', message: 'must be 1 to 255 printable characters', path: 'Idempotency-Key' }],
      });
    }
    const slot = `${scope}\n${key}`;
    // A second request with the key waits for the first, then replays what it stored. The slot is
    // claimed with no await since the wait, and the stored response read inside the claim, so
    // one request of a key runs at a time.
    while (this.inFlight.has(slot)) await this.inFlight.get(slot)!.catch(() => undefined);
    const work = this.replayOrExecute(scope, key, fingerprint, exec);
    this.inFlight.set(slot, work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(slot);
    }
  }

  private async replayOrExecute(scope: string, key: string, fingerprint: string, exec: () => Promise<Response>): Promise<Response> {
    const stored = await this.store.get(scope, key);
    if (stored && stored.created_at > this.clock.now() - IDEMPOTENCY_TTL_MS) {
      if (stored.fingerprint !== fingerprint) {
        throw new ApiError(422, 'unprocessable_entity', 'This Idempotency-Key was already used with a different request');
      }
      return new Response(stored.body, { status: stored.status, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' } });
    }
    const response = await exec();
    const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
    if (response.status >= 500 || NOT_KEPT.has(response.status) || streaming) return response;
    const body = new Uint8Array(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'x-request-id') headers[name] = value;
    });
    await this.store.put(scope, key, { fingerprint, status: response.status, headers, body, created_at: this.clock.now() });
    return new Response(body, { status: response.status, headers });
  }

  purgeExpired(): Promise<number> {
    return this.store.purgeBefore(this.clock.now() - IDEMPOTENCY_TTL_MS);
  }
}
