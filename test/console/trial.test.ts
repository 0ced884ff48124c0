/**
 * The console fixes the trial asked for, in Chromium against a child rowsmith: a table's
 * strictness, insert mode and merge columns set in the console; the batches list with each file's
 * status and error and downloads only where there are rows; errors beside the field they concern.
 * (A saved cell keeping the grid's focus is in console.test.ts, with the other grid edits.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CHROMIUM, ConsoleHarness, PROJECT, STEP_MS } from './harness';

declare const document: any;

type TableBody = { strictness: string; insert_mode: string; merge_columns_json: string[] | null; columns_json: { id: string }[] };

describe.skipIf(!CHROMIUM)('console fixes from the trial', () => {
  const h = new ConsoleHarness();
  let tableId = '';

  beforeAll(async () => {
    await h.start();
    await h.signIn();
    tableId = (
      await h.createTable({
        name: 'Spare parts',
        columns_json: [
          { id: 'part_no', name: 'Part No', type: 'string' },
          { id: 'label', name: 'Label', type: 'string' },
          { id: 'price', name: 'Price', type: 'number' },
        ],
      })
    ).id;
  }, STEP_MS);
  afterAll(() => h.stop());

  const selectValue = (selector: string) => h.page.$eval(selector, (el) => (el as { value: string }).value);

  test('strictness, insert mode and merge columns are set in the table settings', async () => {
    await h.go(`#/tables/${tableId}/settings`);
    await h.page.waitForSelector('form[aria-label="Table settings"]');
    expect(await selectValue('select[name="strictness"]')).toBe('balanced');
    expect(await selectValue('select[name="insert-mode"]')).toBe('append');
    await h.page.select('select[name="strictness"]', 'strict');
    await h.page.select('select[name="insert-mode"]', 'merge');
    await h.page.click('input[name="merge-column"][value="part_no"]');
    await h.clickButton(/^Save settings$/);
    await h.waitForText('[role="status"]', /Settings saved/);
    const stored = await h.json<TableBody>(`/v1/projects/${PROJECT}/tables/${tableId}`);
    expect(stored).toMatchObject({ strictness: 'strict', insert_mode: 'merge', merge_columns_json: ['part_no'] });

    // A fresh page shows what is stored.
    await h.page.reload();
    await h.page.waitForSelector('form[aria-label="Table settings"]');
    expect(await selectValue('select[name="strictness"]')).toBe('strict');
    expect(await selectValue('select[name="insert-mode"]')).toBe('merge');
    expect(await h.page.$eval('input[name="merge-column"][value="part_no"]', (el) => (el as { checked: boolean }).checked)).toBe(true);
    expect(await h.page.$eval('input[name="merge-column"][value="label"]', (el) => (el as { checked: boolean }).checked)).toBe(false);

    // The merge columns decide which rows an extraction updates: the second file updates the first's row.
    await h.extract(tableId, [{ name: 'parts-1.csv', type: 'text/csv', bytes: 'Part No,Label,Price\nP-17,Hinge,4.10\n' }]);
    await h.extract(tableId, [{ name: 'parts-2.csv', type: 'text/csv', bytes: 'Part No,Label,Price\nP-17,Hinge,4.60\n' }]);
    const rows = await h.json<{ rows: { part_no: string; price: number }[] }>(`/v1/projects/${PROJECT}/tables/${tableId}/rows`);
    expect(rows.rows.map((r) => [r.part_no, r.price])).toEqual([['P-17', 4.6]]);
  }, STEP_MS);

  test("a merge column removed meanwhile is refused, the message beside the merge columns", async () => {
    await h.go(`#/tables/${tableId}/settings`);
    await h.page.waitForSelector('input[name="merge-column"][value="label"]');
    await h.page.click('input[name="merge-column"][value="label"]');
    // Another client removes that column before the form is saved.
    expect((await h.api(`/v1/projects/${PROJECT}/tables/${tableId}/columns/label`, { method: 'DELETE' })).status).toBe(200);
    await h.clickButton(/^Save settings$/);
    await h.page.waitForSelector('.settings fieldset .field-error');
    expect(await h.text('.settings fieldset .field-error')).toContain('no column "label"');
    expect(await h.text('form[aria-label="Table settings"] p.alert')).toMatch(/Not saved: a field needs a fix/);
    const stored = await h.json<TableBody>(`/v1/projects/${PROJECT}/tables/${tableId}`);
    expect(stored.merge_columns_json).toEqual(['part_no']);
  }, STEP_MS);

  test("the batches list shows each file's status and error, and downloads only where there are rows", async () => {
    const partial = await h.extract(tableId, [
      { name: 'parts-3.csv', type: 'text/csv', bytes: 'Part No,Label,Price\nP-18,Bracket,2.20\n' },
      { name: 'scan-broken.pdf', type: 'application/pdf', bytes: 'this is not a pdf' },
    ]);
    const empty = await h.extract(tableId, [{ name: 'only-broken.pdf', type: 'application/pdf', bytes: 'still not a pdf' }]);
    await h.go(`#/tables/${tableId}/batches`);
    await h.page.waitForSelector(`tr[data-batch-id="${empty.batch_id}"] .batch-files li`);

    const files = (batch: string) =>
      h.page.$$eval(`tr[data-batch-id="${batch}"] .batch-files li`, (items) => items.map((li) => ({ file: li.getAttribute('data-file'), text: (li as { innerText: string }).innerText, failed: li.classList.contains('failed') })));
    const partialFiles = await files(partial.batch_id);
    expect(partialFiles.map((f) => f.file)).toEqual(['parts-3.csv', 'scan-broken.pdf']);
    expect(partialFiles[0]!.text).toContain('complete, 1 rows');
    expect(partialFiles[1]!.failed).toBe(true);
    expect(partialFiles[1]!.text).toMatch(/failed.*—\s*\S+/);
    const emptyFiles = await files(empty.batch_id);
    expect(emptyFiles.map((f) => f.file)).toEqual(['only-broken.pdf']);
    expect(emptyFiles[0]!.failed).toBe(true);

    const downloads = (batch: string) => h.page.$$eval(`tr[data-batch-id="${batch}"] button[aria-label^="Download batch"]`, (buttons) => buttons.length);
    expect(await downloads(partial.batch_id)).toBe(3);
    expect(await downloads(empty.batch_id)).toBe(0);
    expect(await h.text(`tr[data-batch-id="${empty.batch_id}"] td:last-child`)).toBe('no rows');
  }, STEP_MS);

  test("a new table's bad column name is shown beside that column", async () => {
    await h.go('#/tables');
    await h.clickButton(/^New table$/);
    await h.page.click('input[name="source"][value="scratch"]');
    await h.page.type('input[name="table-name"]', 'Weights');
    await h.page.type('.draft-column[data-index="0"] input', 'Net/Gross');
    await h.clickButton(/^Create table$/);
    await h.page.waitForSelector('.draft-column[data-index="0"] .field-error');
    expect(await h.text('.draft-column[data-index="0"] .field-error')).toMatch(/letters, digits/);
    expect(await h.text('form[aria-label="New table"] p.alert')).toMatch(/Not saved: a field needs a fix/);
    // The banner no longer repeats the message that stands beside the field.
    expect(await h.text('form[aria-label="New table"] p.alert')).not.toContain('letters, digits');
  }, STEP_MS);

  test("a webhook's refused URL is shown beside the URL field", async () => {
    await h.go('#/webhooks');
    await h.page.waitForSelector('input[name="webhook-url"]');
    await h.page.focus('input[name="webhook-url"]');
    await h.page.$eval('input[name="webhook-url"]', (el) => (el as { select(): void }).select());
    await h.page.keyboard.type('http://hooks.example.test/in');
    await h.clickButton(/^Create webhook$/);
    await h.page.waitForSelector('form[aria-label="New webhook"] .field-error');
    const besideUrl = await h.page.evaluate(() => {
      const input = document.querySelector('input[name="webhook-url"]');
      return input.closest('.field').querySelector('.field-error')?.innerText ?? null;
    });
    expect(besideUrl).toMatch(/https/i);
  }, STEP_MS);

  test('nothing was fetched from another host, and the page threw nothing', () => {
    expect(h.foreignRequests).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});
