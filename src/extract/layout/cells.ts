/**
 * Placing a line's words into the cells of known columns: body lines (a segment in the column it
 * overlaps most), wrapped lines (in the column they start in) and header lines (a group label over
 * the columns it spans).
 */
import { cellText, type LayoutWord, type Line, type Segment } from './lines';

export interface Column { x0: number; x1: number }

/** Index of the column a word belongs to: the one its middle falls in, or the nearest. */
export function columnIndex(columns: Column[], x0: number, x1: number): number {
  const middle = (x0 + x1) / 2;
  let best = 0;
  let distance = Infinity;
  columns.forEach((c, k) => {
    const d = middle < c.x0 ? c.x0 - middle : middle > c.x1 ? middle - c.x1 : 0;
    if (d < distance) {
      distance = d;
      best = k;
    }
  });
  return best;
}

/**
 * Columns a header segment covers: its own, and neighbours without a label of their own in the line
 * that it reaches into, across the gap between them (a group label centred over its columns).
 */
export function coveredColumns(columns: Column[], segment: Segment, line: Line): number[] {
  const own = columnIndex(columns, segment.x0, segment.x1);
  const labelled = new Set(line.segments.filter((s) => s !== segment).map((s) => columnIndex(columns, s.x0, s.x1)));
  const covered = [own];
  for (let k = own - 1; k >= 0 && !labelled.has(k) && segment.x0 < columns[k + 1]!.x0 - 0.5; k--) {
    covered.unshift(k);
    if (segment.x0 >= columns[k]!.x0) break;
  }
  for (let k = own + 1; k < columns.length && !labelled.has(k) && segment.x1 > columns[k - 1]!.x1 + 0.5; k++) {
    covered.push(k);
    if (segment.x1 <= columns[k]!.x1) break;
  }
  return covered;
}

/** Cells from words each placed by its middle. */
export function lineCells(columns: Column[], words: LayoutWord[]): string[] {
  const byColumn: LayoutWord[][] = columns.map(() => []);
  for (const w of words) byColumn[columnIndex(columns, w.x0, w.x1)]!.push(w);
  return byColumn.map((ws) => cellText(ws));
}

/**
 * Cells of a body line: each segment in the column it overlaps most, unless its words each sit
 * inside a different column (cells set too close to be told apart by their gap).
 */
export function rowCells(columns: Column[], line: Line, slack = 1): string[] {
  const cells = columns.map(() => '');
  const put = (k: number, text: string) => text && (cells[k] = cells[k] ? `${cells[k]} ${text}` : text);
  for (const segment of line.segments) {
    const byWord = segment.words.map((w) => columnIndex(columns, w.x0, w.x1));
    const inside = segment.words.every((w, i) => w.x0 >= columns[byWord[i]!]!.x0 - slack && w.x1 <= columns[byWord[i]!]!.x1 + slack);
    if (new Set(byWord).size > 1 && inside) {
      lineCells(columns, segment.words).forEach((text, k) => put(k, text));
      continue;
    }
    let best = byWord[0] ?? 0;
    let overlap = -Infinity;
    columns.forEach((c, k) => {
      const o = Math.min(c.x1, segment.x1) - Math.max(c.x0, segment.x0);
      if (o > overlap) {
        overlap = o;
        best = k;
      }
    });
    put(overlap > 0 ? best : columnIndex(columns, segment.x0, segment.x1), cellText(segment.words));
  }
  return cells;
}

/** Cells of a wrapped line: each segment in the column it starts in, however far it runs. */
export function segmentCells(columns: Column[], line: Line): string[] {
  const cells = columns.map(() => '');
  for (const segment of line.segments) {
    const k = columnIndex(columns, segment.x0, Math.min(segment.x1, segment.x0 + 1));
    const text = cellText(segment.words);
    cells[k] = cells[k] ? `${cells[k]} ${text}` : text;
  }
  return cells;
}

/** Header rows from the lines above the body: wrapped labels joined, a spanning label its own row repeated across. */
export function headerGrid(columns: Column[], lines: Line[], turnedWords: LayoutWord[]): string[][] {
  const rows: string[][] = [];
  let pending: string[] | null = null;
  if (turnedWords.length) rows.push(lineCells(columns, turnedWords));
  lines.forEach((line, n) => {
    const cells = columns.map(() => '');
    let spanning = false;
    // A label spans columns only above labels of its own for them; below them it is a wrapped label.
    const below = lines.slice(n + 1).flatMap((l) => l.segments.map((s) => columnIndex(columns, s.x0, s.x1)));
    for (const segment of line.segments) {
      let covered = coveredColumns(columns, segment, line);
      if (covered.filter((k) => below.includes(k)).length < 2) covered = [columnIndex(columns, segment.x0, segment.x1)];
      if (covered.length > 1) spanning = true;
      // Labels set close together over columns of their own: each word in its column (mostly over it).
      const byWord = segment.words.map((w) => columnIndex(columns, w.x0, w.x1));
      const over = segment.words.every((w, i) => Math.min(w.x1, columns[byWord[i]!]!.x1) - Math.max(w.x0, columns[byWord[i]!]!.x0) >= (w.x1 - w.x0) * 0.7);
      if (covered.length === 1 && new Set(byWord).size > 1 && over) {
        lineCells(columns, segment.words).forEach((text, k) => text && (cells[k] = cells[k] ? `${cells[k]} ${text}` : text));
        continue;
      }
      const parts = covered.length === 1 ? splitAtEdges(columns, segment, line) : null;
      if (parts) {
        for (const [k, text] of parts) cells[k] = cells[k] ? `${cells[k]} ${text}` : text;
        continue;
      }
      const text = cellText(segment.words);
      for (const k of covered) cells[k] = cells[k] ? `${cells[k]} ${text}` : text;
    }
    if (spanning) {
      if (pending) rows.push(pending);
      pending = null;
      rows.push(cells);
    } else if (pending) {
      pending = pending.map((c, k) => [c, cells[k]].filter(Boolean).join(' '));
    } else pending = cells;
  });
  if (pending) rows.push(pending);
  return rows;
}

/**
 * Labels set a space apart over columns of their own (as a fixed-pitch print sets them): one
 * segment over several columns that the line labels nowhere else, covering most of each. Each word
 * goes to the column it stands over; a word between two columns to the one on its right (a label
 * starts where what it heads starts, and numbers stand flush right under it).
 */
function splitAtEdges(columns: Column[], segment: Segment, line: Line): Array<[number, string]> | null {
  const others = new Set(line.segments.filter((s) => s !== segment).map((s) => columnIndex(columns, s.x0, s.x1)));
  const overlap = (w: { x0: number; x1: number }, k: number) => Math.min(w.x1, columns[k]!.x1) - Math.max(w.x0, columns[k]!.x0);
  const reached = columns.map((_, k) => k).filter((k) => !others.has(k) && overlap(segment, k) >= (columns[k]!.x1 - columns[k]!.x0) * 0.5);
  if (reached.length < 2 || reached.some((k, i) => i > 0 && k !== reached[i - 1]! + 1)) return null;
  const placed = segment.words.map((w) => {
    const over = reached.filter((k) => overlap(w, k) > 0).sort((a, b) => overlap(w, b) - overlap(w, a))[0];
    return over ?? reached.find((k) => columns[k]!.x0 >= w.x1) ?? reached[reached.length - 1]!;
  });
  if (placed.some((k, i) => i > 0 && k < placed[i - 1]!) || reached.some((k) => !placed.includes(k))) return null;
  return reached.map((k) => [k, cellText(segment.words.filter((_, i) => placed[i] === k))]);
}
