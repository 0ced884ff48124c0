/**
 * Schemas from documents: the columns of a document's largest group, named after its headers or
 * keys and typed by their values. Used for project-level extraction without a schema and for
 * schema suggestion; the columns it makes are accepted as they are by table create.
 */
import { columnIdFrom, type Column, type ColumnType } from '../domain/columns';
import { currencyIn, fits } from './coerce';
import type { RecordGroup } from './document';

const MAX_COLUMNS = 50;

function allFit(type: ColumnType, values: unknown[]): boolean {
  return values.every((v) => fits(v, { type }));
}

export interface InferredType {
  type: ColumnType;
  options?: string[];
  currency_code?: string;
}

/** Few distinct values that repeat: an enum. */
function enumOptions(values: unknown[]): string[] | null {
  if (values.length < 4 || !values.every((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 40)) return null;
  const distinct = [...new Set(values.map((v) => (v as string).trim()))];
  return distinct.length <= Math.min(10, Math.floor(values.length / 2)) ? distinct : null;
}

/** Delimited lists whose items repeat: a multi-select. */
function multiOptions(values: unknown[]): string[] | null {
  if (values.length < 3 || !values.every((v) => typeof v === 'string')) return null;
  const lists = (values as string[]).map((v) => v.split(/\s*[,;|]\s*/).map((s) => s.trim()).filter(Boolean));
  if (lists.filter((l) => l.length > 1).length < values.length / 2) return null;
  const items = lists.flat();
  const distinct = [...new Set(items)];
  return distinct.length <= 30 && items.length >= 2 * distinct.length && distinct.every((d) => d.length <= 40) ? distinct : null;
}

/** The narrowest type every value of a field fits. */
export function inferType(values: unknown[]): InferredType {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return { type: 'string' };
  const strings = present.every((v) => typeof v === 'string');
  if (present.every((v) => typeof v === 'boolean') || (strings && present.every((v) => /^(true|false|yes|no)$/i.test(String(v).trim())))) return { type: 'boolean' };
  if (present.every((v) => Array.isArray(v))) return { type: 'array' };
  if (strings && present.every((v) => currencyIn(v as string) !== null) && allFit('number', present)) {
    return { type: 'currency', currency_code: currencyIn(present.join(' ') as string)! };
  }
  if (allFit('number', present) && present.every((v) => typeof v === 'number' || !/^0\d/.test(String(v).trim()))) return { type: 'number' };
  if (present.every((v) => v instanceof Date || (typeof v === 'string' && /\d/.test(v))) && allFit('date', present)) return { type: 'date' };
  if (allFit('email', present)) return { type: 'email' };
  if (strings && present.every((v) => /^https?:\/\//i.test((v as string).trim()))) return { type: 'url' };
  if (present.some((v) => typeof v === 'string' && (v.length > 200 || /\n/.test(v)))) return { type: 'text' };
  const multi = multiOptions(present);
  if (multi) return { type: 'multi_select', options: multi };
  const options = enumOptions(present);
  if (options) return { type: 'enum', options };
  return { type: 'string' };
}

/** A column name within the pattern columns allow (ASCII letters, digits, spaces, `_ . -`). */
function columnName(field: string): string {
  const ascii = field.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return ascii.replace(/[^\w\s.-]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 64) || 'field';
}

/** The group a schema is made from: the one with the most values. */
export function mainGroup(groups: RecordGroup[]): RecordGroup | undefined {
  const size = (g: RecordGroup) => g.records.reduce((n, r) => n + Object.keys(r).length, 0);
  return [...groups].sort((a, b) => size(b) - size(a))[0];
}

export interface InferredColumn {
  column: Column;
  /** The document's own name for it. */
  field: string;
  /** Share of the group's records that have a value that fits the type. */
  fit: number;
}

export function inferDetailed(group: RecordGroup): InferredColumn[] {
  // Objects list integer-like keys ("2019") first, so a table's own column order is kept apart.
  const present = new Set(group.records.flatMap((r) => Object.keys(r)));
  const fields = [...new Set([...(group.fields ?? []).filter((f) => present.has(f)), ...present])].slice(0, MAX_COLUMNS);
  const ids = new Set<string>();
  const names = new Set<string>();
  // A name may not be another column's id either (writes accept both).
  const taken = (s: string) => ids.has(s) || names.has(s.toLowerCase());
  return fields.map((field) => {
    const id = columnIdFrom(field, ids);
    let name = columnName(field);
    for (let n = 2; taken(name); n++) name = `${columnName(field).slice(0, 60)} ${n}`;
    ids.add(id);
    names.add(name.toLowerCase());
    const values = group.records.map((r) => r[field]);
    const inferred = inferType(values);
    const column: Column = { id, name, type: inferred.type, required: false };
    if (inferred.options) column.options = inferred.options;
    if (inferred.currency_code) column.currency_code = inferred.currency_code;
    const fitting = values.filter((v) => fits(v, column)).length;
    return { column, field, fit: group.records.length ? fitting / group.records.length : 0 };
  });
}

export function inferColumns(groups: RecordGroup[]): Column[] {
  const group = mainGroup(groups);
  return group ? inferDetailed(group).map((c) => c.column) : [];
}
