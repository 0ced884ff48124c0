/**
 * Running text (plain text, e-mail bodies, the text around HTML tables): `Key: value` lines
 * (repeated blocks become several records) and line-item tables of columns separated by tabs or
 * runs of spaces.
 */
import type { RecordGroup, SourceRecord, TableCandidate } from './document';
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

/** Running text read as tables (runs of aligned lines) and key: value blocks (lines outside them). */
export function textTables(text: string): { tables: TableCandidate[]; groups: RecordGroup[] } {
  const lines = text.split(/\r?\n/);
  const runs = tableRuns(lines);
  const inTable = new Set<number>();
  const tables: TableCandidate[] = [];
  for (const run of runs) {
    const grid = rowsOf(lines.slice(run.start, run.end).filter((l) => !RULE_LINE.test(l)));
    if (findHeaderRow(grid, 1) !== 0) continue;
    for (let k = run.start; k < run.end; k++) inTable.add(k);
    const above = lines.slice(Math.max(0, run.start - 2), run.start).join(' ').trim();
    tables.push({ label: `table ${tables.length + 1}`, context: above, grid, headerRows: 1, quality: 0.9 });
  }
  const blocks = keyValueBlocks(lines.filter((_, k) => !inTable.has(k)));
  return { tables, groups: blocks.length ? [{ label: 'key: value', records: blocks }] : [] };
}
