/**
 * Webhooks, their deliveries, and the delivery queue. The queue holds one key `[time, delivery id]`
 * per pending delivery: its due time, or, while a send is under way, the end of its lease. A crash
 * therefore leaves every unfinished delivery in the queue, due again when its lease runs out.
 * Callers change a delivery and its queue key in one transaction.
 */
import type { DeliveryStatus, WebhookEvent } from '../domain/webhooks';
import { idTimeBound } from '../lib/ids';
import { recordsUnder, type Store } from './db';

export interface WebhookRecord {
  id: string;
  organization_id: string;
  name: string | null;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  failure_count: number;
  last_triggered_at: number | null;
  secret_rotated_at: number | null;
  created_at: number;
  updated_at: number;
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: number | null;
}

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  organization_id: string;
  /** The `webhook-id` header: one per event and webhook, the same on every attempt. */
  message_id: string;
  event: WebhookEvent;
  payload_json: string;
  status: DeliveryStatus;
  http_status: number | null;
  response_body: string | null;
  attempt: number;
  next_retry_at: number | null;
  delivered_at: number | null;
  created_at: number;
  /** The delivery's queue key time while pending (due time, or lease end during a send); null otherwise. */
  queued_at: number | null;
  /** While a send is under way, when its lease ends; absent or null otherwise. */
  leased_until?: number | null;
}

export class WebhooksStore {
  constructor(private readonly store: Store) {}

  private get webhooks() {
    return this.store.db<WebhookRecord, string>('webhooks');
  }
  private get byOrg() {
    return this.store.db<true, [string, string]>('org_webhooks');
  }
  private get deliveries() {
    return this.store.db<DeliveryRecord, string>('deliveries');
  }
  private get byWebhook() {
    return this.store.db<true, [string, string]>('webhook_deliveries');
  }
  private get queue() {
    return this.store.db<string, [number, string]>('delivery_queue');
  }

  get(id: string): WebhookRecord | undefined {
    return this.webhooks.get(id);
  }

  listOrg(organizationId: string): WebhookRecord[] {
    return recordsUnder(this.byOrg, this.webhooks, organizationId);
  }

  /** Call inside a transaction. */
  put(webhook: WebhookRecord): void {
    this.byOrg.putSync([webhook.organization_id, webhook.id], true);
    this.webhooks.putSync(webhook.id, webhook);
  }

  /** Removes a webhook with all its deliveries and their queue keys. Call inside a transaction. */
  remove(webhook: WebhookRecord): void {
    for (const id of this.deliveryIds(webhook.id)) {
      const delivery = this.deliveries.get(id);
      if (delivery) this.removeDelivery(delivery);
    }
    this.byOrg.removeSync([webhook.organization_id, webhook.id]);
    this.webhooks.removeSync(webhook.id);
  }

  getDelivery(id: string): DeliveryRecord | undefined {
    return this.deliveries.get(id);
  }

  deliveryIds(webhookId: string): string[] {
    return [...this.byWebhook.getRange({ start: [webhookId], end: [webhookId, '\uffff'] }).map(({ key }) => key[1])];
  }

  listDeliveries(webhookId: string): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    for (const id of this.deliveryIds(webhookId)) {
      const delivery = this.deliveries.get(id);
      if (delivery) out.push(delivery);
    }
    return out;
  }

  /** Writes a delivery and moves its queue key from `previous` (if any). Call inside a transaction. */
  putDelivery(delivery: DeliveryRecord, previous?: DeliveryRecord): void {
    if (previous?.queued_at != null) this.queue.removeSync([previous.queued_at, previous.id]);
    if (!previous) this.byWebhook.putSync([delivery.webhook_id, delivery.id], true);
    if (delivery.queued_at !== null) this.queue.putSync([delivery.queued_at, delivery.id], delivery.webhook_id);
    this.deliveries.putSync(delivery.id, delivery);
  }

  /** Call inside a transaction. */
  removeDelivery(delivery: DeliveryRecord): void {
    if (delivery.queued_at !== null) this.queue.removeSync([delivery.queued_at, delivery.id]);
    this.byWebhook.removeSync([delivery.webhook_id, delivery.id]);
    this.deliveries.removeSync(delivery.id);
  }

  /** The earliest queue time, or null when nothing is pending. */
  nextQueued(): number | null {
    for (const { key } of this.queue.getRange({ limit: 1 })) return key[0];
    return null;
  }

  /** Pending deliveries queued at or before `time`, earliest first. */
  queuedUntil(time: number, limit: number): string[] {
    return [...this.queue.getRange({ start: [0], end: [time, '\uffff'], limit }).map(({ key }) => key[1])];
  }

  /** Every pending delivery of a webhook. */
  queuedFor(webhookId: string): string[] {
    return [...this.queue.getRange().filter(({ value }) => value === webhookId).map(({ key }) => key[1])];
  }

  /** Finished deliveries made before `cutoff`, up to `limit` of them (ids sort by creation time). */
  finishedBefore(cutoff: number, limit: number): DeliveryRecord[] {
    const out: DeliveryRecord[] = [];
    for (const { value } of this.deliveries.getRange({ end: idTimeBound('whdlv', cutoff) })) {
      if (value.status !== 'pending') out.push(value);
      if (out.length >= limit) break;
    }
    return out;
  }
}
