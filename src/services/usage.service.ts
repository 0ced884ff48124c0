/**
 * Monthly request quotas. Counts are kept in memory and added to LMDB every few seconds (and at
 * shutdown), so a request costs no write; a crash can lose at most the last unflushed seconds.
 */
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import type { OrgRecord } from '../store/accounts.store';
import type { UsageRepository } from '../store/port';

export function monthOf(time: number): string {
  return new Date(time).toISOString().slice(0, 7);
}

/** The UTC month holding `time`, with its bounds. */
function monthAround(time: number): { name: string; start: number; end: number } {
  const date = new Date(time);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return { name: monthOf(time), start, end };
}

export class UsageService {
  private pending = new Map<string, number>();
  private pendingMonth: string;
  /** The current month, worked out once a month rather than on every request. */
  private current: { name: string; start: number; end: number };

  constructor(
    private readonly usage: UsageRepository,
    private readonly clock: Clock,
  ) {
    this.current = monthAround(clock.now());
    this.pendingMonth = this.current.name;
  }

  private month(): string {
    const now = this.clock.now();
    if (now < this.current.start || now >= this.current.end) this.current = monthAround(now);
    return this.current.name;
  }

  /** Counts one request of `org`, or throws 402 when its monthly quota is used up. */
  async count(org: OrgRecord): Promise<void> {
    const month = this.month();
    if (month !== this.pendingMonth) {
      void this.flush();
      this.pendingMonth = month;
    }
    // Without a quota there is nothing to check, so no read. The check and the count have no
    // await between them, so concurrent requests cannot both take the last one.
    const stored = org.monthly_request_quota === null ? 0 : await this.usage.get(org.id, month);
    if (org.monthly_request_quota !== null && stored + this.pendingOf(org.id, month) >= org.monthly_request_quota) {
      throw new ApiError(402, 'api_request_limit_exceeded', `Monthly request quota of ${org.monthly_request_quota} reached`);
    }
    this.pending.set(org.id, (this.pending.get(org.id) ?? 0) + 1);
  }

  async used(organizationId: string, month = this.month()): Promise<number> {
    return (await this.usage.get(organizationId, month)) + this.pendingOf(organizationId, month);
  }

  private pendingOf(organizationId: string, month: string): number {
    return month === this.pendingMonth ? (this.pending.get(organizationId) ?? 0) : 0;
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const counts = this.pending;
    const month = this.pendingMonth;
    this.pending = new Map();
    await this.usage.add(counts, month);
  }
}
