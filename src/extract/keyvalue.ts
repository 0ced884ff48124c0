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

/** Runs of at least two lines that split into the same number (2 or more) of cells, header first. */
function tableRuns(lines: string[]): Array<{ start: number; end: number }> {
  const runs: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < lines.length) {
    const width = cells(lines[i]!).length;
    if (width < 2 || !CELL_GAP.test(lines[i]!.trim())) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < lines.length) {
      const line = lines[j]!;
      if (/^\s*[-=_|+:\s]{3,}$/.test(line)) {
        j++;
        continue;
      }
      const w = cells(line).length;
      if (w < 2 || Math.abs(w - width) > 1 || !CELL_GAP.test(line.trim())) break;
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

/** Running text read as tables (runs of aligned lines) and key: value blocks (lines outside them). */
export function textTables(text: string): { tables: TableCandidate[]; groups: RecordGroup[] } {
  const lines = text.split(/\r?\n/);
  const runs = tableRuns(lines);
  const inTable = new Set<number>();
  const tables: TableCandidate[] = [];
  for (const run of runs) {
    const grid = lines.slice(run.start, run.end).filter((l) => !/^\s*[-=_|+:\s]{3,}$/.test(l)).map(cells);
    if (findHeaderRow(grid, 1) !== 0) continue;
    for (let k = run.start; k < run.end; k++) inTable.add(k);
    const above = lines.slice(Math.max(0, run.start - 2), run.start).join(' ').trim();
    tables.push({ label: `table ${tables.length + 1}`, context: above, grid, headerRows: 1, quality: 0.9 });
  }
  const blocks = keyValueBlocks(lines.filter((_, k) => !inTable.has(k)));
  return { tables, groups: blocks.length ? [{ label: 'key: value', records: blocks }] : [] };
}
