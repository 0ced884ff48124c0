/**
 * Grids of cells (CSV rows, sheet rows, HTML and Markdown tables, PDF lines split at column gaps)
 * into records: the header row found, blank and repeated header rows skipped, header names made
 * unique.
 */
import type { SourceRecord } from './document';

export type Cell = unknown;

function isEmpty(cell: Cell): boolean {
  return cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
}

const NUMBER_LIKE = /^[\s$€£¥(+-]*\d[\d\s.,'%)]*[A-Z]{0,3}$/i;
const DATE_LIKE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/;

/** A header cell: text that is not a number, date or amount. */
function isLabel(cell: Cell): boolean {
  if (typeof cell !== 'string') return false;
  const s = cell.trim();
  return s.length > 0 && s.length <= 80 && !NUMBER_LIKE.test(s) && !DATE_LIKE.test(s);
}

/**
 * The index of the header row among the first few: the first row of at least two cells, all of
 * them labels, that is as wide as the rows below it. -1 when the grid has no header.
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

/** Header names, trimmed, blanks named `column_N`, repeats numbered (`amount_2`). */
export function headerNames(row: Cell[]): string[] {
  const seen = new Map<string, number>();
  return row.map((cell, i) => {
    let name = isEmpty(cell) ? `column_${i + 1}` : String(cell).replace(/\s+/g, ' ').trim();
    const n = (seen.get(name.toLowerCase()) ?? 0) + 1;
    seen.set(name.toLowerCase(), n);
    if (n > 1) name = `${name}_${n}`;
    return name;
  });
}

/**
 * Records of a grid. Without a header row, fields are named `column_1`, `column_2`, ... A row equal
 * to the header (a table continued on another page) is skipped, as are blank rows.
 */
export function gridToRecords(rows: Cell[][], header?: number): SourceRecord[] {
  const at = header ?? findHeaderRow(rows);
  const width = Math.max(0, ...rows.map((r) => r.length));
  const names = at >= 0 ? headerNames(rows[at]!) : Array.from({ length: width }, (_, i) => `column_${i + 1}`);
  while (names.length < width) names.push(`column_${names.length + 1}`);
  const headerKey = at >= 0 ? JSON.stringify(rows[at]!.map((c) => String(c ?? '').trim().toLowerCase())) : null;
  const records: SourceRecord[] = [];
  for (const row of rows.slice(at + 1)) {
    if (row.every(isEmpty)) continue;
    if (headerKey && JSON.stringify(row.map((c) => String(c ?? '').trim().toLowerCase())) === headerKey) continue;
    const record: SourceRecord = {};
    row.forEach((cell, i) => {
      if (!isEmpty(cell)) record[names[i]!] = typeof cell === 'string' ? cell.trim() : cell;
    });
    records.push(record);
  }
  return records;
}
