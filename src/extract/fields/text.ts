/** Plain text and key/value tables as lines, for the document-field engine. */
import type { TextLine } from '../layout/page';
import { cellText } from '../tables';

export const TEXT_GAP = /\t+| {2,}| \| /g;

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
