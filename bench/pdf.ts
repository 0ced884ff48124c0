/**
 * `npm run bench -- pdf`: extraction speed through the HTTP API of a child server (issue 13's
 * targets): a 50,000-row CSV, a 10-page table PDF, a 200-page one with the server's own memory
 * sampled during it, and row GETs (one client, one at a time) while the 200-page extraction runs;
 * and a one-page invoice's header fields (issue 24's target). The PDFs are drawn here with pdf-lib:
 * a ruled invoice-line table, 45 rows a page, and an invoice as accounting programs print one.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { apiClient, machine, memoryMiB, percentile, printTable, startRowsmith } from './lib';

const KEY = 'bench-pdf-key-0123456789abcdef';
const P = '/v1/projects/proj_default';
const ROWS_PER_PAGE = 45;

async function tablePdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const xs = [40, 120, 330, 400, 480];
  let n = 0;
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([595, 842]);
    ['Item no.', 'Description', 'Qty', 'Unit price', 'Amount'].forEach((h, i) => page.drawText(h, { x: xs[i]!, y: 800, size: 9, font: bold }));
    page.drawLine({ start: { x: 36, y: 795 }, end: { x: 560, y: 795 }, thickness: 0.8 });
    for (let r = 0; r < ROWS_PER_PAGE; r++, n++) {
      const y = 780 - r * 16;
      const qty = 1 + (n % 9);
      const price = 3 + (n % 50) * 1.25;
      const cells = [`A-${10000 + n}`, `Part number ${n} for assembly`, String(qty), price.toFixed(2), (qty * price).toFixed(2)];
      cells.forEach((c, i) => page.drawText(c, { x: xs[i]!, y, size: 9, font }));
    }
    page.drawText(`Page ${p + 1} of ${pages}`, { x: 270, y: 30, size: 8, font });
  }
  return pdf.save();
}

/** A one-page invoice as accounting programs print one: letterhead, parties, numbers, dates, items, totals. */
async function invoicePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const page = pdf.addPage([595, 842]);
  const text = (t: string, x: number, y: number, size = 9, f = font) => page.drawText(t, { x, y, size, font: f });
  text('Northwind Tools Ltd', 40, 790, 16, bold);
  text('12 Harbour Road, Bristol BS1 4QA, United Kingdom', 40, 772);
  text('VAT No. GB 123 4567 89', 40, 760);
  text('Bill to:', 40, 720, 9, bold);
  ['Lakeside Builders', '4 Mill Lane', 'Leeds LS1 2AB'].forEach((l, i) => text(l, 40, 708 - i * 12));
  text('INVOICE', 400, 790, 16, bold);
  [['Invoice no.', 'INV-20417'], ['Invoice date', '03/11/2026'], ['Due date', '03/12/2026'], ['Customer no.', 'C-5521']].forEach(([k, v], i) => {
    text(k!, 400, 760 - i * 12);
    text(v!, 480, 760 - i * 12);
  });
  const xs = [40, 300, 380, 470];
  ['Description', 'Qty', 'Unit price', 'Amount'].forEach((h, i) => text(h, xs[i]!, 640, 9, bold));
  page.drawLine({ start: { x: 36, y: 635 }, end: { x: 560, y: 635 }, thickness: 0.8 });
  let net = 0;
  for (let r = 0; r < 8; r++) {
    const qty = 1 + (r % 4);
    const price = 12.5 + r * 7.25;
    net += qty * price;
    [`Hex key set, size ${r + 2}`, String(qty), price.toFixed(2), (qty * price).toFixed(2)].forEach((c, i) => text(c, xs[i]!, 620 - r * 16));
  }
  const tax = Math.round(net * 20) / 100;
  [['Subtotal', net], ['VAT 20%', tax], ['Total due (GBP)', net + tax]].forEach(([k, v], i) => {
    text(String(k), 380, 470 - i * 14, 9, i === 2 ? bold : font);
    text(`£${(v as number).toFixed(2)}`, 470, 470 - i * 14, 9, i === 2 ? bold : font);
  });
  return pdf.save();
}

const INVOICE_COLUMNS = [
  { id: 'invoice_number', name: 'Invoice number', type: 'string' },
  { id: 'invoice_date', name: 'Invoice date', type: 'date' },
  { id: 'due_date', name: 'Due date', type: 'date' },
  { id: 'seller', name: 'Seller', type: 'string' },
  { id: 'net', name: 'Net amount', type: 'currency', currency_code: 'GBP' },
  { id: 'tax', name: 'Tax amount', type: 'currency', currency_code: 'GBP' },
  { id: 'total', name: 'Total', type: 'currency', currency_code: 'GBP' },
];
/** Runs of the one-page invoice: the first warms the readers up and is not counted. */
const INVOICE_RUNS = 11;

const COLUMNS = [
  { id: 'item_no', name: 'Item number', type: 'string' },
  { id: 'description', name: 'Description', type: 'string' },
  { id: 'quantity', name: 'Quantity', type: 'number' },
  { id: 'unit_price', name: 'Unit price', type: 'currency', currency_code: 'USD' },
  { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'USD' },
];

export async function run(): Promise<void> {
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_REQUEST_TIMEOUT_MS: '600000' });
  const headers = { authorization: `ApiKey ${KEY}` };
  const api = apiClient(server.url, KEY);
  const call = async (method: string, path: string, body?: unknown) => (await api(method, path, body)).body;
  const newTable = async (columns: unknown[] = COLUMNS) => (await call('POST', `${P}/tables`, { name: `PDF bench ${Math.random()}`, columns_json: columns })).id as string;
  const extract = async (table: string, bytes: Uint8Array, name: string) => {
    const form = new FormData();
    form.append('file', new File([bytes], name, { type: 'application/pdf' }));
    const t0 = performance.now();
    const reply = await call('POST', `${P}/tables/${table}/extract`, form);
    return { seconds: (performance.now() - t0) / 1000, rows: reply.total_rows as number, status: reply.status as string };
  };
  try {
    const results: Array<Record<string, string>> = [];
    const invoice = await invoicePdf();
    const invoiceTable = await newTable(INVOICE_COLUMNS);
    const invoiceTimes: number[] = [];
    let invoiceStatus = '';
    for (let i = 0; i < INVOICE_RUNS; i++) {
      const run = await extract(invoiceTable, invoice, 'invoice.pdf');
      invoiceStatus = run.status;
      if (i > 0) invoiceTimes.push(run.seconds);
    }
    invoiceTimes.sort((a, b) => a - b);
    results.push({ measure: `one-page invoice PDF, header fields (${invoiceStatus}, ${invoiceTimes.length} runs)`, value: `p50 ${percentile(invoiceTimes, 50).toFixed(3)} s, max ${invoiceTimes[invoiceTimes.length - 1]!.toFixed(3)} s`, target: '< 0.5 s' });
    const csv = ['Item no.,Description,Qty,Unit price,Amount', ...Array.from({ length: 50_000 }, (_, i) => `A-${i},Part ${i},${1 + (i % 9)},${(3 + (i % 50) * 1.25).toFixed(2)},${((1 + (i % 9)) * (3 + (i % 50) * 1.25)).toFixed(2)}`)].join('\n');
    const form = new FormData();
    form.append('file', new File([csv], 'long.csv', { type: 'text/csv' }));
    const csvTable = await newTable();
    const t0 = performance.now();
    const csvReply = await call('POST', `${P}/tables/${csvTable}/extract`, form);
    results.push({ measure: `50,000-row CSV (${csvReply.total_rows} rows, ${csvReply.status})`, value: `${((performance.now() - t0) / 1000).toFixed(1)} s`, target: '-' });
    const ten = await extract(await newTable(), await tablePdf(10), 'ten.pdf');
    results.push({ measure: `10-page text PDF (${ten.rows} rows, ${ten.status})`, value: `${ten.seconds.toFixed(2)} s`, target: '< 2 s' });

    // A table with rows to read while the long extraction runs.
    const readTable = await newTable();
    const seeded = await call('POST', `${P}/tables/${readTable}/rows/bulk`, {
      creates: Array.from({ length: 500 }, (_, i) => ({ item_no: `S-${i}`, description: 'seed', quantity: i, unit_price: 1, amount: i })),
    });
    const ids: string[] = (seeded.created ?? []).map((r: { id: string }) => r.id);
    if (ids.length === 0) throw new Error(`seeding rows failed: ${JSON.stringify(seeded).slice(0, 300)}`);
    const big = await tablePdf(200);
    const before = memoryMiB(server.proc.pid, 'RssAnon');
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, memoryMiB(server.proc.pid, 'RssAnon'));
        await Bun.sleep(50);
      }
    })();
    const long = extract(await newTable(), big, 'long.pdf');
    let running = true;
    void long.finally(() => (running = false));
    const gets: number[] = [];
    while (running && ids.length) {
      const t0 = performance.now();
      const response = await fetch(`${server.url}${P}/tables/${readTable}/rows/${ids[gets.length % ids.length]}`, { headers });
      await response.arrayBuffer();
      gets.push(performance.now() - t0);
    }
    const done = await long;
    sampling = false;
    await sampler;
    results.push({ measure: `200-page text PDF (${done.rows} rows, ${done.status})`, value: `${done.seconds.toFixed(1)} s`, target: '-' });
    results.push({ measure: 'server own memory during it (peak, before)', value: `${peak.toFixed(0)} MiB, ${before.toFixed(0)} MiB`, target: '< 500 MiB' });
    const sorted = gets.sort((a, b) => a - b);
    results.push({ measure: 'row GET while it runs', value: `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms, max ${sorted[sorted.length - 1]?.toFixed(1)} ms (${sorted.length} GETs)`, target: 'p95 < 20 ms' });
    printTable(`PDF extraction speed (${machine()}; one rowsmith child process, HTTP on 127.0.0.1)`, results);
  } finally {
    await server.stop();
  }
}
