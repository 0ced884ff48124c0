/** Periodic upkeep: quota counts, old idempotency records, deleted tables and removed columns' index entries. */
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
}
