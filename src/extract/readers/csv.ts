/** CSV and TSV: delimiter sniffed from the first lines, quoted fields, BOM; tables cut at blank lines. */
import { parse } from 'csv-parse/sync';
import { decodeText, UnreadableDocument, type SourceDocument, type TableCandidate } from '../document';
import { splitBlocks } from '../tables';

const DELIMITERS = [',', ';', '\t', '|'];

/** The delimiter that splits the first lines into the same, largest number of fields. */
export function sniffDelimiter(text: string, fallback: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim()).slice(0, 20);
  let best = fallback;
  let bestScore = 0;
  for (const d of DELIMITERS) {
    // Quoted parts cannot hold a delimiter that counts.
    const counts = lines.map((l) => l.replace(/"[^"]*"/g, '').split(d).length - 1);
    const first = Math.max(...counts.slice(0, 3));
    if (first === 0) continue;
    const consistent = counts.filter((c) => c === first).length / counts.length;
    const score = consistent * 10 + Math.min(first, 9);
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/** The file's tables, and its lone lines outside them (see `splitBlocks`). */
export function readCsv(doc: SourceDocument, tsv: boolean): { tables: TableCandidate[]; titles: string[] } {
  const text = decodeText(doc.bytes);
  if (!text.trim()) throw new UnreadableDocument('the file is empty');
  const delimiter = tsv ? '\t' : sniffDelimiter(text, ',');
  let rows: string[][];
  try {
    rows = parse(text, { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, trim: true });
  } catch (error) {
    throw new UnreadableDocument(`not valid ${tsv ? 'TSV' : 'CSV'}: ${(error as Error).message}`);
  }
  return splitBlocks(rows, tsv ? 'tsv' : 'csv');
}
