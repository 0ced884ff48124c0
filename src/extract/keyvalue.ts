/**
 * Running text (plain text, e-mail bodies, the text around HTML tables): `Key: value` lines
 * (repeated blocks become several records) and line-item tables of columns separated by tabs or
 * runs of spaces.
 */
import type { RecordGroup, SourceRecord, TableCandidate } from './document';
import { isNumeric } from './layout/grid';
import { conceptsOf } from './lexicon';
import { findHeaderRow } from './tables';

const KEY_VALUE = /^\s*(?:[-*•]\s+)?([\p{L}][\p{L}\p{N} .\/#&()'_-]{0,60}?)\s*(?:[:：]|\.{3,}|\t+)\s*(\S.*?)\s*$/u;
const CELL_GAP = /\t+|\s{2,}|\s*\|\s*/;

function cells(line: string): string[] {
  return line.trim().replace(/^\||\|$/g, '').split(CELL_GAP).map((c) => c.trim());
}

/** A rule drawn with dashes, equals signs or bars between a table's rows. */
const RULE_LINE = /^\s*[-=_|+:\s]{3,}$/;

/** A line of a single cell (a wrapped description, an item's note): part of the row above it, not a row. */
const continuation = (line: string) => !!line.trim() && !RULE_LINE.test(line) && cells(line).length === 1;

/**
 * Runs of at least two lines that split into the same number (2 or more) of cells, header first; a
 * line of one cell between two rows of the run (a description wrapped, a note under an item) is in it.
 */
function tableRuns(lines: string[]): Array<{ start: number; end: number }> {
  const runs: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < lines.length) {
    const width = cells(lines[i]!).length;
    if (width < 2 || !CELL_GAP.test(lines[i]!.trim())) {
      i++;
      continue;
    }
    const rowOfRun = (line: string | undefined) => line !== undefined && Math.abs(cells(line).length - width) <= 1 && cells(line).length >= 2 && CELL_GAP.test(line.trim());
    let j = i + 1;
    while (j < lines.length) {
      const line = lines[j]!;
      if (RULE_LINE.test(line)) {
        j++;
        continue;
      }
      if (j > i + 1 && continuation(line)) {
        // Notes under an item, then the next row.
        let k = j;
        while (k < lines.length && continuation(lines[k]!)) k++;
        if (!rowOfRun(lines[k])) break;
        j = k;
        continue;
      }
      if (!rowOfRun(line)) break;
      j++;
    }
    if (j - i >= 2) runs.push({ start: i, end: j });
    i = Math.max(j, i + 1);
  }
  return runs;
}

function keyValueBlocks(lines: string[]): SourceRecord[] {
  const records: SourceRecord[] = [];
  let current: SourceRecord = {};
  for (const line of lines) {
    const match = KEY_VALUE.exec(line);
    if (!match) continue;
    const key = match[1]!.replace(/\s+/g, ' ').trim();
    if (Object.hasOwn(current, key)) {
      records.push(current);
      current = {};
    }
    current[key] = match[2]!;
  }
  if (Object.keys(current).length) records.push(current);
  return records;
}

/**
 * A run's lines as rows of cells, each line of one cell joined to the row above it, in the column
 * of most words (the description's): "Business cards" over "(premium paper)" is one item.
 */
function rowsOf(lines: string[]): string[][] {
  const rows: string[][] = [];
  const notes: Array<{ row: number; text: string }> = [];
  for (const line of lines) {
    if (continuation(line) && rows.length) notes.push({ row: rows.length - 1, text: line.trim() });
    else rows.push(cells(line));
  }
  if (!notes.length) return rows;
  // The description's column, counted once over the rows under the header.
  const letters = (k: number) => rows.slice(1).reduce((n, r) => n + (r[k]?.match(/\p{L}/gu)?.length ?? 0), 0);
  const widest = Math.max(...rows.map((r) => r.length));
  let column = 0;
  for (let k = 1; k < widest; k++) if (letters(k) > letters(column)) column = k;
  for (const { row, text } of notes) rows[row]![column] = `${rows[row]![column] ?? ''} ${text}`.trim();
  return rows;
}

// ---------------------------------------------------------------- item lists set with single spaces

/** A header's label names a column this surely. */
const NAMED = 0.6;

/** An item line's shape: figures before its words, its words, figures after them ("3 Widget, blue 2.50 7.50"). */
function itemShape(line: string): { lead: string[]; words: string; trail: string[] } | null {
  const tokens = line.trim().split(/\s+/);
  let lead = 0;
  while (lead < tokens.length && isNumeric(tokens[lead]!)) lead++;
  let end = tokens.length;
  while (end > lead && isNumeric(tokens[end - 1]!)) end--;
  if (end === lead || end === tokens.length) return null;
  return { lead: tokens.slice(0, lead), words: tokens.slice(lead, end).join(' '), trail: tokens.slice(end) };
}

/**
 * A header's words cut into `count` labels, each naming a column (best by the lexicon's scores):
 * "Qty Description Unit price Line total" into four. Null when some label names nothing.
 */
function headerLabels(line: string, count: number): string[] | null {
  const words = line.trim().split(/\s+/);
  if (words.length < count || words.length > 16) return null;
  const score = (from: number, to: number) => conceptsOf(words.slice(from, to).join(' '))[0]?.score ?? 0;
  // best[k][i]: the best sum over the first i words cut into k labels.
  const best = Array.from({ length: count + 1 }, () => new Array<number>(words.length + 1).fill(-Infinity));
  const cut = Array.from({ length: count + 1 }, () => new Array<number>(words.length + 1).fill(0));
  best[0]![0] = 0;
  for (let k = 1; k <= count; k++) {
    for (let i = k; i <= words.length; i++) {
      for (let j = k - 1; j < i; j++) {
        const s = score(j, i);
        if (s < NAMED || best[k - 1]![j]! === -Infinity) continue;
        if (best[k - 1]![j]! + s > best[k]![i]!) [best[k]![i], cut[k]![i]] = [best[k - 1]![j]! + s, j];
      }
    }
  }
  if (best[count]![words.length] === -Infinity) return null;
  const labels: string[] = [];
  for (let k = count, i = words.length; k > 0; i = cut[k]![i]!, k--) labels.unshift(words.slice(cut[k]![i]!, i).join(' '));
  return labels;
}

/**
 * Item lists whose columns stand one space apart (as e-mails and recognised receipts print them):
 * a header whose words cut into labels of columns, then lines of one shape (as many figures before
 * and after their words), a line of words alone joining the item above it. Lines already in a table
 * are left out.
 */
function spacedItemLists(lines: string[], taken: Set<number>): Array<{ start: number; end: number; grid: string[][] }> {
  const out: Array<{ start: number; end: number; grid: string[][] }> = [];
  for (let h = 0; h < lines.length - 1; h++) {
    if (taken.has(h) || /\d/.test(lines[h]!) || !lines[h]!.trim()) continue;
    const first = itemShape(lines[h + 1] ?? '');
    if (!first || !first.trail.length) continue;
    const labels = headerLabels(lines[h]!, first.lead.length + 1 + first.trail.length);
    if (!labels) continue;
    const grid: string[][] = [labels];
    let j = h + 1;
    for (; j < lines.length && !taken.has(j); j++) {
      const shape = itemShape(lines[j]!);
      if (shape && shape.lead.length === first.lead.length && shape.trail.length === first.trail.length) {
        grid.push([...shape.lead, shape.words, ...shape.trail]);
      } else if (grid.length > 1 && lines[j]!.trim() && !/\d/.test(lines[j]!) && itemShape(lines[j + 1] ?? '')?.trail.length === first.trail.length) {
        // A wrapped description between two items.
        const row = grid.at(-1)!;
        row[first.lead.length] = `${row[first.lead.length]} ${lines[j]!.trim()}`;
      } else break;
    }
    if (grid.length < 2) continue;
    out.push({ start: h, end: j, grid });
    h = j - 1;
  }
  return out;
}

/** Running text read as tables (runs of aligned lines, item lists) and key: value blocks (lines outside them). */
export function textTables(text: string): { tables: TableCandidate[]; groups: RecordGroup[] } {
  const lines = text.split(/\r?\n/);
  const runs = tableRuns(lines);
  const inTable = new Set<number>();
  const tables: TableCandidate[] = [];
  const found: Array<{ start: number; end: number; grid: string[][] }> = [];
  for (const run of runs) {
    const grid = rowsOf(lines.slice(run.start, run.end).filter((l) => !RULE_LINE.test(l)));
    if (findHeaderRow(grid, 1) !== 0) continue;
    for (let k = run.start; k < run.end; k++) inTable.add(k);
    found.push({ ...run, grid });
  }
  for (const list of spacedItemLists(lines, inTable)) {
    for (let k = list.start; k < list.end; k++) inTable.add(k);
    found.push(list);
  }
  for (const { start, grid } of found.sort((a, b) => a.start - b.start)) {
    const above = lines.slice(Math.max(0, start - 2), start).join(' ').trim();
    tables.push({ label: `table ${tables.length + 1}`, context: above, grid, headerRows: 1, quality: 0.9 });
  }
  const blocks = keyValueBlocks(lines.filter((_, k) => !inTable.has(k)));
  return { tables, groups: blocks.length ? [{ label: 'key: value', records: blocks }] : [] };
}
