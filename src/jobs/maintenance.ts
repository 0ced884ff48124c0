/**
 * Periodic upkeep: quota counts, old idempotency records, deleted tables and removed columns' index
 * entries, and (with ROWSMITH_PREBUILD) the caches of large tables once they stop changing.
 */
import type { Config } from '../config';
import type { ExportsService } from '../services/exports.service';
import type { IdempotencyService } from '../services/idempotency.service';
import type { RowsService } from '../services/rows.service';
import type { TablesService } from '../services/tables.service';
import type { UsageService } from '../services/usage.service';
import type { WebhooksService } from '../services/webhooks.service';
import type { Scheduler } from './scheduler';

/** The services that have upkeep. */
interface Upkeep {
  usage: UsageService;
  idempotency: IdempotencyService;
  exports: ExportsService;
  webhooks: WebhooksService;
  tables: TablesService;
  rows: RowsService;
}

export function scheduleMaintenance(scheduler: Scheduler, services: Upkeep, config: Config): void {
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
