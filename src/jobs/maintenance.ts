/** The periodic jobs of the foundation: persisting quota counts and dropping old idempotency records. */
import type { Services } from '../app';
import type { Scheduler } from './scheduler';

export function scheduleMaintenance(scheduler: Scheduler, services: Services): void {
  scheduler.every('usage-flush', 2_000, () => services.usage.flush());
  scheduler.every('idempotency-purge', 60 * 60 * 1000, () => services.idempotency.purgeExpired());
}
