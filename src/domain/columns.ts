/**
 * Column types, the shape of a column and the rules about columns that every layer shares: the
 * HTTP schemas, the store, the query engine, extraction and the web console all take them from here.
 */
import { slugify } from '../lib/slug';

/** In the spec's order (its error messages and OpenAPI list them so). */
export const COLUMN_TYPES = ['array', 'boolean', 'currency', 'date', 'email', 'enum', 'multi_select', 'number', 'string', 'text', 'url'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface Column {
  id: string;
  name: string;
  type: ColumnType;
  required: boolean;
  currency_code?: string;
  default?: unknown;
  description?: string | null;
  instruction?: string | null;
  options?: string[];
  searchable?: boolean;
}

/** System fields every row has; no column may take these ids. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at', 'batch_id', 'confidence', 'needs_review'] as const;

/**
 * Below this confidence an extracted row is marked `needs_review`: in the corpus bench's reliability
 * table (docs/benchmarks.md) fewer than half of the rows under it are right.
 */
export const REVIEW_BELOW = 0.6;

/** Whether a row asks for a person's look: extracted, and not sure enough. Rows written by people never do. */
export function needsReview(confidence: number | null): boolean {
  return confidence !== null && confidence < REVIEW_BELOW;
}

/** How a value compares and which filter operators it takes. */
export type FieldType = 'string' | 'number' | 'boolean' | 'array';

const FIELD_TYPE: Record<ColumnType, FieldType> = {
  array: 'array',
  multi_select: 'array',
  boolean: 'boolean',
  currency: 'number',
  number: 'number',
  date: 'string',
  email: 'string',
  enum: 'string',
  string: 'string',
  text: 'string',
  url: 'string',
};

export function fieldTypeOf(type: ColumnType): FieldType {
  return FIELD_TYPE[type];
}

/** Text-like columns are searched by `q` unless a column says otherwise. */
export function isSearchable(column: Column): boolean {
  return column.searchable ?? ['text', 'string', 'email', 'url', 'enum'].includes(column.type);
}

/**
 * An id for a column given by name only (an added column, a project schema, an inferred one): the
 * name in snake case, not a system field, unique among `taken`.
 */
export function columnIdFrom(name: string, taken: Set<string>): string {
  const base = slugify(name, 32, '_', 'column');
  const safe = (SYSTEM_FIELDS as readonly string[]).includes(base) ? `${base}_col` : base;
  if (!taken.has(safe)) return safe;
  for (let n = 2; ; n++) if (!taken.has(`${safe}_${n}`)) return `${safe}_${n}`;
}
