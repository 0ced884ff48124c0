/**
 * Document fields (invoices, receipts, statements, orders, e-mails): one value per document-level
 * column, read from the lines of a document outside its tables. Labels are matched to columns
 * through the lexicon in any of its languages; values are picked by the column's type. Dates are
 * told apart by their labels and phrases, amounts checked against each other (net + tax = total),
 * the issuer found in the letterhead and the customer in the bill-to block. Values are returned as
 * printed (the caller coerces them), except dates whose day/month order the document itself
 * decides, which come back as YYYY-MM-DD.
 */
import type { Column } from '../store/tables.store';
import { currencyIn, parseHumanNumber } from './coerce';
import { cellText } from './tables';
import type { TextLine } from './layout/page';
import { conceptLevel, conceptsOf, coreTokens, inVocabulary, isKindOf, labelSimilarity, languageOf, normalizeLabel, type ConceptHit, type Language } from './lexicon';
import { ADDRESS_TITLES, DOCUMENT_TITLES, DUE_PHRASES, LEGAL_FORMS, MONTH_NAMES, PLACE_DATE_WORDS } from './lexicon.data';

export interface DocumentFields {
  values: Record<string, unknown>;
  scores: Record<string, number>;
}

// ---------------------------------------------------------------- plain text to lines

const TEXT_GAP = /\t+| {2,}| \| /g;

/** Lines of plain text (e-mail bodies, HTML text): segments at tabs, runs of spaces or ` | `. */
export function linesFromText(text: string): TextLine[] {
  const out: TextLine[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/\s+$/, '');
    if (!line.trim()) return;
    const segments: TextLine['segments'] = [];
    let start = 0;
    const push = (end: number) => {
      const piece = line.slice(start, end);
      const lead = piece.length - piece.trimStart().length;
      const body = piece.trim().replace(/^\|\s*|\s*\|$/g, '').trim();
      if (body) segments.push({ text: body.replace(/\s+/g, ' '), x0: start + lead, x1: start + lead + piece.trim().length });
    };
    for (const gap of line.matchAll(TEXT_GAP)) {
      push(gap.index!);
      start = gap.index! + gap[0].length;
    }
    push(line.length);
    if (segments.length) out.push({ page: 1, y: index, size: 1, segments, text: segments.map((s) => s.text).join(' ') });
  });
  return out;
}

/**
 * The rows of a document's tables as lines, for the key/value tables of invoices and forms
 * ("Shop | Corner Store", "Subtotal | 12.00"): one line per row, one segment per cell, x in
 * characters. Each table gets a page of its own after the document's pages, so that its rows
 * never pass for the letterhead at the top of the first page.
 */
export function tableLines(tables: Array<{ grid: unknown[][] }>, firstPage = 10_000): TextLine[] {
  const out: TextLine[] = [];
  tables.forEach((table, t) => {
    const widths: number[] = [];
    for (const row of table.grid) row.forEach((cell, c) => (widths[c] = Math.max(widths[c] ?? 0, cellText(cell).length)));
    table.grid.forEach((row, y) => {
      const segments: TextLine['segments'] = [];
      let x = 0;
      row.forEach((cell, c) => {
        const text = cellText(cell);
        // A spanning cell is repeated into every column it covers: one segment is enough.
        if (text && !(c > 0 && cellText(row[c - 1]) === text)) segments.push({ text, x0: x, x1: x + text.length });
        x += (widths[c] ?? 0) + 2;
      });
      if (segments.length) out.push({ page: firstPage + t, y, size: 1, segments, text: segments.map((s) => s.text).join(' ') });
    });
  });
  return out;
}


// ---------------------------------------------------------------- values in text

const fold = (s: string) =>
  Array.from(s, (ch) => {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '');
    return f.length === ch.length ? f : ch;
  })
    .join('')
    .toLowerCase();

const MONTH_BY_NAME = new Map<string, number>();
for (const [month, names] of Object.entries(MONTH_NAMES)) for (const name of names) MONTH_BY_NAME.set(fold(name), Number(month));
const MONTH_ALT = [...MONTH_BY_NAME.keys()].sort((a, b) => b.length - a.length).join('|');

const DATE_PATTERNS: Array<{ re: RegExp; kind: 'iso' | 'numeric' | 'dmy' | 'mdy' }> = [
  { re: /(?<![\d.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d])/g, kind: 'iso' },
  { re: /(?<![\d.\/-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d]|[./-]\d)/g, kind: 'numeric' },
  { re: new RegExp(`(?<![\\p{L}\\d])(\\d{1,2})\\.?\\s*(?:de\\s+)?(${MONTH_ALT})(?!\\p{L})\\.?,?\\s*(?:de\\s+)?(\\d{4})(?!\\d)`, 'gu'), kind: 'dmy' },
  { re: new RegExp(`(?<![\\p{L}])(${MONTH_ALT})(?!\\p{L})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?!\\d)`, 'gu'), kind: 'mdy' },
];

type DayOrder = 'dmy' | 'mdy' | null;

interface FoundDate {
  start: number;
  end: number;
  raw: string;
  /** YYYY-MM-DD when the date or the document decides it; null while the day/month order is open. */
  iso: string | null;
  /** For numeric dates with `/` or `-`: the two leading numbers, for day/month evidence. */
  parts?: [number, number];
}

const pad = (n: number) => String(n).padStart(2, '0');
const expandYear = (y: number) => (y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y);

function isoOf(y: number, m: number, d: number): string | null {
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${y}-${pad(m)}-${pad(d)}`;
}

const DATES_MEMO = new Map<string, FoundDate[]>();

/** The dates in a text (memoised: every rule looks at the same lines). */
function findDates(text: string, order: DayOrder): FoundDate[] {
  const key = `${order ?? ''}|${text}`;
  let found = DATES_MEMO.get(key);
  if (!found) {
    found = computeDates(text, order);
    if (DATES_MEMO.size >= 20000) DATES_MEMO.clear();
    DATES_MEMO.set(key, found);
  }
  return found;
}

function computeDates(text: string, order: DayOrder): FoundDate[] {
  // Most lines hold no date: skip the patterns when there are no figures at all.
  if (!/\d/.test(text)) return [];
  const folded = fold(text);
  const found: FoundDate[] = [];
  for (const { re, kind } of DATE_PATTERNS) {
    for (const m of folded.matchAll(re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      let iso: string | null = null;
      let parts: [number, number] | undefined;
      if (kind === 'iso') iso = isoOf(+m[1]!, +m[2]!, +m[3]!);
      else if (kind === 'dmy') iso = isoOf(+m[3]!, MONTH_BY_NAME.get(m[2]!)!, +m[1]!);
      else if (kind === 'mdy') iso = isoOf(+m[3]!, MONTH_BY_NAME.get(m[1]!)!, +m[2]!);
      else {
        const [a, sep, b, y] = [+m[1]!, m[2]!, +m[3]!, expandYear(+m[4]!)];
        const dayFirst = isoOf(y, b, a);
        const monthFirst = isoOf(y, a, b);
        if (!dayFirst && !monthFirst) continue;
        if (sep === '.') iso = dayFirst;
        else {
          parts = [a, b];
          if (!dayFirst || !monthFirst || dayFirst === monthFirst) iso = dayFirst ?? monthFirst;
          else iso = order === 'dmy' ? dayFirst : order === 'mdy' ? monthFirst : null;
        }
        if (sep === '.' && !iso) continue;
      }
      if (kind !== 'numeric' && !iso) continue;
      found.push({ start, end, raw: text.slice(start, end), iso, parts });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The document's day/month order from its own dates: a first number above 12 is a day. */
function dayOrderOf(lines: TextLine[]): DayOrder {
  let dmy = 0;
  let mdy = 0;
  for (const line of lines) {
    for (const d of findDates(line.text, null)) {
      if (!d.parts) {
        if (/^\d{1,2}\.\d{1,2}\./.test(d.raw)) dmy++;
        continue;
      }
      if (d.parts[0] > 12) dmy += 2;
      else if (d.parts[1] > 12) mdy += 2;
    }
  }
  if (dmy > mdy) return 'dmy';
  if (mdy > dmy) return 'mdy';
  return null;
}

interface FoundAmount {
  start: number;
  end: number;
  raw: string;
  value: number;
  /** Written with decimals or a currency: surely money, not a count. */
  money: boolean;
  currency: string | null;
}

const SYMBOLS = 'US\\$|R\\$|[$€£¥₹₩₽₺₪]';
const AMOUNT_RE = new RegExp(
  `(?<![\\p{L}\\d.,/-])((?:${SYMBOLS}|[A-Z]{3})\\s?)?([-−]\\s?|\\()?(\\d{1,3}(?:[.,'’\\u00a0\\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)(\\))?(\\s?(?:${SYMBOLS}|[A-Z]{3}))?(-(?!\\d))?(?![\\d%]|\\s?%|[.,]\\d|[./-]\\d)`,
  'gu',
);

function findAmounts(text: string, dates: FoundDate[] = findDates(text, null)): FoundAmount[] {
  const out: FoundAmount[] = [];
  for (const m of text.matchAll(AMOUNT_RE)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (dates.some((d) => start < d.end && end > d.start)) continue;
    // Three capitals that are no currency ("VAT 19.00") are a word before the amount, not its code.
    const fakePrefix = !!m[1] && /^[A-Z]{3}/.test(m[1]) && !currencyIn(m[1]);
    const fakeSuffix = !!m[5] && /[A-Z]{3}/.test(m[5]) && !currencyIn(m[5]);
    const prefix = fakePrefix ? '' : (m[1] ?? '');
    const suffix = fakeSuffix ? '' : (m[5] ?? '');
    const raw = `${prefix}${m[2] ?? ''}${m[3]}${m[4] ?? ''}${suffix}${m[6] ?? ''}`.trim();
    const currency = prefix || suffix ? currencyIn(`${prefix} ${suffix}`) : null;
    const parsed = parseHumanNumber(raw);
    const value = parsed && 'value' in parsed ? parsed.value : parsed?.guess;
    if (value === undefined) continue;
    out.push({ start: start + (fakePrefix ? m[1]!.length : 0), end: end - (fakeSuffix ? m[5]!.length : 0), raw, value, money: /[.,]\d{1,2}$/.test(m[3]!) || currency !== null, currency });
  }
  return out;
}

const TIME_RE = /(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[ap]\.?m\.?)?(?![\d:])/i;
const EMAIL_RE = /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/i;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s,;]+/i;
const IBAN_RE = /\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b/;
const BIC_RE = /\b([A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b/;
const PHONE_RE = /(?:\+\s?\d|\(\d|\b\d)[\d()\/ .-]{5,}\d/;
const POSTAL_LINE = /(?:^|[\s,])(?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3,4})?\s+\p{Lu}|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b|\b\d{2}-\d{3}\s+\p{Lu}/u;
const STREET_LINE = /\d+\s*[a-z]?\s*$|^\d+\s+\p{L}|\b(?:str\.|straße|strasse|weg|gasse|allee|platz|street|st\.|road|rd\.|avenue|ave\.?|lane|drive|blvd|rue|avenue|boulevard|calle|avda\.?|via|viale|piazza|straat|laan|plein|ulica|ul\.|rua|avenida)\b/iu;

function validIban(text: string): string | null {
  const compact = text.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return null;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const code = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of code) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1 ? text : null;
}

// ---------------------------------------------------------------- what a column asks for

const AMOUNT_CONCEPTS = new Set(['net_amount', 'tax_amount', 'total', 'amount_due', 'subtotal', 'line_amount']);
const ID_CONCEPTS = new Set(['invoice_number', 'order_number', 'customer_number', 'reference', 'item_number', 'tax_id', 'postal_code']);

/**
 * Labels that stand in for a column's concept when the document has no label of its own kind,
 * with how surely: a document's "Date" is its invoice date, a "Subtotal" before tax its net.
 */
const STAND_INS: Record<string, Array<[string, number]>> = {
  date: [['invoice_date', 0.95]],
  invoice_date: [['date', 0.8]],
  net_amount: [['subtotal', 0.8]],
  subtotal: [['net_amount', 0.85]],
  total: [['amount_due', 0.8]],
  amount_due: [['total', 0.8]],
  customer: [['name', 0.5]],
};

interface Want {
  column: Column;
  concept: string | null;
  /** The column's own words, for labels outside the lexicon ("Sales rep"). */
  labels: string[];
  memo: Map<string, number>;
  /** Concepts a label must name, or words it must share, to match at all. */
  related: Set<string>;
  words: Set<string>;
}

function typeFits(concept: string, column: Column): boolean {
  const t = column.type;
  if (t === 'date') return isKindOf(concept, 'date') || concept === 'date';
  if (t === 'number' || t === 'currency') return AMOUNT_CONCEPTS.has(concept) || ['quantity', 'unit_price', 'tax_rate', 'discount', 'customer_number', 'invoice_number', 'order_number', 'position', 'postal_code'].includes(concept);
  if (t === 'email') return concept === 'email';
  if (t === 'url') return concept === 'website';
  return !isKindOf(concept, 'date') || concept === 'period';
}

function wantOf(column: Column): Want {
  const best = new Map<string, number>();
  const add = (hits: ConceptHit[], weight: number) => {
    for (const h of hits) if (h.score * weight > (best.get(h.concept) ?? 0)) best.set(h.concept, h.score * weight);
  };
  add(conceptsOf(column.name), 1);
  if (column.id !== column.name) add(conceptsOf(column.id), 0.95);
  if (column.description) add(conceptsOf(column.description), 0.9);
  if (column.instruction) add(conceptsOf(column.instruction), 0.85);
  const ranked = [...best].filter(([c]) => typeFits(c, column)).sort((a, b) => b[1] - a[1]);
  let concept = ranked[0] && ranked[0][1] >= 0.6 ? ranked[0][0] : null;
  // A bare "Amount" of a whole document is its total; a "Line total" stays a line's.
  if (concept === 'line_amount' && coreTokens(column.name).length === 1) concept = 'total';
  const labels = [column.name, column.description ?? ''].filter((l) => l.trim());
  const related = new Set<string>(labels.flatMap((l) => conceptsOf(l).map((h) => h.concept)));
  if (concept) for (const c of [concept, ...(STAND_INS[concept] ?? []).map(([c]) => c)]) related.add(c);
  const words = new Set(labels.flatMap(coreTokens));
  return { column, concept, labels, memo: new Map(), related, words };
}

/** How surely a printed label names what the column wants, 0..1. */
function labelMatch(want: Want, label: string): number {
  let score = want.memo.get(label);
  if (score === undefined) {
    score = computeLabelMatch(want, label);
    want.memo.set(label, score);
  }
  return score;
}

function computeLabelMatch(want: Want, label: string): number {
  if (!label.trim()) return 0;
  const hits = conceptsOf(label);
  // Most labels share neither a concept nor a word with the column: nothing more to weigh.
  if (!hits.some((h) => want.related.has(h.concept)) && !coreTokens(label).some((w) => want.words.has(w))) return 0;
  let score = 0;
  if (want.concept) {
    const scoreOf = (c: string) => hits.find((h) => h.concept === c)?.score ?? 0;
    score = scoreOf(want.concept);
    for (const [standIn, factor] of STAND_INS[want.concept] ?? []) score = Math.max(score, scoreOf(standIn) * factor);
  }
  for (const own of want.labels) score = Math.max(score, labelSimilarity(own, label) * (own === want.column.name ? 1 : 0.9));
  // A run of labels printed as one ("Subtotal Sales tax Total") names no single field.
  const named = hits.filter((h) => h.score >= 0.6 && !hits.some((o) => o !== h && isKindOf(o.concept, h.concept)));
  if (named.length >= 3) score *= 0.5;
  const top = hits[0];
  // A label that is clearly about something else ("Due date" for an invoice date, "No." for an
  // invoice number) does not count, whatever words it shares with the column.
  const related = top && want.concept && (top.concept === want.concept || isKindOf(top.concept, want.concept) || (STAND_INS[want.concept] ?? []).some(([c]) => c === top.concept));
  const own = want.concept ? (hits.find((h) => h.concept === want.concept)?.score ?? 0) : 0;
  if (top && !related && top.score >= 0.6 && top.score > own + 0.1) score *= 0.5;
  // A label that names another field just as well ("Ref": a reference or an article number) is unsure.
  else if (want.concept && own > 0 && hits.some((h) => h.concept !== want.concept && h.score >= own && typeFits(h.concept, want.column) && !isKindOf(want.concept!, h.concept) && !isKindOf(h.concept, want.concept!))) score *= 0.8;
  return score;
}

// ---------------------------------------------------------------- the layout

interface Seg {
  text: string;
  x0: number;
  x1: number;
  line: number;
  page: number;
  y: number;
  size: number;
  bold: boolean;
}

interface Pair {
  label: string;
  value: string;
  /** The value's segment (for blocks under a label and for positions). */
  seg: Seg;
  line: number;
  /** 1 for a value beside its label, a little less for one under it. */
  placement: number;
}

interface Layout {
  lines: TextLine[];
  segs: Seg[][];
  pairs: Pair[];
  order: DayOrder;
  /** Text sources have no font sizes or positions in points. */
  plain: boolean;
  /** Per page, the y of its first and last lines. */
  pageSpan: Map<number, [number, number]>;
}

/** Languages whose numeric dates put the day first (English is written both ways). */
const DAY_FIRST_LANGUAGES = new Set<Language>(['de', 'fr', 'es', 'it', 'nl', 'pl', 'pt']);

// The colon of a label, not of a URL ("http://") or a time ("13:59").
const LABEL_COLON = /^([^:：]{1,60}?)\s*[:：](?!\/\/)\s*(.*)$/;

/**
 * Several "Label: value" pairs run together in one segment ("Invoice No.: 12 Date: 01.02.2024"):
 * each value ends where the words before the next colon name a field.
 */
function colonPairs(label: string, rest: string): Array<{ label: string; value: string }> {
  const out: Array<{ label: string; value: string }> = [];
  let current = { label, value: rest };
  for (;;) {
    const next = /^(.*?\S)\s+([^:：]{1,40}?)\s*[:：](?!\/\/)\s*(\S.*)$/.exec(current.value);
    if (!next) break;
    const words = next[2]!.split(/\s+/);
    // The longest run of words before the colon that names a field is the next label.
    let cut = -1;
    for (let k = 0; k < words.length && cut < 0; k++) if (!/\d/.test(words.slice(k).join(' ')) && (conceptsOf(words.slice(k).join(' '))[0]?.score ?? 0) >= 0.6) cut = k;
    if (cut < 0) break;
    const value = [next[1]!, ...words.slice(0, cut)].join(' ').trim();
    out.push({ label: current.label, value });
    current = { label: words.slice(cut).join(' '), value: next[3]! };
  }
  out.push(current);
  return out;
}

/** Where a label ends inside one segment: the longest leading words that name a field. */
function splitLabel(text: string): { label: string; value: string } | null {
  const words = text.split(/\s+/);
  if (words.length < 2 || !inVocabulary(words[0]!)) return null;
  for (let k = Math.min(words.length - 1, 6); k >= 1; k--) {
    const label = words.slice(0, k).join(' ');
    const value = words.slice(k).join(' ');
    if ((label.match(/\p{L}/gu)?.length ?? 0) < 3) continue;
    if (!/[\p{N}$€£¥]/u.test(value) && !/^[\p{Lu}]/u.test(value)) continue;
    if (/\d/.test(label)) continue;
    const top = conceptsOf(label)[0];
    if (top && top.score >= 0.9) return { label, value };
  }
  return null;
}

function isLabelLike(text: string): boolean {
  if (/\d/.test(text)) return false;
  const top = conceptsOf(text.replace(/[:：]\s*$/, ''))[0];
  return !!top && top.score >= 0.9;
}

/** The next line below `line` on the same page, within a few line heights. */
function linesBelow(layout: Layout, line: number, reach: number): number[] {
  const here = layout.lines[line]!;
  const out: number[] = [];
  for (let j = line + 1; j < layout.lines.length && out.length < reach; j++) {
    const next = layout.lines[j]!;
    if (next.page !== here.page) break;
    const gap = next.y - here.y;
    if (gap > (layout.plain ? reach + 0.5 : Math.max(here.size, next.size) * (reach + 1.5))) break;
    // Rules drawn with characters ("-----", "=====") are not lines of values.
    if (!/[\p{L}\p{N}]/u.test(next.text)) continue;
    out.push(j);
  }
  return out;
}

const overlapX = (a: { x0: number; x1: number }, b: { x0: number; x1: number }) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

function buildLayout(input: TextLine[]): Layout {
  const lines = [...input].sort((a, b) => a.page - b.page || a.y - b.y);
  const plain = lines.every((l) => l.size === 1);
  const segs = lines.map((l, i) => l.segments.map((s) => ({ ...s, text: s.text.trim(), line: i, page: l.page, y: l.y, size: l.size, bold: !!l.bold })).filter((s) => s.text));
  const pageSpan = new Map<number, [number, number]>();
  for (const l of lines) pageSpan.set(l.page, [pageSpan.get(l.page)?.[0] ?? l.y, l.y]);
  const layout: Layout = { lines, segs, pairs: [], order: null, plain, pageSpan };
  for (let i = 0; i < lines.length; i++) {
    const row = segs[i]!;
    row.forEach((seg, k) => {
      const colon = LABEL_COLON.exec(seg.text);
      const urlOrTime = /^(https?|mailto)$/i.test(colon?.[1] ?? '') || /\d$/.test(colon?.[1] ?? '');
      let label: string | null = null;
      if (colon && !urlOrTime) {
        label = colon[1]!.trim();
        const rest = colon[2]!.trim();
        if (rest) {
          for (const pair of colonPairs(label, rest)) layout.pairs.push({ ...pair, seg, line: i, placement: 1 });
          return;
        }
      } else {
        const split = splitLabel(seg.text);
        if (split) layout.pairs.push({ label: split.label, value: split.value, seg, line: i, placement: 1 });
        label = seg.text;
      }
      // A label is a few words (a sentence before a value is prose), and words, not figures.
      if (label.length > 60 || label.split(/\s+/).length > 8 || (label.match(/\p{L}/gu)?.length ?? 0) < 2) return;
      // A label's value beside it on the same line, or under it.
      // Beside it: the next segment, or one further right (a total printed at the far right).
      for (let n = k + 1; n < row.length && n <= k + 3; n++) {
        const next = row[n]!;
        if (isLabelLike(next.text) && (colon !== null || isLabelLike(label))) break;
        layout.pairs.push({ label, value: next.text, seg: next, line: i, placement: n === k + 1 ? 0.95 : 0.9 });
      }
      for (const j of linesBelow(layout, i, 2)) {
        const under = segs[j]!.filter((s) => overlapX(s, seg) > 0 || Math.abs(s.x0 - seg.x0) < (plain ? 1.5 : seg.size));
        if (under.length === 1) {
          const value = under[0]!;
          // A column of values under a header is a table's column, not one field's value.
          // A row of words without figures under the values is the next row of labels.
          const labelRow = (k: number) => segs[k]!.length >= 2 && segs[k]!.every((s) => !/\d/.test(s.text));
          const column = linesBelow(layout, j, 1).some((k) => !labelRow(k) && segs[k]!.some((s) => overlapX(s, value) > 0 && !isLabelLike(s.text) && /\d/.test(s.text) === /\d/.test(value.text)));
          layout.pairs.push({ label, value: value.text, seg: value, line: j, placement: (j === i + 1 || layout.plain ? 0.85 : 0.75) * (column ? 0.5 : 1) });
          break;
        }
        if (under.length > 1) break;
      }
    });
  }
  // Day/month order: the document's own dates first, then the language of its labels.
  layout.order = dayOrderOf(lines) ?? (DAY_FIRST_LANGUAGES.has(languageOf(layout.pairs.map((p) => p.label)) ?? 'en') ? 'dmy' : null);
  return layout;
}

// ---------------------------------------------------------------- picking values

interface Candidate {
  value: string;
  score: number;
  line: number;
  /** Amounts: the number, for the net + tax = total check. */
  amount?: number;
}

function pickDate(layout: Layout, text: string): string | null {
  const [d] = findDates(text, layout.order);
  return d ? (d.iso ?? d.raw) : null;
}

function pickAmount(text: string): { raw: string; value: number } | null {
  const amounts = findAmounts(text);
  if (!amounts.length) return null;
  // "19 % 19,00 €": the money, the last one when several.
  const money = amounts.filter((a) => a.money);
  const chosen = (money.length ? money : amounts).at(-1)!;
  return { raw: chosen.raw, value: chosen.value };
}

const ID_STOP = /^(?:von|vom|du|del|dated|of|from|on|am|le|il|dd|z|dnia|de|van)$/i;

function pickId(text: string, concept: string | null): string | null {
  const cleaned = text.replace(/^[#:.\s]+|^(?:no|nr|n°|nº)\.?\s+/i, '').trim();
  if (concept === 'tax_id') {
    const m = /^[A-Z]{0,3}[\s-]?[\dA-Z][\dA-Z .\/-]{4,}/.exec(cleaned);
    return m && /\d{4}/.test(m[0]) ? m[0].trim().replace(/[.\s]+$/, '') : null;
  }
  const words = cleaned.split(/\s+/);
  const out: string[] = [];
  for (const w of words) {
    if (ID_STOP.test(w) || (out.length && !/\d/.test(w)) || /[:：]$/.test(w)) break;
    // Letters alone start an id only as a short code before its number ("RE 2024-17").
    if (!/\d/.test(w) && !/^[A-Z]{1,4}[-/]?$/.test(w)) break;
    out.push(w);
    if (/\d/.test(w)) break;
  }
  const id = out.join(' ').replace(/[,;.]+$/, '');
  return id && /\d/.test(id) && id.length <= 40 ? id : null;
}

function pickText(text: string, long: boolean): string | null {
  const value = text.trim();
  if (!value || value.length > (long ? 200 : 80) || isLabelLike(value)) return null;
  // A one-line field holds a name or a phrase, not a sentence.
  if (!long && (value.split(/\s+/).length > 10 || /[.!?;]\s+\p{L}/u.test(value))) return null;
  return value;
}

function valueFor(layout: Layout, want: Want, text: string): { value: string; amount?: number; fit: number } | null {
  const { column, concept } = want;
  if (column.type === 'date') {
    const v = pickDate(layout, text);
    return v ? { value: v, fit: 1 } : null;
  }
  if (column.type === 'number' || column.type === 'currency') {
    if (concept && ID_CONCEPTS.has(concept)) {
      const id = pickId(text, concept);
      return id && parseHumanNumber(id) ? { value: id, fit: 1 } : null;
    }
    if (concept === 'tax_rate' || concept === 'discount') {
      const percent = /(?<![\d.,])(-?\d{1,3}(?:[.,]\d{1,2})?)\s?%/.exec(text);
      if (percent) return { value: percent[1]!, fit: 1 };
      if (concept === 'tax_rate') return null;
    }
    const a = pickAmount(text);
    if (!a) return null;
    // An amount is printed alone or nearly: a figure inside a sentence is not the field's value.
    const rest = text.replace(a.raw, ' ').split(/\s+/).filter((w) => /\p{L}{2}/u.test(w));
    return rest.length <= 4 ? { value: a.raw, amount: a.value, fit: 1 } : null;
  }
  if (column.type === 'email') {
    const m = EMAIL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (column.type === 'url') {
    const m = URL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (column.type === 'enum' || column.type === 'multi_select') {
    const folded = fold(text);
    const option = (column.options ?? []).find((o) => new RegExp(`(?<![\\p{L}\\d])${escapeRe(fold(o))}(?![\\p{L}\\d])`, 'u').test(folded));
    return option ? { value: option, fit: 1 } : null;
  }
  if (column.type === 'boolean') return null;
  if (concept && ID_CONCEPTS.has(concept)) {
    const id = pickId(text, concept);
    return id ? { value: id, fit: 1 } : null;
  }
  if (concept === 'iban') {
    const m = IBAN_RE.exec(text.toUpperCase());
    return m && validIban(m[1]!) ? { value: m[1]!, fit: 1 } : null;
  }
  if (concept === 'bic') {
    const m = BIC_RE.exec(text);
    return m ? { value: m[1]!, fit: 1 } : null;
  }
  if (concept === 'email') {
    const m = EMAIL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (concept === 'time') {
    const m = TIME_RE.exec(text);
    return m ? { value: m[0].trim(), fit: 1 } : null;
  }
  if (concept === 'phone') {
    const m = PHONE_RE.exec(text);
    return m && (m[0].match(/\d/g)?.length ?? 0) >= 7 && !findDates(m[0], null).length ? { value: m[0].trim(), fit: 1 } : null;
  }
  if (concept && isKindOf(concept, 'date')) return null;
  const v = pickText(text, column.type === 'text');
  // A text column takes any value, but a bare date under its label is rarely what it asks.
  return v ? { value: v, fit: findDates(v, null).length && !/\p{L}{3}/u.test(v.replace(new RegExp(MONTH_ALT, 'giu'), '')) ? 0.6 : 1 } : null;
}

const MIN_LABEL = 0.65;

function labeledCandidates(layout: Layout, want: Want): Candidate[] {
  const labelled: Array<Candidate & { label: string }> = [];
  for (const pair of layout.pairs) {
    const match = labelMatch(want, pair.label);
    if (match < MIN_LABEL) continue;
    const v = valueFor(layout, want, pair.value);
    if (!v) continue;
    labelled.push({ value: v.value, score: match * pair.placement * v.fit, line: pair.line, amount: v.amount, label: listKey(pair.label) });
  }
  // The column's own words at the start of a segment, its value after them with no colon or gap
  // ("Locker 13"): labels outside the lexicon that the pairs could not cut off.
  const prefixed: Array<Candidate & { label: string }> = [];
  const own = new Set(want.labels.map(normalizeLabel).filter(Boolean));
  for (const row of layout.segs) {
    for (const seg of row) {
      for (const { label, value } of prefixesOf(seg)) {
        // A value starts like one: "Locker 13", not "Name of the product line".
        if (!own.has(label) || !/^[\p{Lu}\p{N}$€£¥#(+-]/u.test(value)) continue;
        const v = valueFor(layout, want, value);
        if (v) prefixed.push({ value: v.value, score: 0.7 * v.fit, line: seg.line, amount: v.amount, label });
      }
    }
  }
  const amounts = want.concept !== null && AMOUNT_CONCEPTS.has(want.concept);
  return [...withoutListLabels(labelled, amounts ? Infinity : 3), ...withoutListLabels(prefixed, 2)];
}

/** A label without its numbering ("Step 1B." and "Step 2." are both "step"). */
const listKey = (label: string) =>
  normalizeLabel(label)
    .split(' ')
    .filter((w) => !/\d/.test(w) && !/^[ivx]+$/.test(w))
    .join(' ');

/**
 * A label that heads many lines with different values ("Step 1.", "Step 2.", "Step 3.") starts
 * the rows of a list, not one field: its candidates are dropped.
 */
function withoutListLabels<T extends Candidate & { label: string }>(cands: T[], limit: number): Candidate[] {
  const values = new Map<string, Set<string>>();
  const lines = new Map<string, Set<number>>();
  for (const c of cands) {
    if (!values.has(c.label)) values.set(c.label, new Set());
    if (!lines.has(c.label)) lines.set(c.label, new Set());
    values.get(c.label)!.add(c.value);
    lines.get(c.label)!.add(c.line);
  }
  return cands.filter((c) => values.get(c.label)!.size < limit || lines.get(c.label)!.size < limit).map(({ label: _, ...c }) => c);
}

const PREFIXES = new WeakMap<Seg, Array<{ label: string; value: string }>>();

/** A segment's leading words (up to six) normalised, each with the rest of the segment. */
function prefixesOf(seg: Seg): Array<{ label: string; value: string }> {
  let out = PREFIXES.get(seg);
  if (!out) {
    const words = seg.text.split(/\s+/);
    out = [];
    for (let k = 1; k < words.length && k <= 6; k++) out.push({ label: normalizeLabel(words.slice(0, k).join(' ')), value: words.slice(k).join(' ') });
    PREFIXES.set(seg, out);
  }
  return out;
}

// ---------------------------------------------------------------- dates from phrases and places

const normalizedPhrases = (phrases: string[]) => phrases.map((p) => coreTokens(p).join(' ') || normalizeLabel(p)).filter(Boolean);
const DUE = normalizedPhrases(DUE_PHRASES);
const PLACE_WORDS = new Set(PLACE_DATE_WORDS.map(fold));

/** Whether a text ends in words that introduce a due date ("payable by", "bis zum"). */
function endsWithDuePhrase(text: string): boolean {
  const tokens = normalizeLabel(text).split(' ').filter(Boolean);
  const core = coreTokens(text);
  const tail = (n: number, from: string[]) => from.slice(-n).join(' ');
  return DUE.some((p) => {
    const n = p.split(' ').length;
    return (n <= core.length && tail(n, core) === p) || (n <= tokens.length && tail(n, tokens) === p);
  });
}

/** Dates introduced by a due phrase ("bitte überweisen Sie bis zum 30.05.2017"). */
function dueDateCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    for (const d of findDates(line.text, layout.order)) {
      const before = line.text.slice(Math.max(0, d.start - 60), d.start);
      // The end of a period ("vom 01.05. bis zum 31.05.2024") is no due date.
      if (findDates(before, null).length || /\d{1,2}\.\d{1,2}\.\s*\S*$/.test(before.trim())) continue;
      if (endsWithDuePhrase(before)) out.push({ value: d.iso ?? d.raw, score: 0.8, line: i });
    }
  });
  return out;
}

/**
 * The document's own date: printed after a place ("Berlin, den 01.11.2024"), on the line of its
 * number ("Invoice 2024-17 of 01.11.2024"), or alone at the top of the first page.
 */
function documentDateCandidates(layout: Layout, numberLines: Set<number>): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    const row = layout.segs[i]!;
    row.forEach((seg, k) => {
      const [d] = findDates(seg.text, layout.order);
      if (!d) return;
      const own = seg.text.slice(0, d.start).trim();
      const before = own || (k > 0 ? row[k - 1]!.text : '');
      const place = /^(\p{Lu}[\p{L}.' -]{1,40}),\s*(\S+\s+)?$/u.exec(before + ' ');
      if (place && (!place[2] || PLACE_WORDS.has(fold(place[2].trim())))) out.push({ value: d.iso ?? d.raw, score: 0.8, line: i });
    });
    const dates = findDates(line.text, layout.order);
    if (!dates.length) return;
    const d = dates[0]!;
    const value = d.iso ?? d.raw;
    const before = line.text.slice(0, d.start).trim();
    const beforeHits = conceptsOf(before.replace(/[\d#:/-]+[\w/-]*/g, ' '));
    const numbered = (beforeHits[0]?.concept === 'invoice_number' && beforeHits[0].score >= 0.9) || numberLines.has(i);
    // Unless the words just before it name another date ("Invoice 12, due 05/05/2024").
    const lastWords = before.split(/\s+/).slice(-3).join(' ');
    const other = conceptsOf(lastWords).find((h) => h.score >= 0.6 && isKindOf(h.concept, 'date') && h.concept !== 'date' && h.concept !== 'invoice_date');
    if (numbered && dates.length === 1 && !other && !endsWithDuePhrase(before)) out.push({ value, score: 0.7, line: i });
    const wholeLine = line.text.replace(/\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?/gi, '').trim().length - d.raw.length <= 2;
    if (wholeLine && line.page === layout.lines[0]!.page && i < 8) out.push({ value, score: 0.55, line: i });
  });
  return out;
}

const NUMBERED_TITLE = /(?<![\p{L}])(\p{L}[\p{L}-]{2,30})\s+(?:no\.?|nr\.?|n[°º]\.?|#|number|nummer|numéro|número|numero)\s*:?\s*(\S+(?:\s+\S+)?)/giu;

/** A document's number printed after its title: "Invoice 103767", "Facture n° F-12". */
function titleNumberCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.segs.forEach((row, i) => {
    for (const seg of row) {
      // The title opens the segment, or the value of a label ("Subject: Invoice 2024-88").
      const afterLabel = LABEL_COLON.exec(seg.text)?.[2]?.trim();
      for (const text of afterLabel ? [seg.text, afterLabel] : [seg.text]) {
        const words = text.split(/\s+/);
        for (let k = Math.min(3, words.length - 1); k >= 1; k--) {
          const title = normalizeLabel(words.slice(0, k).join(' ')).replace(/(?: no)+$/, '');
          if (!TITLES.has(title)) continue;
          const id = pickId(words.slice(k).join(' '), 'invoice_number');
          if (id) out.push({ value: id, score: 0.75, line: i });
          break;
        }
      }
      // In running text the title needs its number sign: "… die Rechnung Nr. 2024-0815 vom …".
      for (const m of seg.text.matchAll(NUMBERED_TITLE)) {
        if (m.index === 0 || !TITLES.has(normalizeLabel(m[1]!))) continue;
        const id = pickId(m[2]!, 'invoice_number');
        if (id) out.push({ value: id, score: 0.65, line: i });
      }
    }
  });
  return out;
}

/** Whether a line sits in the bottom strip of its page (print stamps, bank details, page numbers). */
function inFooter(layout: Layout, line: number): boolean {
  if (layout.plain || line < 0) return false;
  const here = layout.lines[line]!;
  const [top, bottom] = layout.pageSpan.get(here.page)!;
  return bottom - top > 0 && here.y > top + (bottom - top) * 0.88;
}

/** Percentages printed beside a tax word ("19 % MwSt.", "VAT 20%"): the rate when there is one. */
function taxRateCandidates(layout: Layout): Candidate[] {
  // Keyed by the rate's value: "19 %" and "19,00 %" are one rate.
  const rates = new Map<number, Candidate>();
  layout.lines.forEach((line, i) => {
    const words = line.text.replace(/[-\d.,]+\s?%/g, ' ');
    if (!conceptsOf(words).some((h) => (h.concept === 'tax_amount' || h.concept === 'tax_rate') && h.score >= 0.55)) return;
    for (const m of line.text.matchAll(/(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%/g)) {
      const parsed = parseHumanNumber(m[1]!);
      if (parsed && 'value' in parsed && !rates.has(parsed.value)) rates.set(parsed.value, { value: m[1]!, score: 0, line: i });
    }
  });
  // One rate throughout is the rate; several (7 % and 19 %) leave the column empty.
  const score = rates.size === 1 ? 0.7 : 0;
  return [...rates.values()].map((c) => ({ ...c, score }));
}

/** A time of day printed beside the document's date ("6/10/2019 13:59" on a receipt). */
function timeCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    const [d] = findDates(line.text, layout.order);
    if (!d) return;
    const m = TIME_RE.exec(line.text.slice(d.end));
    if (m && line.text.slice(d.end, d.end + m.index).trim().length <= 3) out.push({ value: m[0].trim(), score: 0.65, line: i });
  });
  return out;
}

/** Whether a column asks for the customer's detail ("Customer e-mail"), not the issuer's. */
function namesCustomer(want: Want): boolean {
  return want.labels.some((l) => conceptsOf(l).some((h) => h.concept === 'customer' && h.score >= 0.7));
}

/**
 * An unlabelled phone number, e-mail address or web site in the letterhead (the top lines of the
 * first page) is the issuer's: a receipt prints its shop's phone under its name.
 */
function letterheadCandidates(layout: Layout, want: Want): Candidate[] {
  const out: Candidate[] = [];
  const firstPage = layout.lines[0]?.page;
  const top = layout.plain ? 8 : (layout.lines[0]?.y ?? 0) + 200;
  layout.lines.forEach((line, i) => {
    if (line.page !== firstPage || (layout.plain ? i >= top : line.y > top)) return;
    for (const seg of layout.segs[i]!) {
      const v = valueFor(layout, want, seg.text);
      // The segment is the detail alone (perhaps after "Tel."), not a sentence that holds one.
      if (v && seg.text.replace(v.value, '').replace(/^[\p{L}.:\s]{0,8}$/u, '').trim() === '') out.push({ value: v.value, score: 0.6, line: i });
    }
  });
  return out.slice(0, 1);
}

/** Periods "10/14/2019 – 11/14/2019", "vom 01.01. bis 31.01.2024": the start and end dates. */
function periodCandidates(layout: Layout): Array<{ start: string; end: string; text: string; line: number; labeled: number }> {
  const out: Array<{ start: string; end: string; text: string; line: number; labeled: number }> = [];
  layout.lines.forEach((line, i) => {
    const dates = findDates(line.text, layout.order);
    for (let k = 0; k + 1 < dates.length; k++) {
      const a = dates[k]!;
      const b = dates[k + 1]!;
      const between = line.text.slice(a.end, b.start).trim();
      if (!/^(?:[-–—~]|to|till|until|through|thru|bis|au|al|a|tot|do|até|-\s*)$/i.test(between)) continue;
      const before = line.text.slice(0, a.start);
      const labeled = conceptsOf(before).some((h) => h.concept === 'period' && h.score >= 0.6) ? 1 : 0.7;
      out.push({ start: a.iso ?? a.raw, end: b.iso ?? b.raw, text: line.text.slice(a.start, b.end), line: i, labeled });
    }
  });
  return out;
}

// ---------------------------------------------------------------- amounts checked together

const close = (a: number, b: number) => Math.abs(a - b) < 0.011;

/**
 * Net, tax and total chosen together: among the labelled candidates of each, the combination
 * where net + tax = total wins over labels alone; a missing one is taken from a printed amount
 * that completes the sum.
 */
function resolveAmounts(wants: Want[], candidates: Map<string, Candidate[]>, layout: Layout, result: Map<string, Candidate>): void {
  const role = (concept: string) => wants.find((w) => w.concept === concept && candidates.has(w.column.id));
  const net = role('net_amount') ?? role('subtotal');
  const tax = role('tax_amount');
  const total = role('total') ?? role('amount_due');
  const top = (w: Want | undefined) => (w ? dedupe(candidates.get(w.column.id)!).slice(0, 5) : []);
  if (net && tax && total) {
    const printed = allAmounts(layout);
    let best: { score: number; picks: Array<Candidate | null> } | null = null;
    const options = (w: Want) => [...top(w), null];
    for (const n of options(net))
      for (const t of options(tax))
        for (const T of options(total)) {
          const picks = [n, t, T];
          let score = picks.reduce((s, c) => s + (c?.score ?? 0), 0);
          const known = picks.filter((c) => c) as Candidate[];
          if (known.length === 3 && close(n!.amount! + t!.amount!, T!.amount!)) score += 1.5;
          if (known.length === 2 && !T && printed.some((p) => close(p, n!.amount! + t!.amount!))) score += 0.4;
          if (!best || score > best.score) best = { score, picks };
        }
    const [n, t, T] = best!.picks;
    const all = n && t && T;
    const agree = all && close(n.amount! + t.amount!, T.amount!);
    // A "subtotal" equal to the total of a receipt whose prices include the tax is no net amount.
    const grossSubtotal = all && !agree && close(n.amount!, T.amount!) && t.amount! > 0;
    for (const [w, c] of [[net, n], [tax, t], [total, T]] as const) {
      if (grossSubtotal && w === net) {
        // Decided empty: a zero score keeps the later rules from filling it.
        result.set(w.column.id, { ...c!, score: 0 });
        continue;
      }
      if (c) result.set(w.column.id, { ...c, score: agree ? Math.min(1, c.score + 0.15) : c.score });
      else if (!w.column.required) {
        // Complete the sum from a printed amount: the one missing part of net + tax = total.
        const known = [n, t, T];
        const missing = w === net && t && T ? T.amount! - t.amount! : w === tax && n && T ? T.amount! - n.amount! : w === total && n && t ? n.amount! + t.amount! : null;
        // Only a plausible part: positive, smaller than the total, and the tax smaller than the net.
        const plausible =
          missing !== null && missing > 0 && (w === total || missing < T!.amount!) && (w !== tax || missing < n!.amount!) && (w !== net || missing > t!.amount!);
        const hit = plausible ? allAmountRaws(layout).find((a) => close(a.value, missing!)) : undefined;
        if (hit && known.filter(Boolean).length === 2) result.set(w.column.id, { value: hit.raw, score: 0.55, line: -1, amount: hit.value });
      }
    }
  }
  for (const w of wants) {
    if (!w.concept || !AMOUNT_CONCEPTS.has(w.concept) || result.has(w.column.id)) continue;
    const best = bestOf(candidates.get(w.column.id) ?? [], 'last');
    if (best) result.set(w.column.id, best);
  }
}

function dedupe(cands: Candidate[]): Candidate[] {
  const byValue = new Map<string, Candidate>();
  for (const c of cands.sort((a, b) => b.score - a.score)) if (!byValue.has(c.value)) byValue.set(c.value, c);
  return [...byValue.values()];
}

const amountCache = new WeakMap<Layout, Array<{ raw: string; value: number }>>();
function allAmountRaws(layout: Layout): Array<{ raw: string; value: number }> {
  let all = amountCache.get(layout);
  if (!all) {
    all = layout.lines.flatMap((l) => findAmounts(l.text).filter((a) => a.money).map((a) => ({ raw: a.raw, value: a.value })));
    amountCache.set(layout, all);
  }
  return all;
}
const allAmounts = (layout: Layout) => allAmountRaws(layout).map((a) => a.value);

/** The best candidate; between equals, the first one printed, or the last for totals. */
function bestOf(cands: Candidate[], prefer: 'first' | 'last' = 'first'): Candidate | null {
  let best: Candidate | null = null;
  for (const c of cands) {
    if (!best || c.score > best.score + 1e-9) best = c;
    else if (Math.abs(c.score - best.score) <= 1e-9 && (prefer === 'last' ? c.line > best.line : c.line < best.line)) best = c;
  }
  return best;
}

// ---------------------------------------------------------------- parties

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TITLES = new Set(DOCUMENT_TITLES.map(normalizeLabel));
const SALUTATION = new RegExp(
  `^(?:${ADDRESS_TITLES.map(escapeRe).sort((a, b) => b.length - a.length).join('|')})(?=\\s|$)`,
  'iu',
);
// Short forms ("SA", "AG", "AS") only as printed, longer ones ("LTD.", "Gmbh") in any case.
const legalRe = (forms: string[], flags: string) =>
  new RegExp(`(?:^|[\\s,])(?:${forms.map((f) => escapeRe(f).replace(/ /g, '\\s*')).sort((a, b) => b.length - a.length).join('|')})(?=$|[\\s,)])`, flags);
const LEGAL_SHORT = legalRe(LEGAL_FORMS.filter((f) => f.replace(/\W/g, '').length <= 2), 'u');
const LEGAL_LONG = legalRe(LEGAL_FORMS.filter((f) => f.replace(/\W/g, '').length > 2), 'iu');

const hasLegalForm = (text: string) => LEGAL_SHORT.test(text.trim()) || LEGAL_LONG.test(text.trim());
const PAGE_MARK = /^(?:page|seite|pag\.?|página|pagina|strona|blad|p\.)\s*\d/iu;

/** Text that could be a party's name: words, not a label, title, address, date, amount or contact. */
function nameLike(text: string): boolean {
  const t = text.trim();
  if (t.length < 2 || t.length > 80 || !/\p{L}{2}/u.test(t)) return false;
  // Names do not end in a comma or colon, nor run to a sentence ("Dear Sir or Madam,").
  if (/[,;:]$/.test(t) || t.split(/\s+/).length > 8) return false;
  if (TITLES.has(normalizeLabel(t)) || isLabelLike(t) || LABEL_COLON.test(t) || PAGE_MARK.test(t)) return false;
  // Words that all belong to field labels ("Adresse de livraison", "N° TVA client") are a label;
  // a name may hold one such word ("Café du Port") but not only those.
  const words = coreTokens(t);
  if (!hasLegalForm(t) && (conceptsOf(t)[0]?.score ?? 0) >= 0.7 && words.every(inVocabulary)) return false;
  if (EMAIL_RE.test(t) || URL_RE.test(t) || findDates(t, null).length) return false;
  if (!hasLegalForm(t) && (POSTAL_LINE.test(t) || STREET_LINE.test(t) || (t.match(/\d/g)?.length ?? 0) > 3)) return false;
  return true;
}

interface Block {
  segs: Seg[];
}

/** Runs of segments stacked at the same left edge on following lines: address blocks, letterheads. */
function blocksOf(layout: Layout, skipLines: Set<number>): Block[] {
  const blocks: Block[] = [];
  const pageMiddle = new Map<number, number>();
  for (const seg of layout.segs.flat()) pageMiddle.set(seg.page, Math.max(pageMiddle.get(seg.page) ?? 0, seg.x1 / 2));
  let open: Block[] = [];
  const maxSize = Math.max(1, ...layout.lines.map((l) => l.size));
  for (const row of layout.segs) {
    if (!row[0] || skipLines.has(row[0].line)) continue;
    // Blocks that ended too far above can take nothing more.
    const { page, y } = row[0];
    open = open.filter((b) => b.segs.at(-1)!.page === page && y - b.segs.at(-1)!.y <= (layout.plain ? 1 : maxSize * 3.5));
    for (const seg of row) {
      const tolerance = layout.plain ? 1 : Math.max(3, seg.size * 0.5);
      const rightHalf = !layout.plain && seg.x0 > pageMiddle.get(seg.page)!;
      const home = open.find((b) => {
        const last = b.segs.at(-1)!;
        const gap = seg.y - last.y;
        const reach = layout.plain ? 1 : Math.max(last.size, seg.size) * 3.5;
        // Left-aligned or right-aligned (a letterhead set flush right).
        return last.page === seg.page && gap > 0 && gap <= reach && (Math.abs(last.x0 - seg.x0) <= tolerance || (rightHalf && last.x0 > pageMiddle.get(seg.page)! && Math.abs(last.x1 - seg.x1) <= tolerance));
      });
      if (home) home.segs.push(seg);
      else {
        const block = { segs: [seg] };
        blocks.push(block);
        open.push(block);
      }
    }
  }
  return blocks;
}

/** A line only an issuer prints about itself: e-mail, web site, phone, tax id, bank account. */
function issuerDetail(text: string): boolean {
  if (EMAIL_RE.test(text) || URL_RE.test(text) || IBAN_RE.test(text.toUpperCase())) return true;
  if (/^(?:tel|phone|fax|fon|mobil|t|f)\b\.?:?\s*[+(\d]/i.test(text)) return true;
  return conceptsOf(text.split(/[:：]|\s(?=[A-Z]{2}\d)/)[0]!).some((h) => (h.concept === 'tax_id' || h.concept === 'phone') && h.score >= 0.9);
}

/** The name at the head of a block: its first line, after a salutation line or a label. */
function blockName(block: Block, from = 0): { seg: Seg; index: number } | null {
  for (let k = from; k < Math.min(block.segs.length, from + 3); k++) {
    const seg = block.segs[k]!;
    const text = seg.text.replace(SALUTATION, '').trim();
    if (!text) continue;
    if (nameLike(text)) return { seg: { ...seg, text }, index: k };
    const labelish = isLabelLike(seg.text) || (!/\d/.test(seg.text) && (conceptsOf(seg.text)[0]?.score ?? 0) >= 0.6);
    if (!labelish && !SALUTATION.test(seg.text)) return null;
  }
  return null;
}

const SEPARATED = /\s*[·•●|∙]\s*|\s+[-–]\s+/;

function partyCandidates(layout: Layout, wants: Want[]): { vendor: Candidate[]; customer: Candidate[] } {
  const vendor: Candidate[] = [];
  const customer: Candidate[] = [];
  const vendorWant = wants.find((w) => w.concept === 'vendor');
  const customerWant = wants.find((w) => w.concept === 'customer');
  const firstPage = layout.lines[0]?.page ?? 1;
  const pageLines = layout.lines.filter((l) => l.page === firstPage);
  const pageTop = pageLines[0]?.y ?? 0;
  const pageBottom = pageLines.at(-1)?.y ?? 0;
  // The top of a page: its first lines of text, or in points the upper third (at least the
  // height where a window envelope's address sits, about 9 cm from the top).
  const topLimit = layout.plain ? 6 : pageTop + Math.max((pageBottom - pageTop) * 0.3, 255 - Math.min(pageTop, 100));
  const isTop = (seg: Seg) => seg.page === firstPage && (layout.plain ? seg.line < topLimit : seg.y <= topLimit);

  // A sender line above the window address: "ACME GmbH · Hauptstr. 1 · 10115 Berlin".
  const senderLines = new Set<number>();
  const sizes = layout.lines.map((l) => l.size).sort((a, b) => a - b);
  const medianSize = sizes[Math.floor(sizes.length / 2)] ?? 1;
  layout.lines.forEach((line, i) => {
    const first = layout.segs[i]![0];
    if (!first || line.page !== firstPage || !isTop(first)) return;
    // Small print may separate the parts by commas alone.
    const separator = !layout.plain && line.size < medianSize * 0.85 && !SEPARATED.test(line.text) ? /\s*,\s*/ : SEPARATED;
    const parts = line.text.split(separator).map((p) => p.trim()).filter(Boolean);
    if (parts.length >= 3 && parts.slice(1).some((p) => POSTAL_LINE.test(p)) && nameLike(parts[0]!)) {
      vendor.push({ value: parts[0]!, score: 0.8, line: i });
      senderLines.add(i);
    }
  });

  const blocks = blocksOf(layout, senderLines);
  const blockOf = new Map<Seg, Block>();
  for (const b of blocks) for (const s of b.segs) blockOf.set(s, b);

  // Labelled: a value beside "Bill to:"/"Vendor:", or the block under the label.
  for (const [want, list] of [[vendorWant, vendor], [customerWant, customer]] as const) {
    if (!want) continue;
    for (const pair of layout.pairs) {
      const match = labelMatch(want, pair.label);
      if (match < Math.max(MIN_LABEL, 0.75)) continue;
      // "From: ACME Billing <billing@acme.example>": the name, without its address or quotes.
      const name = pair.value.replace(/<[^<>]*@[^<>]*>/g, '').trim().replace(SALUTATION, '').replace(/^["'“”]+|["'“”]+$/g, '').trim();
      if (nameLike(name)) list.push({ value: name, score: match * pair.placement, line: pair.line });
    }
    for (const row of layout.segs) {
      for (const seg of row) {
        const label = seg.text.replace(/[:：]\s*$/, '');
        if (labelMatch(want, label) < 0.75 || !isLabelLike(seg.text)) continue;
        const block = blockOf.get(seg);
        const name = block ? blockName(block, block.segs.indexOf(seg) + 1) : null;
        if (name) list.push({ value: name.seg.text, score: 0.85 * labelMatch(want, label), line: name.seg.line });
      }
    }
  }

  // Letterhead: names at the top of the first page, the larger, bolder or legal-form ones first.
  const topSegs = layout.segs.flat().filter((s) => isTop(s) && !senderLines.has(s.line));
  const maxSize = Math.max(0, ...topSegs.map((s) => s.size));
  const firstLine = topSegs[0]?.line ?? 0;
  for (const seg of topSegs) {
    // A letterhead's name is capitalised ("pdf" or "page" alone are not names).
    if (!nameLike(seg.text) || !/[\p{Lu}\d]/u.test(seg.text)) continue;
    const block = blockOf.get(seg);
    if (block && block.segs[0] !== seg) continue;
    const rest = block?.segs.slice(1).map((s) => s.text) ?? [];
    const addressBelow = rest.some((t) => POSTAL_LINE.test(t) || STREET_LINE.test(t));
    const contacts = rest.some(issuerDetail);
    let score = 0.35;
    if (hasLegalForm(seg.text)) score += 0.3;
    if (!layout.plain && seg.size >= maxSize - 0.01 && maxSize > 0) score += 0.15;
    if (seg.bold) score += 0.05;
    if (seg.line === firstLine) score += 0.1;
    if (addressBelow) score += 0.1;
    if (contacts) score += 0.1;
    vendor.push({ value: seg.text, score: Math.min(score, 0.95), line: seg.line });
  }

  // The company that signs a letter or e-mail: a legal-form name among its last lines.
  if (layout.plain) {
    for (const row of layout.segs.slice(-4)) {
      const seg = row[0];
      if (seg && row.length === 1 && hasLegalForm(seg.text) && nameLike(seg.text)) vendor.push({ value: seg.text, score: 0.55, line: seg.line });
    }
  }

  // The party whose block holds a tax id or IBAN (a footer) is the issuer.
  for (const block of blocks) {
    const texts = block.segs.map((s) => s.text);
    const fiscal = texts.some((t) => validIban(IBAN_RE.exec(t.toUpperCase())?.[1] ?? '') || conceptsOf(t.split(/[:：]/)[0]!).some((h) => h.concept === 'tax_id' && h.score >= 0.9));
    if (!fiscal) continue;
    const name = blockName(block);
    if (name && hasLegalForm(name.seg.text)) vendor.push({ value: name.seg.text, score: 0.6, line: name.seg.line });
  }

  // Address blocks at the top: the recipient sits under the sender line; of two blocks side by
  // side the left one is the recipient (the window of the envelope) and the right one the
  // letterhead; of two stacked, the upper one is the issuer.
  const addressBlocks: Array<{ block: Block; name: Seg; contacts: boolean }> = [];
  for (const block of blocks) {
    const head = block.segs[0]!;
    const underSender = [...senderLines].some((l) => head.line > l && head.line - l <= 6);
    if (!isTop(head) && !underSender) continue;
    // An address is a few lines; what follows in the same column (contacts, notes) is not part of it.
    const address = block.segs.slice(0, 6);
    if (!address.some((s) => POSTAL_LINE.test(s.text))) continue;
    const name = blockName(block);
    if (!name) continue;
    const contacts = address.some((s) => issuerDetail(s.text));
    addressBlocks.push({ block, name: name.seg, contacts });
    if (underSender && !contacts) customer.push({ value: name.seg.text, score: 0.75, line: name.seg.line });
  }
  if (addressBlocks.length === 2) {
    const [a, b] = addressBlocks as [(typeof addressBlocks)[number], (typeof addressBlocks)[number]];
    const yRange = (x: { block: Block }) => [x.block.segs[0]!.y, x.block.segs.at(-1)!.y] as const;
    const [a0, a1] = yRange(a);
    const [b0, b1] = yRange(b);
    const sideBySide = a0 <= b1 && b0 <= a1;
    let [issuer, recipient] = sideBySide ? (a.name.x0 > b.name.x0 ? [a, b] : [b, a]) : a0 < b0 ? [a, b] : [b, a];
    // Phone numbers, web sites, tax ids and bank details belong to the issuer's block.
    if (recipient.contacts && !issuer.contacts) [issuer, recipient] = [recipient, issuer];
    if (!recipient.contacts) {
      if (!senderLines.size) vendor.push({ value: issuer.name.text, score: 0.6, line: issuer.name.line });
      customer.push({ value: recipient.name.text, score: 0.6, line: recipient.name.line });
    }
  } else if (addressBlocks.length === 1 && !senderLines.size) {
    const only = addressBlocks[0]!;
    // A lone address block at the top is the recipient's unless it heads the letterhead.
    if (only.name.line !== (topSegs[0]?.line ?? -1)) customer.push({ value: only.name.text, score: 0.5, line: only.name.line });
  }
  return { vendor, customer };
}

/** Vendor and customer chosen together: never the same party. */
function resolveParties(layout: Layout, wants: Want[], result: Map<string, Candidate>): void {
  const vendorWant = wants.find((w) => w.concept === 'vendor');
  const customerWant = wants.find((w) => w.concept === 'customer');
  if (!vendorWant && !customerWant) return;
  const { vendor, customer } = partyCandidates(layout, wants);
  const sum = (cands: Candidate[]) => {
    const byName = new Map<string, Candidate>();
    for (const c of cands) {
      const key = normalizeLabel(c.value);
      const seen = byName.get(key);
      // The same name found by two rules (sender line and letterhead) is surer.
      if (seen) byName.set(key, { ...seen, score: Math.min(1, Math.max(seen.score, c.score) + 0.1) });
      else byName.set(key, c);
    }
    // A short form of a longer name ("ACME" and "ACME GmbH") supports the longer one.
    const merged = [...byName.values()];
    for (const short of merged) {
      const key = normalizeLabel(short.value);
      const longer = merged.find((c) => c !== short && normalizeLabel(c.value).startsWith(`${key} `));
      if (longer) longer.score = Math.min(1, Math.max(longer.score, short.score) + 0.05);
    }
    return merged.sort((a, b) => b.score - a.score || a.line - b.line);
  };
  const vendors = sum(vendor);
  const customers = sum(customer);
  let bestPair: { v: Candidate | null; c: Candidate | null; score: number } = { v: null, c: null, score: -1 };
  for (const v of [...vendors.slice(0, 6), null])
    for (const c of [...customers.slice(0, 6), null]) {
      if (v && c && normalizeLabel(v.value) === normalizeLabel(c.value)) continue;
      const score = (vendorWant ? (v?.score ?? 0) : 0) + (customerWant ? (c?.score ?? 0) : 0);
      if (score > bestPair.score) bestPair = { v, c, score };
    }
  if (vendorWant && bestPair.v && bestPair.v.score >= 0.5) result.set(vendorWant.column.id, bestPair.v);
  if (customerWant && bestPair.c && bestPair.c.score >= 0.5) result.set(customerWant.column.id, bestPair.c);
}

// ---------------------------------------------------------------- currency

/** The document's currency, most frequent near its amounts; surer when amounts carry it. */
function currencyOf(layout: Layout): { code: string; sure: boolean } | null {
  const counts = new Map<string, number>();
  let money = false;
  let attached = false;
  for (const line of layout.lines) {
    const amounts = findAmounts(line.text);
    if (amounts.some((a) => a.money)) money = true;
    if (amounts.some((a) => a.currency)) attached = true;
    for (const a of amounts) if (a.currency) counts.set(a.currency, (counts.get(a.currency) ?? 0) + 1);
    // A sign printed apart from the amounts on its line ("Total € incl. VAT  681.87").
    if (amounts.some((a) => a.money && !a.currency)) {
      const sign = currencyIn(line.text.replace(/\b[A-Z]{3}\b/g, ''));
      if (sign) counts.set(sign, (counts.get(sign) ?? 0) + 0.5);
    }
    for (const m of line.text.matchAll(/\b(EUR|USD|GBP|CHF|PLN|JPY|CAD|AUD|SEK|NOK|DKK|CZK|HUF|BRL|INR|CNY|MXN|ZAR|RON)\b/g)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 0.5);
  }
  let best: string | null = null;
  for (const [code, n] of counts) if (!best || n > counts.get(best)!) best = code;
  // A code in a text without amounts names no currency of the document.
  return best && money ? { code: best, sure: attached } : null;
}

function currencyValue(column: Column, code: string): string | null {
  if (column.type !== 'enum' && column.type !== 'multi_select') return code;
  const options = column.options ?? [];
  const symbol: Record<string, string> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };
  return options.find((o) => o.toUpperCase() === code) ?? options.find((o) => o === symbol[code]) ?? null;
}

// ---------------------------------------------------------------- the engine

const MIN_SCORE = 0.5;

/**
 * One value per column from a document's lines (outside its tables; add `tableLines` of its
 * tables for key/value tables), keyed by column id, with a 0..1 score for each column that found
 * one. A column the document does not have gets nothing.
 */
export function documentFields(lines: TextLine[], columns: Column[]): DocumentFields {
  const values: Record<string, unknown> = {};
  const scores: Record<string, number> = {};
  if (!lines.length || !columns.length) return { values, scores };
  const layout = buildLayout(lines);
  const wants = columns.map(wantOf);
  const result = new Map<string, Candidate>();
  const labeled = new Map<string, Candidate[]>();
  for (const want of wants) {
    if (want.concept === 'vendor' || want.concept === 'customer') continue;
    labeled.set(want.column.id, labeledCandidates(layout, want));
  }

  // Dates: labels first, then phrases, places and the document's own number line.
  const due = dueDateCandidates(layout);
  const titleNumbers = titleNumberCandidates(layout);
  const documentDates = documentDateCandidates(layout, new Set(titleNumbers.map((c) => c.line)));
  const periods = periodCandidates(layout);
  for (const want of wants) {
    const list = labeled.get(want.column.id);
    if (!list) continue;
    if (want.concept === 'due_date') list.push(...due);
    if (want.concept === 'invoice_number') list.push(...titleNumbers);
    if (want.concept === 'tax_rate') list.push(...taxRateCandidates(layout));
    if (want.concept === 'time') list.push(...timeCandidates(layout));
    if ((want.concept === 'phone' || want.concept === 'email' || want.concept === 'website') && !list.length && !namesCustomer(want)) {
      list.push(...letterheadCandidates(layout, want));
    }
    // A date in the page's bottom strip is a print stamp more often than the document's date.
    if (want.column.type === 'date') for (const c of list) if (inFooter(layout, c.line)) c.score *= 0.85;
    if ((want.concept === 'invoice_date' || want.concept === 'date') && want.column.type === 'date') list.push(...documentDates);
    if (want.concept === 'period_start' || want.concept === 'period_end') {
      const other = want.concept === 'period_start' ? 'period_end' : 'period_start';
      const both = wants.some((w) => w.concept === other);
      for (const p of periods) list.push({ value: want.concept === 'period_start' ? p.start : p.end, score: (both ? 0.8 : 0.6) * p.labeled, line: p.line });
    }
    if (want.concept === 'period' && (want.column.type === 'string' || want.column.type === 'text')) {
      for (const p of periods) list.push({ value: p.text, score: 0.75 * p.labeled, line: p.line });
    }
  }

  resolveAmounts(wants, labeled, layout, result);
  resolveParties(layout, wants, result);

  for (const want of wants) {
    const id = want.column.id;
    if (result.has(id)) continue;
    if (want.concept === 'currency' && want.column.type !== 'number' && want.column.type !== 'currency') {
      const fromLabel = bestOf((labeled.get(id) ?? []).filter((c) => currencyIn(c.value) !== null));
      const labelled = fromLabel ? currencyValue(want.column, currencyIn(fromLabel.value)!) : null;
      const found = currencyOf(layout);
      const counted = found ? currencyValue(want.column, found.code) : null;
      // "Currency: EUR" says it outright; otherwise the signs and codes beside the amounts.
      if (labelled && fromLabel!.score >= 0.8) result.set(id, { ...fromLabel!, value: labelled });
      else if (counted) result.set(id, { value: counted, score: found!.sure ? 0.85 : 0.6, line: -1 });
      else if (labelled) result.set(id, { ...fromLabel!, value: labelled });
      continue;
    }
    if (want.concept === 'iban' && !(labeled.get(id) ?? []).length) {
      for (const line of layout.lines) {
        const m = IBAN_RE.exec(line.text.toUpperCase());
        if (m && validIban(m[1]!)) {
          result.set(id, { value: m[1]!, score: 0.75, line: -1 });
          break;
        }
      }
      continue;
    }
    const best = bestOf(labeled.get(id) ?? []);
    if (best) result.set(id, best);
  }

  for (const [id, c] of result) {
    // A line item's field (a SKU, a quantity) is a document's field only when plainly labelled.
    const want = wants.find((w) => w.column.id === id)!;
    if (want.concept && conceptLevel(want.concept) === 'item') c.score *= 0.6;
    if (c.score < MIN_SCORE) continue;
    values[id] = c.value;
    scores[id] = Math.round(Math.min(1, c.score) * 1000) / 1000;
  }
  return { values, scores };
}
