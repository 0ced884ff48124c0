/**
 * One signed POST of a webhook payload, Standard Webhooks style: `webhook-id`, `webhook-timestamp`
 * and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one per secret
 * that still signs).
 */
import { createHmac } from 'node:crypto';
import type { Clock } from '../lib/clock';
import type { Outbound } from '../lib/outbound';
import type { WebhookRecord } from '../store/webhooks.store';

/** Characters of a receiver's answer kept on a delivery. */
export const RESPONSE_BODY_CHARS = 4096;

export interface SendOutcome {
  kind: 'success' | 'failure' | 'timeout';
  http_status: number | null;
  /** The receiver's answer, or what went wrong when there was none. */
  body: string | null;
  /** The receiver's Retry-After, in milliseconds from now. */
  retryAfterMs: number | null;
}

export function signatures(secrets: string[], messageId: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/** Seconds or an HTTP date, as milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export class WebhookSender {
  constructor(
    private readonly outbound: Outbound,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** The secrets that sign now: the current one, and the previous one for a day after a rotation. */
  private secretsOf(webhook: WebhookRecord): string[] {
    const previous = webhook.previous_secret && (webhook.previous_secret_until ?? 0) > this.clock.now() ? [webhook.previous_secret] : [];
    return [webhook.secret, ...previous];
  }

  async send(webhook: WebhookRecord, messageId: string, payload: string): Promise<SendOutcome> {
    const timestamp = Math.floor(this.clock.now() / 1000);
    const result = await this.outbound.request({
      url: webhook.url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatures(this.secretsOf(webhook), messageId, timestamp, payload),
      },
      body: payload,
      timeoutMs: this.timeoutMs,
      // Enough bytes for RESPONSE_BODY_CHARS characters of any UTF-8 text.
      maxBytes: RESPONSE_BODY_CHARS * 4,
    });
    if (result.kind === 'timeout') return { kind: 'timeout', http_status: null, body: `timeout: ${result.message}`, retryAfterMs: null };
    if (result.kind === 'error') return { kind: 'failure', http_status: null, body: result.message.slice(0, RESPONSE_BODY_CHARS), retryAfterMs: null };
    const body = new TextDecoder().decode(result.body).slice(0, RESPONSE_BODY_CHARS);
    const ok = result.status >= 200 && result.status < 300;
    return {
      kind: ok ? 'success' : 'failure',
      http_status: result.status,
      body,
      retryAfterMs: ok ? null : parseRetryAfter(result.headers.get('retry-after'), this.clock.now()),
    };
  }
}
