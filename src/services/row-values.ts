/**
 * Turning a client's row object into stored values: keys by column id or name, each value checked
 * and converted by the shared coercion module in the table's strictness, required columns and
 * defaults, and unknown keys. Problems are collected per field so one 400 names them all.
 */
import { needsReview, SYSTEM_FIELDS, type Column } from '../domain/columns';
import { coerce } from '../extract';
import { ApiError, checkIfMatchTag, type FieldError } from '../lib/errors';
import type { RowRecord } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

export type Problem = FieldError;

const SYSTEM = new Set<string>(SYSTEM_FIELDS);

/** Finds a column by id, or else by name ignoring case. */
export function columnResolver(table: TableRecord): (key: string) => Column | undefined {
  const byId = new Map(table.columns_json.map((c) => [c.id, c]));
  const byName = new Map(table.columns_json.map((c) => [c.name.toLowerCase(), c]));
  return (key) => byId.get(key) ?? byName.get(key.toLowerCase());
}

const path = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/**
 * The stored values (by slot) for `input`. On create (`existing` undefined) missing columns take
 * their default, and missing required ones are a problem unless the table is flexible; on update the
 * given values are merged into `existing`, and `null` clears a value that is not required.
 */
export function rowValues(
  table: TableRecord,
  input: Record<string, unknown>,
  prefix: string,
  problems: Problem[],
  existing?: Record<number, unknown>,
  resolve = columnResolver(table),
): Record<number, unknown> {
  const strictness = table.strictness;
  const values: Record<number, unknown> = {};
  if (existing) {
    // Only values of current columns are carried over; those of removed columns are dropped here.
    for (const column of table.columns_json) {
      const slot = table.slots[column.id]!;
      if (existing[slot] !== undefined && existing[slot] !== null) values[slot] = existing[slot];
    }
  }
  const given = new Map<string, string>();
  for (const [key, raw] of Object.entries(input)) {
    const column = resolve(key);
    if (!column) {
      if (SYSTEM.has(key)) continue;
      if (strictness === 'strict') problems.push({ path: path(prefix, key), error_key: 'unknown_column', message: `no column "${key}" in this table` });
      continue;
    }
    if (given.has(column.id)) {
      problems.push({ path: path(prefix, key), error_key: 'duplicate', message: `"${key}" and "${given.get(column.id)}" both name column ${column.id}` });
      continue;
    }
    given.set(column.id, key);
    const slot = table.slots[column.id]!;
    const result = coerce(raw, column, strictness);
    if (!result.ok) {
      problems.push({ path: path(prefix, column.id), error_key: 'invalid_value', message: result.message });
      continue;
    }
    if (result.value === null) {
      if (column.required && existing && strictness !== 'flexible') {
        problems.push({ path: path(prefix, column.id), error_key: 'required', message: 'is required and cannot be cleared' });
      }
      delete values[slot];
    } else {
      values[slot] = result.value;
    }
  }
  if (!existing) {
    for (const column of table.columns_json) {
      const slot = table.slots[column.id]!;
      if (values[slot] !== undefined) continue;
      if (column.default !== undefined && column.default !== null && !given.has(column.id)) {
        const result = coerce(column.default, column, strictness === 'strict' ? 'balanced' : strictness);
        if (result.ok && result.value !== null) {
          values[slot] = result.value;
          continue;
        }
      }
      if (column.required && strictness !== 'flexible' && !problems.some((p) => p.path === path(prefix, column.id))) {
        problems.push({ path: path(prefix, column.id), error_key: 'required', message: 'is required' });
      }
    }
  }
  return values;
}

export function rowNotFound(id: string): ApiError {
  return new ApiError(404, 'row_not_found', `Row ${id} not found`);
}

/** A row as clients see it: system fields, then every column by id (null when empty). */
/** A row's ETag: it changes with every write of the row (updated_at never repeats for a row). */
export function rowEtag(row: { id: unknown; updated_at: unknown }): string {
  return `"${String(row.id)}.${String(row.updated_at)}"`;
}

/** `If-Match` must name the row's current ETag (or `*`); a stale one is 409, with the current ETag. */
export function checkRowIfMatch(ifMatch: string | null, row: RowRecord): void {
  checkIfMatchTag(ifMatch, rowEtag(row), 'row');
}

export function toRow(table: TableRecord, row: RowRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    batch_id: row.batch_id,
    confidence: row.confidence,
    needs_review: needsReview(row.confidence),
  };
  for (const column of table.columns_json) out[column.id] = row.values[table.slots[column.id]!] ?? null;
  return out;
}

/** Readers of row fields, each resolved once (the slot looked up when the reader is made). */
export function rowAccessor(table: TableRecord): (field: string) => (row: RowRecord) => unknown {
  return (field) => {
    switch (field) {
      case 'id':
        return (row) => row.id;
      case 'created_at':
        return (row) => row.created_at;
      case 'updated_at':
        return (row) => row.updated_at;
      case 'batch_id':
        return (row) => row.batch_id;
      case 'confidence':
        return (row) => row.confidence;
      case 'needs_review':
        return (row) => needsReview(row.confidence);
      default: {
        const slot = Object.hasOwn(table.slots, field) ? table.slots[field]! : undefined;
        return slot === undefined ? () => undefined : (row) => row.values[slot] ?? null;
      }
    }
  };
}

/** A field of a row as the list engine sees it, through one reader per field. */
export function rowField(table: TableRecord): (row: RowRecord, field: string) => unknown {
  const accessor = rowAccessor(table);
  const readers = new Map<string, (row: RowRecord) => unknown>();
  return (row, field) => {
    let read = readers.get(field);
    if (!read) readers.set(field, (read = accessor(field)));
    return read(row);
  };
}
