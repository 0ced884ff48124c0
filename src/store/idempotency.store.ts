/** Stored first responses of POSTs sent with an Idempotency-Key, for replay within 24 hours. */
import type { Store } from './db';

export interface IdempotencyRecord {
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  created_at: number;
}

export class IdempotencyStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db<IdempotencyRecord, [string, string]>('idempotency');
  }

  get(scope: string, key: string): IdempotencyRecord | undefined {
    return this.db.get([scope, key]);
  }

  put(scope: string, key: string, record: IdempotencyRecord): Promise<void> {
    return this.store.transaction(() => this.db.putSync([scope, key], record));
  }

  /** Removes records made before `cutoff`; returns how many went. */
  purgeBefore(cutoff: number): Promise<number> {
    return this.store.transaction(() => {
      let removed = 0;
      for (const { key, value } of this.db.getRange()) {
        if (value.created_at >= cutoff) continue;
        this.db.removeSync(key);
        removed++;
      }
      return removed;
    });
  }
}
