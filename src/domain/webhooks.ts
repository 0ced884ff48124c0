/** Webhook events and delivery states, defined once for the store, the HTTP schemas and the console. */

/** The events a batch's end sends, one per way it ends. */
export const BATCH_EVENTS = ['batch.complete', 'batch.failed', 'batch.partial'] as const;
/** Every event a webhook may subscribe to: `ping` is what a test sends. */
export const WEBHOOK_EVENTS = [...BATCH_EVENTS, 'ping'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
