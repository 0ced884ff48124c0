/** What the console reads from the API; tables, columns and the enumerations are the service's own (src/domain). */
import type { BatchStatus } from '../../src/domain/batches';
import type { Column } from '../../src/domain/columns';
import type { KeyRole } from '../../src/domain/keys';
import type { DeliveryStatus, WebhookEvent } from '../../src/domain/webhooks';

export type Row = Record<string, unknown> & { id: string; updated_at: number; confidence: number | null; needs_review: boolean; batch_id: string | null };

/** The list envelope, with its items under the resource's name (`tables`, `rows`, ...). */
export type List<K extends string, T> = { count: number; hasMore: boolean; nextCursor: string | null } & { [key in K]: T[] };

export interface Me {
  key: { id: string; name: string; role: KeyRole; project_ids: string[] | null };
  organization: { id: string; name: string };
  projects: { id: string; name: string }[];
}

export interface Template {
  id: string;
  name: string;
  category: string;
  description: string;
  columns_json: Column[];
}

export interface Webhook {
  id: string;
  name: string | null;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  failure_count: number;
  secret?: string;
}

export interface Delivery {
  id: string;
  event: WebhookEvent;
  status: DeliveryStatus;
  http_status: number | null;
  attempt: number;
  response_body: string | null;
  created_at: number;
}

export interface Batch {
  id: string;
  status: BatchStatus;
  total_rows?: number;
  file_count?: number;
  created_at: number;
}
