/**
 * From pages to what extraction reads: the tables of each page (ruled grids first, then aligned
 * text), joined across pages, and the lines outside them in reading order.
 */
import type { TableCandidate } from '../document';
import { joinContinued, isSummaryRow, sameRow, type LayoutTable } from './grid';
import { latticeTables } from './lattice';
import { buildLines, cellText, median, type LayoutWord, type Line } from './lines';
import type { Page, TextLine } from './page';
import { streamTables } from './stream';

export type { Page, TextLine } from './page';

/** A caption names its table: "Table 4.1 ...", "Tabelle 3", "Tableau 1". */
const CAPTION = /^(table|tab\.|tabelle|tableau|tabla|tabel|tabella|tabela|tabulka|taulukko)\s*[\p{L}]?[\d]+([.\-–:]\d+)*/iu;

function textLine(page: number, line: Line): TextLine {
  const recognised = line.words.filter((w) => w.confidence !== undefined);
  const doubted = line.words.filter((w) => w.doubted).map((w) => w.text);
  return {
    page, y: Math.round(line.y0 * 100) / 100, size: line.size, bold: line.bold || undefined,
    segments: line.segments.map((s) => ({ text: s.text, x0: Math.round(s.x0 * 100) / 100, x1: Math.round(s.x1 * 100) / 100 })),
    text: line.segments.map((s) => s.text).join(' '),
    ...(recognised.length ? { confidence: recognised.reduce((sum, w) => sum + w.confidence!, 0) / recognised.length } : {}),
    ...(doubted.length ? { doubted } : {}),
  };
}

/** The lines just above a table (a title, a heading), nearest last. */
function contextAbove(table: LayoutTable, lines: Line[]): Line[] {
  const size = median(lines.map((l) => l.size)) || 10;
  const above = lines.filter((l) => l.y1 <= table.area.y0 + 1 && l.y1 >= table.area.y0 - size * 6 && l.x1 > table.area.x0 - size * 4 && l.x0 < table.area.x1);
  return above.slice(-3);
}

/** What one page gives: small enough to keep for every page of a long document. */
export interface PageReading {
  page: number;
  width: number;
  /** Tables with the text just above each. */
  tables: Array<LayoutTable & { context: string }>;
  /** Lines outside the tables. */
  lines: TextLine[];
  /** The page's running text: its lines, then any text set sideways. */
  text: string;
}

/** Tables, free lines and text of one page. */
export function readPage(page: Page): PageReading {
  const words: LayoutWord[] = page.words.filter((w) => w.text.trim());
  const lattice = latticeTables(page, words);
  const lines = buildLines(lattice.rest);
  const turned = lattice.rest.filter((w) => w.rotation !== 0);
  const stream = streamTables(page, lines, turned);
  const found = [...lattice.tables, ...stream.tables].sort((a, b) => a.area.y0 - b.area.y0 || a.area.x0 - b.area.x0);
  const free = lines.filter((l) => !stream.used.has(l) && !found.some((t) => inside(l, t)));
  const joined = joinStacked(found, free, page.width);
  const allLines = buildLines(words);
  const tables = joined.tables.map((table) => {
    const around = contextAbove(table, allLines.filter((l) => !joined.tables.some((t) => inside(l, t))));
    // Only the part of a line over the table: a table side by side with another has its own title.
    const over = around.map((l) => l.segments.filter((sg) => sg.x1 > table.area.x0 - l.size && sg.x0 < table.area.x1 + l.size).map((sg) => sg.text).join(' '));
    return { ...table, context: [...over, table.caption ?? ''].filter(Boolean).join('\n') };
  });
  const text = [...allLines.map((l) => l.segments.map((sg) => sg.text).join('  ')), cellText(words.filter((w) => w.rotation !== 0))].filter(Boolean).join('\n');
  return { page: page.number, width: page.width, tables, lines: joined.lines.map((l) => textLine(page.number, l)), text };
}

/**
 * Tables drawn one under the other with the same columns, apart only by a heading or two ("Evening
 * courses", "Part II"), are one table in sections: the headings become section rows.
 */
export function joinStacked(tables: LayoutTable[], free: Line[], pageWidth: number): { tables: LayoutTable[]; lines: Line[] } {
  const out: LayoutTable[] = [];
  let rest = free;
  const tolerance = pageWidth * 0.03;
  for (const table of tables) {
    const previous = out[out.length - 1];
    if (previous && table.columns.length === previous.columns.length && table.area.y0 >= previous.area.y1 - 1) {
      const between = rest.filter((l) => (l.y0 + l.y1) / 2 >= previous.area.y1 - 2 && (l.y0 + l.y1) / 2 <= table.area.y0 + 2 && l.x1 > previous.area.x0 && l.x0 < previous.area.x1);
      const size = median([...between.map((l) => l.size), 10]);
      const aligned = table.columns.every((c, i) => Math.abs(c.x0 - previous.columns[i]!.x0) < tolerance || Math.abs(c.x1 - previous.columns[i]!.x1) < tolerance);
      const close = table.area.y0 - previous.area.y1 <= size * 2.5 * (between.length + 1);
      const headerRows = table.headerRows ? table.grid.slice(0, table.headerRows) : [];
      const repeats = headerRows.length > 0 && headerRows.every((row, i) => previous.grid[i] && sameRow(row, previous.grid[i]!));
      if (aligned && close && between.length <= 2 && between.every((l) => l.segments.length === 1) && (!table.headerRows || repeats)) {
        for (const line of between) previous.grid.push([line.segments[0]!.text, ...previous.columns.slice(1).map(() => '')]);
        previous.grid.push(...table.grid.slice(repeats ? headerRows.length : 0));
        previous.area = { x0: Math.min(previous.area.x0, table.area.x0), y0: previous.area.y0, x1: Math.max(previous.area.x1, table.area.x1), y1: table.area.y1 };
        previous.quality = Math.min(previous.quality, table.quality);
        rest = rest.filter((l) => !between.includes(l));
        continue;
      }
    }
    out.push(table);
  }
  return { tables: out, lines: rest };
}

/** Tables of several pages as candidates, a table continued on the next page joined to it. */
export function candidatesOf(readings: PageReading[]): TableCandidate[] {
  const widths = new Map(readings.map((r) => [r.page, r.width]));
  const joined = joinContinued(readings.flatMap((r) => r.tables), (n) => widths.get(n) ?? 612) as PageReading['tables'];
  return joined.map((table, n) => {
    const caption = table.context.split('\n').map((l) => l.trim()).reverse().find((l) => CAPTION.test(l));
    const headerRows = table.headerRows || undefined;
    return {
      label: caption ? caption.slice(0, 80) : `table ${n + 1}`,
      context: table.context,
      grid: table.grid,
      headerRows,
      summary: table.grid.map((row, r) => r >= (headerRows ?? 1) && isSummaryRow(row)),
      page: table.page,
      quality: table.quality,
    };
  });
}

function inside(line: Line, table: LayoutTable): boolean {
  const cx = (line.x0 + line.x1) / 2;
  const cy = (line.y0 + line.y1) / 2;
  return cx >= table.area.x0 - 1 && cx <= table.area.x1 + 1 && cy >= table.area.y0 - 1 && cy <= table.area.y1 + 1;
}

/** Tables, free lines and running text of pages already read. */
export function combineReadings(readings: PageReading[]): { tables: TableCandidate[]; lines: TextLine[]; text: string } {
  return {
    tables: candidatesOf(readings),
    lines: readings.flatMap((r) => r.lines),
    text: readings.map((r) => r.text).join('\n\f\n'),
  };
}

/** What extraction reads from pages of any layout source (PDF text layer, OCR). */
export function readingFromPages(pages: Page[]): { tables: TableCandidate[]; lines: TextLine[]; text: string } {
  return combineReadings(pages.map(readPage));
}
