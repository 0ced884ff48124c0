/** What both table methods produce, and the rules about grids they share. */
import type { Box } from './page';
import { isSummaryLabel } from '../tables';

export interface LayoutTable {
  page: number;
  area: Box;
  /** Column extents, left to right (to join a table continued on the next page). */
  columns: Array<{ x0: number; x1: number }>;
  /** Cell texts, header rows first; a spanning cell repeated into every cell it covers. */
  grid: string[][];
  /** Header rows the layout shows (rules, weight, shading, spanning labels); 0 when it does not tell. */
  headerRows: number;
  quality: number;
  /** Text on the table's own first row when it spans the whole width (a caption inside the frame). */
  caption?: string;
}

/** A summary row: its first filled cell starts with a summary word (the list every format shares). */
export function isSummaryRow(row: string[]): boolean {
  return isSummaryLabel(row.find((c) => c.trim()) ?? '');
}

/** Printed numbers as they appear in tables: amounts, percentages, codes of digits. */
export function isNumeric(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && /\d/.test(t) && /^[-+−–(]?[\p{Sc}]?\s?[\d][\d.,'’ \u202f]*(e[-+]?\d+)?\s?[%‰\p{Sc}]?\)?-?\*?$/iu.test(t);
}

export const sameRow = (a: string[], b: string[]) =>
  a.length === b.length && a.every((c, i) => c.trim().toLowerCase() === (b[i] ?? '').trim().toLowerCase());

/**
 * A table on the next page continues this one when it has the same columns, in the same places or
 * under the same header; its repeated header is dropped.
 */
export function joinContinued(tables: LayoutTable[], pageWidth: (page: number) => number): LayoutTable[] {
  const out: LayoutTable[] = [];
  // The page and area a joined table last reached.
  let end: { page: number; area: Box } | null = null;
  for (const table of tables) {
    const previous = out[out.length - 1];
    const lastOnPage = previous && end && !tables.some((t) => t.page === end!.page && t.area.y0 > end!.area.y0);
    const firstOnPage = !tables.some((t) => t.page === table.page && t.area.y0 < table.area.y0);
    if (previous && end && lastOnPage && firstOnPage && table.page === end.page + 1 && table.columns.length === previous.columns.length) {
      const header = previous.grid.slice(0, Math.max(previous.headerRows, 1));
      const repeatsHeader = header.length > 0 && header.every((row, i) => table.grid[i] && sameRow(row, table.grid[i]!));
      const tolerance = pageWidth(table.page) * 0.06;
      const aligned = table.columns.every((c, i) => Math.abs(c.x0 - previous.columns[i]!.x0) < tolerance || Math.abs(c.x1 - previous.columns[i]!.x1) < tolerance);
      // A header of its own that differs from the previous one starts a new table.
      if (repeatsHeader || (aligned && !table.headerRows)) {
        previous.grid.push(...table.grid.slice(repeatsHeader ? header.length : 0));
        previous.quality = Math.min(previous.quality, table.quality);
        end = { page: table.page, area: table.area };
        continue;
      }
    }
    out.push(table);
    end = { page: table.page, area: table.area };
  }
  return out;
}

/** Cells of one row where several cells hold the same spanning text collapse to the first (a section row). */
export function markSectionRow(row: string[]): string[] {
  const filled = row.filter((c) => c.trim());
  if (row.length > 2 && filled.length === row.length && new Set(filled).size === 1) return [row[0]!, ...row.slice(1).map(() => '')];
  return row;
}

/**
 * Lines set as a key: value list (labels ending in a colon, or labels in one column and amounts in
 * the other, as in a totals box) are document fields, not a table; so are blocks headed by labels
 * with colons ("Invoice address:", "Delivery address:").
 */
export function isKeyValueList(grid: string[][]): boolean {
  const colon = (c: string) => /[:：]$/.test(c.trim());
  const firsts = grid.map((r) => r.find((c) => c) ?? '').filter(Boolean);
  if (firsts.filter(colon).length >= firsts.length * 0.5) return true;
  const head = (grid[0] ?? []).filter(Boolean);
  if (head.length >= 2 && head.filter(colon).length >= head.length * 0.5) return true;
  // A column of labels with colons anywhere in the block: labels and values side by side.
  const width = Math.max(0, ...grid.map((r) => r.length));
  for (let k = 0; k < width; k++) {
    const cells = grid.map((r) => r[k] ?? '').filter(Boolean);
    if (cells.length >= 2 && cells.filter(colon).length >= cells.length * 0.4) return true;
  }
  // Labels on the left and amounts on the right from the first row on (no header): a totals box.
  const labelAndAmount = (r: string[]) => !!r[0] && !isNumeric(r[0]) && isNumeric(r[1] ?? '');
  return width === 2 && grid.length > 0 && labelAndAmount(grid[0]!) && grid.filter(labelAndAmount).length >= grid.length * 0.6;
}

/** A currency sign or ISO code standing alone in a cell. */
export const CURRENCY = /^(\p{Sc}|EUR|USD|GBP|CHF|JPY|CNY|PLN|SEK|NOK|DKK|CZK|HUF|CAD|AUD|NZD|INR|BRL|MXN|ZAR|KRW|TRY|RON|BGN)$/u;
