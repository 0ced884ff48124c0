/**
 * Layouts learned from corrected documents. A document's fingerprint is what its issuer prints on
 * every document (tax ids, IBANs, e-mail addresses, web sites and phone numbers; the words of its
 * letterhead). A new document that matches an example's fingerprint is read the example's way:
 * for each field, the value at the same label and place, or (for text such as the issuer's own
 * name and address) the same text, wins over the general model; a field the layout does not find
 * is left to the general model.
 */
import type { Column } from '../../domain/columns';
import { fits } from '../coerce';
import { cashRounded } from '../fields/amounts';
import type { DayOrder } from '../dates';
import { IBAN_RE, validIban } from '../fields/values';
import type { Box, PageModel } from '../layout/page';
import { containedSimilarity, dateIn, isAmount, isTextual, normalizeText, numberReadings, similarity } from './match';
import { lineTexts, pageText, spansOf, type Span } from './spans';

export interface Fingerprint {
  identifiers: string[];
  /** Words of the first page's top quarter (the letterhead), lower case, sorted. */
  words: string[];
}

export interface LearnedField {
  column_id: string;
  value: unknown;
  page: number;
  box: Box;
  label: string | null;
  lines: number;
  /** The words the example's document printed there (a person may have corrected them into `value`). */
  text?: string | null;
  order?: DayOrder;
}

export interface LearnedLayout {
  id: string;
  fingerprint: Fingerprint;
  /** Page sizes of the example, in its own units. */
  pages: Array<{ number: number; width: number; height: number }>;
  fields: LearnedField[];
}

const IDENTIFIERS: RegExp[] = [
  // VAT and tax numbers with a country prefix (DE123456789, ATU12345678, GB 123 4567 89).
  /\b[A-Z]{2}[ ]?U?\d[\d ]{6,13}\d\b/g,
  // Registration and tax numbers of digits (with dashes, slashes or dots between groups).
  /(?<![\d.,])\d{2,}[-/. ]?\d{3,}[-/.]?\d{2,}(?![\d.,])/g,
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/gi,
  /\bwww\.[\w-]+(?:\.[\w-]+)+/gi,
];

/** What a document's issuer prints on every document it sends. */
export function fingerprintOf(pages: PageModel[]): Fingerprint {
  const ids = new Set<string>();
  for (const page of pages) {
    const text = pageText(page);
    for (const re of IDENTIFIERS) {
      for (const m of text.matchAll(re)) {
        const id = m[0].replace(/[\s.\-/]/g, '').toUpperCase();
        // Amounts and dates are no identifiers: at least seven digits, or letters and digits mixed.
        if ((id.match(/\d/g)?.length ?? 0) >= 7 || id.includes('@') || id.startsWith('WWW')) ids.add(id);
      }
    }
    for (const m of text.toUpperCase().matchAll(new RegExp(IBAN_RE.source, 'g'))) {
      const iban = validIban(m[1]!);
      if (iban) ids.add(iban.replace(/\s/g, ''));
    }
  }
  const first = pages[0];
  const words = new Set<string>();
  if (first) {
    for (const w of first.words) {
      if (w.y1 > first.height * 0.25) continue;
      const word = normalizeText(w.text);
      if (/^\p{L}{3,}$/u.test(word)) words.add(word);
    }
  }
  return { identifiers: [...ids].sort(), words: [...words].sort() };
}

/** An example document's fingerprint: its identifiers but those that are its own field values (its invoice number). */
export function exampleFingerprint(pages: PageModel[], values: unknown[]): Fingerprint {
  const own = new Set(values.filter((v) => v !== null && v !== undefined).map((v) => String(v).replace(/[\s.\-/]/g, '').toUpperCase()));
  const fingerprint = fingerprintOf(pages);
  return { ...fingerprint, identifiers: fingerprint.identifiers.filter((id) => !own.has(id)) };
}

/**
 * How alike two fingerprints are, 0..1. An identifier both print (a tax id, an IBAN) says one
 * issuer even when the recogniser garbled the letterhead; two documents that each print
 * identifiers but share none are different issuers unless their letterheads are nearly the same
 * (words a document tool prints on every issuer's page would otherwise join them).
 */
export function fingerprintMatch(a: Fingerprint, b: Fingerprint): number {
  const jaccard = letterheadAlike(a, b);
  const ids = new Set(a.identifiers);
  const sharedIds = b.identifiers.filter((i) => ids.has(i)).length;
  if (sharedIds > 0) return jaccard >= 0.1 ? Math.min(1, 0.5 + jaccard / 2) : 0;
  if (a.identifiers.length && b.identifiers.length) return jaccard >= SAME_LETTERHEAD ? jaccard : 0;
  return jaccard;
}

/** The share of letterhead words two fingerprints have in common (Jaccard). */
function letterheadAlike(a: Fingerprint, b: Fingerprint): number {
  const words = new Set(a.words);
  const shared = b.words.filter((w) => words.has(w)).length;
  const union = a.words.length + b.words.length - shared;
  return union ? shared / union : 0;
}

/** Letterheads this alike are one issuer's though they print no identifier in common (its name says which). */
const SAME_LETTERHEAD = 0.7;
/** The example's name of its issuer must print on the document at least this alike (a few misread glyphs). */
const MIN_NAME = 0.75;

/**
 * The example's topmost text of words (its issuer's name, which a letterhead opens with), when it
 * located one: a document that shares only an identifier and some words with the example (its
 * customer's tax id and address, printed by every supplier), or its letterhead's words (a document
 * tool's template, which many issuers fill in), is another issuer's unless it prints that name too.
 */
function issuerName(layout: LearnedLayout): LearnedField | null {
  const first = Math.min(...layout.fields.map((f) => f.page));
  const named = layout.fields.filter((f) => f.page === first && typeof f.value === 'string' && (f.value.match(/\p{L}/gu)?.length ?? 0) >= 4);
  return named.reduce<LearnedField | null>((top, f) => (!top || f.box.y0 < top.box.y0 ? f : top), null);
}

/** Fingerprints at least this alike are one issuer's layout. */
export const LAYOUT_MATCH = 0.45;
/** The score a learned field carries: above any general field's, since a person showed where it is. */
export const LEARNED_SCORE = 0.95;

const SIGMA = 0.06;

/** How close two places are on their pages, 0..1, measured in page widths from the top and from the bottom. */
function closeness(box: Box, size: { width: number; height: number }, other: Box, otherSize: { width: number; height: number }): number {
  const cx = (box.x0 + box.x1) / 2 / size.width;
  const ox = (other.x0 + other.x1) / 2 / otherSize.width;
  const cy = (box.y0 + box.y1) / 2;
  const oy = (other.y0 + other.y1) / 2;
  const fromTop = Math.abs(cy / size.width - oy / otherSize.width);
  const fromBottom = Math.abs((size.height - cy) / size.width - (otherSize.height - oy) / otherSize.width);
  const dy = Math.min(fromTop, fromBottom);
  const dx = cx - ox;
  return Math.exp(-(dx * dx + dy * dy) / (2 * SIGMA * SIGMA));
}

/**
 * How alike two labels are, 0..1: half for the word next to the value (the one that names it:
 * "Nr." of "Invoice Nr."), half for the words they share, each within a misread letter.
 */
export function labelSimilarity(a: string, b: string): number {
  const [x, y] = [a.split(' '), b.split(' ')];
  const alike = (p: string, q: string) => similarity(p, q) >= 0.8;
  const shared = x.filter((p) => y.some((q) => alike(p, q))).length + y.filter((q) => x.some((p) => alike(p, q))).length;
  return 0.5 * Number(alike(x.at(-1)!, y.at(-1)!)) + (0.5 * shared) / (x.length + y.length);
}

const decimalsOf = (text: string) => /[.,](\d{1,3})\D*$/.exec(text.trim())?.[1]?.length ?? 0;

/** Text without its spacing and punctuation, which a recogniser gets wrong most often. */
const compact = (text: string) => text.replace(/[\s\p{P}]+/gu, '');

/** The share of a text's letters and figures that are figures. */
function figureShare(text: string): number {
  const figures = text.match(/\p{N}/gu)?.length ?? 0;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return figures + letters ? figures / (figures + letters) : 0;
}

/** One word of more figures than letters: a number a document is given (an invoice's, an order's), not text its issuer prints on every one. */
const documentNumber = (text: string) => !/\s/.test(text.trim()) && figureShare(text) > 0.5;

/**
 * Text of the example value's kind: about as long, in about as many words (one when the example's
 * is one: an id, a code), with about as many figures ("EUR" is no "20,16", a name no "Nr. 4711").
 * A block of several lines may differ more in words: another branch's address runs a line longer
 * or shorter than the example's, in lines of other lengths.
 */
function sameKind(text: string, example: string, lines = 1): boolean {
  const ratio = text.length / Math.max(1, example.length);
  const [words, exampleWords] = [text.split(/\s+/).length, example.split(/\s+/).length];
  const share = lines > 1 ? 0.5 : 0.3;
  const wordsAlike = exampleWords === 1 ? words === 1 : Math.abs(words - exampleWords) <= Math.max(1, Math.round(share * exampleWords));
  return ratio >= 0.4 && ratio <= 2.5 && wordsAlike && Math.abs(figureShare(text) - figureShare(example)) <= 0.25;
}

/** The value of `column` a span shows, read the example's way; null when it shows none. */
function valueOf(span: Span, column: Column, field: LearnedField): unknown {
  if (isAmount(column)) {
    // As many decimals as the example printed: "212" where "2.12" stood lost its point to the recogniser.
    if (field.text && decimalsOf(field.text) !== decimalsOf(span.text)) return null;
    return numberReadings(span.text).length && fits(span.text, column) ? span.text : null;
  }
  if (column.type === 'date') return dateIn(span.text, field.order ?? null);
  if (column.type === 'boolean') return null;
  // A text ending in a colon is a label, not a value.
  return !/[:：]$/.test(span.text) && sameKind(span.text, String(field.value ?? ''), field.lines) ? span.text : null;
}

const MIN_LABEL = 0.75;
const EXACT_LABEL = 0.99;
const MIN_PLACE = 0.6;
/** Text this alike is the example's (a letter or two misread in twenty), not another branch's or customer's. */
const MIN_CONSTANT = 0.9;
/**
 * Text this alike, holding the example's numbers (two or more: a house number, a postal code) read
 * the same and in order, is the example's too: the issuer's address with more of its letters
 * misread. Another branch's address differs in its numbers.
 */
const MIN_NUMBERED = 0.8;
const MIN_NUMBERS = 2;
const numbersOf = (text: string) => normalizeText(text).match(/\d+/g) ?? [];

/**
 * One field of a document read the example's way (and whether only its place on the page found it,
 * with no label or printed text of the example's to go by), or null when it is not where the
 * example shows it.
 */
function learnedValue(pages: PageModel[], column: Column, field: LearnedField, layout: LearnedLayout, general: unknown): { value: unknown; byPlace: boolean } | null {
  const sizes = layout.pages;
  const size = sizes.find((p) => p.number === field.page);
  if (!size) return null;
  const agreesWithGeneral = generalChoice(column, general, field.order);
  const lastExamplePage = Math.max(...sizes.map((p) => p.number));
  const wanted = field.value === null || field.value === undefined ? '' : compact(normalizeText(String(field.value)));
  const printed = field.text ? compact(normalizeText(field.text)) : wanted;
  const label = field.label ? normalizeText(field.label) : null;
  const width = (field.box.x1 - field.box.x0) / size.width;
  // The example's other texts (its address, when this is its name): a run of their words is theirs.
  const otherTexts = isTextual(column)
    ? layout.fields
        .filter((f) => f.column_id !== field.column_id && typeof f.value === 'string' && /\p{L}{3}/u.test(f.value))
        .map((f) => compact(normalizeText(String(f.value))))
        .filter((t) => !t.includes(wanted))
    : [];
  // The issuer's own text (its name, its address) printed again, wherever it stands: the example's
  // value. Not a number of one document (its invoice number, which a credit note cites).
  if (isTextual(column) && wanted && !documentNumber(String(field.value))) {
    const numbers = numbersOf(String(field.value));
    if (printsConstant(pages, field.lines, [printed, wanted], MIN_CONSTANT, true)) return { value: field.value, byPlace: false };
    if (numbers.length >= MIN_NUMBERS && printsConstant(pages, field.lines, [printed, wanted], MIN_NUMBERED, false, numbers)) return { value: field.value, byPlace: false };
  }
  const found: Array<{ score: number; value: unknown; text: string; exact: boolean; byPlace: boolean }> = [];
  let labelPrinted = false;
  // A field in the lower half of a one-page example (its totals, its terms) closes the document:
  // a longer document prints it on its last page, after the items that filled the pages before.
  const closing = sizes.length === 1 && (field.box.y0 + field.box.y1) / 2 > size.height / 2;
  for (const page of pages) {
    // The same page, or the last page for a field the example had on its last page (totals).
    const samePage = closing
      ? page.number === pages.at(-1)!.number
      : page.number === field.page || (field.page === lastExamplePage && page.number === pages.at(-1)!.number && field.page > 1);
    if (!samePage) continue;
    for (const span of spansOf(page)) {
      if (isTextual(column) ? Math.abs(span.lines - field.lines) > (field.lines > 1 ? 1 : 0) : span.lines !== 1) continue;
      const labelFit = label && span.label ? labelSimilarity(label, normalizeText(span.label)) : 0;
      if (labelFit >= EXACT_LABEL) labelPrinted = true;
      const value = valueOf(span, column, field);
      if (value === null) continue;
      const words = otherTexts.length ? compact(normalizeText(span.text)) : '';
      if (words && otherTexts.some((t) => t.includes(words))) continue;
      const place = closeness(field.box, size, span.box, page);
      // At the example's label, or where it stood when it had none.
      if (!(labelFit >= MIN_LABEL || (!label && place >= MIN_PLACE))) continue;
      const spanWidth = (span.box.x1 - span.box.x0) / page.width;
      const extent = Math.min(width, spanWidth) / Math.max(width, spanWidth, 1e-6);
      // The general model's own choice, when the layout allows it, settles which of two nearly as
      // likely places it is: two runs of words, or two dates at one label (a discount's, the net's).
      const agrees = agreesWithGeneral(span.text, value) ? 0.3 : 0;
      const score = (labelFit >= MIN_LABEL ? labelFit : 0) + 0.8 * place + 0.5 * extent + agrees;
      found.push({ score, value, text: span.text, exact: labelFit >= EXACT_LABEL, byPlace: labelFit < MIN_LABEL });
    }
  }
  // The very label the example's value stood at, when the document prints it, rules out near ones
  // ("Total incl. tax" is no "Total excl. tax"), even when what stands beside it does not read.
  const pool = labelPrinted ? found.filter((f) => f.exact) : found;
  // Of runs of words over one place (the same score), the longest: "1,12 -" with the sign set apart, not "1,12".
  const best = pool.reduce<(typeof found)[number] | null>((top, f) => (!top || f.score > top.score || (f.score === top.score && f.text.length > top.text.length) ? f : top), null);
  return best ? { value: best.value, byPlace: best.byPlace } : null;
}

/**
 * Texts at least this long (letters and figures, spaces aside) are found inside longer lines too:
 * a long text read that alike inside other words is that text; a short one could be a piece of another.
 */
const MIN_CONTAINED = 20;

/**
 * Whether some run of whole lines (about as many as the example's field covered), or a span, reads
 * as the example's text, misread glyphs aside: the issuer's own name or address, printed again.
 * Whole lines too, because a recogniser's words do not always stack into the spans an address made
 * on the example. With `inside`, a long text may also stand inside a run among other words (a
 * registration number or a telephone number the recogniser read onto an address's line). With
 * `numbers`, a run of lines only counts when it holds just these numbers, in this order.
 */
function printsConstant(pages: PageModel[], lines: number, texts: string[], alike = MIN_CONSTANT, inside = false, numbers?: string[]): boolean {
  const long = inside ? texts.filter((t) => t.length >= MIN_CONTAINED) : [];
  const sameNumbers = (read: string[]) => !numbers || numbersOf(read.join(' ')).join(' ') === numbers.join(' ');
  for (const page of pages) {
    const read = lineTexts(page);
    const all = read.map((t) => compact(normalizeText(t)));
    for (let from = 0; from < all.length; from++) {
      for (let n = 1; n <= lines + 1 && from + n <= all.length; n++) {
        const run = all.slice(from, from + n).join('');
        if (texts.some((t) => similarity(run, t) >= alike) && sameNumbers(read.slice(from, from + n))) return true;
        // The longest run from here holds every shorter one.
        if ((n === lines + 1 || from + n === all.length) && long.some((t) => containedSimilarity(run, t) >= alike)) return true;
      }
    }
    // Or part of a line: a name beside the date, or before its registration number.
    for (const span of spansOf(page)) {
      if (span.lines > lines + 1) continue;
      const run = compact(normalizeText(span.text));
      if (texts.some((t) => similarity(run, t) >= alike) && sameNumbers([span.text])) return true;
    }
  }
  return false;
}

/** Whether a span (its text, and the value read from it) shows the general model's choice; worked out once per field. */
function generalChoice(column: Column, general: unknown, order: DayOrder | undefined): (text: string, value: unknown) => boolean {
  if (general === null || general === undefined) return () => false;
  const generalText = normalizeText(String(general));
  if (isTextual(column)) return (text) => normalizeText(text) === generalText;
  if (isAmount(column)) {
    const theirs = magnitudes(general);
    return (text) => alikeAmounts(magnitudes(text), theirs);
  }
  if (column.type !== 'date') return () => false;
  const iso = /^\d{4}-\d{2}-\d{2}/.test(generalText) ? generalText.slice(0, 10) : dateIn(generalText, order ?? null);
  return (_text, value) => iso !== null && iso === value;
}

/** The amounts a text can be, without their sign (a credit note prints some with it, some without). */
const magnitudes = (v: unknown) => (v === null || v === undefined ? [] : typeof v === 'number' ? [Math.abs(v)] : numberReadings(String(v)).map(Math.abs));

/** Whether some reading of one amount is some reading of the other, to the cent. */
const alikeAmounts = (xs: number[], ys: number[]) => xs.some((a) => ys.some((b) => Math.abs(a - b) < 0.005));

const sameMagnitude = (text: string, other: unknown) => alikeAmounts(magnitudes(text), magnitudes(other));

/** Whether `rounded` is an amount `text` shows, rounded to the cash step (and `text`'s is not). */
const cashRoundingOf = (text: string, rounded: unknown) => magnitudes(text).some((a) => magnitudes(rounded).some((b) => cashRounded(a, b)));

/** The example layout a document matches best, when one matches. */
export function matchingLayout(pages: PageModel[], layouts: LearnedLayout[]): { layout: LearnedLayout; match: number } | null {
  if (!layouts.length || !pages.length) return null;
  const fingerprint = fingerprintOf(pages);
  let best: { layout: LearnedLayout; match: number } | null = null;
  for (const layout of layouts) {
    const match = fingerprintMatch(fingerprint, layout.fingerprint);
    if (match < LAYOUT_MATCH || (best && match <= best.match)) continue;
    const name = issuerName(layout);
    const texts = name ? [name.value, name.text].filter((t): t is string => typeof t === 'string').map((t) => compact(normalizeText(t))) : [];
    if (name && !printsConstant(pages, name.lines, texts, MIN_NAME)) continue;
    best = { layout, match };
  }
  return best;
}

/**
 * The fields of a document read through the best-matching learned layout (nothing when none
 * matches), and which of them only their place on the page found.
 */
export function learnedFields(
  pages: PageModel[],
  columns: Column[],
  layouts: LearnedLayout[],
  general: Record<string, unknown> = {},
  ruledOut: Record<string, string[]> = {},
): { layout: string | null; values: Record<string, unknown>; byPlace: string[]; addsUp: string[] } {
  const found = matchingLayout(pages, layouts);
  if (!found) return { layout: null, values: {}, byPlace: [], addsUp: [] };
  const values: Record<string, unknown> = {};
  const byPlace: string[] = [];
  // Every amount the layout read, the general model's own among them, for their arithmetic.
  const amounts: Record<string, unknown> = {};
  for (const field of found.layout.fields) {
    const column = columns.find((c) => c.id === field.column_id);
    if (!column) continue;
    const own = general[column.id];
    // The general model already read the issuer's own text (its name, its currency): it stays.
    if (isTextual(column) && own !== null && own !== undefined && normalizeText(String(own)) === normalizeText(String(field.value ?? ''))) continue;
    const learned = learnedValue(pages, column, field, found.layout, own);
    if (!learned) continue;
    const { value } = learned;
    if (isAmount(column)) amounts[column.id] = value;
    // The same amount as the general model's: its sign, which the document's kind decides (a credit note), stays the general model's.
    if (isAmount(column) && typeof value === 'string' && sameMagnitude(value, own)) continue;
    // The general model's amount is this one rounded to the cash step (a till's rounded total):
    // an example that needed no rounding cannot tell which of the two its label names.
    if (isAmount(column) && typeof value === 'string' && cashRoundingOf(value, own)) continue;
    // An amount the document itself rules out (more than the money handed over, where change was
    // given): a misread, wherever the example printed its total.
    if (isAmount(column) && typeof value === 'string' && ruledOut[column.id]?.some((r) => sameMagnitude(value, r))) continue;
    if (value === null || value === undefined || value === '') continue;
    values[column.id] = value;
    if (learned.byPlace) byPlace.push(column.id);
  }
  signedLikeTheirSum(values, general, columns);
  return { layout: found.layout.id, values, byPlace, addsUp: addingUp(amounts, general).filter((id) => id in values) };
}

/**
 * A credit note prints some amounts with their minus and some without ("Tax 1,12" under "Net
 * -7,67"). A learned amount printed unsigned that adds up with the document's other amounts
 * (net + tax = total, to the cent), all of which are negative, is negative too.
 */
function signedLikeTheirSum(values: Record<string, unknown>, general: Record<string, unknown>, columns: Column[]): void {
  const raw = (id: string) => (id in values ? values[id] : general[id]);
  const signed = (id: string) => {
    const v = raw(id);
    return v === null || v === undefined ? [] : typeof v === 'number' ? [v] : numberReadings(String(v));
  };
  for (const triple of sumTriples(columns.filter(isAmount).map((c) => c.id))) {
    const unsigned = triple.filter((id) => id in values && signed(id).every((x) => x > 0));
    const others = triple.filter((id) => !unsigned.includes(id));
    if (unsigned.length !== 1 || !others.every((id) => signed(id).length && signed(id).every((x) => x < 0))) continue;
    const [id] = unsigned as [string];
    // Its reading that completes the sum, negative.
    const fitting = signed(id).find((x) => sums(...(triple.map((t) => (t === id ? x : raw(t))) as [unknown, unknown, unknown])));
    if (fitting !== undefined) values[id] = -fitting;
  }
}

/** Every way three of the columns can be two amounts and their total: [a, b, total]. */
function* sumTriples(ids: string[]): Generator<[string, string, string]> {
  for (const total of ids) {
    for (const [i, a] of ids.entries()) {
      for (const b of ids.slice(i + 1)) if (a !== total && b !== total) yield [a, b, total];
    }
  }
}

/** Whether some readings of three amounts make the third the sum of the first two, to the cent. */
function sums(a: unknown, b: unknown, c: unknown): boolean {
  const [xs, ys, zs] = [magnitudes(a), magnitudes(b), magnitudes(c)];
  return xs.some((x) => ys.some((y) => zs.some((z) => Math.abs(x + y - z) < 0.011)));
}

/**
 * The learned amounts that add up, one the sum of two others (net + tax = total), where the
 * general model's amounts of those columns do not: the issuer's totals block read as a whole,
 * which outweighs how sure the general model is of its own.
 */
function addingUp(learned: Record<string, unknown>, general: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const [a, b, total] of sumTriples(Object.keys(learned))) {
    if (!sums(learned[a], learned[b], learned[total]) || sums(general[a], general[b], general[total])) continue;
    [a, b, total].forEach((id) => out.add(id));
  }
  return [...out];
}
