/**
 * Lattice tables: cells from the grid of ruling lines. Rules that cross make one frame; the frame's
 * distinct rule positions give the grid, and a cell whose separator is missing spans into its
 * neighbour (its text repeated into every row and column it covers).
 */
import { buildLines, cellText, median, type LayoutWord, type Line } from './lines';
import type { Box, Page } from './page';
import { isKeyValueList, isNumeric, markSectionRow, type LayoutTable } from './grid';

let nextId = 1e9;

interface Horizontal { y: number; x0: number; x1: number }
interface Vertical { x: number; y0: number; y1: number }

/** Points within which two rule positions are the same line (double rules, rounding). */
const SNAP = 2.5;

export function splitRules(rules: Box[]): { horizontals: Horizontal[]; verticals: Vertical[] } {
  const horizontals: Horizontal[] = [];
  const verticals: Vertical[] = [];
  for (const r of rules) {
    const w = r.x1 - r.x0;
    const h = r.y1 - r.y0;
    if (w >= h && h <= 3 && w >= 3) horizontals.push({ y: (r.y0 + r.y1) / 2, x0: r.x0, x1: r.x1 });
    else if (h > w && w <= 3 && h >= 3) verticals.push({ x: (r.x0 + r.x1) / 2, y0: r.y0, y1: r.y1 });
  }
  return { horizontals: mergeHorizontals(horizontals), verticals: mergeHorizontals(verticals.map((v) => ({ y: v.x, x0: v.y0, x1: v.y1 }))).map((h) => ({ x: h.y, y0: h.x0, y1: h.x1 })) };
}

/** Collinear pieces that touch (dashed rules, rules drawn cell by cell) become one rule. */
function mergeHorizontals(lines: Horizontal[]): Horizontal[] {
  const sorted = [...lines].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const out: Horizontal[] = [];
  for (const line of sorted) {
    const match = out.find((o) => Math.abs(o.y - line.y) <= 1 && line.x0 <= o.x1 + SNAP && line.x1 >= o.x0 - SNAP);
    if (match) {
      match.x0 = Math.min(match.x0, line.x0);
      match.x1 = Math.max(match.x1, line.x1);
    } else out.push({ ...line });
  }
  return out;
}

function cluster(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const v of sorted) {
    const last = groups[groups.length - 1];
    if (last && v - last[last.length - 1]! <= SNAP) last.push(v);
    else groups.push([v]);
  }
  return groups.map((g) => g.reduce((s, v) => s + v, 0) / g.length);
}

class UnionFind {
  private parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) {
      this.parent[i] = this.parent[this.parent[i]!]!;
      i = this.parent[i]!;
    }
    return i;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Frames: sets of rules connected by crossings. */
function frames(horizontals: Horizontal[], verticals: Vertical[]): Array<{ h: Horizontal[]; v: Vertical[] }> {
  const n = horizontals.length;
  const uf = new UnionFind(n + verticals.length);
  horizontals.forEach((h, i) => {
    verticals.forEach((v, j) => {
      if (v.x >= h.x0 - SNAP && v.x <= h.x1 + SNAP && h.y >= v.y0 - SNAP && h.y <= v.y1 + SNAP) uf.union(i, n + j);
    });
  });
  const groups = new Map<number, { h: Horizontal[]; v: Vertical[] }>();
  const groupOf = (i: number) => {
    const root = uf.find(i);
    if (!groups.has(root)) groups.set(root, { h: [], v: [] });
    return groups.get(root)!;
  };
  horizontals.forEach((h, i) => groupOf(i).h.push(h));
  verticals.forEach((v, j) => groupOf(n + j).v.push(v));
  return [...groups.values()];
}

const covers = (from: number, to: number, a: number, b: number) => from <= a + SNAP && to >= b - SNAP;

/**
 * Tables drawn with rules on a page. Words inside a table are removed from `words` so that the
 * other methods do not read them again.
 */
export function latticeTables(page: Page, words: LayoutWord[]): { tables: LayoutTable[]; rest: LayoutWord[] } {
  const { horizontals, verticals } = splitRules(page.rules);
  const tables: LayoutTable[] = [];
  let rest = words;
  for (const frame of frames(horizontals, verticals)) {
    // Open tables draw no side borders: rules across and one between columns are enough.
    if (frame.h.length < 2 || frame.v.length < 1 || (frame.v.length < 2 && frame.h.length < 3)) continue;
    const left = Math.min(...frame.h.map((h) => h.x0));
    const right = Math.max(...frame.h.map((h) => h.x1));
    const top = Math.min(...frame.v.map((v) => v.y0));
    const bottom = Math.max(...frame.v.map((v) => v.y1));
    const xs = cluster([left, right, ...frame.v.map((v) => v.x)]);
    const ys = cluster([top, bottom, ...frame.h.map((h) => h.y)]);
    const rows = ys.length - 1;
    const cols = xs.length - 1;
    if (rows < 1 || cols < 2) continue;
    const id = (i: number, j: number) => i * cols + j;
    const uf = new UnionFind(rows * cols);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        if (j + 1 < cols && !frame.v.some((v) => Math.abs(v.x - xs[j + 1]!) <= SNAP && covers(v.y0, v.y1, ys[i]!, ys[i + 1]!))) uf.union(id(i, j), id(i, j + 1));
        if (i + 1 < rows && !frame.h.some((h) => Math.abs(h.y - ys[i + 1]!) <= SNAP && covers(h.x0, h.x1, xs[j]!, xs[j + 1]!))) uf.union(id(i, j), id(i + 1, j));
      }
    }
    // A merged region that is not a rectangle is the space around a grid (a title area), not a spanning cell.
    const members = new Map<number, number[]>();
    for (let k = 0; k < rows * cols; k++) {
      const root = uf.find(k);
      const list = members.get(root);
      if (list) list.push(k);
      else members.set(root, [k]);
    }
    const cellRoot = Array.from({ length: rows * cols }, (_, k) => uf.find(k));
    for (const [root, cells] of members) {
      const rowCount = new Set(cells.map((k) => Math.floor(k / cols))).size;
      const colCount = new Set(cells.map((k) => k % cols)).size;
      if (rowCount * colCount !== cells.length) for (const k of cells) cellRoot[k] = rows * cols + k;
      else cellRoot[root] = root;
    }
    const inCell = new Map<number, LayoutWord[]>();
    const outside: LayoutWord[] = [];
    for (const w of rest) {
      const cx = (w.x0 + w.x1) / 2;
      const cy = (w.y0 + w.y1) / 2;
      const j = xs.findIndex((x, k) => k < cols && cx >= x && cx < xs[k + 1]!);
      const i = ys.findIndex((y, k) => k < rows && cy >= y && cy < ys[k + 1]!);
      if (i < 0 || j < 0) {
        outside.push(w);
        continue;
      }
      const root = cellRoot[id(i, j)]!;
      const list = inCell.get(root);
      if (list) list.push(w);
      else inCell.set(root, [w]);
    }
    // Type much larger than the table's inside its frame is a title printed within the border.
    const typical = median([...inCell.values()].flat().map((w) => w.size));
    const titleWords: LayoutWord[] = [];
    for (const [root, cellWords] of inCell) {
      const kept = cellWords.filter((w) => w.size < typical * 1.6);
      if (kept.length === cellWords.length) continue;
      titleWords.push(...cellWords.filter((w) => w.size >= typical * 1.6));
      if (kept.length) inCell.set(root, kept);
      else inCell.delete(root);
    }
    splitStackedLabels(inCell, cellRoot, cols, ys);
    // A frame around one block of text (a box, a form field) is not a table.
    const filledCells = new Set(inCell.keys());
    if (filledCells.size < 2) continue;
    const texts = new Map<number, string>();
    for (const [root, cellWords] of inCell) texts.set(root, cellText(cellWords));
    const rowSpan = new Map<number, number>();
    for (let i = 0; i < rows; i++) for (const r of new Set(Array.from({ length: cols }, (_, j) => cellRoot[id(i, j)]!))) rowSpan.set(r, (rowSpan.get(r) ?? 0) + 1);
    const built: Array<{ cells: string[]; ids: number[]; band: { y0: number; y1: number } }> = [];
    for (let i = 0; i < rows; i++) {
      const ids = Array.from({ length: cols }, (_, j) => cellRoot[id(i, j)]!);
      const split = splitRow(ids, inCell, xs, rowSpan);
      if (split) built.push(...split);
      else built.push({ cells: ids.map((r) => texts.get(r) ?? ''), ids, band: { y0: ys[i]!, y1: ys[i + 1]! } });
    }
    let grid = built.map((b) => b.cells);
    const roots = built.map((b) => b.ids);
    // Columns and rows that only continue a spanning neighbour add nothing but repeats.
    let keepCols = Array.from({ length: cols }, (_, j) => j).filter((j) => j === 0 || roots.some((r) => r[j] !== r[j - 1]));
    keepCols = keepCols.filter((j) => grid.some((row) => row[j]));
    const keepRows = built.map((_, i) => i).filter((i) => (i === 0 || keepCols.some((j) => roots[i]![j] !== roots[i - 1]![j])) && keepCols.some((j) => grid[i]![j]));
    if (keepCols.length < 2 || keepRows.length < 1) continue;
    grid = keepRows.map((i) => keepCols.map((j) => grid[i]![j]!));
    const spans = keepRows.map((i) => keepCols.map((j) => roots[i]![j]!));
    const bands = keepRows.map((i) => built[i]!.band);
    let caption: string | undefined = titleWords.length ? cellText(titleWords) : undefined;
    // A first row spanning the whole frame is a caption inside it.
    if (spans.length > 1 && new Set(spans[0]).size === 1) {
      caption = [caption, grid[0]![0]].filter(Boolean).join(' ');
      grid.shift();
      spans.shift();
      bands.shift();
    }
    const boldRoots = new Set([...inCell].filter(([, ws]) => isBold(ws)).map(([root]) => root));
    const rowBold = spans.map((row) => row.some((root) => texts.get(root)) && row.every((root) => !texts.get(root) || boldRoots.has(root)));
    const rowShaded = bands.map((band) => isShaded(page.rects, { x0: left, x1: right, ...band }));
    const headerRows = latticeHeader(spans, grid, rowBold, rowShaded);
    grid = grid.map((row, r) => (r >= headerRows ? markSectionRow(row) : row));
    if (isKeyValueList(grid)) continue;
    const columnXs = keepCols.map((j) => ({ x0: xs[j]!, x1: xs[j + 1]! }));
    // Ruled cells are sure; a grid whose rows are mostly empty is less likely a table of records.
    const body = grid.slice(headerRows);
    const filled = body.filter((row) => row.filter(Boolean).length >= row.length / 2).length / (body.length || 1);
    const quality = Math.round((0.8 + 0.2 * filled) * 100) / 100;
    tables.push({ page: page.number, area: { x0: left, y0: top, x1: right, y1: bottom }, columns: columnXs, grid, headerRows, quality, caption });
    rest = outside;
  }
  return { tables, rest };
}

/**
 * A merged cell whose lines stand level with amounts in the rows beside it, one line a row, is a
 * stack of labels drawn in one box (a totals block: "Subtotal / Tax / Total" left of an amount per
 * ruled row), not one label spanning them: each line becomes the cell of its own row. A spanning
 * label over rows (a group name beside its sub-rows, a header cell over two header rows) has fewer
 * lines than rows, lines out of level, or labels beside it.
 */
/** A word that is a number or an amount: digits, no letters ("$610.00", "(12)", "9,5 %"). */
const AMOUNT_WORD = /^[^\p{L}]*\d[^\p{L}]*$/u;

function splitStackedLabels(inCell: Map<number, LayoutWord[]>, cellRoot: number[], cols: number, ys: number[]): void {
  const rowOf = (y: number) => ys.findIndex((top, i) => i < ys.length - 1 && y >= top && y < ys[i + 1]!);
  const centre = (b: { y0: number; y1: number }) => (b.y0 + b.y1) / 2;
  for (const [root, words] of [...inCell]) {
    const spanned = [...new Set(cellRoot.flatMap((r, k) => (r === root ? [Math.floor(k / cols)] : [])))];
    if (spanned.length < 2) continue;
    const lines = buildLines(words);
    const rows = lines.map((l) => rowOf(centre(l)));
    if (lines.length !== spanned.length || new Set(rows).size !== lines.length || rows.some((r) => !spanned.includes(r))) continue;
    const level = lines.every((line) =>
      [...inCell].some(([other, ws]) => other !== root && ws.some((w) => AMOUNT_WORD.test(w.text) && rowOf(centre(w)) === rowOf(centre(line)) && Math.abs(centre(w) - centre(line)) < (line.y1 - line.y0) / 2)),
    );
    if (!level) continue;
    inCell.delete(root);
    lines.forEach((line, n) => {
      const id = nextId++;
      cellRoot.forEach((r, k) => {
        if (r === root && Math.floor(k / cols) === rows[n]) cellRoot[k] = id;
      });
      inCell.set(id, line.words);
    });
  }
}

/**
 * A ruled row that holds several rows of text: cells that stack numbers line by line (rules drawn
 * only every few rows), or a spanning label above sub-labels that lack their own separators. The
 * row is split at the baselines of its fullest cell; a cell of one line spans all the split rows.
 */
function splitRow(ids: number[], inCell: Map<number, LayoutWord[]>, xs: number[], rowSpan: Map<number, number>): Array<{ cells: string[]; ids: number[]; band: { y0: number; y1: number } }> | null {
  const distinct = [...new Set(ids)];
  const linesOf = new Map<number, Line[]>();
  for (const root of distinct) linesOf.set(root, buildLines(inCell.get(root) ?? []));
  const own = distinct.filter((r) => rowSpan.get(r) === 1);
  const columnsOf = (root: number) => ids.map((r, j) => (r === root ? j : -1)).filter((j) => j >= 0);
  /** Columns of a line's segments when each sits in a column of its own and there are several. */
  const spread = (line: Line, columns: number[]): number[] | null => {
    const fitting = line.segments.map((segment) => fittingColumn(segment, columns, xs));
    return columns.length > 1 && fitting.every((c) => c >= 0) && new Set(fitting).size > 1 ? fitting : null;
  };
  const stacked = own.filter((r) => linesOf.get(r)!.length >= 2 && linesOf.get(r)!.every((l) => isNumeric(cellText(l.words))));
  const spreading = own.filter((r) => linesOf.get(r)!.some((l) => spread(l, columnsOf(r))));
  const reference = [...stacked, ...spreading].sort((a, b) => linesOf.get(b)!.length - linesOf.get(a)!.length)[0];
  if (reference === undefined) return null;
  // In a merged cell, a line that does not spread below one that does wraps the cell above it.
  const wraps = (root: number, line: Line): boolean => {
    const lines = linesOf.get(root)!;
    const first = lines.findIndex((l) => spread(l, columnsOf(root)));
    return columnsOf(root).length > 1 && first >= 0 && lines.indexOf(line) > first && !spread(line, columnsOf(root));
  };
  const baselines = linesOf.get(reference)!.filter((l) => !wraps(reference, l));
  const out = baselines.map((l) => ({ cells: ids.map(() => ''), ids: [...ids], band: { y0: l.y0, y1: l.y1 } }));
  const add = (row: number, column: number, text: string, id: number) => {
    const cells = out[row]!.cells;
    cells[column] = cells[column] ? `${cells[column]} ${text}` : text;
    out[row]!.ids[column] = id;
  };
  const centre = (b: { y0: number; y1: number }) => (b.y0 + b.y1) / 2;
  for (const root of distinct) {
    const lines = linesOf.get(root)!;
    const columns = columnsOf(root);
    if (rowSpan.get(root) !== 1 || (lines.length <= 1 && columns.length === 1)) {
      const text = cellText(inCell.get(root) ?? []);
      for (const row of out) for (const j of columns) row.cells[j] = text;
      continue;
    }
    for (const line of lines) {
      const middle = centre(line);
      if (wraps(root, line)) {
        // The row above, in the column the wrapped text starts in.
        const above = baselines.reduce((best, b, k) => (centre(b) <= middle + 1 ? k : best), 0);
        const start = line.x0 + Math.min(5, (line.x1 - line.x0) / 4);
        const column = columns.find((j) => start >= xs[j]! && start < xs[j + 1]!) ?? columns[0]!;
        add(above, column, cellText(line.words), out[above]!.ids[column]!);
        continue;
      }
      const row = baselines.reduce((best, b, k) => (Math.abs(centre(b) - middle) < Math.abs(centre(baselines[best]!) - middle) ? k : best), 0);
      const fitting = spread(line, columns);
      // Labels that each sit in a column of their own spread out; anything else spans the whole cell.
      if (fitting) line.segments.forEach((segment, k) => add(row, fitting[k]!, cellText(segment.words), nextId++));
      else {
        const span = columns.length > 1 ? nextId++ : -1;
        const text = cellText(line.words);
        for (const j of columns) add(row, j, text, span >= 0 ? span : nextId++);
      }
    }
  }
  return out;
}

/** The one column of `columns` a segment sits in, or -1 when it spreads over several. */
function fittingColumn(segment: { x0: number; x1: number }, columns: number[], xs: number[]): number {
  const middle = (segment.x0 + segment.x1) / 2;
  const column = columns.find((j) => middle >= xs[j]! && middle < xs[j + 1]!);
  if (column === undefined) return -1;
  const width = xs[column + 1]! - xs[column]!;
  return segment.x1 - segment.x0 <= width * 1.2 ? column : -1;
}

function isBold(words: LayoutWord[]): boolean {
  const chars = words.reduce((n, w) => n + w.text.length, 0);
  return words.filter((w) => w.bold).reduce((n, w) => n + w.text.length, 0) > chars / 2;
}

/** A band mostly covered by filled rectangles (a shaded header row). */
export function isShaded(rects: Box[], band: Box): boolean {
  const width = band.x1 - band.x0;
  const covered = rects
    .filter((r) => r.y0 <= band.y0 + SNAP && r.y1 >= band.y1 - SNAP && r.x1 > band.x0 && r.x0 < band.x1 && r.x1 - r.x0 < width * 1.5 + 10)
    .reduce((sum, r) => sum + Math.min(r.x1, band.x1) - Math.max(r.x0, band.x0), 0);
  return covered > width * 0.6;
}

/** Leading rows that hold a property the rows below mostly lack (bold type, shading). */
export function leadingDistinct(flags: boolean[]): number {
  let count = 0;
  while (count < flags.length && flags[count]) count++;
  if (count === 0 || count > 4 || count >= flags.length) return 0;
  const rest = flags.slice(count);
  return rest.filter(Boolean).length <= rest.length * 0.3 ? count : 0;
}

/**
 * Header rows a ruled grid shows: top rows with a label spanning some (not all) columns and the
 * row under it, or top rows shaded or bold unlike the body.
 */
function latticeHeader(spans: number[][], grid: string[][], rowBold: boolean[], rowShaded: boolean[]): number {
  let header = 0;
  for (let r = 0; r < Math.min(grid.length - 1, 3); r++) {
    const row = spans[r]!;
    const partialSpan = row.some((root, j) => j > 0 && root === row[j - 1]) && new Set(row).size > 1;
    if (partialSpan) header = r + 2;
    else break;
  }
  // Weight or shading marks one header row; more rows of header show themselves by spanning labels.
  header = Math.max(header, Math.min(1, leadingDistinct(rowBold)), Math.min(1, leadingDistinct(rowShaded)));
  return Math.min(header, grid.length - 1);
}
