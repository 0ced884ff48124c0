/** Per-key token buckets: a sustained rate with a burst allowance, kept in memory. */
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one token for `id`, or throws 429 with the seconds until one is back. */
  take(id: string): void {
    if (this.perSecond <= 0) return;
    const now = this.clock.now();
    const bucket = this.buckets.get(id) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.set(id, bucket);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
      throw new ApiError(429, 'too_many_requests', `Rate limit of ${this.perSecond} requests per second exceeded`, {}, {
        'Retry-After': String(retryAfter),
      });
    }
    bucket.tokens -= 1;
  }
}
