/**
 * Grids of cells (CSV rows, sheet rows, HTML/Markdown/DOCX tables, PDF layout tables) as tables:
 * header rows (one or several, stacked into full labels), body rows, group rows (a lone label over
 * the rows it heads, carried down) and summary rows (Total, Subtotal) told apart. Which rows are the
 * header is decided by the caller against the target columns; `findHeaderRow` is the guess without
 * columns (schema inference).
 */
import { parseHumanNumber } from './coerce';
import type { Cell, RecordGroup, SourceRecord, TableCandidate } from './document';

export type { Cell };

export function isEmpty(cell: Cell): boolean {
  return cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
}

/** A cell as one line of text: dates as YYYY-MM-DD (an invalid date as nothing), whitespace collapsed. */
export function cellText(cell: Cell): string {
  if (isEmpty(cell)) return '';
  if (cell instanceof Date) return Number.isNaN(cell.getTime()) ? '' : cell.toISOString().slice(0, 10);
  return String(cell).replace(/\s+/g, ' ').trim();
}

const NUMBER_LIKE = /^[\s$€£¥₹(+\-−]*\d[\d\s.,'%)]*(?:[A-Z]{0,3}|[$€£¥₹])$/i;
const DATE_LIKE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/;

/** A header cell: text that is not a number, date or amount; a year heads a column too. */
function isLabel(cell: Cell): boolean {
  if (typeof cell === 'number') return Number.isInteger(cell) && cell >= 1900 && cell <= 2099;
  if (typeof cell !== 'string') return false;
  const s = cell.trim();
  if (/^(19|20)\d\d$/.test(s)) return true;
  return s.length > 0 && s.length <= 80 && !NUMBER_LIKE.test(s) && !DATE_LIKE.test(s);
}

/**
 * Without target columns: the first row of at least two cells, all of them labels, as wide as the
 * rows below it. -1 when the grid has no header.
 */
export function findHeaderRow(rows: Cell[][], lookahead = 10): number {
  for (let i = 0; i < Math.min(rows.length, lookahead); i++) {
    const filled = rows[i]!.filter((c) => !isEmpty(c));
    if (filled.length < 2 || !filled.every(isLabel)) continue;
    const below = rows.slice(i + 1, i + 6).filter((r) => r.some((c) => !isEmpty(c)));
    const widest = Math.max(0, ...below.map((r) => r.filter((c) => !isEmpty(c)).length));
    if (filled.length >= Math.min(widest, 2)) return i;
  }
  return -1;
}

/** Header names made unique: blanks named `column_N`, repeats numbered (`amount_2`). */
export function headerNames(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label, i) => {
    let name = label || `column_${i + 1}`;
    const n = (seen.get(name.toLowerCase()) ?? 0) + 1;
    seen.set(name.toLowerCase(), n);
    if (n > 1) name = `${name}_${n}`;
    return name;
  });
}

/**
 * Cells that only carry a sign of their neighbour are joined to it: SEC-style tables put `$` in a
 * cell before the amount and `)` or `%` in a cell after it ("(540,670" + ")").
 */
export function joinSignCells(grid: Cell[][]): Cell[][] {
  return grid.map((row) => {
    const out = [...row];
    for (let j = 0; j < out.length; j++) {
      const s = typeof out[j] === 'string' ? (out[j] as string).trim() : null;
      if (s === null || s === '') continue;
      if (/^(\)|%|\)%|%\))$/.test(s)) {
        let k = j - 1;
        while (k >= 0 && isEmpty(out[k])) k--;
        if (k >= 0 && typeof out[k] === 'string' && /\d/.test(out[k] as string)) {
          out[k] = `${(out[k] as string).trim()}${s}`;
          out[j] = '';
        }
      } else if (/^(US\$|[$€£¥]|CHF|EUR|USD|GBP)$/.test(s)) {
        let k = j + 1;
        while (k < out.length && isEmpty(out[k])) k++;
        if (k < out.length && typeof out[k] === 'string' && /^[\s(\-−]*\d/.test(out[k] as string)) {
          out[k] = `${s}${(out[k] as string).trim()}`;
          out[j] = '';
        }
      }
    }
    return out;
  });
}

/**
 * Full labels of header rows `start` .. `start + depth - 1`: each column's parts top to bottom,
 * a part repeated from the row above (a spanning label) or equal to the one before taken once.
 */
export function stackedLabels(grid: Cell[][], start: number, depth: number, width: number): string[] {
  const labels: string[] = [];
  for (let j = 0; j < width; j++) {
    const parts: string[] = [];
    for (let r = start; r < start + depth; r++) {
      const text = cellText(grid[r]?.[j]);
      if (text && parts[parts.length - 1] !== text) parts.push(text);
    }
    labels.push(parts.join(' '));
  }
  return labels;
}

const SUMMARY_WORDS = [
  'total', 'totals', 'grand total', 'subtotal', 'sub-total', 'sub total', 'sum', 'summe', 'gesamt', 'gesamtsumme', 'gesamtbetrag',
  'zwischensumme', 'endsumme', 'totaal', 'subtotaal', 'total général', 'total general', 'sous-total', 'razem', 'suma', 'totale',
  'subtotale', 'totale generale', 'importe total', 'montant total', 'totalt', 'summa', 'yhteensä', 'celkem', 'összesen', 'sums',
  'overall', 'insgesamt', 'somme', 'eindtotaal', 'total geral',
];
/**
 * Beside the words: any German compound of gesamt ("Gesamtpreis"), and "All" with one more word
 * ("All states"; "All purpose flour" is a product).
 */
const SUMMARY_PATTERNS = ['gesamt\\p{L}*', 'all\\s+\\p{L}+$'];
const SUMMARY = new RegExp(`^(${[...SUMMARY_WORDS.map((w) => w.replace(/[-\s]/g, '[-\\s]?')), ...SUMMARY_PATTERNS].join('|')})(\\b|$)`, 'iu');

/** Whether a label starts with a summary word: "Total", "Subtotal:", "Gesamtbetrag", "Total général". */
export function isSummaryLabel(text: string): boolean {
  return SUMMARY.test(text.trim().replace(/^[^\p{L}]+/u, ''));
}

export interface TableRow {
  /** The row's index in the grid. */
  index: number;
  cells: Cell[];
  /** The group row above it ("SECTION A", a section heading), carried down; null without one. */
  group: string | null;
  summary: boolean;
}

export interface TableBody {
  rows: TableRow[];
  /** Whether the body had group rows (lone labels over the rows they head). */
  hasGroups: boolean;
}

const filledCount = (row: Cell[]) => row.reduce<number>((n, c) => n + (isEmpty(c) ? 0 : 1), 0);

/** A number a cell reads as, for the column-sum check of summary rows; null when it is not one. */
function plainNumber(cell: Cell): number | null {
  if (typeof cell === 'number') return cell;
  if (typeof cell !== 'string' || !/\d/.test(cell)) return null;
  const parsed = parseHumanNumber(cell.replace(/%$/, ''));
  return parsed === null ? null : 'value' in parsed ? parsed.value : parsed.guess;
}

/** Running sums of the numbers of each column since the last summary row. */
class ColumnSums {
  private sums: number[] = [];
  rows = 0;
  add(row: Cell[]): void {
    row.forEach((cell, j) => (this.sums[j] = (this.sums[j] ?? 0) + (plainNumber(cell) ?? 0)));
    this.rows++;
  }
  reset(): void {
    this.sums = [];
    this.rows = 0;
  }
  /** A row without a label whose numbers are the sums of the rows above it: a total that prints no word. */
  isSumRow(row: Cell[]): boolean {
    if (this.rows < 2 || !isEmpty(row[0])) return false;
    let checked = 0;
    for (let j = 0; j < row.length; j++) {
      const value = plainNumber(row[j]);
      if (value === null) continue;
      if (Math.abs((this.sums[j] ?? 0) - value) > 0.005 * Math.max(1, Math.abs(value))) return false;
      checked++;
    }
    return checked > 0;
  }
}

/**
 * The body below the header: blank rows and repeats of the header skipped; a row with a lone
 * label in its first filled cell, in a table whose rows fill three cells or more, is a group row
 * carried down onto the rows below; summary rows marked (by the reader, by their label, or as
 * column sums without a label).
 */
export function tableBody(candidate: TableCandidate, headerEnd: number, headerKey: string | null): TableBody {
  const grid = candidate.grid;
  const bodyRows = grid.slice(headerEnd).filter((r) => filledCount(r) > 0);
  const widths = bodyRows.map(filledCount).sort((a, b) => a - b);
  const typical = widths[Math.floor(widths.length * 0.75)] ?? 0;
  const rows: TableRow[] = [];
  let group: string | null = null;
  let hasGroups = false;
  const sums = new ColumnSums();
  for (let i = headerEnd; i < grid.length; i++) {
    const cells = grid[i]!;
    const filled = filledCount(cells);
    if (filled === 0) continue;
    if (headerKey && rowKey(cells) === headerKey) continue;
    // A row holding only labels that the row below repeats (row headers spread down by rowspan)
    // heads those rows and has no data of its own.
    if (repeatedBelow(cells, grid[i + 1])) continue;
    const first = cells.findIndex((c) => !isEmpty(c));
    const label = cellText(cells[first]);
    const summary = candidate.summary?.[i] === true || (first <= 1 && isSummaryLabel(label)) || sums.isSumRow(cells);
    if (!summary && filled === 1 && typical >= 3 && first === 0 && isLabel(label)) {
      group = label;
      hasGroups = true;
      continue;
    }
    rows.push({ index: i, cells, group, summary });
    if (summary) sums.reset();
    else sums.add(cells);
  }
  markTotalsBlock(rows, typical);
  return { rows, hasGroups };
}

/** A cell of a percentage alone ("19 %", "20%"). */
const PERCENT_ONLY = /^\s*\d+(?:[.,]\d+)?\s*%\s*$/;

/** A cell that holds a number and nothing else (a sign, a currency, a percent). */
const isNumberText = (cell: Cell) => typeof cell === 'number' || (typeof cell === 'string' && NUMBER_LIKE.test(cell.trim()));

/**
 * The totals block under a table's items (net, tax, total): its last rows, each no more than a
 * label and an amount, are summary rows from the first labelled as a summary on, or all of them
 * when every label stands in a column where the items have numbers (totals set under the price
 * column).
 */
function markTotalsBlock(rows: TableRow[], typical: number): void {
  if (typical < 3) return;
  // A label spanning cells (repeated in each) is one, and a rate printed in a cell of its own
  // ("VAT | 19 % | 112.86") is part of the label.
  const short = (r: TableRow) => {
    const texts = new Set(r.cells.filter((c) => !isEmpty(c)).map(cellText).filter((t) => !PERCENT_ONLY.test(t)));
    return texts.size <= 2 && [...texts].some((t) => NUMBER_LIKE.test(t));
  };
  let start = rows.length;
  while (start > 0 && short(rows[start - 1]!)) start--;
  const block = rows.slice(start);
  const items = rows.slice(0, start).filter((r) => !r.summary && filledCount(r.cells) >= 3);
  if (block.length === 0 || items.length === 0) return;
  const numberColumn = (j: number) => items.filter((r) => isNumberText(r.cells[j])).length >= items.length * 0.5;
  const labelColumn = (r: TableRow) => r.cells.findIndex((c) => !isEmpty(c) && !isNumberText(c));
  const outOfPlace = block.every((r) => labelColumn(r) >= 0 && numberColumn(labelColumn(r)));
  // From its first summary on: a discount or a delivery line above the subtotal is an item the net adds up.
  const first = outOfPlace ? 0 : block.findIndex((r) => r.summary);
  if (first >= 0) for (const r of block.slice(first)) r.summary = true;
}

function repeatedBelow(row: Cell[], next: Cell[] | undefined): boolean {
  if (!next || filledCount(next) <= filledCount(row)) return false;
  return row.every((c, j) => isEmpty(c) || cellText(c) === cellText(next[j]));
}

export const rowKey = (row: Cell[]) => JSON.stringify(row.map((c) => cellText(c).toLowerCase()));

/** The width of a grid: its longest row. */
export const gridWidth = (grid: Cell[][]) => grid.reduce((w, r) => Math.max(w, r.length), 0);

/**
 * Records of a table without target columns (schema inference, suggestion): the guessed header
 * row names the fields; summary and group rows left out.
 */
export function tableRecords(candidate: TableCandidate): { fields: string[]; records: SourceRecord[] } {
  const grid = joinSignCells(candidate.grid);
  const table = { ...candidate, grid };
  const width = gridWidth(grid);
  const guessed = findHeaderRow(grid);
  const [start, end] = candidate.headerRows !== undefined ? [0, candidate.headerRows] : [Math.max(guessed, 0), guessed + 1];
  const names = headerNames(stackedLabels(grid, start, end - start, width));
  const headerKey = end > 0 ? rowKey(grid[end - 1]!) : null;
  const records = tableBody(table, end, headerKey).rows.filter((r) => !r.summary).map((r) => {
    const record: SourceRecord = {};
    r.cells.forEach((cell, j) => {
      if (!isEmpty(cell)) record[names[j]!] = typeof cell === 'string' ? cell.trim() : cell;
    });
    return record;
  });
  return { fields: names, records };
}

/** A reading's tables as record groups (without target columns), then its keyed groups. */
export function recordGroups(tables: TableCandidate[], groups: RecordGroup[]): RecordGroup[] {
  return [...tables.map((t) => ({ label: t.label, ...tableRecords(t) })).filter((g) => g.records.length), ...groups];
}

/**
 * A sheet's (or file's) grid cut at blank rows into its tables. A block of lone lines (titles) is
 * the context of the block below, and text outside the tables (`titles`, a letterhead over a
 * spreadsheet's invoice); a block whose first row is not a row of labels continues the block above
 * (a table with a blank line inside).
 */
export function splitBlocks(grid: Cell[][], label: string): { tables: TableCandidate[]; titles: string[] } {
  const blocks: Cell[][][] = [];
  let current: Cell[][] = [];
  for (const row of grid) {
    if (row.every(isEmpty)) {
      if (current.length) blocks.push(current);
      current = [];
    } else current.push(row);
  }
  if (current.length) blocks.push(current);
  const out: TableCandidate[] = [];
  const titles: string[] = [];
  let context: string[] = [];
  for (const block of blocks) {
    if (block.every((r) => filledCount(r) <= 1) && block.length <= 3) {
      const lines = block.map((r) => r.map(cellText).join(' ').trim());
      context.push(...lines);
      titles.push(...lines);
      continue;
    }
    const first = block[0]!.filter((c) => !isEmpty(c));
    const previous = out[out.length - 1];
    if (previous && context.length === 0 && !first.every(isLabel)) {
      previous.grid.push(...block);
      continue;
    }
    out.push({ label, context: context.join(' '), grid: block, quality: 1 });
    context = [];
  }
  if (out.length === 0 && blocks.length) return { tables: [{ label, context: '', grid: blocks.flat(), quality: 1 }], titles: [] };
  return { tables: out, titles };
}
