/**
 * How well a document's label (a header, a key, a field label) names a column: normalised words,
 * synonyms, similarity of spelling, and the column's description and instruction.
 */
import type { Column } from '../domain/columns';
import { labelSimilarity } from './lexicon';

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

const phrase = (text: string) => words(text).join(' ');

/**
 * A description that names the document's header in so many words ("Price", "Amount column (the
 * pieces)", "header: Revenue (EUR k)") says which header the column wants, above any synonym: 1
 * when it is the header, 0.97 when it opens with it, 0.9 when it quotes it; 0 otherwise.
 */
function descriptionNames(description: string | null | undefined, field: string): number {
  if (!description) return 0;
  const label = phrase(field);
  if (label.length < 2) return 0;
  const text = phrase(description);
  if (text === label) return 1;
  if (text.startsWith(`${label} `) && /^[^,;:]*/.exec(description)![0].trim().length <= field.length + 12) return 0.97;
  const header = /header:\s*([^)]*\)?[^);]*)/i.exec(description)?.[1];
  if (header && phrase(header) === label) return 0.97;
  return ` ${text} `.includes(` ${label} `) && label.split(' ').length >= 2 ? 0.9 : 0;
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
  const described = descriptionNames(column.description, field);
  if (described) return described;
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
  // The lexicon: the same business field across languages and abbreviations ("Menge" for Qty).
  best = Math.max(best, 0.95 * labelSimilarity(column.name, field));
  if (column.description) best = Math.max(best, 0.8 * labelSimilarity(column.description, field));
  return best;
}

