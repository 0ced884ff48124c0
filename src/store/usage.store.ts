/** Request counts per organization and calendar month, for monthly quotas. */
import type { Store } from './db';

export class UsageStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db<number, [string, string]>('usage');
  }

  get(organizationId: string, month: string): number {
    return this.db.get([organizationId, month]) ?? 0;
  }

  /** Adds to the stored count inside one transaction, so other writers' counts are not lost. */
  add(counts: Map<string, number>, month: string): Promise<void> {
    return this.store.transaction(() => {
      for (const [org, n] of counts) this.db.putSync([org, month], this.get(org, month) + n);
    });
  }
}
