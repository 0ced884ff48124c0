/** Request and response shapes of webhooks and their deliveries, as the spec and reference OpenAPI give them. */
import { t } from 'elysia';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from '../domain/webhooks';
import { Id, ListEnvelopeFields, ListQuery, oneOf, Timestamp } from './list.schema';

export const WebhookEvent = oneOf(WEBHOOK_EVENTS);
const DeliveryStatus = oneOf(DELIVERY_STATUSES);
const Events = t.Array(WebhookEvent, { minItems: 1 });
const Url = t.String({ maxLength: 2048, pattern: '^https:\\/\\/.*', error: 'must be an https:// URL of at most 2048 characters' });
const Name = t.String({ maxLength: 64 });

export const CreateWebhookBody = t.Object({ url: Url, events: Events, name: t.Optional(Name) });

export const UpdateWebhookBody = t.Object({
  active: t.Optional(t.Boolean()),
  events: t.Optional(Events),
  name: t.Optional(Name),
  url: t.Optional(Url),
});

const webhookFields = {
  id: Id,
  organization_id: Id,
  name: t.Nullable(Name),
  url: t.String({ maxLength: 2048 }),
  events: Events,
  events_json: Events,
  active: t.Boolean(),
  failure_count: t.Integer({ minimum: 0 }),
  last_triggered_at: t.Nullable(Timestamp),
  secret_rotated_at: t.Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Webhook = t.Object(webhookFields);
/** Create and rotate-secret are the only answers that carry the secret. */
export const WebhookWithSecret = t.Object({ ...webhookFields, secret: t.String() });
export const WebhookList = t.Object({ ...ListEnvelopeFields, webhooks: t.Array(t.Partial(Webhook)) });

export const Delivery = t.Object({
  id: Id,
  webhook_id: Id,
  event: WebhookEvent,
  payload_json: t.String({ maxLength: 65536 }),
  status: DeliveryStatus,
  http_status: t.Nullable(t.Integer({ minimum: 0 })),
  response_body: t.Nullable(t.String({ maxLength: 4096 })),
  attempt: t.Integer({ minimum: 1 }),
  next_retry_at: t.Nullable(Timestamp),
  delivered_at: t.Nullable(Timestamp),
  created_at: Timestamp,
});
export const DeliveryList = t.Object({ ...ListEnvelopeFields, deliveries: t.Array(t.Partial(Delivery)) });
export const DeliveryQuery = t.Composite([
  ListQuery,
  t.Object({
    event: t.Optional(WebhookEvent),
    status: t.Optional(DeliveryStatus),
  }),
]);

export const TestResult = t.Object({
  status: t.Union([t.Literal('error'), t.Literal('success'), t.Literal('timeout')]),
  http_status: t.Nullable(t.Number()),
  response_body: t.Nullable(t.String({ maxLength: 1024 })),
});

export const WebhookDeleted = t.Object({ id: t.String() });
