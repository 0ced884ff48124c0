/**
 * Records from running text (plain text, email bodies, PDF and DOCX paragraphs): `Key: value`
 * lines (repeated blocks become several records) and line-item tables of columns separated by
 * tabs or runs of spaces, each item carrying the document's own key: value fields.
 */
import type { RecordGroup, SourceRecord } from './document';
import { findHeaderRow, gridToRecords } from './tables';

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

export function textGroups(text: string, extra: SourceRecord = {}): RecordGroup[] {
  const lines = text.split(/\r?\n/);
  const runs = tableRuns(lines);
  const inTable = new Set<number>();
  const groups: RecordGroup[] = [];
  const tables: SourceRecord[][] = [];
  for (const run of runs) {
    const grid = lines.slice(run.start, run.end).filter((l) => !/^\s*[-=_|+:\s]{3,}$/.test(l)).map(cells);
    const header = findHeaderRow(grid, 1);
    if (header !== 0) continue;
    for (let k = run.start; k < run.end; k++) inTable.add(k);
    tables.push(gridToRecords(grid, 0));
  }
  const blocks = keyValueBlocks(lines.filter((_, k) => !inTable.has(k)));
  const documentFields = blocks.length === 1 ? { ...extra, ...blocks[0] } : extra;
  tables.forEach((records, n) => groups.push({ label: `table ${n + 1}`, records: records.map((r) => ({ ...documentFields, ...r })) }));
  if (blocks.length) groups.push({ label: 'key: value', records: blocks.map((b) => ({ ...extra, ...b })) });
  else if (Object.keys(extra).length) groups.push({ label: 'fields', records: [extra] });
  return groups;
}

/**
 * A document's tables together with its key: value fields (from `text`, the document without its
 * tables). One set of fields (an invoice's number and date) is carried onto every table row.
 */
export function withDocumentFields(tables: RecordGroup[], text: string, extra: SourceRecord = {}): RecordGroup[] {
  const fields = textGroups(text, extra).filter((g) => g.label === 'key: value' || g.label === 'fields');
  const single = fields[0]?.records.length === 1 ? fields[0].records[0]! : extra;
  return [...tables.map((g) => ({ ...g, records: g.records.map((r) => ({ ...single, ...r })) })), ...fields];
}
