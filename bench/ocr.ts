/**
 * `npm run bench -- ocr`: scans through the HTTP API of a child server (one OCR worker, the
 * default): a scanned PDF of A4 pages at 300 dpi (2480 x 3508 pixels, a ruled 30-row table each,
 * drawn here with @napi-rs/canvas), seconds per page, the server's peak resident memory (OCR
 * workers are threads of the server process), and row GETs (one client, one at a time) while the
 * pages are read. Run it on a quiet machine: the recogniser takes a whole core.
 */
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
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
}
