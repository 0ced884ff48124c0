/**
 * The rules of webhooks: registering receivers, turning events into persisted deliveries, the
 * retry schedule, failure streaks and deactivation, secret rotation and the test send.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { DeliveryStatus, WebhookEvent } from '../domain/webhooks';
import type { Clock } from '../lib/clock';
import { ApiError, fieldError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { Outbound } from '../lib/outbound';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, recordAccess, type ListParams } from '../query/list';
import type { Repositories, StorePort } from '../store/port';
import type { DeliveryRecord, WebhookRecord } from '../store/webhooks.store';
import type { SendOutcome, WebhookSender } from './webhook-sender';

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;
/** Largest stored payload, in characters (the spec's limit of `payload_json`). */
export const PAYLOAD_CHARS = 65_536;
/** Characters of the receiver's answer a test returns. */
const TEST_BODY_CHARS = 1024;
/** Deliveries leased per scheduler pass at most, and purged per transaction. */
const BATCH = 500;

export const WEBHOOK_LIST: ListSpec = {
  resource: 'webhooks',
  fields: {
    created_at: { type: 'number', sortable: true, filterable: true },
    active: { type: 'boolean', sortable: true, filterable: true },
    id: { type: 'string', filterable: true },
    name: { type: 'string', filterable: true },
    url: { type: 'string' },
  },
  searchable: ['name', 'url'],
  selectable: [
    'id', 'organization_id', 'name', 'url', 'events', 'events_json', 'active', 'failure_count', 'last_triggered_at',
    'secret_rotated_at', 'created_at', 'updated_at',
  ],
};

export const DELIVERY_LIST: ListSpec = {
  resource: 'deliveries',
  fields: {
    created_at: { type: 'number', sortable: true },
    status: { type: 'string', sortable: true },
  },
  searchable: [],
  selectable: [
    'id', 'webhook_id', 'event', 'payload_json', 'status', 'http_status', 'response_body', 'attempt', 'next_retry_at', 'delivered_at', 'created_at',
  ],
};

export type Webhook = Omit<WebhookRecord, 'secret' | 'previous_secret' | 'previous_secret_until' | 'failing_since'> & { events_json: WebhookEvent[] };
export type Delivery = Omit<DeliveryRecord, 'organization_id' | 'message_id' | 'queued_at' | 'leased_until'>;

export function toWebhook(record: WebhookRecord): Webhook {
  const { secret: _s, previous_secret: _p, previous_secret_until: _u, failing_since: _f, ...webhook } = record;
  return { ...webhook, events_json: webhook.events };
}

export function toDelivery(record: DeliveryRecord): Delivery {
  const { organization_id: _o, message_id: _m, queued_at: _q, leased_until: _l, ...delivery } = record;
  return delivery;
}

export interface WebhookInput {
  url?: string;
  events?: WebhookEvent[];
  name?: string | null;
  active?: boolean;
}

export interface TestResult {
  status: 'success' | 'error' | 'timeout';
  http_status: number | null;
  response_body: string | null;
}

/** A delivery being sent: the lease taken on it, and the webhook as it was then. */
export interface Leased {
  delivery: DeliveryRecord;
  webhook: WebhookRecord;
}

export type WebhookSettings = Pick<
  Config,
  'webhookTimeoutMs' | 'webhookRetryDelaysMs' | 'webhookMinBackoffMs' | 'webhookDeactivateAfterMs' | 'webhookDeliveryRetentionMs'
>;

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export class WebhooksService {
  /** Called after new deliveries are committed, so the dispatcher can send them now. */
  onQueued: () => void = () => {};

  constructor(
    private readonly port: StorePort,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly outbound: Outbound,
    private readonly sender: WebhookSender,
    private readonly settings: WebhookSettings,
    private readonly random: () => number = Math.random,
  ) {}

  /** A lease outlives the send it covers (the send's deadline), so a live send is never taken twice. */
  get leaseMs(): number {
    return 2 * this.settings.webhookTimeoutMs;
  }

  /** The organization's webhook, or 404; read through `tx` inside a transaction. */
  private async require(organizationId: string, id: string, tx: Repositories = this.port): Promise<WebhookRecord> {
    const webhook = await tx.webhooks.get(id);
    if (!webhook || webhook.organization_id !== organizationId) throw new ApiError(404, 'webhook_not_found', `Webhook ${id} not found`);
    return webhook;
  }

  /** 400 for a URL that is not https or points where the address rules forbid. */
  private async checkUrl(url: string): Promise<void> {
    const problem = await this.outbound.check(url);
    if (problem) throw fieldError('url', problem);
  }

  async list(organizationId: string, params: ListParams) {
    const query = parseListQuery(WEBHOOK_LIST, params, this.cursors);
    const all = await this.port.webhooks.listOrg(organizationId);
    const page = listInMemory(all, WEBHOOK_LIST, query, recordAccess(), this.cursors);
    return envelope('webhooks', query, { ...page, items: page.items.map(toWebhook) });
  }

  async get(organizationId: string, id: string): Promise<Webhook> {
    return toWebhook(await this.require(organizationId, id));
  }

  async create(organizationId: string, input: Required<Pick<WebhookInput, 'url' | 'events'>> & WebhookInput): Promise<Webhook & { secret: string }> {
    await this.checkUrl(input.url);
    const now = this.clock.now();
    const record: WebhookRecord = {
      id: newId('whook', now),
      organization_id: organizationId,
      name: input.name ?? null,
      url: input.url,
      events: [...new Set(input.events)],
      active: true,
      failure_count: 0,
      last_triggered_at: null,
      secret_rotated_at: null,
      created_at: now,
      updated_at: now,
      secret: newSecret(),
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
    };
    await this.port.webhooks.put(record);
    return { ...toWebhook(record), secret: record.secret };
  }

  async update(organizationId: string, id: string, input: WebhookInput): Promise<Webhook> {
    await this.require(organizationId, id);
    if (input.url !== undefined) await this.checkUrl(input.url);
    return toWebhook(
      await this.port.transaction(async (tx) => {
        const webhook = await this.require(organizationId, id, tx);
        const next: WebhookRecord = { ...webhook };
        if (input.url !== undefined) next.url = input.url;
        if (input.events !== undefined) next.events = [...new Set(input.events)];
        if (input.name !== undefined) next.name = input.name;
        if (input.active !== undefined && input.active !== webhook.active) {
          next.active = input.active;
          // A fresh start: an old failure streak must not deactivate the webhook again at once.
          next.failure_count = 0;
          next.failing_since = null;
          if (!input.active) await this.cancelPending(tx, webhook.id, 'not sent: the webhook was deactivated');
        }
        if (JSON.stringify(next) === JSON.stringify(webhook)) return webhook;
        next.updated_at = this.clock.now();
        await tx.webhooks.put(next);
        return next;
      }),
    );
  }

  async remove(organizationId: string, id: string): Promise<{ id: string }> {
    await this.port.transaction(async (tx) => tx.webhooks.remove(await this.require(organizationId, id, tx)));
    return { id };
  }

  async rotateSecret(organizationId: string, id: string): Promise<Webhook & { secret: string }> {
    const next = await this.port.transaction(async (tx) => {
      const webhook = await this.require(organizationId, id, tx);
      const now = this.clock.now();
      const rotated: WebhookRecord = {
        ...webhook,
        secret: newSecret(),
        previous_secret: webhook.secret,
        previous_secret_until: now + PREVIOUS_SECRET_MS,
        secret_rotated_at: now,
        updated_at: now,
      };
      await tx.webhooks.put(rotated);
      return rotated;
    });
    return { ...toWebhook(next), secret: next.secret };
  }

  async deliveries(organizationId: string, id: string, params: ListParams & { event?: WebhookEvent; status?: DeliveryStatus }) {
    await this.require(organizationId, id);
    const query = parseListQuery(DELIVERY_LIST, params, this.cursors);
    const all = (await this.port.webhooks.listDeliveries(id)).filter((d) => (params.event === undefined || d.event === params.event) && (params.status === undefined || d.status === params.status));
    const page = listInMemory(all, DELIVERY_LIST, query, recordAccess(), this.cursors);
    return envelope('deliveries', query, { ...page, items: page.items.map(toDelivery) });
  }

  private payload(event: WebhookEvent, data: unknown): string {
    const timestamp = this.clock.now();
    const json = JSON.stringify({ type: event, timestamp, data });
    if (json.length <= PAYLOAD_CHARS) return json;
    // Too large for a delivery: receivers get the resource's id and fetch the rest.
    const id = (data as { id?: unknown } | null)?.id ?? null;
    return JSON.stringify({ type: event, timestamp, data: { id, truncated: true } });
  }

  private newDelivery(webhook: WebhookRecord, event: WebhookEvent, payload: string, messageId: string, attempt: number, dueAt: number | null, now = this.clock.now()): DeliveryRecord {
    return {
      id: newId('whdlv', now),
      webhook_id: webhook.id,
      organization_id: webhook.organization_id,
      message_id: messageId,
      event,
      payload_json: payload,
      status: 'pending',
      http_status: null,
      response_body: null,
      attempt,
      next_retry_at: dueAt,
      delivered_at: null,
      created_at: now,
      queued_at: dueAt,
    };
  }

  /**
   * Queues `event` for every active webhook of the organization that wants it, in `tx`: the
   * transaction that records what the event announces, so both are written or neither; then
   * `wake` once it has committed.
   */
  async enqueue(tx: Repositories, organizationId: string, event: WebhookEvent, data: unknown): Promise<number> {
    const payload = this.payload(event, data);
    let queued = 0;
    for (const webhook of await tx.webhooks.listOrg(organizationId)) {
      if (!webhook.active || !webhook.events.includes(event)) continue;
      const now = this.clock.now();
      await tx.webhooks.putDelivery(this.newDelivery(webhook, event, payload, newId('msg'), 1, now, now));
      queued++;
    }
    return queued;
  }

  /** Tells the dispatcher that committed deliveries are waiting. */
  wake(): void {
    this.onQueued();
  }

  /** Queues `event` in a transaction of its own and wakes the dispatcher. */
  async emit(organizationId: string, event: WebhookEvent, data: unknown): Promise<number> {
    const count = await this.port.transaction((tx) => this.enqueue(tx, organizationId, event, data));
    if (count > 0) this.wake();
    return count;
  }

  /** Sends a `ping` now and records it as a delivery; it neither retries nor counts toward failures. */
  async test(organizationId: string, id: string): Promise<TestResult> {
    const webhook = await this.require(organizationId, id);
    const payload = this.payload('ping', { webhook_id: webhook.id, organization_id: organizationId, message: 'Test event from rowsmith' });
    const messageId = newId('msg');
    const outcome = await this.sender.send(webhook, messageId, payload);
    await this.port.transaction(async (tx) => {
      const delivery = this.newDelivery(webhook, 'ping', payload, messageId, 1, null);
      await tx.webhooks.putDelivery(this.settle(delivery, outcome, null));
      const current = await tx.webhooks.get(id);
      if (current) await tx.webhooks.put({ ...current, last_triggered_at: this.clock.now() });
    });
    return {
      status: outcome.kind === 'success' ? 'success' : outcome.kind === 'timeout' ? 'timeout' : 'error',
      http_status: outcome.http_status,
      response_body: outcome.body === null ? null : outcome.body.slice(0, TEST_BODY_CHARS),
    };
  }

  /** A delivery's record once its attempt is over. */
  private settle(delivery: DeliveryRecord, outcome: SendOutcome, nextRetryAt: number | null): DeliveryRecord {
    const success = outcome.kind === 'success';
    return {
      ...delivery,
      status: success ? 'success' : 'failed',
      http_status: outcome.http_status,
      response_body: outcome.body,
      delivered_at: success ? this.clock.now() : null,
      next_retry_at: nextRetryAt,
      queued_at: null,
      leased_until: null,
    };
  }

  /** Delay before the attempt after `attempt`, or null when that was the last one. */
  retryDelay(attempt: number, outcome: SendOutcome): number | null {
    const base = this.settings.webhookRetryDelaysMs[attempt - 1];
    if (base === undefined) return null;
    let delay = base * (0.8 + 0.4 * this.random());
    if (outcome.kind === 'timeout' || outcome.http_status === 429) delay = Math.max(delay, this.settings.webhookMinBackoffMs);
    if (outcome.retryAfterMs !== null) delay = Math.min(Math.max(outcome.retryAfterMs, delay), 2 * delay);
    return Math.round(delay);
  }

  /**
   * Fails what a webhook still has queued, in `tx`. A send under way is left to finish: the
   * receiver may already have it, so its outcome is recorded as it comes (and no retry follows it).
   */
  private async cancelPending(tx: Repositories, webhookId: string, reason: string): Promise<void> {
    const now = this.clock.now();
    for (const id of await tx.webhooks.queuedFor(webhookId)) {
      const delivery = await tx.webhooks.getDelivery(id);
      if (delivery && (delivery.leased_until ?? 0) <= now) await tx.webhooks.putDelivery({ ...delivery, status: 'failed', response_body: reason, next_retry_at: null, queued_at: null }, delivery);
    }
  }

  /** When the earliest queued delivery is due (or its lease ends); null when none is queued. */
  nextQueuedAt(): Promise<number | null> {
    return this.port.webhooks.nextQueued();
  }

  /**
   * Takes up to `max` due deliveries for sending: each gets a lease (its queue key moves to the
   * lease's end) in a committed transaction before any send starts. A delivery of a webhook that
   * is gone or inactive fails here without a send.
   */
  lease(max: number): Promise<Leased[]> {
    return this.port.transaction(async (tx) => {
      const now = this.clock.now();
      const leased: Leased[] = [];
      for (const id of await tx.webhooks.queuedUntil(now, Math.min(max, BATCH))) {
        const delivery = (await tx.webhooks.getDelivery(id))!;
        const webhook = await tx.webhooks.get(delivery.webhook_id);
        if (!webhook?.active) {
          await tx.webhooks.putDelivery({ ...delivery, status: 'failed', response_body: 'not sent: the webhook is inactive', next_retry_at: null, queued_at: null }, delivery);
          continue;
        }
        const next = { ...delivery, queued_at: now + this.leaseMs, leased_until: now + this.leaseMs };
        await tx.webhooks.putDelivery(next, delivery);
        leased.push({ delivery: next, webhook });
      }
      return leased;
    });
  }

  /** Sends one leased delivery. */
  send(leased: Leased): Promise<SendOutcome> {
    return this.sender.send(leased.webhook, leased.delivery.message_id, leased.delivery.payload_json);
  }

  /**
   * Records an attempt's outcome: the delivery settles, the webhook's counters move, and a failure
   * either queues the next attempt or, after a 410 or a long enough failure streak, deactivates
   * the webhook and cancels what it still had queued.
   */
  finish(leased: Leased, outcome: SendOutcome): Promise<void> {
    return this.port.transaction(async (tx) => {
      const delivery = await tx.webhooks.getDelivery(leased.delivery.id);
      // Deleted, cancelled, or leased again after this lease ran out: that other outcome counts.
      if (!delivery || delivery.status !== 'pending' || delivery.queued_at !== leased.delivery.queued_at) return;
      const webhook = await tx.webhooks.get(delivery.webhook_id);
      const now = this.clock.now();
      if (outcome.kind === 'success') {
        await tx.webhooks.putDelivery(this.settle(delivery, outcome, null), delivery);
        if (webhook) await tx.webhooks.put({ ...webhook, failure_count: 0, failing_since: null, last_triggered_at: now });
        return;
      }
      const failingSince = webhook?.failing_since ?? now;
      const gone = outcome.http_status === 410;
      const streakOver = now - failingSince >= this.settings.webhookDeactivateAfterMs;
      const delay = gone || streakOver || !webhook?.active ? null : this.retryDelay(delivery.attempt, outcome);
      const nextAt = delay === null ? null : now + delay;
      await tx.webhooks.putDelivery(this.settle(delivery, outcome, nextAt), delivery);
      if (nextAt !== null) {
        await tx.webhooks.putDelivery(this.newDelivery(webhook!, delivery.event, delivery.payload_json, delivery.message_id, delivery.attempt + 1, nextAt, now));
      }
      if (!webhook) return;
      const deactivate = gone || streakOver;
      if (deactivate) {
        const why = gone ? 'the receiver answered 410 Gone' : 'its deliveries kept failing';
        await this.cancelPending(tx, webhook.id, `not sent: the webhook was deactivated because ${why}`);
      }
      await tx.webhooks.put({
        ...webhook,
        failure_count: webhook.failure_count + 1,
        failing_since: failingSince,
        last_triggered_at: now,
        active: deactivate ? false : webhook.active,
        updated_at: deactivate ? now : webhook.updated_at,
      });
    });
  }

  /** Removes finished deliveries past the retention period; returns how many went. */
  async purgeDeliveries(): Promise<number> {
    const cutoff = this.clock.now() - this.settings.webhookDeliveryRetentionMs;
    let removed = 0;
    for (;;) {
      const batch = await this.port.transaction(async (tx) => {
        const old = await tx.webhooks.finishedBefore(cutoff, BATCH);
        for (const delivery of old) await tx.webhooks.removeDelivery(delivery);
        return old.length;
      });
      removed += batch;
      if (batch < BATCH) return removed;
    }
  }
}
