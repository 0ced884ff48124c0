/**
 * PDF with a text layer, through unpdf (PDF.js): lines rebuilt from text positions, split into cells
 * at wide gaps; a table is a header line of labels and the lines below it, cells placed under the
 * header column they overlap most, continued across pages (a repeated header is skipped). Other
 * lines give key: value fields, which every table row also carries.
 */
import { getDocumentProxy } from 'unpdf';
import { UnreadableDocument, type RecordGroup, type SourceDocument, type SourceRecord } from '../document';
import { textTables } from '../keyvalue';

interface Item { text: string; x: number; end: number; y: number; size: number }
interface Segment { text: string; x: number; end: number }
interface Line { segments: Segment[]; page: number }
interface PdfTable { header: Line; rows: string[][] }

/** Lines of one page, top to bottom; a gap wider than the font size starts a new cell. */
function pageLines(items: Item[], page: number): Line[] {
  const sorted = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Item[][] = [];
  for (const item of sorted) {
    const row = rows.find((r) => Math.abs(r[0]!.y - item.y) <= Math.max(2, item.size * 0.4));
    if (row) row.push(item);
    else rows.push([item]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const segments: Segment[] = [];
    for (const item of row) {
      const last = segments[segments.length - 1];
      const gap = last ? item.x - last.end : Infinity;
      if (last && gap < item.size * 1.2) {
        last.text += gap > item.size * 0.15 ? ` ${item.text}` : item.text;
        last.end = item.end;
      } else {
        segments.push({ text: item.text, x: item.x, end: item.end });
      }
    }
    for (const s of segments) s.text = s.text.replace(/\s+/g, ' ').trim();
    return { segments: segments.filter((s) => s.text), page };
  });
}

const LABEL = /^[\p{L}#][\p{L}\p{N} .\/#&()%'_-]{0,40}$/u;
const isHeader = (line: Line) => line.segments.length >= 2 && line.segments.every((s) => LABEL.test(s.text) && !/:$/.test(s.text));
const sameText = (a: Line, b: Line) => a.segments.map((s) => s.text.toLowerCase()).join('|') === b.segments.map((s) => s.text.toLowerCase()).join('|');

/** The header column a cell belongs under: most horizontal overlap, else the nearest. */
function columnOf(cell: Segment, header: Segment[]): number {
  let best = 0;
  let bestScore = -Infinity;
  header.forEach((h, i) => {
    const next = header[i + 1]?.x ?? Infinity;
    const left = i === 0 ? -Infinity : (header[i - 1]!.end + h.x) / 2;
    const right = Math.min(next, h.end + (next - h.end) / 2);
    const overlap = Math.min(cell.end, right) - Math.max(cell.x, left);
    const score = overlap > 0 ? overlap : -Math.abs((cell.x + cell.end) / 2 - (h.x + h.end) / 2) - 1e6;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}

export async function readPdf(doc: SourceDocument): Promise<{ groups: RecordGroup[]; text: string }> {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(doc.bytes));
  } catch (error) {
    throw new UnreadableDocument(`not a readable PDF: ${(error as Error).message}`);
  }
  const lines: Line[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const content = await (await pdf.getPage(p)).getTextContent();
    const items: Item[] = [];
    for (const raw of content.items as Array<{ str?: string; transform?: number[]; width?: number }>) {
      if (!raw.str?.trim() || !raw.transform) continue;
      const [a, , , d, x, y] = raw.transform as [number, number, number, number, number, number];
      items.push({ text: raw.str, x, end: x + (raw.width ?? 0), y, size: Math.abs(d) || Math.abs(a) || 10 });
    }
    lines.push(...pageLines(items, p));
  }
  const text = lines.map((l) => l.segments.map((s) => s.text).join('  ')).join('\n');
  if (text.replace(/\s/g, '').length < 10) throw new UnreadableDocument('the PDF has no text layer (a scan?); OCR is not built in');

  const tables: PdfTable[] = [];
  const rest: string[] = [];
  let current: PdfTable | null = null;
  lines.forEach((line, i) => {
    if (current && sameText(line, current.header)) return;
    const next = lines[i + 1];
    // A header is a line of labels followed by a line of values.
    if (isHeader(line) && next && next.segments.length >= 2 && !isHeader(next)) {
      current = { header: line, rows: [] };
      tables.push(current);
      return;
    }
    const first = line.segments[0]?.text ?? '';
    // Rows have two cells or more; a "Total:" line is a field, not a row. Single lines (page
    // headers and footers, notes) do not end a table, so it continues over pages.
    if (current && line.segments.length >= 2 && !/:$/.test(first)) {
      const row: string[] = new Array(current.header.segments.length).fill('');
      for (const cell of line.segments) {
        const col = columnOf(cell, current.header.segments);
        row[col] = row[col] ? `${row[col]} ${cell.text}` : cell.text;
      }
      current.rows.push(row);
      return;
    }
    rest.push(line.segments.map((s) => s.text).join(' '));
  });
  const groups: RecordGroup[] = tables.map((t, n) => ({
    label: `table ${n + 1}`,
    records: t.rows.map((row) => {
      const record: SourceRecord = {};
      t.header.segments.forEach((h, i) => {
        if (row[i]) record[h.text] = row[i];
      });
      return record;
    }),
  }));
  return { groups: [...groups, ...textTables(rest.join('\n')).groups], text };
}
