/**
 * Per-key token buckets: a sustained rate with a burst allowance. The buckets are the store's: in
 * memory on LMDB (one process), in the database on PostgreSQL, so that the rate holds for a key
 * whichever nodes its requests reach.
 */
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import type { RateBuckets } from '../store/ratelimit';

export class RateLimiter {
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly buckets: RateBuckets,
  ) {}

  /** Takes one token for `id`, or throws 429 with the seconds until one is back. */
  async take(id: string): Promise<void> {
    if (this.perSecond <= 0) return;
    const left = await this.buckets.take(id, this.perSecond, this.burst);
    if (left >= 0) return;
    const retryAfter = Math.max(1, Math.ceil(-left / this.perSecond));
    throw new ApiError(429, 'too_many_requests', `Rate limit of ${this.perSecond} requests per second exceeded`, {}, { 'Retry-After': String(retryAfter) });
  }
}

/** The buckets of one process (LMDB). */
export function memoryBuckets(clock: Clock): RateBuckets {
  const buckets = new Map<string, { tokens: number; updatedAt: number }>();
  return {
    async take(id, perSecond, burst) {
      const now = clock.now();
      const bucket = buckets.get(id) ?? { tokens: burst, updatedAt: now };
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
      bucket.updatedAt = now;
      buckets.set(id, bucket);
      if (bucket.tokens < 1) return bucket.tokens - 1;
      bucket.tokens -= 1;
      return bucket.tokens;
    },
  };
}
