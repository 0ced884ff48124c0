/**
 * Monthly request quotas. Counts are kept in memory and added to LMDB every few seconds (and at
 * shutdown), so a request costs no write; a crash can lose at most the last unflushed seconds.
 */
import type { Clock } from '../lib/clock';
import { ApiError } from '../lib/errors';
import type { OrgRecord } from '../store/accounts.store';
import type { UsageStore } from '../store/usage.store';

export function monthOf(time: number): string {
  return new Date(time).toISOString().slice(0, 7);
}

export class UsageService {
  private pending = new Map<string, number>();
  private pendingMonth: string;

  constructor(
    private readonly usage: UsageStore,
    private readonly clock: Clock,
  ) {
    this.pendingMonth = monthOf(clock.now());
  }

  /** Counts one request of `org`, or throws 402 when its monthly quota is used up. */
  count(org: OrgRecord): void {
    const month = monthOf(this.clock.now());
    if (month !== this.pendingMonth) {
      void this.flush();
      this.pendingMonth = month;
    }
    const used = this.used(org.id, month);
    if (org.monthly_request_quota !== null && used >= org.monthly_request_quota) {
      throw new ApiError(402, 'api_request_limit_exceeded', `Monthly request quota of ${org.monthly_request_quota} reached`);
    }
    this.pending.set(org.id, (this.pending.get(org.id) ?? 0) + 1);
  }

  used(organizationId: string, month = monthOf(this.clock.now())): number {
    const pending = month === this.pendingMonth ? (this.pending.get(organizationId) ?? 0) : 0;
    return this.usage.get(organizationId, month) + pending;
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const counts = this.pending;
    const month = this.pendingMonth;
    this.pending = new Map();
    await this.usage.add(counts, month);
  }
}
