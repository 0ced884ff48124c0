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

export interface Extraction {
  id: string;
  file_name: string;
  status: 'pending' | 'processing' | 'complete' | 'failed';
  row_count: number | null;
  error: string | null;
}

export type BatchDetail = Batch & { extractions: Extraction[]; success_count?: number; fail_count?: number };

/** A box in points on its page, origin top-left. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Where a row's values are on the pages of the document it came from. */
export interface Provenance {
  row_id: string;
  extraction_id: string;
  batch_id: string;
  file_name: string;
  pages: { number: number; width: number; height: number; image: boolean }[];
  fields: { column_id: string; page: number; box: Box; text: string; label: string | null }[];
}

/** A corrected document of a table, which teaches the extraction its issuer's layout. */
export interface Example {
  id: string;
  table_id: string;
  row_id: string;
  extraction_id: string;
  batch_id: string | null;
  file_name: string | null;
  fields: { column_id: string; value: unknown; corrected: boolean; page: number | null; box: Box | null; label: string | null }[];
  identifiers: string[];
  created_at: number;
  updated_at: number;
}

export interface Evaluation {
  table_id: string;
  documents: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  columns: { column_id: string; name: string; precision: number | null; recall: number | null; f1: number | null; support: number }[];
  worst: { example_id: string; row_id: string; extraction_id: string; file_name: string | null; f1: number | null; wrong: string[] }[];
  duration_ms: number;
}
