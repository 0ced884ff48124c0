/**
 * Whether printed text shows a value of a column: a number in either decimal convention, a date in
 * either day/month order, text alike after case and spacing (a recognised word may differ by a
 * letter from the value a person corrected it to).
 */
import type { Column } from '../../domain/columns';
import { parseHumanNumber } from '../coerce';
import { findDates, type DayOrder } from '../dates';
import { isEmpty } from '../tables';
import { editDistance } from '../../lib/strings';

export const normalizeText = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'.,:;()\[\]-]+|[\s"'.,:;()\[\]-]+$/g, '');

/** Levenshtein similarity 0..1 of two strings. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  if (Math.min(a.length, b.length) / Math.max(a.length, b.length) < 0.6) return 0;
  return 1 - editDistance(a, b) / Math.max(a.length, b.length);
}

/**
 * How alike `needle` is to the stretch of `haystack` most like it, 0..1: one less their edit
 * distance over the needle's length. A text printed inside a longer line scores as printed alone.
 */
export function containedSimilarity(haystack: string, needle: string): number {
  if (!needle.length) return 0;
  if (haystack.includes(needle)) return 1;
  return 1 - editDistance(needle, haystack, true) / needle.length;
}

/** The numbers a printed amount can be, read as the document writes decimals either way; none when it is no amount. */
export function numberReadings(text: string): number[] {
  // A currency the parser does not know, written before the amount ("RM 12.50").
  const bare = text.trim().replace(/^\p{Lu}{1,3}\.?\s*(?=[-(]?\d)/u, '');
  const out = new Set<number>();
  for (const decimalComma of [false, true]) {
    const parsed = parseHumanNumber(bare, { decimalComma });
    if (parsed) out.add('value' in parsed ? parsed.value : parsed.guess);
  }
  return [...out];
}

/** The day/month order under which `text` is the ISO date `iso`, or undefined when it is not that date. */
export function dateOrderOf(text: string, iso: string): DayOrder | undefined {
  for (const order of ['dmy', 'mdy'] as const) {
    const found = findDates(text, order).find((d) => d.iso === iso);
    // The date is (nearly) all the text: "Date 03.04.2024" is a label and a date, not a value.
    if (found && found.raw.length >= text.replace(/\s+/g, '').length * 0.6) return order;
  }
  return undefined;
}

/** The date `text` shows when read in `order`, as YYYY-MM-DD; null when it is no date. */
export function dateIn(text: string, order: DayOrder): string | null {
  const found = findDates(text, order)[0];
  return found?.iso && found.raw.length >= text.replace(/\s+/g, '').length * 0.6 ? found.iso : null;
}

const TEXTUAL = new Set(['string', 'text', 'email', 'url', 'enum', 'multi_select']);
export const isTextual = (column: Pick<Column, 'type'>) => TEXTUAL.has(column.type);
/** Columns of amounts: numbers and money. */
export const isAmount = (column: Pick<Column, 'type'>) => column.type === 'number' || column.type === 'currency';

/** How well `text` shows `value` of `column`: 1 exactly, less for text that differs by a few letters, 0 not at all. */
export function fitOf(text: string, value: unknown, column: Pick<Column, 'type'>): number {
  if (value === null || value === undefined || value === '') return 0;
  if (isAmount(column)) {
    const v = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(v) && numberReadings(text).some((n) => Math.abs(Math.abs(n) - Math.abs(v)) < 0.005) ? 1 : 0;
  }
  if (column.type === 'date' && typeof value === 'string') return dateOrderOf(text, value.slice(0, 10)) ? 1 : 0;
  if (column.type === 'boolean') return 0;
  const wanted = normalizeText(Array.isArray(value) ? value.join(' ') : String(value));
  return similarity(normalizeText(text), wanted);
}

/** A value a row holds: not empty, blank or an empty list. */
export const hasValue = (v: unknown) => !isEmpty(v) && !(Array.isArray(v) && v.length === 0);

/** Whether an extracted value is the reviewed one: numbers to the cent, dates by day, text alike but for case, spacing and the punctuation around it. */
export function sameValue(a: unknown, b: unknown, column: Pick<Column, 'type'>): boolean {
  if (!hasValue(a) || !hasValue(b)) return !hasValue(a) && !hasValue(b);
  if (isAmount(column)) return Math.abs(Number(a) - Number(b)) < 0.005;
  if (column.type === 'date') return String(a).slice(0, 10) === String(b).slice(0, 10);
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  return normalizeText(String(a)).replace(/\s+/g, '') === normalizeText(String(b)).replace(/\s+/g, '');
}
