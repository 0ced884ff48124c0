/** The rate limit's buckets as a store keeps them (see services/ratelimit.service.ts). */
export interface RateBuckets {
  /**
   * Refills `id`'s bucket at `perSecond` up to `burst` and takes one token. Returns the tokens left
   * (>= 0), or, when there was no whole token, a negative number: the tokens missing for one.
   */
  take(id: string, perSecond: number, burst: number): Promise<number>;
}
