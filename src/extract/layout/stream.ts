/**
 * Stream tables (no grid of rules), after Nurminen's method in Tabula: blocks of consecutive lines
 * with several segments; columns where the text of the block's rows leaves a vertical gap (left,
 * right and centre aligned cells alike keep it clear); rows from the lines, wrapped cells joined.
 */
import { cellText, joinWords, lineOf, median, type LayoutWord, type Line } from './lines';
import type { Box, Page } from './page';
import { CURRENCY, isKeyValueList, isNumeric, markSectionRow, type LayoutTable } from './grid';
import { isShaded, leadingDistinct, splitRules } from './lattice';
import { columnIndex, coveredColumns, headerGrid, rowCells, segmentCells, type Column } from './cells';
import { drawnHeader, itemTable } from './items';

interface Horizontal { y: number; x0: number; x1: number }

/** Lines further apart than this many font sizes end a block. */
const BLOCK_GAP = 2.6;

const boxOfLines = (lines: Line[]): Box => ({
  x0: Math.min(...lines.map((l) => l.x0)), y0: Math.min(...lines.map((l) => l.y0)),
  x1: Math.max(...lines.map((l) => l.x1)), y1: Math.max(...lines.map((l) => l.y1)),
});

/** Runs of lines that may hold a table: they start at a line of several segments; prose ends them. */
export function blocks(lines: Line[]): Line[][] {
  const out: Line[][] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.segments.length < 2) {
      i++;
      continue;
    }
    const block = [lines[i]!];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const previous = block[block.length - 1]!;
      const line = lines[j]!;
      const size = Math.max(previous.size, line.size);
      // Rows set far apart keep their own spacing: a gap a little wider than the block's widest so far still continues it.
      const widest = Math.max(0, ...block.slice(1).map((l, k) => l.y0 - block[k]!.y1));
      if (line.y0 - previous.y1 > Math.max(size * BLOCK_GAP, widest * 1.3)) break;
      const extent = boxOfLines(block);
      // A full-width line of one segment is prose or a caption, not a cell.
      if (line.segments.length < 2 && line.x1 - line.x0 > (extent.x1 - extent.x0) * 0.6) break;
      // A lone line set larger or bolder than the block is a heading: what follows is another block.
      const blockSize = median(block.map((l) => l.size));
      const blockBold = block.filter((l) => l.bold).length > block.length / 2;
      if (line.segments.length < 2 && (line.size > blockSize * 1.15 || (line.bold && !blockBold))) break;
      block.push(line);
    }
    const blockSize = median(block.map((l) => l.size));
    // Trailing single lines belong to the last row only when set as tightly as a wrapped cell.
    while (block.length > 1) {
      const last = block[block.length - 1]!;
      const before = block[block.length - 2]!;
      if (last.segments.length >= 2) break;
      if (last.y0 - before.y1 <= blockSize * 0.5 && last.size >= blockSize * 0.9) break;
      // Set like the sub-lines of earlier rows (same start, same size): the last row's sub-line.
      const lastFull = block.map((l) => l.segments.length >= 2).lastIndexOf(true);
      const alike = block.slice(0, lastFull).some((l) => l.segments.length === 1 && Math.abs(l.x0 - last.x0) < 2 && Math.abs(l.size - last.size) < 0.5);
      if (alike && last.y0 - before.y1 <= blockSize) break;
      block.pop();
    }
    out.push(block);
    i = i + Math.max(block.length, 1);
  }
  return out;
}

/** Column extents: x ranges that the rows of several segments leave clear, a stray crossing or two aside. */
export function columnsOf(lines: Line[]): Column[] {
  const candidates = lines.filter((l) => l.segments.length >= 2);
  // The fullest lines carry the structure (at least two lines, a third of them); headers, totals and
  // section lines with fewer cells may cross it.
  const counts = [...new Set(candidates.map((l) => l.segments.length))].sort((a, b) => b - a);
  const enough = Math.max(2, Math.ceil(candidates.length / 3));
  const fullest = counts.find((c) => candidates.filter((l) => l.segments.length >= c).length >= enough) ?? 0;
  const multi = candidates.filter((l) => l.segments.length >= fullest);
  if (multi.length < 2) return [];
  const left = Math.min(...lines.map((l) => l.x0));
  const right = Math.max(...lines.map((l) => l.x1));
  const points = [...new Set(multi.flatMap((l) => l.segments.flatMap((s) => [s.x0, s.x1])))].sort((a, b) => a - b);
  const tolerance = multi.length >= 6 ? Math.floor(multi.length * 0.1) : 0;
  const gaps: Array<{ x0: number; x1: number }> = [];
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k]!;
    const b = points[k + 1]!;
    if (b - a < 0.5 || a <= left || b >= right) continue;
    const middle = (a + b) / 2;
    const crossings = multi.filter((l) => l.segments.some((s) => s.x0 < middle && s.x1 > middle)).length;
    const hasLeft = multi.filter((l) => l.segments.some((s) => s.x1 <= a + 0.5)).length;
    const hasRight = multi.filter((l) => l.segments.some((s) => s.x0 >= b - 0.5)).length;
    if (crossings > tolerance || hasLeft < 2 || hasRight < 2) continue;
    const last = gaps[gaps.length - 1];
    if (last && Math.abs(last.x1 - a) < 0.01) last.x1 = b;
    else gaps.push({ x0: a, x1: b });
  }
  const columns: Column[] = [];
  let start = left;
  for (const gap of gaps) {
    columns.push({ x0: start, x1: gap.x0 });
    start = gap.x1;
  }
  columns.push({ x0: start, x1: right });
  return columns.flatMap((c) => splitByWords(c, lines));
}

/**
 * A column whose cells are two narrow-set parts under two labels ("No. Item" over "1 Apple"):
 * the words of the rows leave the same gap, the first line has a label on each side of it (by the
 * labels' middles: a label may overhang its cells) and either the labels stand further apart than
 * the words of one label or every row pairs a number with a word ("20 pcs"): two cells, not a phrase.
 */
function splitByWords(column: Column, lines: Line[]): Column[] {
  const inColumn = lines.map((l) => l.words.filter((w) => !w.raised && (w.x0 + w.x1) / 2 >= column.x0 && (w.x0 + w.x1) / 2 <= column.x1)).filter((ws) => ws.length);
  if (inColumn.length < 3) return [column];
  const [head, ...body] = inColumn as [LayoutWord[], ...LayoutWord[][]];
  const edges = [...new Set(body.flat().flatMap((w) => [w.x0, w.x1]))].sort((a, b) => a - b);
  const centre = (w: LayoutWord) => (w.x0 + w.x1) / 2;
  for (let k = 0; k + 1 < edges.length; k++) {
    const a = edges[k]!;
    const b = edges[k + 1]!;
    if (b - a < 1 || a <= column.x0 || b >= column.x1) continue;
    const middle = (a + b) / 2;
    if (body.some((ws) => ws.some((w) => w.x0 < middle && w.x1 > middle))) continue;
    const bothSides = (ws: LayoutWord[]) => ws.some((w) => w.x1 <= middle) && ws.some((w) => w.x0 >= middle);
    const leftLabels = head.filter((w) => centre(w) < middle);
    const rightLabels = head.filter((w) => centre(w) >= middle);
    if (!leftLabels.length || !rightLabels.length || body.filter(bothSides).length < Math.max(2, body.length * 0.6)) continue;
    const labelGap = Math.min(...rightLabels.map((w) => w.x0)) - Math.max(...leftLabels.map((w) => w.x1));
    const side = (ws: LayoutWord[], left: boolean) => isNumeric(joinWords(ws.filter((w) => (left ? w.x1 <= middle : w.x0 >= middle))));
    const numberAndWord = (left: boolean) => body.every((ws) => !bothSides(ws) || (side(ws, left) && !side(ws, !left)));
    if (labelGap < median(head.map((w) => w.size)) * 0.5 && !numberAndWord(true) && !numberAndWord(false)) continue;
    return [...splitByWords({ x0: column.x0, x1: a }, lines), ...splitByWords({ x0: b, x1: column.x1 }, lines)];
  }
  return [column];
}


/**
 * A column that holds only currency signs or codes ("€", "EUR") is the unit of the amounts beside
 * it, set apart: it joins the amount column next to it (the one on its left first).
 */
function mergeCurrencyColumns(columns: Column[], header: string[][], body: string[][]): void {
  for (let k = columns.length - 1; k >= 1 && columns.length > 2; k--) {
    const cells = body.map((r) => r[k]!).filter(Boolean);
    if (cells.length < 2 || !cells.every((c) => CURRENCY.test(c))) continue;
    const target = body.filter((r) => isNumeric(r[k - 1]!)).length >= cells.length * 0.5 ? k - 1 : k + 1;
    if (target >= columns.length) continue;
    for (const row of body) {
      const joined = target < k ? [row[target], row[k]] : [row[k], row[target]];
      row[target] = joined.filter(Boolean).join(' ');
    }
    for (const row of [...header, ...body]) row.splice(k, 1);
    columns[target] = { x0: Math.min(columns[target]!.x0, columns[k]!.x0), x1: Math.max(columns[target]!.x1, columns[k]!.x1) };
    columns.splice(k, 1);
  }
}

/** Two numbers a word space apart that read as one grouped number ("1 234.50"), not two. */
const GROUPED = /^[-+]?\d{1,3}( \d{3})+([.,]\d+)?$/;

/** A cell's two numbers, split at the one space where both sides read as numbers; null otherwise. */
function numberPair(cell: string): [string, string] | null {
  const words = cell.split(' ');
  const splits = words.slice(1).map((_, i) => [words.slice(0, i + 1).join(' '), words.slice(i + 1).join(' ')] as [string, string]).filter(([a, b]) => isNumeric(a) && isNumeric(b));
  return splits.length === 1 ? splits[0]! : null;
}

/**
 * A column under two labels of its own whose cells each hold two numbers a space apart ("19%
 * 573.00": a rate set against its amount) is two columns: each cell splits at its own gap.
 */
function splitNumberPairs(columns: Column[], header: string[][], body: string[][], headLines: Line[]): void {
  for (let k = columns.length - 1; k >= 0; k--) {
    const labels = headLines.flatMap((l) => l.segments).filter((sg) => columnIndex(columns, sg.x0, sg.x1) === k).sort((a, b) => a.x0 - b.x0);
    if (labels.length !== 2 || labels[0]!.x1 > labels[1]!.x0) continue;
    const cells = body.map((r) => r[k]!).filter(Boolean);
    if (cells.length < 2 || cells.some((c) => GROUPED.test(c) || numberPair(c) === null)) continue;
    for (const row of body) row.splice(k, 1, ...(row[k] ? numberPair(row[k]!)! : ['', '']));
    // The row holding both labels splits into them; a label above both spans the two.
    for (const row of header) row.splice(k, 1, ...(row[k]!.includes(labels[0]!.text) && row[k]!.includes(labels[1]!.text) ? [labels[0]!.text, labels[1]!.text] : [row[k]!, row[k]!]));
    const cut = (labels[0]!.x1 + labels[1]!.x0) / 2;
    columns.splice(k, 1, { x0: columns[k]!.x0, x1: cut }, { x0: cut, x1: columns[k]!.x1 });
  }
}

/**
 * A shaded first line over zebra rows (every other row shaded): the rows alternate from the second
 * line on, so the first, shaded like the row under it, is a band of its own: the header.
 */
function zebraHeader(shaded: boolean[]): number {
  const body = shaded.slice(1);
  return shaded[0] && shaded[1] && body.length >= 3 && body.every((s, k) => k === 0 || s !== body[k - 1]) ? 1 : 0;
}

/** Horizontal rules across most of a block's width. */
function crossingRules(horizontals: Horizontal[], area: Box): number[] {
  const width = area.x1 - area.x0;
  return horizontals
    .filter((h) => h.y > area.y0 - 1 && h.y < area.y1 + 1 && Math.min(h.x1, area.x1) - Math.max(h.x0, area.x0) > width * 0.6)
    .map((h) => h.y);
}

/**
 * Lines above the first body row, judged by the numeric columns (most cells numbers): the header is
 * the leading lines with no number in them. Without numeric columns, the first line.
 */
function leadingLabelLines(lines: Line[], columns: Column[]): number {
  const cells = lines.map((l) => rowCells(columns, l));
  const numericColumns = columns.map((_, k) => k).filter((k) => cells.filter((c) => isNumeric(c[k]!)).length >= lines.length * 0.5);
  if (!numericColumns.length) return 1;
  const first = cells.findIndex((c) => numericColumns.some((k) => isNumeric(c[k]!)));
  return first >= 0 && first <= 4 ? first : 1;
}

export function streamTables(page: Page, lines: Line[], turned: LayoutWord[]): { tables: LayoutTable[]; used: Set<Line> } {
  const { horizontals } = splitRules(page.rules);
  const tables: LayoutTable[] = [];
  const used = new Set<Line>();
  for (const found of blocks(lines)) {
    // Lines an item table under a drawn header took are not read again.
    let block = found.filter((l) => !used.has(l));
    // Lines each of which a recogniser found as one run of text are lines of text, however wide a
    // fixed pitch or the recogniser's boxes set their spaces (a letterhead's name, street and town).
    if (block.every((l) => l.segments.length < 2 || oneRun(l))) continue;
    const drawn = drawnHeader(page, lines, boxOfLines(block), median(block.map((l) => l.size)));
    const items = drawn && itemTable(page, lines.filter((l) => !used.has(l)), drawn);
    if (items) {
      tables.push(items.table);
      for (const l of items.lines) used.add(l);
      block = block.filter((l) => !used.has(l));
      if (block.every((l) => l.segments.length < 2)) continue;
    }
    // Two tables side by side share their lines; each half is read on its own.
    const halves = sideBySide(block);
    for (const part of halves ?? [block]) {
      const table = tableOf(page, part, horizontals, turned, halves ? part : lines);
      if (!table) continue;
      tables.push(table.table);
      for (const l of halves ? block : table.lines) used.add(l);
    }
  }
  return { tables, used };
}

/**
 * A block that is two tables side by side: a wide gap no line crosses, and on each side the same
 * header over at least two columns (a long list set in two halves, or two tables of one kind); the
 * right side starts with labels, not numbers (the quantities and amounts of one wide table).
 */
function sideBySide(block: Line[]): [Line[], Line[]] | null {
  const columns = columnsOf(block);
  const size = median(block.map((l) => l.size));
  for (let k = 1; k + 2 < columns.length; k++) {
    const gap0 = columns[k]!.x1;
    const gap1 = columns[k + 1]!.x0;
    if (gap1 - gap0 < size * 3 || block.some((l) => l.segments.some((sg) => sg.x0 < gap0 && sg.x1 > gap1))) continue;
    const half = (keep: (w: LayoutWord) => boolean) => block.map((l) => l.words.filter(keep)).filter((ws) => ws.length).map((ws) => lineOf(ws));
    const left = half((w) => w.x1 <= gap0 + 0.5);
    const right = half((w) => w.x0 >= gap1 - 0.5);
    if (left.length < 3 || right.length < 3) continue;
    const firstColumn = right.slice(1).map((l) => l.segments[0]?.text ?? '');
    if (firstColumn.filter(isNumeric).length > firstColumn.length / 2) continue;
    if (left[0]!.text.toLowerCase() !== right[0]!.text.toLowerCase()) continue;
    return [left, right];
  }
  return null;
}

/** A line whose words a recogniser found as one run of text (see `run` in page.ts). */
const oneRun = (l: Line) => l.words[0]!.run !== undefined && l.words.every((w) => w.run === l.words[0]!.run);

/** A number of three figures or more standing alone ("80331", "1100-053"; not "cm2" or "0.5"). */
const STANDALONE_NUMBER = /(?<![\p{L}\d.,])\d{3,}(?![\p{L}\d])/u;

/** A gap this many times the block's usual line step sets the lines above it apart. */
const APART = 1.6;

function tableOf(page: Page, block: Line[], horizontals: Horizontal[], turned: LayoutWord[], all: Line[]): { table: LayoutTable; lines: Line[] } | null {
  const size = median(block.map((l) => l.size));
  // A label line just above the block, set tight to it and narrower than the table, heads a column group.
  const start = all.indexOf(block[0]!);
  const extent = boxOfLines(block);
  const above = all[start - 1];
  if (above && block[0]!.y0 - above.y1 <= size * 0.6 && above.x0 >= extent.x0 - size && above.x1 <= extent.x1 + size && above.x1 - above.x0 < (extent.x1 - extent.x0) * 0.7) block = [above, ...block];
  // Form lines ("Date: ...", "Name:") above a table belong to the document, not to its header.
  const formLine = (l: Line) => l.segments.some((sg) => /[:：]$/.test(sg.text) || /^[\p{L}][^:：]{0,25}[:：]\s*\S/u.test(sg.text));
  // Labels with colons over the columns ("Invoice address: | Delivery address:") head blocks of a form, not a table.
  const formHead = block[0]!.segments.length >= 2 && block[0]!.segments.every((sg) => /[:：]$/.test(sg.text));
  while (block.length > 2 && formLine(block[0]!)) block = block.slice(1);
  // Lines set apart above the header's labels by a wider gap than the lines' own (a letterhead, a
  // title) are the document's: a receipt's shop, street and town over its items are no header rows.
  // Set apart from the body itself, they are the document's when they hold a number of three figures
  // or more standing alone (a postcode, a house's or a till's number): a header's units ("cm2") do not.
  const provisional = columnsOf(block);
  const before = provisional.length >= 2 ? leadingLabelLines(block, provisional) : 0;
  const step = median(block.slice(1).map((l, k) => l.y0 - block[k]!.y0));
  let lead = 0;
  for (let k = 1; k <= before && block.length - k > 2; k++) {
    if (block[k]!.y0 - block[k - 1]!.y0 <= step * APART) continue;
    if (k < before || block.slice(0, k).some((l) => STANDALONE_NUMBER.test(l.text))) lead = k;
  }
  block = block.slice(lead);
  const columns = lead ? columnsOf(block) : provisional;
  if (columns.length < 2) return null;
  const area = boxOfLines(block);
  const rules = crossingRules(horizontals, { ...area, y0: area.y0 - size, y1: area.y1 + size });

  // The header: lines above a rule near the top, lines in bold, shaded or in another size than the
  // body, or else the lines before the first number.
  let headerLines = 0;
  let known = false;
  let ruled = false;
  const ruleBelow = (k: number) => rules.some((y) => y > block[k - 1]!.y1 - 1 && y < block[k]!.y0 + 1);
  for (let k = 1; k < Math.min(block.length, 5); k++) {
    if (ruleBelow(k) && k < block.length - 1) {
      headerLines = k;
      known = true;
      ruled = true;
      break;
    }
  }
  if (!known) {
    const bold = leadingDistinct(block.map((l) => l.bold));
    const shadedLines = block.map((l) => isShaded(page.rects, { x0: area.x0, x1: area.x1, y0: l.y0, y1: l.y1 }));
    const shaded = leadingDistinct(shadedLines) || zebraHeader(shadedLines);
    const sized = leadingDistinct(block.map((l) => Math.abs(l.size - size) > size * 0.12));
    headerLines = Math.max(bold, shaded, sized);
    known = headerLines > 0;
  }
  if (!known) {
    headerLines = leadingLabelLines(block, columns);
  }
  const headLines = block.slice(0, headerLines);
  const bodyLines = block.slice(headerLines);
  const turnedAbove = turned.filter((w) => w.x0 >= area.x0 - size && w.x1 <= area.x1 + size && w.y1 <= (bodyLines[0]?.y0 ?? area.y1) + 1 && w.y0 >= area.y0 - size * 12);
  const header = headerGrid(columns, headLines, turnedAbove);

  // Body rows: between rules when rules separate the rows, else a line continues the row above when it
  // lacks the row's key cells, holds no number and sits as close as a wrapped line.
  const bodyRules = rules.filter((y) => bodyLines.length && y > bodyLines[0]!.y0 && y < bodyLines[bodyLines.length - 1]!.y1);
  const byRules = bodyRules.length >= 2;
  const cellsOf = bodyLines.map((l) => rowCells(columns, l));
  // Key columns: those the full rows fill (sub-lines of wrapped cells may outnumber the rows).
  const fullRows = cellsOf.filter((c) => c.filter(Boolean).length >= Math.max(2, columns.length / 2));
  const sample = fullRows.length ? fullRows : cellsOf;
  const dense = new Set(columns.map((_, k) => k).filter((k) => sample.filter((c) => c[k]).length >= sample.length * 0.5));
  const body: string[][] = [];
  const section: boolean[] = [];
  let previousLine: Line | null = null;
  bodyLines.forEach((line, n) => {
    let cells = cellsOf[n]!;
    const lone = line.segments.length === 1 ? line.segments[0]! : null;
    // Between the same two rules as the row above, a line is part of that row, whatever it looks like.
    const sameBand = byRules && !!previousLine && !bodyRules.some((y) => y > previousLine!.y1 - 1 && y < line.y0 + 1);
    const isSection = !sameBand && !!lone && lone.x0 < columns[0]!.x1 && coveredColumns(columns, lone, line).length > 1 && !isNumeric(lone.text);
    if (isSection) cells = [cellText(line.words), ...columns.slice(1).map(() => '')];
    const row = body[body.length - 1];
    let continues = false;
    if (row && previousLine && !isSection && !section[section.length - 1]) {
      if (byRules) continues = sameBand;
      else {
        const tight = line.y0 - previousLine.y1 <= size * 1.0;
        const missesKey = [...dense].some((k) => row[k] && !cells[k]);
        continues = tight && missesKey && !cells.some(isNumeric) && cells.filter(Boolean).length < row.filter(Boolean).length;
      }
    }
    // A wrapped cell's text stays in the column it starts in, even where it runs under the next one.
    if (continues && row) segmentCells(columns, line).forEach((c, k) => c && (row[k] = row[k] ? `${row[k]} ${c}` : c));
    else {
      body.push(cells);
      section.push(isSection);
    }
    previousLine = line;
  });

  splitNumberPairs(columns, header, body, headLines);
  mergeCurrencyColumns(columns, header, body);
  const dataRows = body.filter((r, k) => !section[k]);
  const filledRows = dataRows.filter((r) => r.filter(Boolean).length >= 2).length;
  if (dataRows.length === 0 || filledRows < dataRows.length * 0.6) return null;
  if (dataRows.length < 2 && !(header.length && columns.length >= 3 && dataRows[0]!.some(isNumeric))) return null;
  if (isKeyValueList([...header, ...body])) return null;
  // Labels with their values after a colon inside the cells ("Date: 1/2/2020"): a form laid out in columns.
  const labelled = [...header, ...body].filter((r) => /^[\p{L}][\p{L} .#/-]{1,25}[:：]\s*\S/u.test(r.find(Boolean) ?? '')).length;
  if (labelled >= (header.length + body.length) * 0.3) return null;
  // Without a header the layout shows, the first row must label most columns.
  if (!known && header.length && header[header.length - 1]!.filter(Boolean).length < columns.length * 0.6) return null;
  // Two columns of text, not ruled off as a table: a form's labels and values, a letterhead, two blocks of prose.
  const numericColumn = columns.some((_, k) => dataRows.filter((r) => isNumeric(r[k]!)).length >= dataRows.length * 0.5);
  if ((columns.length === 2 || formHead) && !ruled && !numericColumn) return null;
  // Markers and text (1. ..., a) ..., • ...): a list, not a table.
  const markers = dataRows.map((r) => r[0]!).filter(Boolean);
  if (columns.length === 2 && markers.length >= 2 && markers.every((m) => /^(\d{1,3}[.)]|[a-z][.)]|\(?[ivx]{1,4}\)|[•▪◦●■\-–—*])$/i.test(m))) return null;
  const cells = body.flat().filter(Boolean);
  if (cells.reduce((n, c) => n + c.split(' ').length, 0) / (cells.length || 1) > 12) return null;

  const grid = [...header, ...body.map((r, k) => (section[k] ? r : markSectionRow(r)))];
  const regular = dataRows.filter((r) => r.filter(Boolean).length >= columns.length * 0.5).length / dataRows.length;
  return {
    table: {
      page: page.number, area, columns, grid, headerRows: known || header.length > 1 ? header.length : 0,
      quality: Math.round((0.5 + regular * 0.4) * 100) / 100,
    },
    lines: block,
  };
}
