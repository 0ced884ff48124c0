/**
 * Sends queued webhook deliveries. One timer is armed for the earliest queue time (and at least
 * every `rescanMs`, in case the clock jumps); when it fires, due deliveries are leased and sent,
 * at most `concurrency` at a time. No polling in between: new events wake it directly.
 */
import type { Clock } from '../lib/clock';
import type { Logger } from '../lib/log';
import type { Leased, WebhooksService } from '../services/webhooks.service';

export class WebhookDispatcher {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private ticking = false;
  private tickAgain = false;
  private stopped = true;

  constructor(
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly concurrency: number,
    private readonly rescanMs = 60_000,
  ) {}

  /** Starts sending; whatever was queued before (including leases a crash left behind) is picked up. */
  start(): void {
    this.stopped = false;
    this.webhooks.onQueued = () => this.wake();
    this.arm(0);
  }

  wake(): void {
    this.arm(0);
  }

  private arm(delay: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    try {
      do {
        this.tickAgain = false;
        const free = this.concurrency - this.inFlight.size;
        if (free <= 0 || this.stopped) break;
        for (const leased of await this.webhooks.lease(free)) this.track(this.deliver(leased));
      } while (this.tickAgain);
    } catch (error) {
      this.log.error('webhook_dispatch_failed', { error: String((error as Error)?.stack ?? error) });
    } finally {
      this.ticking = false;
    }
    await this.rearm();
  }

  /** Arms the timer for the next queue time, unless every slot is busy (a finishing send re-arms). */
  private async rearm(): Promise<void> {
    if (this.inFlight.size >= this.concurrency) return;
    let next: number | null;
    try {
      next = await this.webhooks.nextQueuedAt();
    } catch (error) {
      // The rescan timer tries again.
      this.log.error('webhook_dispatch_failed', { error: String((error as Error)?.stack ?? error) });
      next = null;
    }
    const delay = next === null ? this.rescanMs : Math.min(Math.max(0, next - this.clock.now()), this.rescanMs);
    this.arm(delay);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => {
      this.inFlight.delete(work);
      return this.rearm();
    });
  }

  private async deliver(leased: Leased): Promise<void> {
    try {
      const outcome = await this.webhooks.send(leased);
      await this.webhooks.finish(leased, outcome);
      this.log.info('webhook_attempt', {
        delivery_id: leased.delivery.id,
        webhook_id: leased.webhook.id,
        attempt: leased.delivery.attempt,
        outcome: outcome.kind,
        http_status: outcome.http_status,
      });
    } catch (error) {
      // The lease stays; the delivery is tried again when it runs out.
      this.log.error('webhook_attempt_failed', { delivery_id: leased.delivery.id, error: String((error as Error)?.stack ?? error) });
    }
  }

  /** Stops taking new work and waits for the sends under way (each ends by its own deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
