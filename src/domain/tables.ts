/** The shape of a table as the API gives it, and its settings' values, defined once for every layer. */
import type { Column } from './columns';

/** How strictly written and extracted values must match their columns. */
export const STRICTNESS_LEVELS = ['strict', 'balanced', 'flexible'] as const;
export type Strictness = (typeof STRICTNESS_LEVELS)[number];

/** What an extraction into a table does with rows already there. */
export const INSERT_MODES = ['append', 'dedup', 'merge', 'replace'] as const;
export type InsertMode = (typeof INSERT_MODES)[number];

/** A table as clients see it (timestamps in milliseconds since the epoch). */
export interface Table {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  columns_json: Column[];
  instruction: string | null;
  strictness: Strictness;
  insert_mode: InsertMode;
  merge_columns_json: string[] | null;
  default_sort: string | null;
  row_count: number;
  usage_count: number;
  data_version: number;
  fts_version: number;
  last_used_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}
