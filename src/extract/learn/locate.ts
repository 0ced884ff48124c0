/** Where a document prints a value: the span whose text shows it, with its box, label and page. */
import type { Column } from '../../domain/columns';
import type { DayOrder } from '../dates';
import type { Box, PageModel } from '../layout/page';
import { dateOrderOf, fitOf, isTextual } from './match';
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

/**
 * Where each value of one row is printed. A value printed more than once (a price on several
 * lines of a table) is taken from the line that holds most of the row's other values.
 */
export function locateRow(pages: PageModel[], columns: Column[], values: Record<string, unknown>): Map<string, Location> {
  const found = new Map<string, Location[]>();
  for (const column of columns) {
    const v = values[column.id];
    if (v === null || v === undefined || v === '' || column.type === 'boolean') continue;
    const all = locateAll(pages, column, v);
    if (all.length) found.set(column.id, all.slice(0, 50));
  }
  const centre = (l: Location) => (l.box.y0 + l.box.y1) / 2;
  const sameLine = (a: Location, b: Location) => a.page === b.page && Math.abs(centre(a) - centre(b)) <= Math.max(a.box.y1 - a.box.y0, b.box.y1 - b.box.y0);
  // The anchor: the place most of the row's values share a line with.
  let anchor: Location | null = null;
  let most = -1;
  for (const list of found.values()) {
    for (const candidate of list) {
      let n = 0;
      for (const other of found.values()) if (other !== list && other.some((o) => sameLine(o, candidate))) n++;
      if (n > most) [anchor, most] = [candidate, n];
    }
  }
  const out = new Map<string, Location>();
  for (const [id, list] of found) {
    const best = most > 0 && anchor ? (list.find((l) => sameLine(l, anchor!)) ?? list[0]!) : list[0]!;
    out.set(id, best);
  }
  return out;
}
