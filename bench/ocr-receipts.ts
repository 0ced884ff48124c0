/**
 * `npm run bench -- receipts-ocr`: the OCR ceiling of the corpus' receipts of one split (SPLIT,
 * `dev` by default; the table holds counts only, so `check` shows no case of its own). Each receipt is
 * read in-process through the readers the server uses (one OCR worker, started before timing),
 * and for each key field the table counts the receipts whose expected value appears verbatim in
 * what was read (case and spacing aside): in the lines outside tables, which the field extractor
 * reads, and anywhere in the page's text. A field can only be extracted exactly when its value was
 * read exactly, so this bounds the receipt field scores. Beside it, the receipts whose field the
 * server's mapping (the learned model, a flexible table as the corpus defines) extracts right, as the
 * corpus' scorer compares: the fields read but not extracted are the model's to win, the rest the
 * reading's. For those, where the model loses them: the receipts whose right value is among the
 * model's candidates for the field, and those where it is the likeliest of them (a value ranked first
 * but not extracted fell under the writing threshold or lost in the joint decoding; one not ranked
 * first the features lost; one not a candidate the candidate rules), and those extracted wrong or
 * left empty (an empty field costs a receipt's F1 less than a wrong one). Then seconds per receipt.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeOcr } from '../src/extract/ocr';
import { CORPUS_DIR, splitCases, type CorpusCase } from '../src/extract/model/corpus';
import { coerce } from '../src/extract/coerce';
import { dayFirstOf, localeDayOrder } from '../src/extract/dates';
import { ruleFields } from '../src/extract/fields';
import { documentLanguage } from '../src/extract/language';
import { roleOptions } from '../src/extract/model';
import { readDocument } from '../src/extract/read';
import { rowsOfReading } from '../src/services/extract.service';
import { same } from './learn';
import { machine, percentile, printTable } from './lib';
import { startOneOcrWorker } from './ocr';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Case and whitespace do not count, as in the corpus' scorer. */
const normal = (text: unknown) => String(text ?? '').normalize('NFKC').toLowerCase().replace(/\s+/g, '');

/** Whether `text` (normalised) holds the value as a receipt prints it: a date day first or with a month name, an amount with two decimals. */
function holds(text: string, type: string, value: unknown): boolean {
  if (type === 'date') {
    const [y, m, d] = String(value).split('-') as [string, string, string];
    const numeric = ['/', '-', '.'].flatMap((s) => [`${d}${s}${m}${s}${y}`, `${d}${s}${m}${s}${y.slice(2)}`]);
    const month = MONTHS[Number(m) - 1]!;
    return [...numeric, `${d}${month}`, `${Number(d)}${month}`, `${d}-${month}`].some((form) => text.includes(form));
  }
  if (type === 'number' || type === 'currency') return text.includes(Number(value).toFixed(2));
  return text.includes(normal(value));
}

export async function run(): Promise<void> {
  if (!existsSync(join(CORPUS_DIR, 'cases.tsv'))) {
    console.log(`receipts-ocr: no corpus at ${CORPUS_DIR} (set CORPUS_DIR); skipped`);
    return;
  }
  const split = (process.env.SPLIT ?? 'dev').trim().toLowerCase();
  if (split !== 'dev' && split !== 'check') throw new Error(`SPLIT must be dev or check, not ${split}`);
  const cases: CorpusCase[] = splitCases(split, new Set(['receipt']));
  const found = new Map<string, { lines: number; text: number; right: number; wrong: number; candidate: number; first: number; of: number }>();
  const seconds: number[] = [];
  try {
    await startOneOcrWorker();
    for (const c of cases) {
      const bytes = new Uint8Array(readFileSync(c.documentPath));
      const started = performance.now();
      const reading = await readDocument({ name: c.documentPath.split('/').pop()!, contentType: 'application/octet-stream', bytes }).catch(() => null);
      seconds.push((performance.now() - started) / 1000);
      const lines = normal((reading?.lines ?? []).map((l) => l.text).join(' '));
      const text = normal(reading?.text ?? '');
      const row = reading ? (rowsOfReading(reading, { columns: c.columns, instruction: null, strictness: 'flexible' }, 'receipt', {})[0]?.values ?? {}) : {};
      // The model's options as the extractor writes them: coerced, a date read in the document's day order.
      const options = new Map<string, unknown[]>();
      if (reading?.lines.length) {
        const dayFirst = dayFirstOf(documentLanguage(reading.text)) ?? localeDayOrder(reading.text) === 'dmy';
        const { layout, wants, result } = ruleFields(reading.lines, c.columns);
        for (const r of roleOptions(layout, wants, result)) {
          const coerced = r.options.map((o) => coerce(o.value, r.want.column, 'flexible', { dayFirstDefault: dayFirst }));
          options.set(r.want.column.id, coerced.map((v) => (v.ok ? v.value : null)));
        }
      }
      for (const column of c.columns) {
        const value = c.expected[0]?.[column.id];
        if (value == null) continue;
        const count = found.get(column.name) ?? { lines: 0, text: 0, right: 0, wrong: 0, candidate: 0, first: 0, of: 0 };
        count.of++;
        if (holds(lines, column.type, value)) count.lines++;
        if (holds(text, column.type, value)) count.text++;
        if (row[column.id] != null) same(value, row[column.id], column) ? count.right++ : count.wrong++;
        const ranked = options.get(column.id) ?? [];
        if (ranked.some((o) => o != null && same(value, o, column))) count.candidate++;
        if (ranked[0] != null && same(value, ranked[0], column)) count.first++;
        found.set(column.name, count);
      }
    }
  } finally {
    await closeOcr();
  }
  const share = (hits: number, of: number) => `${hits} of ${of} (${Math.round((hits / Math.max(1, of)) * 100)}%)`;
  const sorted = seconds.sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  printTable(`OCR ceiling of receipt photos, ${split} split, ${cases.length} receipts (${machine()}; in-process, one OCR worker)`, [
    ...[...found].map(([field, count]) => ({ measure: `${field} read exactly: in lines outside tables; anywhere; extracted right`, value: `${share(count.lines, count.of)}; ${share(count.text, count.of)}; ${share(count.right, count.of)}`, target: '-' })),
    ...[...found].map(([field, count]) => ({ measure: `${field} right value: a candidate of the model; ranked first`, value: `${share(count.candidate, count.of)}; ${share(count.first, count.of)}`, target: '-' })),
    ...[...found].map(([field, count]) => ({ measure: `${field} extracted wrong; left empty`, value: `${share(count.wrong, count.of)}; ${share(count.of - count.right - count.wrong, count.of)}`, target: '-' })),
    { measure: 'seconds per receipt (mean, p50, p95, max)', value: `${mean.toFixed(2)}, ${percentile(sorted, 50).toFixed(2)}, ${percentile(sorted, 95).toFixed(2)}, ${sorted.at(-1)?.toFixed(2)}`, target: '< 3 s' },
  ]);
}

if (import.meta.main) await run();
