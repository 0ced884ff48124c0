/**
 * The one column mapper: source fields to columns (by id, name, description and instruction words,
 * common synonyms, fuzzy similarity, and whether the values fit the column's type), each field to
 * at most one column; values coerced by the shared coercion module; a confidence for every row.
 */
import type { Column, Strictness } from '../store/tables.store';
import { coerce, fits } from './coerce';
import type { RecordGroup, SourceRecord } from './document';

/** Words that mean the same thing in column and field names; each maps to its group's first word. */
const SYNONYMS: string[][] = [
  ['amount', 'total', 'sum', 'amt', 'gross', 'charge', 'charged', 'paid', 'due', 'balance', 'value'],
  ['price', 'cost', 'rate', 'fee', 'unit price', 'unitprice', 'each'],
  ['date', 'dated', 'day', 'issued', 'issue', 'created', 'when', 'time', 'timestamp', 'on'],
  ['quantity', 'qty', 'count', 'units', 'unit', 'pcs', 'pieces', 'number of'],
  ['description', 'desc', 'item', 'items', 'product', 'details', 'detail', 'particulars', 'service', 'article', 'line', 'memo'],
  ['email', 'e-mail', 'mail', 'email address', 'e mail'],
  ['phone', 'tel', 'telephone', 'mobile', 'cell', 'phone number'],
  ['name', 'full name', 'contact', 'person', 'customer name', 'client name', 'title'],
  ['customer', 'client', 'buyer', 'bill to', 'billed to', 'sold to', 'account'],
  ['company', 'organization', 'organisation', 'business', 'firm', 'employer'],
  ['vendor', 'supplier', 'merchant', 'seller', 'payee', 'from'],
  ['address', 'street', 'addr', 'location'],
  ['city', 'town'],
  ['country', 'nation'],
  ['number', 'no', 'num', 'nr', '#', 'id', 'ref', 'reference', 'code'],
  ['invoice', 'bill', 'inv'],
  ['order', 'po', 'purchase order'],
  ['sku', 'part', 'article number', 'item code', 'product code'],
  ['currency', 'ccy', 'cur'],
  ['status', 'state', 'stage'],
  ['category', 'type', 'class', 'kind', 'group', 'department'],
  ['url', 'link', 'website', 'web', 'homepage', 'site'],
  ['tax', 'vat', 'gst', 'sales tax'],
  ['discount', 'rebate'],
  ['note', 'notes', 'comment', 'comments', 'remark', 'remarks'],
  ['subject', 'heading', 'topic'],
  ['in stock', 'available', 'availability', 'stocked', 'on hand'],
  ['tags', 'tag', 'labels', 'label', 'keywords'],
  ['active', 'enabled', 'is active'],
  ['paid', 'settled'],
  ['due date', 'payment due', 'due by', 'pay by'],
];

const CANONICAL = new Map<string, string>();
for (const group of SYNONYMS) for (const word of group) if (!CANONICAL.has(word)) CANONICAL.set(word, group[0]!);

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/#/g, ' # ')
    .split(/[^\p{L}\p{N}#]+/u)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/** Words with multi-word synonyms joined first ("unit price" -> price), each mapped to its group. */
function canonical(text: string): string[] {
  const raw = words(text);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const pair = `${raw[i]} ${raw[i + 1] ?? ''}`.trim();
    if (i + 1 < raw.length && CANONICAL.has(pair)) {
      out.push(CANONICAL.get(pair)!);
      i++;
      continue;
    }
    out.push(CANONICAL.get(raw[i]!) ?? raw[i]!);
  }
  return out;
}

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

/** Dice similarity of two strings' letter pairs, 0 to 1. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const x = bigrams(a);
  const y = bigrams(b);
  let shared = 0;
  for (const [g, n] of x) shared += Math.min(n, y.get(g) ?? 0);
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

const squash = (s: string) => words(s).join('');

function overlap(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const set = new Set(b);
  const shared = new Set(a.filter((w) => set.has(w))).size;
  return shared / new Set([...a, ...b]).size;
}

/** How well a source field's name fits a column, 0 to 1, before looking at its values. */
export function nameScore(column: Column, field: string): number {
  const f = squash(field);
  const lastPart = field.includes('.') ? squash(field.slice(field.lastIndexOf('.') + 1)) : f;
  for (const name of [column.id, column.name]) {
    const n = squash(name);
    if (n === f) return 1;
    if (n === lastPart) return 0.95;
  }
  // `customer.name` is the customer: a nested object's name stands for the object.
  if (field.includes('.')) {
    const parent = squash(field.slice(0, field.lastIndexOf('.')).split('.').pop()!);
    const leaf = canonical(field.slice(field.lastIndexOf('.') + 1)).join(' ');
    if (['name', 'subject', 'label'].includes(leaf) && [column.id, column.name].some((n) => squash(n) === parent)) return 0.92;
  }
  const fieldWords = canonical(field);
  let best = 0;
  for (const name of [column.name, column.id]) {
    const nameWords = canonical(name);
    if (nameWords.join(' ') === fieldWords.join(' ')) best = Math.max(best, 0.9);
    const o = overlap(fieldWords, nameWords);
    if (o > 0) best = Math.max(best, 0.5 + 0.35 * o);
    const d = similarity(squash(name), f);
    if (d >= 0.7) best = Math.max(best, 0.85 * d);
  }
  const hints = canonical(`${column.description ?? ''} ${column.instruction ?? ''}`);
  if (hints.length) {
    const covered = fieldWords.filter((w) => hints.includes(w)).length / fieldWords.length;
    if (covered > 0) best = Math.max(best, 0.45 + 0.3 * covered);
  }
  return best;
}

/** How coercion treats extracted text: documents carry no types, so even `strict` reads "1,234.50". */
export function extractionStrictness(strictness: Strictness): Strictness {
  return strictness === 'flexible' ? 'flexible' : 'balanced';
}

const TYPED = new Set(['number', 'currency', 'date', 'email', 'url', 'boolean', 'enum', 'multi_select']);

/** The share of a field's sample values that the column's type accepts (1 for text columns). */
function fit(column: Column, values: unknown[]): number {
  if (!TYPED.has(column.type) || values.length === 0) return 1;
  return values.filter((v) => fits(v, column)).length / values.length;
}

export interface FieldMatch {
  column: Column;
  field: string;
  score: number;
}

const MIN_SCORE = 0.45;

/** Assigns fields to columns, best pairs first; each field and each column is used once. */
export function matchFields(columns: Column[], records: SourceRecord[]): FieldMatch[] {
  const fields = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const samples = new Map(fields.map((f) => [f, records.slice(0, 50).map((r) => r[f]).filter((v) => v !== undefined && v !== null && v !== '')]));
  const pairs: FieldMatch[] = [];
  for (const column of columns) {
    for (const field of fields) {
      const name = nameScore(column, field);
      if (name < MIN_SCORE) continue;
      const score = name * (0.4 + 0.6 * fit(column, samples.get(field)!));
      if (score >= MIN_SCORE) pairs.push({ column, field, score });
    }
  }
  pairs.sort((a, b) => b.score - a.score || a.field.length - b.field.length);
  const usedColumns = new Set<string>();
  const usedFields = new Set<string>();
  const out: FieldMatch[] = [];
  for (const pair of pairs) {
    if (usedColumns.has(pair.column.id) || usedFields.has(pair.field)) continue;
    usedColumns.add(pair.column.id);
    usedFields.add(pair.field);
    out.push(pair);
  }
  return out;
}

export interface MappedRow {
  /** Coerced values by column id; columns without a value are absent. */
  values: Record<string, unknown>;
  confidence: number;
  /** Why values were left out: `column: message`. */
  problems: string[];
}

/**
 * Maps one record. A column's share of the confidence is its match score when its value parsed,
 * 0 when the value did not parse or a required column has none; optional columns without a value
 * do not count. A row with nothing mapped has confidence 0.
 */
export function mapRecord(record: SourceRecord, matches: FieldMatch[], columns: Column[], strictness: Strictness): MappedRow {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  const parts: number[] = [];
  const byColumn = new Map(matches.map((m) => [m.column.id, m]));
  for (const column of columns) {
    const match = byColumn.get(column.id);
    const raw = match ? record[match.field] : undefined;
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
      if (column.required) parts.push(0);
      continue;
    }
    const result = coerce(raw, column, extractionStrictness(strictness));
    if (!result.ok) {
      problems.push(`${column.id}: ${result.message}`);
      parts.push(0);
      continue;
    }
    if (result.value === null) continue;
    values[column.id] = result.value;
    parts.push(match!.score);
  }
  const confidence = parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : 0;
  return { values, confidence: Math.round(confidence * 1000) / 1000, problems };
}

/** How much of the columns a group covers: the sum of its best match scores. */
function coverage(matches: FieldMatch[]): number {
  return matches.reduce((sum, m) => sum + m.score, 0);
}

/**
 * Maps a document's groups: those covering the columns nearly as well as the best one are kept
 * (a page's second invoice table), the rest (navigation tables, unrelated fields) dropped.
 */
export function mapGroups(groups: RecordGroup[], columns: Column[], strictness: Strictness): MappedRow[] {
  const scored = groups.map((g) => ({ group: g, matches: matchFields(columns, g.records) })).map((s) => ({ ...s, coverage: coverage(s.matches) }));
  const best = Math.max(0, ...scored.map((s) => s.coverage));
  if (best === 0) return [];
  const kept = scored.filter((s) => s.coverage >= best * 0.75);
  const fieldsOf = (s: (typeof scored)[number]) => new Set(s.matches.map((m) => m.column.id));
  // A group whose columns another kept group also fills, and more, is that group's header fields
  // (an invoice's number and date, already on each of its line items).
  const dominated = (s: (typeof scored)[number]) =>
    kept.some((o) => o !== s && fieldsOf(o).size > fieldsOf(s).size && [...fieldsOf(s)].every((c) => fieldsOf(o).has(c)));
  const rows: MappedRow[] = [];
  for (const s of kept) {
    if (dominated(s)) continue;
    for (const record of s.group.records) {
      const row = mapRecord(record, s.matches, columns, strictness);
      if (Object.keys(row.values).length) rows.push(row);
    }
  }
  return rows;
}
