/**
 * The web console in real Chromium (Debian's `chromium`, driven by puppeteer-core) against a child
 * rowsmith: sign in, make a table from a template, drop a PDF and a CSV, search, edit, see a 409,
 * export, webhooks. Every request the page makes must go to the server under test; screenshots of
 * the main screens go to web/screenshots/ for the console README.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { buildConsole } from '../../web/build';
import { makePdf } from '../extract/layout/pdf-fixtures';
import { startServer, type ServerProcess } from '../helpers/process';
import { startReceiver, type Receiver } from '../helpers/receiver';

// The callbacks passed to page.evaluate run in the browser; the project compiles without the DOM
// library (it would retype Bun's own globals), so the browser globals they use are declared here.
declare const document: any, location: any, window: any, DataTransfer: any, DragEvent: any, getComputedStyle: any;

const CHROMIUM = process.env.ROWSMITH_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const SHOTS = join(import.meta.dir, '../../web/screenshots');
const KEY = 'rsk_console_test_key_000000000000000000000000';
const STEP_MS = 60_000;

if (!CHROMIUM) console.warn('console tests skipped: no chromium (apt-get install -y chromium, or set ROWSMITH_CHROMIUM)');

describe.skipIf(!CHROMIUM)('web console in Chromium', () => {
  let server: ServerProcess;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  let downloads: string;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  let tableId = '';

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) as `${string}.png` });
  const text = (selector: string) => page.$eval(selector, (el) => (el as { innerText: string }).innerText);
  const waitForText = async (selector: string, pattern: RegExp) => {
    try {
      await page.waitForFunction((s, source) => [...document.querySelectorAll(s)].some((el) => new RegExp(source).test((el as { innerText: string }).innerText)), { timeout: 30_000 }, selector, pattern.source);
    } catch (error) {
      // Say what the page showed instead, so a failure explains itself.
      const alerts = await page.$$eval('[role="alert"], [role="status"]', (els) => els.map((el) => (el as { innerText: string }).innerText));
      throw new Error(`no ${selector} matching ${pattern} (page shows: ${JSON.stringify(alerts)}): ${error}`);
    }
  };
  /** Selects the field's text so typing replaces it (clearing `.value` races the app's next render). */
  const replaceText = async (selector: string, value: string) => {
    await page.focus(selector);
    await page.$eval(selector, (el) => (el as { select(): void }).select());
    if (value) await page.keyboard.type(value);
    else await page.keyboard.press('Backspace');
  };
  const clickButton = async (label: RegExp, scope = 'body') => {
    const handle = await page.waitForFunction(
      (s, source) => [...document.querySelectorAll(`${s} button, ${s} a`)].find((el) => [(el as { innerText: string }).innerText, el.getAttribute('aria-label') ?? ''].some((name) => new RegExp(source).test(name))),
      { timeout: 15_000 },
      scope,
      label.source,
    );
    await (handle as unknown as { click(): Promise<void> }).click();
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The served bundle must be the one built from the sources under test.
    await buildConsole();
    dataDir = mkdtempSync(join(tmpdir(), 'rowsmith-console-'));
    downloads = mkdtempSync(join(tmpdir(), 'rowsmith-console-downloads-'));
    receiver = startReceiver();
    server = await startServer({
      DATA_DIR: dataDir,
      ROWSMITH_BOOTSTRAP_KEY: KEY,
      ROWSMITH_RATE_LIMIT_PER_SECOND: '0',
      ROWSMITH_WEBHOOK_ALLOWED_HOSTS: 'loopback',
      ROWSMITH_WEBHOOK_CA_FILE: receiver.tls.certFile,
    });
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 860 });
    const origin = new URL(server.url).origin;
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return void request.continue();
      foreignRequests.push(url);
      void request.abort();
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
  }, STEP_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    receiver?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(downloads, { recursive: true, force: true });
  });

  test('a wrong API key is refused with a clear message', async () => {
    await page.goto(server.url, { waitUntil: 'networkidle0' });
    await page.type('input[name="api-key"]', 'rsk_wrong_key');
    await page.click('button[type="submit"]');
    await waitForText('[role="alert"]', /refused/);
    expect(await text('[role="alert"]')).toContain('This API key was refused');
    await shot('sign-in-refused');
  }, STEP_MS);

  test('signs in and creates a table from a template, its columns shown first', async () => {
    await replaceText('input[name="api-key"]', KEY);
    await page.click('button[type="submit"]');
    await waitForText('h2', /^Tables$/);
    await clickButton(/^New table$/);
    await page.waitForSelector('select[name="template"] option');
    const productTemplate = await page.$$eval('select[name="template"] option', (options) => options.find((o) => o.textContent!.includes('Product catalogue'))!.getAttribute('value')!);
    await page.select('select[name="template"]', productTemplate);
    await waitForText('ul[aria-label="Template columns"]', /SKU/);
    await page.type('input[name="table-name"]', 'Price list');
    await shot('create-from-template');
    await clickButton(/^Create table$/);
    await page.waitForFunction(() => /#\/tables\/tbl_/.test(location.hash));
    tableId = (await page.evaluate(() => location.hash)).split('/')[2]!;
    expect(tableId).toStartWith('tbl_');
  }, STEP_MS);

  test('a dropped PDF and CSV stream their rows in, with per-file progress', async () => {
    const csv = 'SKU,Product Name,Price,Category\nA-100,Blue kettle,$24.50,Kitchen\nA-101,Red kettle,$26.00,Kitchen\nB-200,Desk lamp,$39.90,Office\n';
    const pdf = await makePdf([
      (d) => {
        d.text('Price list', 50, 40, { size: 16, bold: true });
        const xs = [50, 150, 330, 430];
        ['SKU', 'Product Name', 'Price', 'Category'].forEach((h, i) => d.text(h, xs[i]!, 90, { bold: true }));
        d.line(50, 104, 540, 104);
        const rows = [
          ['C-300', 'Garden hose', '18.75', 'Garden'],
          ['C-301', 'Watering can', '12.20', 'Garden'],
        ];
        rows.forEach((row, r) => row.forEach((cell, i) => d.text(cell, xs[i]!, 112 + r * 18)));
      },
    ]);
    await page.goto(`${server.url}/#/tables/${tableId}/extract`);
    await page.waitForSelector('.dropzone');
    await page.evaluate(
      (files: { name: string; type: string; base64: string }[]) => {
        const transfer = new DataTransfer();
        for (const f of files) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
        document.querySelector('.dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      [
        { name: 'prices.pdf', type: 'application/pdf', base64: Buffer.from(pdf).toString('base64') },
        { name: 'prices.csv', type: 'text/csv', base64: Buffer.from(csv).toString('base64') },
      ],
    );
    await waitForText('[role="status"]', /Batch (complete|partial|failed)/);
    const files = await page.$$eval('.file-progress li', (items) => items.map((li) => (li as { innerText: string }).innerText));
    expect(files.find((f) => f.includes('prices.csv'))).toContain('3 rows');
    expect(files.find((f) => f.includes('prices.pdf'))).toContain('2 rows');
    const live = await page.$$eval('table.live-rows tbody tr', (rows) => rows.map((r) => (r as { innerText: string }).innerText));
    expect(live.join('\n')).toContain('Garden hose');
    expect(live.join('\n')).toContain('Desk lamp');
    await shot('extract-live-rows');
  }, STEP_MS);

  test('the grid filters and searches through the API', async () => {
    await page.goto(`${server.url}/#/tables/${tableId}/rows`);
    await page.waitForSelector('[role="grid"] [data-row-id]');
    const visibleRows = () => page.$$eval('[role="grid"] [data-row-id]', (rows) => rows.map((r) => (r as { innerText: string }).innerText));
    expect((await visibleRows()).length).toBe(5);
    await page.type('input[name="q"]', 'kettle');
    await clickButton(/^Apply$/);
    await page.waitForFunction(() => document.querySelectorAll('[role="grid"] [data-row-id]').length === 2);
    await replaceText('input[name="q"]', '');
    await clickButton(/^Apply$/);
    await page.waitForFunction(() => document.querySelectorAll('[role="grid"] [data-row-id]').length === 5);
    // The column menu adds a condition to the filter.
    await clickButton(/^Category: sort and filter$/);
    await page.select('form[aria-label="Sort and filter Category"] select[name="operator"]', 'eq');
    await page.type('form[aria-label="Sort and filter Category"] input[name="value"]', 'Garden');
    await clickButton(/^Add filter$/);
    await page.waitForFunction(() => document.querySelectorAll('[role="grid"] [data-row-id]').length === 2);
    expect(await page.$eval('input[name="filter"]', (el) => (el as { value: string }).value)).toBe('category.eq.Garden');
    expect((await visibleRows()).join('\n')).toContain('Watering can');
    await shot('table-grid');
  }, STEP_MS);

  test('a cell is edited inline, and a concurrent change to the row is refused with a reload', async () => {
    const rowId = await page.$eval('[role="grid"] [data-row-id]', (el) => el.getAttribute('data-row-id')!);
    const cell = `[data-row-id="${rowId}"] .cell.string`;
    await page.focus(cell);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-row-id="${rowId}"] input[aria-label="Edit SKU"]`);
    await page.keyboard.type('C-399');
    await page.keyboard.press('Enter');
    await waitForText('[role="status"]', /Saved SKU/);
    const stored = (await (await api(`/v1/projects/proj_default/tables/${tableId}/rows/${rowId}`)).json()) as Record<string, unknown>;
    expect(stored.sku).toBe('C-399');
    // The saved cell keeps the focus, so the arrow keys go on from it.
    const focused = () => page.evaluate(() => [document.activeElement?.closest('[data-row-id]')?.getAttribute('data-row-id'), document.activeElement?.getAttribute('data-col')]);
    expect(await focused()).toEqual([rowId, '0']);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-col') === '1');
    // Escape leaves the editor for the cell too.
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-row-id="${rowId}"] input[aria-label="Edit Product Name"]`);
    await page.keyboard.press('Escape');
    await page.waitForFunction((id) => document.activeElement?.getAttribute('data-col') === '1' && document.activeElement?.closest('[data-row-id]')?.getAttribute('data-row-id') === id, {}, rowId);

    // Another client changes the row after the grid loaded it.
    await api(`/v1/projects/proj_default/tables/${tableId}/rows/${rowId}`, { method: 'PATCH', body: JSON.stringify({ category: 'Outdoor' }) });
    await page.focus(`[data-row-id="${rowId}"] .cell.string:nth-of-type(3)`);
    await page.keyboard.press('Enter');
    await page.keyboard.type(' XL');
    await page.keyboard.press('Enter');
    await waitForText('[role="alert"]', /409 conflict: this row was changed elsewhere/);
    await shot('row-conflict');
    await clickButton(/^Reload$/);
    await page.waitForSelector('[role="grid"] [data-row-id]');
  }, STEP_MS);

  test('an extracted row links to its source file', async () => {
    await page.waitForFunction(() => [...document.querySelectorAll('[role="grid"] [data-row-id]')].some((r) => r.innerText.includes('Garden hose')));
    const pdfRow = await page.$$eval('[role="grid"] [data-row-id]', (rows) => rows.findIndex((r) => (r as { innerText: string }).innerText.includes('Garden hose')));
    expect(pdfRow).toBeGreaterThanOrEqual(0);
    await clickButton(new RegExp(`^Source file of row ${pdfRow + 1}$`));
    for (let i = 0; i < 100 && !readdirSync(downloads).includes('prices.pdf'); i++) await Bun.sleep(50);
    expect(readdirSync(downloads)).toContain('prices.pdf');
    expect(readFileSync(join(downloads, 'prices.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  }, STEP_MS);

  test('rows that need review are marked in the grid, and an edit is their review', async () => {
    // Headerless values place the columns by their shape alone: a row the mapper is unsure of.
    const created = (await (await api('/v1/projects/proj_default/tables', { method: 'POST', body: JSON.stringify({ name: 'Review queue', strictness: 'flexible', columns_json: [
      { id: 'order_id', name: 'Order ID', type: 'string' },
      { id: 'total', name: 'Total', type: 'number' },
      { id: 'notes', name: 'Notes', type: 'string' },
    ] }) })).json()) as { id: string };
    const form = new FormData();
    form.append('file', new File(['SO-1,Acme,10\n'], 'orders.csv', { type: 'text/csv' }));
    await fetch(`${server.url}/v1/projects/proj_default/tables/${created.id}/extract`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}` }, body: form });
    await page.goto(`${server.url}/#/tables/${created.id}/rows`);
    await waitForText('[role="grid"] [data-row-id] .review', /review/);
    const rowId = await page.$eval('[role="grid"] [data-row-id]', (el) => el.getAttribute('data-row-id')!);
    await page.focus(`[data-row-id="${rowId}"] .cell.string`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-row-id="${rowId}"] input[aria-label="Edit Order ID"]`);
    await page.keyboard.type('SO-10');
    await page.keyboard.press('Enter');
    await waitForText('[role="status"]', /Saved Order ID/);
    await page.waitForFunction((id) => !document.querySelector(`[data-row-id="${id}"] .review`), { timeout: 15_000 }, rowId);
    const stored = (await (await api(`/v1/projects/proj_default/tables/${created.id}/rows/${rowId}`)).json()) as Record<string, unknown>;
    expect(stored).toMatchObject({ order_id: 'SO-10', confidence: 1, needs_review: false });
  }, STEP_MS);

  test('a column change made elsewhere meanwhile is refused with a 409 and a reload; validation errors show by their field', async () => {
    await page.goto(`${server.url}/#/tables/${tableId}/columns`);
    await page.waitForSelector('form[aria-label="Column SKU"]');
    await api(`/v1/projects/proj_default/tables/${tableId}/columns`, { method: 'POST', body: JSON.stringify({ name: 'Supplier' }) });
    await page.type('form[aria-label="Column Category"] input[name="description"]', ' (edited)');
    await page.click('form[aria-label="Column Category"] button[type="submit"]');
    await waitForText('[role="alert"]', /409 conflict/);
    await shot('columns-conflict');
    await clickButton(/^Reload$/);
    await page.waitForSelector('form[aria-label="Column Supplier"]');

    // The API's validation error shows next to the field it is about.
    await page.type('form[aria-label="New column"] input[name="name"]', 'Net/Gross');
    await page.click('form[aria-label="New column"] button[type="submit"]');
    await page.waitForSelector('form[aria-label="New column"] .field-error');
    expect(await text('form[aria-label="New column"] .field-error')).toMatch(/letters|characters|pattern/i);
    await replaceText('form[aria-label="New column"] input[name="name"]', 'Net');
    await page.click('form[aria-label="New column"] button[type="submit"]');
    await page.waitForSelector('form[aria-label="Column Net"]');
  }, STEP_MS);

  test('exports CSV and downloads the file', async () => {
    await page.goto(`${server.url}/#/tables/${tableId}/export`);
    await page.waitForSelector('select[name="format"]');
    await clickButton(/^Export$/, 'form');
    await waitForText('[role="status"]', /Export complete: 5 rows/);
    await shot('export');
    // The server names an export's file after the export (`exp_....csv`).
    const isExport = (f: string) => f.startsWith('exp') && f.endsWith('.csv');
    for (let i = 0; i < 100 && !readdirSync(downloads).some(isExport); i++) await Bun.sleep(50);
    const file = readdirSync(downloads).find(isExport);
    expect(file).toBeDefined();
    const content = readFileSync(join(downloads, file!), 'utf8');
    expect(content).toContain('Garden hose');
    expect(content.split('\n').filter((l) => l.trim()).length).toBe(6);
  }, STEP_MS);

  test('creates a webhook, shows its secret once, and sends its test', async () => {
    await page.goto(`${server.url}/#/webhooks`);
    await page.waitForSelector('input[name="webhook-url"]');
    await page.type('input[name="webhook-name"]', 'Bookkeeping');
    await replaceText('input[name="webhook-url"]', receiver.url('/rowsmith'));
    await clickButton(/^Create webhook$/);
    await waitForText('[role="status"]', /Signing secret/);
    await clickButton(/Send test/);
    await page.waitForSelector('[data-test-result]', { timeout: 30_000 });
    expect(await text('[data-test-result]')).toStartWith('Test success (HTTP 200)');
    expect(receiver.received.map((r) => r.path)).toEqual(['/rowsmith']);
    await clickButton(/^Deliveries$/);
    await page.waitForSelector('table[aria-label^="Deliveries of"] tbody tr');
    await shot('webhooks');
  }, STEP_MS);

  test('creates an API key (its value shown once) and revokes it', async () => {
    await page.goto(`${server.url}/#/keys`);
    await page.waitForSelector('input[name="key-name"]');
    await page.type('input[name="key-name"]', 'Reporting');
    await page.select('select[name="key-role"]', 'read');
    await clickButton(/^Create key$/);
    await waitForText('[role="status"]', /New key \(shown once/);
    const value = (await text('[role="status"] code')).trim();
    expect((await api('/v1/me', { headers: { authorization: `ApiKey ${value}` } })).status).toBe(200);
    await clickButton(/^Revoke Reporting/);
    await waitForText('table[aria-label="API keys"]', /revoked/);
    await shot('api-keys');
    expect((await api('/v1/me', { headers: { authorization: `ApiKey ${value}` } })).status).toBe(401);
  }, STEP_MS);

  test('pasted text is extracted, its batch offers downloads, and its row is deleted from the grid', async () => {
    await page.goto(`${server.url}/#/tables/${tableId}/extract`);
    await page.waitForSelector('textarea[name="text"]');
    await page.type('textarea[name="text"]', 'SKU: D-500\nProduct Name: Oak stool\nPrice: 45.00\nCategory: Home\n');
    await clickButton(/^Extract text$/);
    await waitForText('[role="status"]', /Batch complete: 1 rows/);
    expect(await text('.file-progress')).toContain('text.txt: done, 1 rows');

    await page.goto(`${server.url}/#/tables/${tableId}/batches`);
    await page.waitForFunction(() => document.querySelectorAll('table.list tbody tr').length === 2);
    const batchId = await page.$eval('table.list tbody tr code', (el) => (el as { innerText: string }).innerText);
    // Each batch names its files, with their status and rows.
    expect(await text(`tr[data-batch-id="${batchId}"] .batch-files`)).toBe('text.txt: complete, 1 rows');
    expect(await text('table.list tbody tr:nth-child(2) .batch-files')).toMatch(/prices\.pdf: complete, 2 rows\s+prices\.csv: complete, 3 rows|prices\.csv: complete, 3 rows\s+prices\.pdf: complete, 2 rows/);
    await clickButton(new RegExp(`^Download batch ${batchId} as JSON$`));
    for (let i = 0; i < 100 && !readdirSync(downloads).includes(`${batchId}.json`); i++) await Bun.sleep(50);
    expect(readdirSync(downloads).some((f) => f.startsWith(batchId))).toBe(true);
    await shot('batches');

    // The pasted row is selected in the grid and deleted.
    await page.goto(`${server.url}/#/tables/${tableId}/rows`);
    await page.waitForFunction(() => [...document.querySelectorAll('[role="grid"] [data-row-id]')].some((r) => r.innerText.includes('Oak stool')));
    const stoolRow = await page.$$eval('[role="grid"] [data-row-id]', (rows) => rows.findIndex((r) => (r as { innerText: string }).innerText.includes('Oak stool')));
    await page.click(`input[aria-label="Select row ${stoolRow + 1}"]`);
    await clickButton(/^Delete selected \(1\)$/);
    await waitForText('[role="status"]', /Deleted 1 row/);
    const rows = (await (await api(`/v1/projects/proj_default/tables/${tableId}/rows?q=stool`)).json()) as { rows: unknown[] };
    expect(rows.rows).toEqual([]);
  }, STEP_MS);

  test('columns reorder from the keyboard', async () => {
    await page.goto(`${server.url}/#/tables/${tableId}/columns`);
    await page.waitForSelector('form[aria-label="Column SKU"]');
    await page.focus('button[aria-label="Move SKU down"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.column-list li form')?.getAttribute('aria-label') === 'Column Product Name');
    const table = (await (await api(`/v1/projects/proj_default/tables/${tableId}`)).json()) as { columns_json: { id: string }[] };
    expect(table.columns_json.slice(0, 2).map((c) => c.id)).toEqual(['product_name', 'sku']);
  }, STEP_MS);

  test('creates a table from a pasted sample, deletes it, undoes the delete and duplicates it', async () => {
    await page.goto(`${server.url}/#/tables`);
    await clickButton(/^New table$/);
    await page.click('input[name="source"][value="sample"]');
    await page.waitForSelector('.sample textarea');
    await page.type('.sample textarea', 'Order,Placed,Total\nR-1,2024-03-01,$12.50\nR-2,2024-03-02,$8.00\nR-3,2024-03-05,$30.25\n');
    await clickButton(/^Suggest columns$/);
    await page.waitForFunction(() => document.querySelectorAll('.draft-column').length === 3);
    const types = await page.$$eval('.draft-column select', (selects) => selects.map((s) => (s as { value: string }).value));
    expect(types).toEqual(['string', 'date', 'currency']);
    await page.type('input[name="table-name"]', 'Orders from sample');
    await shot('create-from-sample');
    await clickButton(/^Create table$/);
    await page.waitForFunction(() => /#\/tables\/tbl_/.test(location.hash));

    await page.goto(`${server.url}/#/tables`);
    await clickButton(/^Delete Orders from sample$/);
    await waitForText('[role="status"]', /restored for 72 hours/);
    await page.waitForFunction(() => ![...document.querySelectorAll('table.list a')].some((a) => a.textContent === 'Orders from sample'));
    await clickButton(/^Undo$/);
    await page.waitForFunction(() => [...document.querySelectorAll('table.list a')].some((a) => a.textContent === 'Orders from sample'));

    page.once('dialog', (dialog) => void dialog.accept('Orders copy'));
    await clickButton(/^Duplicate Orders from sample$/);
    await page.waitForFunction(() => [...document.querySelectorAll('table.list a')].some((a) => a.textContent === 'Orders copy'));
  }, STEP_MS);

  test('works at phone width in the dark scheme', async () => {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(`${server.url}/#/tables`);
    await page.waitForSelector('table.list');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgb(255, 255, 255)');
    await shot('tables-phone-dark');
  }, STEP_MS);

  test('nothing was fetched from another host, and the page threw nothing', () => {
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
