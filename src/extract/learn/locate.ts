/** Where a document prints a value: the span whose text shows it, with its box, label and page. */
import type { Column } from '../../domain/columns';
import type { DayOrder } from '../dates';
import { labelSimilarity } from '../lexicon';
import type { Box, PageModel } from '../layout/page';
import { dateOrderOf, fitOf, isAmount, isTextual, numberReadings } from './match';
import { spansOf, type Span } from './spans';

export interface Location {
  page: number;
  box: Box;
  /** The printed text (it may differ from a corrected value by a few letters). */
  text: string;
  label: string | null;
  lines: number;
  /** For dates: the day/month order the document prints them in. */
  order?: DayOrder;
  fit: number;
}

/** Text that differs from the value by more than this is another text. */
const MIN_TEXT_FIT = 0.75;

/** Every span showing `value`, best first (an exact reading, then the fewest words around it). */
export function locateAll(pages: PageModel[], column: Pick<Column, 'type'>, value: unknown): Location[] {
  const out: Location[] = [];
  for (const page of pages) {
    for (const span of spansOf(page)) {
      const fit = fitOf(span.text, value, column);
      if (fit < (isTextual(column) ? MIN_TEXT_FIT : 1)) continue;
      out.push(toLocation(span, fit, column.type === 'date' && typeof value === 'string' ? dateOrderOf(span.text, value.slice(0, 10)) : undefined));
    }
  }
  // The best fit; among equals the labelled one, then the smallest (a value, not the line around it).
  return out.sort((a, b) => b.fit - a.fit || Number(b.label !== null) - Number(a.label !== null) || a.text.length - b.text.length);
}

function toLocation(span: Span, fit: number, order?: DayOrder): Location {
  return { page: span.page, box: span.box, text: span.text, label: span.label, lines: span.lines, fit, ...(order ? { order } : {}) };
}

/** How well a location's label names the column, 0..1 (across the lexicon's languages: "Due date" and "Zahlbar bis"). */
const namedBy = (l: Location, column: Column) => (l.label ? labelSimilarity(column.name, l.label) : 0);

/** Whether a text reads as a negative amount with its sign (a value printed signed where it is unsigned elsewhere). */
function signed(text: string, value: unknown, column: Pick<Column, 'type'>): boolean {
  if (!isAmount(column)) return false;
  const v = Number(value);
  return v < 0 && numberReadings(text).some((n) => Math.abs(n - v) < 0.005);
}

const isZero = (value: unknown, column: Pick<Column, 'type'>) => isAmount(column) && Number(value) === 0;

/** A label this alike names a column outright ("Fälligkeit" a due date); "Lieferdatum" only half names an issue date. */
const NAMED_OUTRIGHT = 0.9;

/** Two locations over the same words: one box covers most of the other (a value, and the line around it). */
function samePlace(a: Location, b: Location): boolean {
  if (a.page !== b.page) return false;
  const w = Math.min(a.box.x1, b.box.x1) - Math.max(a.box.x0, b.box.x0);
  const h = Math.min(a.box.y1, b.box.y1) - Math.max(a.box.y0, b.box.y0);
  const area = (l: Location) => Math.max(1e-6, (l.box.x1 - l.box.x0) * (l.box.y1 - l.box.y0));
  return w > 0 && h > 0 && (w * h) / Math.min(area(a), area(b)) > 0.5;
}

/**
 * Where each value of one row is printed. A value printed more than once (a price on several
 * lines of a table) is taken from the line that holds most of the row's other values, unless its
 * column's label names another place outright; otherwise from the place that prints its sign, then
 * the one whose label names its column (so a value two columns hold goes, for each, to its own
 * label). With `exclusive`, two columns never
 * share a place (a due date equal to the issue date, printed once): the column its label names
 * better keeps it, the other is left unplaced when the document shows it nowhere else, so that an
 * example does not teach the other column's label.
 */
export function locateRow(pages: PageModel[], columns: Column[], values: Record<string, unknown>, options: { exclusive?: boolean } = {}): Map<string, Location> {
  const found = new Map<string, Location[]>();
  const byId = new Map(columns.map((c) => [c.id, c]));
  for (const column of columns) {
    const v = values[column.id];
    if (v === null || v === undefined || v === '' || column.type === 'boolean') continue;
    const all = locateAll(pages, column, v).slice(0, 50);
    if (!all.length) continue;
    // Among places that show the value equally well: one that prints its sign (a credit note's
    // "1,12 -" beside "1,12"), then the one at this column's own label ("Net total" rather than a
    // line of the tax breakdown; the due date's label where it equals the issue date).
    const ranked = all.map((l, i) => ({ l, i, signed: Number(signed(l.text, v, column)), named: namedBy(l, column) }));
    ranked.sort((a, b) => b.l.fit - a.l.fit || b.signed - a.signed || b.named - a.named || a.i - b.i);
    found.set(column.id, ranked.map((r) => r.l));
  }
  const centre = (l: Location) => (l.box.y0 + l.box.y1) / 2;
  const sameLine = (a: Location, b: Location) => a.page === b.page && Math.abs(centre(a) - centre(b)) <= Math.max(a.box.y1 - a.box.y0, b.box.y1 - b.box.y0);
  // The anchor: the place most of the row's values share a line with. A zero is printed in many
  // places (a rate, a charge there is none of) and shows no line.
  const placed = [...found].filter(([id]) => !isZero(values[id], byId.get(id)!)).map(([, list]) => list);
  let anchor: Location | null = null;
  let most = -1;
  for (const list of placed) {
    for (const candidate of list) {
      let n = 0;
      // Another value at this very place (the same date in two columns) shares no line with it.
      for (const other of placed) if (other !== list && other.some((o) => sameLine(o, candidate) && !samePlace(o, candidate))) n++;
      if (n > most) [anchor, most] = [candidate, n];
    }
  }
  const out = new Map<string, Location>();
  for (const [id, list] of found) {
    // A place its own label names outright (a due date's, not the line where the issue date
    // equals it) goes before the anchor's line.
    const named = list.map((l) => namedBy(l, byId.get(id)!));
    const top = Math.max(...named);
    const pool = top >= NAMED_OUTRIGHT ? list.filter((_, i) => named[i] === top) : list;
    const best = most > 0 && anchor ? (pool.find((l) => sameLine(l, anchor!)) ?? pool[0]!) : pool[0]!;
    out.set(id, best);
  }
  if (options.exclusive) separate(out, found, byId);
  return out;
}

/** Columns placed at one place: the one its label names best keeps it; each other moves to another place showing its value as well, or is unplaced. */
function separate(out: Map<string, Location>, found: Map<string, Location[]>, columns: Map<string, Column>): void {
  const ids = [...out.keys()];
  for (const [i, id] of ids.entries()) {
    const at = out.get(id);
    if (!at) continue;
    const sharing = ids.slice(i).filter((other) => out.get(other) && samePlace(out.get(other)!, at));
    if (sharing.length < 2) continue;
    const named = sharing.map((c) => namedBy(at, columns.get(c)!));
    const top = Math.max(...named);
    // No label tells them apart: the place stays with all of them.
    if (named.filter((n) => n === top).length > 1) continue;
    for (const [k, other] of sharing.entries()) {
      if (named[k] === top) continue;
      const taken = [...out.values()];
      const fit = out.get(other)!.fit;
      const elsewhere = found.get(other)!.find((l) => l.fit >= fit && !taken.some((t) => samePlace(t, l)));
      if (elsewhere) out.set(other, elsewhere);
      else out.delete(other);
    }
  }
}
