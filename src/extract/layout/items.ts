/**
 * Tables under a drawn header: a header band of boxes set side by side (the filled cells of a
 * shaded header), or a rule under the header drawn cell by cell, gives the columns, whatever the
 * text below leaves clear. The rows below are items: an item starts at a line that brings a value
 * for a number column the item already has (a new price, a new amount); tight lines under it are its
 * wrapped cells, and lines set apart or written "label: value" are its notes, kept in the item but
 * out of its cells.
 */
import { conceptsOf } from '../lexicon';
import { headerGrid, rowCells, columnIndex, type Column } from './cells';
import { isNumeric, type LayoutTable } from './grid';
import { median, type Line } from './lines';
import type { Box, Page } from './page';

export interface DrawnHeader {
  columns: Column[];
  /** The band's top and bottom (for a rule: the rule is the bottom, the labels stand above it). */
  top: number;
  bottom: number;
}

/** Boxes this many font sizes apart or closer are cells side by side (a hairline gap between fills). */
const CELL_GAP = 1.2;
/** A header rule's labels stand within this many font sizes above it (stacked labels of several lines). */
const LABEL_DEPTH = 6;
/** Items of one table stand at most this many font sizes apart (notes and blank space between them). */
const ITEM_GAP = 4;
/** A line this close under the one above (in font sizes) wraps it; further apart it is a note. */
const WRAP_GAP = 0.5;

/** A number, or a quantity with its unit ("10000 KWH", "3 m²", "27,5 Std"). */
export const isQuantity = (text: string) => isNumeric(text) || /^[-+]?\d[\d.,' ]*\s?[\p{L}]{1,6}\.?[²³]?$/u.test(text.trim());

/** A note written as "label: value" or "label : value" ("Gross price : 4.00", "Serial no.:"). */
const LABELLED = /^[\p{L}][^:：]{0,40}[:：]/u;

/** Runs of boxes side by side, left to right. */
function sideBySide<T extends Box>(boxes: T[], gap: number): T[][] {
  const sorted = [...boxes].sort((a, b) => a.x0 - b.x0);
  const runs: T[][] = [];
  for (const box of sorted) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run && last && box.x0 - last.x1 >= -2 && box.x0 - last.x1 <= gap) run.push(box);
    else runs.push([box]);
  }
  return runs;
}

/** Boxes grouped by their vertical extent (±1.5 points). */
function byBand<T extends Box>(boxes: T[], key: (b: T) => [number, number]): T[][] {
  const groups: T[][] = [];
  for (const box of boxes) {
    const [a, b] = key(box);
    const group = groups.find((g) => Math.abs(key(g[0]!)[0] - a) <= 1.5 && Math.abs(key(g[0]!)[1] - b) <= 1.5);
    if (group) group.push(box);
    else groups.push([box]);
  }
  return groups;
}

/** Cells holding a label (a word that is not a number) among the header lines. */
function labelledCells(cells: Column[], lines: Line[]): number {
  const labelled = new Set<number>();
  let numbers = 0;
  for (const line of lines) {
    for (const segment of line.segments) {
      if (isNumeric(segment.text)) numbers++;
      else if (segment.x0 >= cells[0]!.x0 - 2 && segment.x1 <= cells[cells.length - 1]!.x1 + 2) labelled.add(columnIndex(cells, segment.x0, segment.x1));
    }
  }
  return numbers > labelled.size * 0.4 ? 0 : labelled.size;
}

/**
 * The drawn header of a table starting near `near`: three or more boxes side by side with labels
 * inside (a shaded header band drawn cell by cell), or three or more rule pieces end to end, of
 * different lengths (a dashed rule's pieces are all alike), with labels above them.
 */
export function drawnHeader(page: Page, lines: Line[], near: Box, size: number): DrawnHeader | null {
  const zone = { y0: near.y0 - size * 3, y1: near.y0 + size * 8 };
  const options: Array<DrawnHeader & { labels: number }> = [];
  const filled = page.rects.filter((r) => r.y1 > zone.y0 && r.y0 < zone.y1 && r.y1 - r.y0 <= size * LABEL_DEPTH && r.x1 - r.x0 >= size);
  for (const band of byBand(filled, (r) => [r.y0, r.y1])) {
    for (const run of sideBySide(band, size * CELL_GAP)) {
      if (run.length < 3) continue;
      const { y0, y1 } = run[0]!;
      const inside = lines.filter((l) => (l.y0 + l.y1) / 2 >= y0 && (l.y0 + l.y1) / 2 <= y1);
      const columns = run.map((r) => ({ x0: r.x0, x1: r.x1 }));
      options.push({ columns, top: y0, bottom: y1, labels: labelledCells(columns, inside) });
    }
  }
  const pieces = page.rules.filter((r) => r.y1 - r.y0 <= 3 && r.x1 - r.x0 >= size && r.y0 > zone.y0 && r.y0 < zone.y1);
  for (const band of byBand(pieces, (r) => [(r.y0 + r.y1) / 2, (r.y0 + r.y1) / 2])) {
    for (const run of sideBySide(band, 2)) {
      const lengths = run.map((r) => r.x1 - r.x0);
      if (run.length < 3 || Math.max(...lengths) - Math.min(...lengths) < 1) continue;
      const y = (run[0]!.y0 + run[0]!.y1) / 2;
      const above = lines.filter((l) => l.y1 <= y + 1 && l.y0 >= y - size * LABEL_DEPTH);
      const columns = run.map((r) => ({ x0: r.x0, x1: r.x1 }));
      options.push({ columns, top: y - size * LABEL_DEPTH, bottom: y, labels: labelledCells(columns, above) });
    }
  }
  const best = options.filter((o) => o.labels >= 3).sort((a, b) => b.labels - a.labels || a.top - b.top)[0];
  return best ? { columns: best.columns, top: best.top, bottom: best.bottom } : null;
}

interface Item {
  cells: string[];
  notes: string[];
  last: Line;
  /** A note has been read: what follows is notes too, not wrapped cells. */
  noted: boolean;
}

/**
 * Body lines as items. Number columns are those the fullest lines fill with numbers; a line that
 * brings a number for one the current item already has starts the next item.
 */
export function groupItems(columns: Column[], lines: Line[], size: number): Array<{ cells: string[]; notes: string[] }> {
  // Drawn cells are exact and words only estimated: a word may overhang its cell by a little.
  const cells = lines.map((l) => rowCells(columns, l, size * 0.3));
  const filled = (row: string[]) => row.filter(Boolean).length;
  const full = cells.filter((row) => filled(row) >= Math.max(2, Math.ceil(columns.length / 2)));
  const numbers = columns.map((_, k) => k).filter((k) => full.length > 0 && full.filter((row) => isQuantity(row[k]!)).length >= full.length * 0.5);
  const items: Item[] = [];
  lines.forEach((line, n) => {
    const row = cells[n]!;
    const item = items[items.length - 1];
    // An item's line has a cell besides the number; a line printed overlapping the one above is part of its row.
    const starts = !item || (row.filter(Boolean).length >= 2 && line.y0 >= item.last.y1 - 1 && numbers.some((k) => row[k] && isQuantity(row[k]!) && item.cells[k]));
    if (starts) {
      items.push({ cells: row, notes: [], last: line, noted: false });
      return;
    }
    const tight = line.y0 - item.last.y1 <= size * WRAP_GAP;
    if (tight && !item.noted && !LABELLED.test(line.text)) {
      row.forEach((text, k) => text && (item.cells[k] = item.cells[k] ? `${item.cells[k]} ${text}` : text));
    } else {
      item.noted = true;
      // A number the item still lacks fills its column (a position number beside the first note line).
      const rest: string[] = [];
      for (const segment of line.segments) {
        const k = columnIndex(columns, segment.x0, segment.x1);
        if (numbers.includes(k) && !item.cells[k] && isQuantity(segment.text) && segment.x1 - segment.x0 <= columns[k]!.x1 - columns[k]!.x0 + 2) item.cells[k] = segment.text;
        else rest.push(segment.text);
      }
      if (rest.length) item.notes.push(rest.join(' '));
    }
    item.last = line;
  });
  return items.map(({ cells: c, notes }) => ({ cells: c, notes }));
}

/** The document's amounts a totals line under the items names ("Net: -189.00", "VAT @ 20%: 37.80"). */
const TOTALS = new Set(['net_amount', 'subtotal', 'tax_amount', 'total', 'amount_due']);

/** A line right of the first column written "label: amount" with a label of the totals: the items end above it. */
function totalsLine(line: Line, first: Column): boolean {
  const label = LABELLED.exec(line.text)?.[0].replace(/[:：]$/, '');
  const hit = label ? conceptsOf(label)[0] : undefined;
  return line.segments[0]!.x0 >= first.x1 && !!hit && TOTALS.has(hit.concept) && hit.score >= 0.8;
}

/**
 * The header's lines among those in its zone: from the one nearest the rule or band upwards while
 * they stand close together, never a form's line ("Customer: ACME") printed above the table.
 */
function labelsOver(zone: Line[]): Line[] {
  const out: Line[] = [];
  for (const line of [...zone].sort((a, b) => b.y0 - a.y0)) {
    const below = out[0];
    if (LABELLED.test(line.text) || (below && below.y0 - line.y1 > line.size * WRAP_GAP)) break;
    out.unshift(line);
  }
  return out;
}

/**
 * The table under a drawn header: its header lines, then the lines below while they stay within
 * its width, close together, and are not a heading.
 */
export function itemTable(page: Page, lines: Line[], header: DrawnHeader): { table: LayoutTable; lines: Line[] } | null {
  const { columns } = header;
  const left = columns[0]!.x0;
  const right = columns[columns.length - 1]!.x1;
  const within = (l: Line) => l.x0 >= left - 4 && l.x1 <= right + 4;
  const headLines = labelsOver(lines.filter((l) => within(l) && (l.y0 + l.y1) / 2 >= header.top && (l.y0 + l.y1) / 2 <= header.bottom));
  const size = median(headLines.map((l) => l.size)) || 10;
  const body: Line[] = [];
  for (const line of lines.filter((l) => (l.y0 + l.y1) / 2 > header.bottom)) {
    const previous = body[body.length - 1];
    const bodySize = median(body.map((l) => l.size)) || size;
    if (!within(line) || line.y0 - (previous?.y1 ?? header.bottom) > bodySize * ITEM_GAP) break;
    // Text that starts in the first column and runs on past it is the document's, not an item's cell.
    const first = line.segments[0]!;
    if (body.length && first.x0 + line.size * 0.5 < columns[0]!.x1 && first.x1 > columns[0]!.x1 + (columns[0]!.x1 - columns[0]!.x0) * 0.5) break;
    const heading = line.segments.length === 1 && (line.size > bodySize * 1.15 || (line.bold && body.length > 0 && !body.some((l) => l.bold)));
    if (heading || (body.length && totalsLine(line, columns[0]!))) break;
    body.push(line);
  }
  const items = groupItems(columns, body, size);
  const valued = items.filter((i) => i.cells.filter(isQuantity).length >= 2);
  if (headLines.length === 0 || valued.length === 0) return null;
  const head = headerGrid(columns, headLines, []);
  // The notes are a last column without a label, there even when empty: so that the same table on
  // the next page, with or without notes, has the same columns.
  const grid = [...head.map((r) => [...r, '']), ...items.map((i) => [...i.cells, i.notes.join(' ')])];
  const regular = items.filter((i) => i.cells.filter(Boolean).length >= columns.length * 0.5).length / items.length;
  const all = [...headLines, ...body];
  // From the header's own lines down: the lines of the zone above them (a form's) stay the document's.
  const area = { x0: left, y0: Math.min(...all.map((l) => l.y0)), x1: right, y1: Math.max(...all.map((l) => l.y1)) };
  return {
    table: {
      page: page.number, area, grid, headerRows: head.length,
      columns: [...columns, { x0: right, x1: right }],
      // The drawn header is sure; how regular the items are says how sure their rows are.
      quality: Math.round((0.6 + 0.35 * regular) * 100) / 100,
    },
    lines: all,
  };
}
