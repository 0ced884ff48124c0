/**
 * `npm run bench -- ocr`: scans through the HTTP API of a child server (one OCR worker, the
 * default): a scanned PDF of A4 pages at 300 dpi (2480 x 3508 pixels, a ruled 30-row table each,
 * drawn here with @napi-rs/canvas), seconds per page, the server's peak resident memory (OCR
 * workers are threads of the server process), and row GETs (one client, one at a time) while the
 * pages are read; then the receipt photos of the corpus' dev split (the first BENCH_OCR_RECEIPTS,
 * 12 by default), read in-process. Run it on a quiet machine: the recogniser takes a whole core.
 *
 * `bun bench/ocr.ts receipts`: every dev receipt of the corpus (../shared/extract-corpus, or
 * CORPUS_DIR) read in-process through the OCR path the server uses (one worker, the server's
 * languages), with the share of each receipt's key fields (company, address, date in any printed
 * form, total) found verbatim in the recognised text, how many ended with no text, and seconds per
 * receipt. `SPLIT=check` reads the check receipts and prints aggregates only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { closeOcr, configureOcr, ocrPages } from '../src/extract/ocr';
import { ocrChoice } from '../src/extract/ocr/languages';
import { CORPUS_DIR } from './corpus';
import { machine, memoryMiB, percentile, printTable, startRowsmith } from './lib';

const KEY = 'bench-ocr-key-0123456789abcdef';
const P = '/v1/projects/proj_default';
const PAGES = Number(process.env.BENCH_OCR_PAGES ?? 3);
const COLUMNS = [
  { id: 'item', name: 'Item', type: 'string' },
  { id: 'quantity', name: 'Quantity', type: 'number' },
  { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'USD' },
];

/** One A4 page at 300 dpi: a title and a ruled table of 30 items. */
function a4Page(page: number): Uint8Array {
  const canvas = createCanvas(2480, 3508);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, 2480, 3508);
  g.fillStyle = '#000';
  g.font = '72px sans-serif';
  g.fillText(`Delivery note ${page}`, 200, 300);
  const xs = [200, 1300, 1800, 2280];
  const top = 500;
  const row = 90;
  g.lineWidth = 4;
  for (let r = 0; r <= 31; r++) g.fillRect(xs[0]!, top + r * row, xs[3]! - xs[0]!, 4);
  for (const x of xs) g.fillRect(x, top, 4, 31 * row);
  g.font = '48px sans-serif';
  ['Item', 'Quantity', 'Amount'].forEach((h, c) => g.fillText(h, xs[c]! + 30, top + 65));
  for (let r = 1; r <= 30; r++) {
    const cells = [`Part ${page}-${r} assembly`, String(1 + (r % 7)), (r * 12.5).toFixed(2)];
    cells.forEach((text, c) => g.fillText(text, xs[c]! + 30, top + r * row + 65));
  }
  return new Uint8Array(canvas.toBuffer('image/png'));
}

async function scannedPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let p = 1; p <= pages; p++) {
    const image = await pdf.embedPng(a4Page(p));
    pdf.addPage([595.28, 841.89]).drawImage(image, { x: 0, y: 0, width: 595.28, height: 841.89 });
  }
  return pdf.save();
}


interface ReceiptKey {
  company: string | null;
  address: string | null;
  date: string | null;
  total: number | null;
}

const FIELDS = ['company', 'address', 'date', 'total'] as const;

/** Case and whitespace do not count; `loose` also drops punctuation (keys sometimes omit a printed full stop). */
const normal = (text: string, loose = false) => {
  const folded = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return loose ? folded.replace(/[^\p{L}\p{N}]+/gu, '') : folded;
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Every date printed in the text, as YYYY-MM-DD: day first with / - . or spaces, ISO, and month names either way round. */
function printedDates(text: string): Set<string> {
  const found = new Set<string>();
  const add = (year: string, month: number, day: number) => {
    const y = year.length === 2 ? 2000 + Number(year) : Number(year);
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31) found.add(`${y}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`);
  };
  for (const m of text.matchAll(/(?<!\d)(\d{1,2})\s?[/.-]\s?(\d{1,2})\s?[/.-]\s?(\d{4}|\d{2})(?!\d)/g)) add(m[3]!, Number(m[2]), Number(m[1]));
  for (const m of text.matchAll(/(?<!\d)(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})(?!\d)/g)) add(m[1]!, Number(m[2]), Number(m[3]));
  const month = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
  for (const m of text.matchAll(/(?<!\d)(\d{1,2})[\s/.-]?([a-z]{3,9})[\s/.,-]*(\d{4}|\d{2})(?!\d)/gi)) add(m[3]!, month(m[2]!), Number(m[1]));
  for (const m of text.matchAll(/\b([a-z]{3,9})[\s.]*(\d{1,2}),?\s*(\d{4})(?!\d)/gi)) add(m[3]!, month(m[1]!), Number(m[2]));
  return found;
}

/** The total as receipts print it: two decimals, with or without thousands commas, not inside a longer number. */
function totalPrinted(text: string, total: number): boolean {
  const plain = total.toFixed(2);
  const grouped = Number(total).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return [plain, grouped].some((form) => new RegExp(`(?<![\\d.,])${form.replace(/[.,]/g, '\\$&')}(?![\\d])`).test(text));
}

function fieldsFound(text: string, key: ReceiptKey, loose: boolean): Record<(typeof FIELDS)[number], boolean | null> {
  const contains = (value: string | null) => (value === null ? null : normal(text, loose).includes(normal(value, loose)));
  return {
    company: contains(key.company),
    address: contains(key.address),
    date: key.date === null ? null : printedDates(text).has(key.date),
    total: key.total === null ? null : totalPrinted(text, key.total),
  };
}

interface ReceiptRun {
  id: string;
  seconds: number;
  noText: boolean;
  /** No page came back at all (a decoding error, the page's time limit), rather than a page without words. */
  unread: boolean;
  strict: Record<string, boolean | null>;
  loose: Record<string, boolean | null>;
}

function receiptCases(split: string): string[] {
  const lines = readFileSync(join(CORPUS_DIR, 'cases.tsv'), 'utf8').trim().split('\n');
  const header = lines[0]!.split('\t');
  const column = (name: string) => header.indexOf(name);
  return lines
    .slice(1)
    .map((line) => line.split('\t'))
    .filter((cells) => cells[column('kind')] === 'receipt' && cells[column('split')] === split)
    .map((cells) => cells[column('case_id')]!);
}

/** Configures one OCR worker, as the server would, and starts it on a small page so no measured read pays for its start. */
export async function startOneOcrWorker(): Promise<void> {
  configureOcr({ ...ocrChoice(), workers: 1, pageTimeoutMs: 120_000 });
  const canvas = createCanvas(200, 60);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, 200, 60);
  g.fillStyle = '#000';
  g.font = '24px sans-serif';
  g.fillText('warm up', 20, 40);
  await ocrPages('image', new Uint8Array(canvas.toBuffer('image/png')), 1);
}

/** Reads receipts one at a time through the server's OCR path (one worker), after a warm-up page starts the worker. */
async function readReceipts(ids: string[], perCase: boolean): Promise<ReceiptRun[]> {
  await startOneOcrWorker();
  const runs: ReceiptRun[] = [];
  try {
    for (const id of ids) {
      const folder = join(CORPUS_DIR, 'cases', id);
      const bytes = new Uint8Array(readFileSync(join(folder, 'document.jpg')));
      const key = (JSON.parse(readFileSync(join(folder, 'expected.json'), 'utf8')) as ReceiptKey[])[0]!;
      const started = performance.now();
      const { pages, nothingFound } = await ocrPages('image', bytes, 1);
      const seconds = (performance.now() - started) / 1000;
      const text = pages.flatMap((p) => p.words.map((w) => w.text)).join(' ');
      const run: ReceiptRun = { id, seconds, noText: nothingFound !== null, unread: pages.length === 0, strict: fieldsFound(text, key, false), loose: fieldsFound(text, key, true) };
      runs.push(run);
      if (perCase) {
        const marks = FIELDS.map((f) => `${f[0]}${run.strict[f] ? '+' : run.loose[f] ? '~' : '-'}`).join(' ');
        console.log(`${id}  ${marks}  ${seconds.toFixed(2)} s${run.noText ? `  ${nothingFound}` : ''}`);
      }
    }
  } finally {
    await closeOcr();
  }
  return runs;
}

function receiptRows(runs: ReceiptRun[]): Array<Record<string, string>> {
  const share = (pick: (r: ReceiptRun) => Array<boolean | null>) => {
    const values = runs.flatMap(pick).filter((v) => v !== null);
    const hits = values.filter(Boolean).length;
    return `${hits} of ${values.length} (${Math.round((hits / Math.max(1, values.length)) * 100)}%)`;
  };
  const times = runs.map((r) => r.seconds).sort((a, b) => a - b);
  return [
    { measure: 'key fields found verbatim (case, spacing)', value: share((r) => FIELDS.map((f) => r.strict[f]!)), target: '-' },
    ...FIELDS.map((f) => ({ measure: `  ${f}`, value: share((r) => [r.strict[f]!]), target: '-' })),
    { measure: 'key fields found, punctuation ignored too', value: share((r) => FIELDS.map((f) => r.loose[f]!)), target: '-' },
    {
      measure: 'receipts with no text recognised (of them: no page read)',
      value: `${runs.filter((r) => r.noText).length} of ${runs.length} (${runs.filter((r) => r.unread).length})`,
      target: '0',
    },
    { measure: 'seconds per receipt (p50, p95, max)', value: `${percentile(times, 50).toFixed(2)}, ${percentile(times, 95).toFixed(2)}, ${times.at(-1)?.toFixed(2)}`, target: '< 3 s' },
  ];
}

/** The receipts table for one split; check receipts print aggregates only. */
export async function receipts(split = 'dev', limit = Infinity, perCase = split === 'dev'): Promise<void> {
  if (!existsSync(join(CORPUS_DIR, 'cases.tsv'))) {
    console.log(`receipts: no corpus at ${CORPUS_DIR} (set CORPUS_DIR); skipped`);
    return;
  }
  const ids = receiptCases(split).slice(0, limit);
  const runs = await readReceipts(ids, perCase && split === 'dev');
  printTable(`OCR of receipt photos, ${split} split, ${runs.length} receipts (${machine()}; in-process, one OCR worker)`, receiptRows(runs));
}

export async function run(): Promise<void> {
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_REQUEST_TIMEOUT_MS: '900000' });
  const headers = { authorization: `ApiKey ${KEY}` };
  const json = async (method: string, path: string, body: unknown) =>
    (await fetch(`${server.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;
  try {
    const table = (await json('POST', `${P}/tables`, { name: 'OCR bench', columns_json: COLUMNS })).id as string;
    const seeded = await json('POST', `${P}/tables/${table}/rows/bulk`, { creates: Array.from({ length: 200 }, (_, i) => ({ item: `seed ${i}`, quantity: i, amount: i })) });
    const ids: string[] = seeded.created.map((r: { id: string }) => r.id);
    const before = memoryMiB(server.proc.pid, 'VmRSS');
    const form = new FormData();
    form.append('file', new File([await scannedPdf(PAGES)], 'scan.pdf', { type: 'application/pdf' }));
    let peak = before;
    let running = true;
    const started = performance.now();
    const extraction = fetch(`${server.url}${P}/tables/${table}/extract`, { method: 'POST', headers, body: form })
      .then((r) => r.json() as Promise<any>)
      .finally(() => (running = false));
    const gets: number[] = [];
    while (running) {
      peak = Math.max(peak, memoryMiB(server.proc.pid, 'VmRSS'));
      const t0 = performance.now();
      await (await fetch(`${server.url}${P}/tables/${table}/rows/${ids[gets.length % ids.length]}`, { headers })).arrayBuffer();
      gets.push(performance.now() - t0);
      await Bun.sleep(20);
    }
    const reply = await extraction;
    const seconds = (performance.now() - started) / 1000;
    const sorted = gets.sort((a, b) => a - b);
    printTable(`OCR (${machine()}; one rowsmith child process, one OCR worker, HTTP on 127.0.0.1)`, [
      { measure: `scanned PDF, ${PAGES} A4 pages at 300 dpi (${reply.total_rows} rows of ${PAGES * 30}, ${reply.status})`, value: `${seconds.toFixed(1)} s, ${(seconds / PAGES).toFixed(1)} s a page (first worker start included)`, target: '< 6 s a page' },
      { measure: 'server resident memory (peak; before)', value: `${peak.toFixed(0)} MiB; ${before.toFixed(0)} MiB`, target: '-' },
      { measure: 'row GET while pages are read', value: `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms (${sorted.length} GETs)`, target: 'p95 < 20 ms' },
    ]);
  } finally {
    await server.stop();
  }
  await receipts('dev', Number(process.env.BENCH_OCR_RECEIPTS ?? 12), false);
}

if (import.meta.main) {
  if (process.argv[2] !== 'receipts') {
    console.error('usage: bun bench/ocr.ts receipts   (SPLIT=check for aggregates of the check receipts; or npm run bench -- ocr)');
    process.exit(2);
  }
  await receipts(process.env.SPLIT === 'check' ? 'check' : 'dev', Number(process.env.LIMIT) || Infinity);
}
