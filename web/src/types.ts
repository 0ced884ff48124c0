export const COLUMN_TYPES = ['string', 'text', 'number', 'currency', 'date', 'boolean', 'email', 'url', 'enum', 'multi_select', 'array'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface Column {
  id: string;
  name: string;
  type: ColumnType;
  required: boolean;
  currency_code?: string;
  description?: string | null;
  options?: string[];
  searchable?: boolean;
}

export interface Table {
  id: string;
  name: string;
  slug: string;
  columns_json: Column[];
  row_count: number;
  last_used_at: number | null;
  updated_at: number;
  deleted_at: number | null;
}

export type Row = Record<string, unknown> & { id: string; updated_at: number; confidence: number | null; batch_id: string | null };

/** The list envelope, with its items under the resource's name (`tables`, `rows`, ...). */
export type List<K extends string, T> = { count: number; hasMore: boolean; nextCursor: string | null } & { [key in K]: T[] };

export interface Me {
  key: { id: string; name: string; role: 'admin' | 'write' | 'read'; project_ids: string[] | null };
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
  events: string[];
  active: boolean;
  failure_count: number;
  secret?: string;
}

export interface Delivery {
  id: string;
  event: string;
  status: string;
  http_status: number | null;
  attempt: number;
  response_body: string | null;
  created_at: number;
}

export interface Batch {
  id: string;
  status: string;
  total_rows?: number;
  file_count?: number;
  created_at: number;
}
