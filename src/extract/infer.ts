/** A schema for documents that come without one: the columns of the document's largest group, typed by their values. */
import { slugify } from '../lib/slug';
import type { Column, ColumnType } from '../store/tables.store';
import { coerce } from './coerce';
import type { RecordGroup } from './document';

const MAX_COLUMNS = 50;

function allFit(type: ColumnType, values: unknown[]): boolean {
  const column: Column = { id: 'x', name: 'x', type, required: false };
  return values.every((v) => {
    const r = coerce(v, column, 'balanced');
    return r.ok && r.value !== null;
  });
}

/** The narrowest type every value of a field fits. */
export function inferType(values: unknown[]): ColumnType {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return 'string';
  if (present.every((v) => typeof v === 'boolean') || (present.every((v) => typeof v === 'string') && present.every((v) => /^(true|false|yes|no)$/i.test(String(v).trim())))) return 'boolean';
  if (present.every((v) => Array.isArray(v))) return 'array';
  if (present.every((v) => typeof v === 'string' && /[$€£¥]|\b[A-Z]{3}\b/.test(v)) && allFit('number', present)) return 'currency';
  if (allFit('number', present) && present.every((v) => typeof v === 'number' || !/^0\d/.test(String(v).trim()))) return 'number';
  if (present.every((v) => v instanceof Date || (typeof v === 'string' && /\d/.test(v))) && allFit('date', present)) return 'date';
  if (allFit('email', present)) return 'email';
  if (present.every((v) => typeof v === 'string' && /^https?:\/\//i.test(v.trim()))) return 'url';
  if (present.some((v) => typeof v === 'string' && (v.length > 200 || /\n/.test(v)))) return 'text';
  return 'string';
}

/** A column name within the pattern columns allow (letters, digits, spaces, `_ . -`). */
function columnName(field: string): string {
  const name = field.replace(/[^\w\s.-]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 64);
  return name || 'field';
}

export function inferColumns(groups: RecordGroup[]): Column[] {
  const group = [...groups].sort((a, b) => b.records.length * Object.keys(b.records[0] ?? {}).length - a.records.length * Object.keys(a.records[0] ?? {}).length)[0];
  if (!group) return [];
  const fields = [...new Set(group.records.flatMap((r) => Object.keys(r)))].slice(0, MAX_COLUMNS);
  const ids = new Set<string>();
  return fields.map((field) => {
    let id = slugify(field, 36, '_', 'field');
    for (let n = 2; ids.has(id); n++) id = `${id.slice(0, 32)}_${n}`;
    ids.add(id);
    const type = inferType(group.records.map((r) => r[field]));
    const column: Column = { id, name: columnName(field), type, required: false };
    if (type === 'currency') {
      const code = group.records.map((r) => String(r[field] ?? '')).join(' ').match(/\b([A-Z]{3})\b/)?.[1];
      const symbol = group.records.map((r) => String(r[field] ?? '')).join(' ').match(/[$€£¥]/)?.[0];
      column.currency_code = code ?? ({ $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' } as Record<string, string>)[symbol ?? '$'];
    }
    return column;
  });
}
