/**
 * Periodic upkeep: quota counts, old idempotency records, deleted tables and removed columns' index
 * entries, and (with ROWSMITH_PREBUILD) the caches of large tables once they stop changing.
 */
import type { Services } from '../app';
import type { Config } from '../config';
import type { Scheduler } from './scheduler';

export function scheduleMaintenance(scheduler: Scheduler, services: Services, config: Config): void {
  scheduler.every('usage-flush', 2_000, () => services.usage.flush());
  scheduler.every('idempotency-purge', config.purgeIntervalMs, () => services.idempotency.purgeExpired());
  scheduler.every('exports-purge', config.purgeIntervalMs, () => services.exports.purgeExpired());
  scheduler.every('deliveries-purge', config.purgeIntervalMs, () => services.webhooks.purgeDeliveries());
  scheduler.every('tables-purge', config.purgeIntervalMs, async () => {
    await services.tables.purgeDeleted();
    await services.tables.buildPendingSlots();
    await services.tables.cleanDroppedSlots();
  });
  if (config.prebuild) scheduler.every('prebuild-settled', PREBUILD_SETTLED_MS, () => services.rows.prebuild(true));
}

/** How often large tables are checked for having stopped changing (so a build starts 5-10 s after the last write). */
export const PREBUILD_SETTLED_MS = 5_000;
