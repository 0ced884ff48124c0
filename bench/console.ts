/**
 * The web console (issue 15): its JavaScript size gzipped, the time from opening a table of many
 * rows to its first rows on screen, and scrolling to the middle row: the grid must get there by
 * cursor pages (never page/offset). Chromium (Debian's `chromium`, or ROWSMITH_CHROMIUM) drives it.
 * BENCH_CONSOLE_ROWS sets the table size (default 200,000: loading a million takes minutes here).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { buildConsole } from '../web/build';
import { printTable, startRowsmith } from './lib';

const N = Number(process.env.BENCH_CONSOLE_ROWS ?? 200_000);
const KEY = 'bench-console-key-0123456789abcdef';
const CHROMIUM = process.env.ROWSMITH_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const ROW_HEIGHT = 32;
const STATUSES = ['open', 'paid', 'overdue', 'void'];

function row(i: number) {
  return { name: `Item ${i}`, qty: i % 97, price: (i % 1000) + 0.5, status: STATUSES[i % 4], email: `user${i}@example.com` };
}

function bundleSizes(): { raw: number; gzipped: number } {
  const dir = join(import.meta.dir, '../web/dist/assets');
  let raw = 0;
  let gzipped = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const bytes = readFileSync(join(dir, name));
    raw += bytes.byteLength;
    gzipped += Bun.gzipSync(bytes).byteLength;
  }
  return { raw, gzipped };
}

export async function run(): Promise<void> {
  await buildConsole();
  const size = bundleSizes();
  const results: Array<Record<string, string | number>> = [
    { measure: 'console JavaScript (all chunks)', value: `${(size.gzipped / 1024).toFixed(1)} KB gzipped (${(size.raw / 1024).toFixed(1)} KB raw)`, target: '< 150 KB gzipped' },
  ];
  if (!CHROMIUM) {
    console.warn('bench console: no chromium, only the bundle size is measured');
    printTable('console', results);
    return;
  }
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY });
  const headers = { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' };
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const created = await fetch(`${server.url}/v1/projects/proj_default/tables`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Console bench',
        columns_json: [
          { id: 'name', name: 'Name', type: 'string' },
          { id: 'qty', name: 'Qty', type: 'number' },
          { id: 'price', name: 'Price', type: 'currency', currency_code: 'USD' },
          { id: 'status', name: 'Status', type: 'enum', options: STATUSES },
          { id: 'email', name: 'Email', type: 'email' },
        ],
      }),
    });
    const tableId = ((await created.json()) as { id: string }).id;
    const loadStarted = performance.now();
    for (let i = 0; i < N; i += 2000) {
      // Two requests of 1000 in flight: the machine has two cores.
      await Promise.all(
        [i, i + 1000]
          .filter((start) => start < N)
          .map((start) =>
            fetch(`${server.url}/v1/projects/proj_default/tables/${tableId}/rows/bulk`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ creates: Array.from({ length: Math.min(1000, N - start) }, (_, j) => row(start + j)) }),
            }).then((r) => {
              if (!r.ok) throw new Error(`bulk load: ${r.status}`);
              return r.arrayBuffer();
            }),
          ),
      );
    }
    results.push({ measure: `load ${N} rows through the API (setup)`, value: `${((performance.now() - loadStarted) / 1000).toFixed(1)} s`, target: '-' });

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.evaluateOnNewDocument((key: string) => sessionStorage.setItem('rowsmith.apiKey', key), KEY);
    const rowRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith(`/tables/${tableId}/rows`)) rowRequests.push(request.url());
    });

    const opened = performance.now();
    await page.goto(`${server.url}/#/tables/${tableId}/rows`);
    await page.waitForSelector('[role="grid"] [data-row-id]', { timeout: 60_000 });
    const firstRowsMs = performance.now() - opened;
    results.push({ measure: `open a ${N.toLocaleString('en')}-row table to its first rows on screen (page load included)`, value: `${firstRowsMs.toFixed(0)} ms`, target: '< 1 s' });

    const target = Math.floor(N / 2);
    const scrolled = performance.now();
    await page.$eval('[role="grid"]', (grid, top) => ((grid as unknown as { scrollTop: number }).scrollTop = top as number), target * ROW_HEIGHT);
    await page.waitForSelector(`[aria-rowindex="${target + 2}"][data-row-id]`, { timeout: 600_000 });
    const deepMs = performance.now() - scrolled;
    const shown = await page.$eval(`[aria-rowindex="${target + 2}"]`, (el) => (el as { innerText: string }).innerText.split('\n')[0]);
    const byCursor = rowRequests.filter((u) => new URL(u).searchParams.has('cursor')).length;
    const byOffset = rowRequests.filter((u) => ['page', 'offset'].some((p) => new URL(u).searchParams.has(p))).length;
    results.push({
      measure: `scroll to row ${target.toLocaleString('en')} (shows "${shown}")`,
      value: `${(deepMs / 1000).toFixed(1)} s; ${rowRequests.length} row requests: ${byCursor} by cursor, ${byOffset} by page/offset`,
      target: 'cursor pages only',
    });
    if (byOffset > 0 || byCursor !== rowRequests.length - 1) throw new Error('the grid fetched rows by offset');
  } finally {
    await browser.close();
    await server.stop();
  }
  printTable(`console (${N.toLocaleString('en')} rows)`, results);
}
