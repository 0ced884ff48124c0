/** Small named values of the installation itself (bootstrap marker, server secret). */
import { randomBytes } from 'node:crypto';
import type { Store } from './db';

/** Meta keys of backups' holds on the files (backup.ts places them). */
export const HOLD_PREFIX = 'backup_hold:';

export interface Hold {
  until: number;
  pid: number;
}

export class MetaStore {
  constructor(private readonly store: Store) {}

  private get db() {
    return this.store.db<unknown, string>('meta');
  }

  get<T>(name: string): T | undefined {
    return this.db.get(name) as T | undefined;
  }

  put(name: string, value: unknown): void {
    this.db.putSync(name, value);
  }

  /** The next number of a counter; call inside a transaction. */
  nextSeq(name: string): number {
    const next = (this.get<number>(name) ?? 0) + 1;
    this.put(name, next);
    return next;
  }

  /** Every backup's hold on the files, lapsed ones too. */
  holds() {
    return this.store.db<Hold, string>('meta').getRange({ start: HOLD_PREFIX, end: `${HOLD_PREFIX}\uffff` });
  }

  /**
   * True while a backup is copying the files its snapshot names: nothing may delete one of them.
   * Ask inside the write transaction that drops the record naming the file.
   */
  filesHeld(): boolean {
    const now = Date.now();
    for (const { value } of this.holds()) if (value.until > now) return true;
    return false;
  }

  /** The secret that signs cursors; made once, on first use, and kept in the store. */
  serverSecret(): Buffer {
    const existing = this.get<Uint8Array>('server_secret');
    if (existing) return Buffer.from(existing);
    return this.store.transactionSync(() => {
      const again = this.get<Uint8Array>('server_secret');
      if (again) return Buffer.from(again);
      const secret = randomBytes(32);
      this.put('server_secret', secret);
      return secret;
    });
  }
}
