/**
 * The review view in Chromium against a child rowsmith: invoices made in the test are extracted,
 * a batch is opened for review, its page is shown with the boxes of the words each field came
 * from, a field is fixed with the keyboard, and the fix is listed as an example and measured.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { makePdf } from '../extract/layout/pdf-fixtures';
import { CHROMIUM, ConsoleHarness, PROJECT, STEP_MS } from './harness';

declare const document: any, location: any;

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;

/** A made-up supplier's two-page invoice: its order number is printed beside its invoice number. */
function invoice(values: { number: string; order: string; date: string; total: string }) {
  return makePdf([
    (d) => {
      d.text('Bramblewood Tools Ltd', 50, 40, { size: 16, bold: true });
      d.text('12 Fernhill Road, Oakbury', 50, 62);
      d.text('INVOICE', 400, 40, { size: 18, bold: true });
      d.text('Invoice No.', 400, 80);
      d.text(values.number, 480, 80);
      d.text('Date', 400, 96);
      d.text(values.date, 480, 96);
      d.text('Order', 400, 112);
      d.text(values.order, 480, 112);
      d.text('Description', 50, 180, { bold: true });
      d.text('Amount', 480, 180, { bold: true });
      d.line(50, 194, 560, 194);
      d.text('Garden shears', 50, 202);
      d.text('Hedge trimmer', 50, 220);
      d.line(50, 240, 560, 240);
      d.text('Total', 400, 250, { bold: true });
      d.text(values.total, 480, 250, { bold: true });
    },
    (d) => d.text('Terms: payment within 30 days.', 50, 40),
  ]);
}

type Row = Record<string, unknown> & { id: string; updated_at: number; confidence: number | null };

describe.skipIf(!CHROMIUM)('review view in Chromium', () => {
  const h = new ConsoleHarness();
  let tableId = '';
  let firstBatch = '';
  let secondBatch = '';
  let firstRow: Row;
  let secondRow: Row;
  const rowsPath = () => `/v1/projects/${PROJECT}/tables/${tableId}/rows`;
  const examplesPath = () => `/v1/projects/${PROJECT}/tables/${tableId}/examples`;

  beforeAll(async () => {
    await h.start();
    await h.signIn();
    tableId = (
      await h.createTable({
        name: 'Supplier invoices',
        columns_json: [
          { id: 'invoice_number', name: 'Invoice Number', type: 'string' },
          { id: 'invoice_date', name: 'Invoice Date', type: 'date' },
          { id: 'seller', name: 'Seller', type: 'string' },
          { id: 'total', name: 'Total', type: 'number' },
          { id: 'contact', name: 'Contact', type: 'email' },
        ],
      })
    ).id;
    const pdf = (name: string, bytes: Uint8Array) => ({ name, type: 'application/pdf', bytes });
    firstBatch = (await h.extract(tableId, [pdf('invoice-0001.pdf', await invoice({ number: 'INV-2041', order: 'PO-7781', date: '2025-03-14', total: '1,234.50' }))])).batch_id;
    secondBatch = (await h.extract(tableId, [pdf('invoice-0002.pdf', await invoice({ number: 'INV-2077', order: 'PO-7802', date: '2025-04-11', total: '318.20' }))])).batch_id;
    const rowOf = async (batch: string) => (await h.json<{ rows: Row[] }>(`${rowsPath()}?filter=batch_id.eq.${batch}`)).rows[0]!;
    firstRow = await rowOf(firstBatch);
    secondRow = await rowOf(secondBatch);
    expect(firstRow.invoice_number).toBe('INV-2041');
  }, STEP_MS);
  afterAll(() => h.stop());

  const field = (column: string) => `.review-field[data-column="${column}"]`;
  const pageImageLoaded = () => h.page.waitForFunction(() => {
    const img = document.querySelector('.page-sheet img');
    return img && img.complete && img.naturalWidth > 0;
  });
  /** Waits for the selected row's fields and page: a click earlier could land where the layout was. */
  const reviewReady = async (rowId: string, file: string) => {
    await h.page.waitForSelector(`.review-queue [aria-current="true"][data-row-id="${rowId}"]`);
    await h.waitForText('.review-file', new RegExp(`^${file.replace('.', '\\.')}$`));
    await pageImageLoaded();
  };
  /** Enter on a field, the new text, Enter: the whole fix. */
  const fix = async (column: string, name: string, value: string) => {
    await h.page.focus(field(column));
    await h.page.keyboard.press('Enter');
    await h.page.waitForSelector(`input[aria-label="Edit ${name}"]`);
    await h.page.keyboard.type(value);
    await h.page.keyboard.press('Enter');
  };

  test("a batch's review shows its page with the boxes of the words each field came from", async () => {
    await h.go(`#/tables/${tableId}/batches`);
    await h.clickButton(new RegExp(`^Review batch ${firstBatch}$`));
    await h.page.waitForFunction((b) => location.hash.endsWith(`/review/${b}`), {}, firstBatch);
    await h.page.waitForSelector('.review-queue [data-row-id]');
    expect(await h.page.$$eval('.review-queue [data-row-id]', (items) => items.map((i) => i.getAttribute('data-row-id')))).toEqual([firstRow.id]);

    await pageImageLoaded();
    const natural = await h.page.$eval('.page-sheet img', (img) => [(img as { naturalWidth: number }).naturalWidth, (img as { naturalHeight: number }).naturalHeight]);
    expect(natural[0]! / natural[1]!).toBeCloseTo(PAGE_WIDTH / PAGE_HEIGHT, 2);

    // The total's box sits where the PDF printed it (x 480, top 250 on a 612 x 792 page).
    await h.page.waitForSelector('.page-sheet .box[data-column="total"]');
    const place = await h.page.evaluate(() => {
      const sheet = document.querySelector('.page-sheet').getBoundingClientRect();
      const box = document.querySelector('.box[data-column="total"]').getBoundingClientRect();
      return { left: (box.left - sheet.left) / sheet.width, top: (box.top - sheet.top) / sheet.height, width: box.width / sheet.width };
    });
    expect(place.left).toBeGreaterThan(470 / PAGE_WIDTH);
    expect(place.left).toBeLessThan(490 / PAGE_WIDTH);
    expect(place.top).toBeGreaterThan(240 / PAGE_HEIGHT);
    expect(place.top).toBeLessThan(262 / PAGE_HEIGHT);
    expect(place.width).toBeGreaterThan(0);
    expect(await h.page.$$eval('.page-sheet .box', (boxes) => boxes.map((b) => b.getAttribute('data-column')).sort())).toEqual(expect.arrayContaining(['invoice_number', 'total']));

    // The focused field's box is the highlighted one.
    await h.page.focus(field('total'));
    await h.page.waitForSelector('.box.focused[data-column="total"]');
    expect(await h.page.$$eval('.box.focused', (boxes) => boxes.length)).toBe(1);

    // Two pages: a switcher; a field on page 1 brings page 1 back.
    await h.clickButton(/^Page 2$/, 'nav[aria-label="Pages"]');
    await h.page.waitForSelector('.page-sheet[data-page="2"]');
    await pageImageLoaded();
    expect(await h.page.$$eval('.page-sheet .box', (boxes) => boxes.length)).toBe(0);
    await h.page.focus(field('invoice_number'));
    await h.page.waitForSelector('.page-sheet[data-page="1"] .box.focused[data-column="invoice_number"]');
    await pageImageLoaded();
    await h.page.focus(field('total'));
    await h.page.waitForSelector('.box.focused[data-column="total"]');
    await h.shot('review');
  }, STEP_MS);

  test("the table's review lists every row, least confident first, and the arrow keys walk it", async () => {
    await h.go(`#/tables/${tableId}/rows`);
    await h.page.waitForSelector('[role="grid"] [data-row-id]');
    await h.clickButton(/^Review$/, 'nav.tabs');
    await h.page.waitForFunction(() => document.querySelectorAll('.review-queue [data-row-id]').length === 2);
    const listed = await h.page.$$eval('.review-queue [data-row-id]', (items) => items.map((i) => i.getAttribute('data-row-id')));
    expect([...listed].sort()).toEqual([firstRow.id, secondRow.id].sort());
    const stored = await h.json<{ rows: Row[] }>(`${rowsPath()}?order=confidence.asc`);
    expect(listed).toEqual(stored.rows.map((r) => r.id));
    await h.page.focus('.review-queue [data-row-id]');
    await h.page.keyboard.press('ArrowDown');
    await h.page.waitForFunction((id) => document.querySelector('.review-queue [aria-current="true"]')?.getAttribute('data-row-id') === id, {}, listed[1]);
    expect(await h.focusedAttribute('data-row-id')).toBe(listed[1]!);
  }, STEP_MS);

  test('a fix is one keyboard edit; it becomes an example, and the accuracy is measured from it', async () => {
    await h.go(`#/tables/${tableId}/review/${firstBatch}`);
    await reviewReady(firstRow.id, 'invoice-0001.pdf');
    await h.clickButton(/^Measure$/);
    await h.waitForText('.accuracy [role="status"]', /No corrected documents yet/);
    expect(await h.text('.examples')).toContain('No examples yet');

    // The person reads the order number as the invoice's number.
    await fix('invoice_number', 'Invoice Number', 'PO-7781');
    await h.waitForText('.review-fields [role="status"]', /Saved Invoice Number/);
    expect(await h.focusedAttribute('data-column')).toBe('invoice_number');
    const stored = await h.json<Row>(`${rowsPath()}/${firstRow.id}`);
    expect(stored).toMatchObject({ invoice_number: 'PO-7781', confidence: 1 });

    await h.waitForText('.example-list li', /invoice-0001\.pdf/);
    const listed = await h.text('.example-list li');
    expect(listed).toContain('PO-7781');
    expect(listed).toMatch(/PO-7781\s*corrected/);
    expect((await h.json<{ examples: unknown[] }>(examplesPath())).examples).toHaveLength(1);

    await h.clickButton(/^Measure$/);
    await h.page.waitForSelector('.accuracy [data-f1]:not([data-f1="none"])');
    const f1 = Number(await h.page.$eval('.accuracy [data-f1]', (el) => el.getAttribute('data-f1')));
    expect(f1).toBeGreaterThanOrEqual(0);
    expect(f1).toBeLessThanOrEqual(1);
    expect(await h.text('.accuracy [role="status"]')).toMatch(/F1 \d+\.\d% · precision \d+\.\d% · recall \d+\.\d% over 1 document/);
    expect(await h.text('table[aria-label="Accuracy per column"]')).toContain('Invoice Number');
    // Read again without what it taught itself, the document gives its printed invoice number.
    expect(await h.text('ol[aria-label="Worst documents"]')).toMatch(/invoice-0001\.pdf.*wrong: .*Invoice Number/);

    // The same issuer's next invoice, corrected the same way in the table's review, teaches the first: the score moves.
    await h.clickButton(/^Review every row of the table$/);
    await h.page.waitForFunction(() => document.querySelectorAll('.review-queue [data-row-id]').length === 2);
    await h.page.click(`.review-queue [data-row-id="${secondRow.id}"]`);
    await h.page.waitForFunction((id) => document.querySelector('.review-queue [aria-current="true"]')?.getAttribute('data-row-id') === id, {}, secondRow.id);
    await reviewReady(secondRow.id, 'invoice-0002.pdf');
    await fix('invoice_number', 'Invoice Number', 'PO-7802');
    await h.waitForText('.review-fields [role="status"]', /Saved Invoice Number/);
    await h.page.waitForFunction(() => document.querySelectorAll('.example-list li').length === 2);
    await h.clickButton(/^Measure$/);
    await h.waitForText('.accuracy [role="status"]', /over 2 document/);
    const after = Number(await h.page.$eval('.accuracy [data-f1]', (el) => el.getAttribute('data-f1')));
    expect(after).not.toBe(f1);
    expect(await h.text('.accuracy [role="status"]')).toMatch(/\(was \d+\.\d%\)/);
    await h.page.$eval('.review-panels', (el) => el.scrollIntoView());
    await h.shot('examples-accuracy');
  }, STEP_MS);

  test('a 409 or a 400 stands beside the field it concerns', async () => {
    await h.go(`#/tables/${tableId}/review/${firstBatch}`);
    await reviewReady(firstRow.id, 'invoice-0001.pdf');
    // Another client changes the row after the review loaded it.
    const current = await h.json<Row>(`${rowsPath()}/${firstRow.id}`);
    await h.json(`${rowsPath()}/${firstRow.id}`, { method: 'PATCH', body: JSON.stringify({ seller: 'Bramblewood Tools Limited' }), headers: { 'if-match': `"${current.id}.${current.updated_at}"` } });
    await fix('total', 'Total', '1300');
    await h.waitForText(`${field('total')} .field-error`, /409 conflict/);
    expect((await h.json<Row>(`${rowsPath()}/${firstRow.id}`)).total).toBe(1234.5);
    await h.clickButton(/^Reload the row$/, field('total'));
    await h.page.waitForFunction((s) => !document.querySelector(`${s} .field-error`), {}, field('total'));
    expect(await h.text(field('seller'))).toContain('Bramblewood Tools Limited');

    await fix('contact', 'Contact', 'accounts at bramblewood');
    await h.waitForText(`${field('contact')} .field-error`, /email/);
    expect(await h.page.$$eval('.review-field .field-error', (errors) => errors.length)).toBe(1);
    expect((await h.json<Row>(`${rowsPath()}/${firstRow.id}`)).contact).toBeNull();
  }, STEP_MS);

  test('examples are removed one at a time or all at once', async () => {
    await h.go(`#/tables/${tableId}/review`);
    await h.page.reload();
    await h.page.waitForFunction(() => document.querySelectorAll('.example-list li').length === 2);
    await h.page.waitForFunction(() => document.querySelectorAll('.review-queue [data-row-id]').length === 2);
    await pageImageLoaded();
    await h.clickButton(/^Remove the example of invoice-0002\.pdf$/);
    await h.page.waitForFunction(() => document.querySelectorAll('.example-list li').length === 1);
    const left = (await h.json<{ examples: { file_name: string }[] }>(examplesPath())).examples;
    expect(left.map((e) => e.file_name)).toEqual(['invoice-0001.pdf']);

    h.page.once('dialog', (dialog) => void dialog.accept());
    await h.clickButton(/^Remove all$/);
    await h.waitForText('.examples [role="status"]', /Removed 1 example/);
    expect(await h.text('.examples')).toContain('No examples yet');
    expect((await h.json<{ examples: unknown[] }>(examplesPath())).examples).toEqual([]);
    await h.clickButton(/^Measure$/);
    await h.waitForText('.accuracy [role="status"]', /No corrected documents yet/);
  }, STEP_MS);

  test('nothing was fetched from another host, and the page threw nothing', () => {
    expect(h.foreignRequests).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});
