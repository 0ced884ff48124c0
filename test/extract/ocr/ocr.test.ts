/**
 * OCR end to end on documents drawn in the test: an invoice with a ruled table read back upright,
 * turned 90 and 180 degrees, from a two-page TIFF and from an image-only PDF; noise, a huge image.
 * Few and small: each page costs the recogniser about a second.
 */
import { loadImage } from '@napi-rs/canvas';
import { afterAll, describe, expect, test } from 'bun:test';
import { UnreadableDocument } from '../../../src/extract/document';
import type { Page } from '../../../src/extract/layout/page';
import { closeOcr, configureOcr, ocrPages } from '../../../src/extract/ocr';
import { readImage, readScannedPdf } from '../../../src/extract/readers/image';
import { DRAW_DPI, drawInvoice, greyPixels, INVOICE_ROWS, pngHeader, scannedPdf, tiff } from './draw';

configureOcr({ languages: ['eng'], workers: 1, pageTimeoutMs: 60_000 });
afterAll(closeOcr);

const doc = (bytes: Uint8Array, name = 'scan') => ({ name, contentType: 'application/octet-stream', bytes });
const words = (page: Page) => page.words.map((w) => w.text);

function expectInvoiceWords(page: Page): void {
  const seen = words(page).join(' ');
  for (const expected of ['INVOICE', 'A-1042', '2024-03-15', 'Item', 'Qty', 'Price', ...INVOICE_ROWS.flat(), '131.00']) expect(seen).toContain(expected);
}

/** Every drawn word found within a few points of where it was drawn. */
function expectBoxesWhereDrawn(page: Page, drawn: ReturnType<typeof drawInvoice>): void {
  for (const name of ['INVOICE', 'Hammer', 'Ladder', '89.00', 'Price']) {
    const word = page.words.find((w) => w.text === name);
    expect(word).toBeDefined();
    const at = drawn.boxes.get(name)!;
    expect(Math.abs(word!.x0 - at.x0)).toBeLessThan(4);
    expect(Math.abs(word!.y0 - at.y0)).toBeLessThan(4);
    expect(word!.confidence!).toBeGreaterThan(0.6);
    expect(word!.size).toBeGreaterThan(8);
  }
}

describe('OCR of drawn documents', () => {
  test('an invoice image reads back as its words, table and fields', async () => {
    const reading = await readImage(doc(drawInvoice().png));
    expect(reading.text).toContain('A-1042');
    const table = reading.tables.find((t) => t.grid.some((row) => row.some((c) => String(c).includes('Screwdriver'))));
    expect(table).toBeDefined();
    const flat = table!.grid.map((row) => row.map((c) => String(c).trim()));
    for (const row of INVOICE_ROWS) expect(flat).toContainEqual(expect.arrayContaining(row));
  }, 60_000);

  test('pages turned 90 and 180 degrees are turned back and read', async () => {
    for (const quarters of [1, 2]) {
      const { pages, notes } = await ocrPages('image', drawInvoice(quarters).png, 1);
      expectInvoiceWords(pages[0]!);
      expect(notes.join(' ')).toContain('turned');
    }
  }, 90_000);

  test('every page of a TIFF is read, boxes in points where the words were drawn', async () => {
    const drawn = drawInvoice();
    const invoice = await loadImage(Buffer.from(drawn.png));
    const invoicePixels = greyPixels(drawn.width, drawn.height, (g) => g.drawImage(invoice, 0, 0));
    const second = greyPixels(600, 200, (g) => {
      g.font = '30px sans-serif';
      g.fillText('Second page: Remittance', 40, 100);
    });
    const { pages } = await ocrPages('image', tiff([{ width: drawn.width, height: drawn.height, grey: invoicePixels }, { width: 600, height: 200, grey: second }]), 2);
    expect(pages.map((p) => p.number)).toEqual([1, 2]);
    expectInvoiceWords(pages[0]!);
    expectBoxesWhereDrawn(pages[0]!, drawn);
    expect(pages[0]!.width).toBeCloseTo((drawn.width * 72) / DRAW_DPI, 0);
    expect(words(pages[1]!)).toContain('Remittance');
  }, 90_000);

  test('a scanned PDF is rendered and read, reporting progress per page', async () => {
    const drawn = drawInvoice();
    const progress: string[] = [];
    const reading = await readScannedPdf(doc(await scannedPdf(drawn)), (done, total) => progress.push(`${done}/${total}`));
    expect(progress).toEqual(['1/1']);
    expect(reading.text).toContain('Screwdriver');
    const { pages } = await ocrPages('pdf', await scannedPdf(drawn), 1);
    expectBoxesWhereDrawn(pages[0]!, drawn);
    // Boxes of a rendered PDF page are in the page's own points.
    expect(pages[0]!.width).toBeCloseTo((drawn.width * 72) / DRAW_DPI, 0);
  }, 90_000);

  test('noise is unreadable with a reason, not a crash', async () => {
    let seed = 7;
    const noise = new Uint8Array(400 * 300).map(() => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed >> 23;
    });
    const error = await readImage(doc(tiff([{ width: 400, height: 300, grey: noise }]))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocument);
    expect((error as Error).message).toContain('no text was recognised');
  }, 60_000);

  test('pages queue fairly: a one-page scan sent during a long one is not kept waiting to the end', async () => {
    const line = (text: string) => ({ width: 500, height: 120, grey: greyPixels(500, 120, (g) => {
      g.font = '32px sans-serif';
      g.fillText(text, 30, 70);
    }) });
    const finished: string[] = [];
    const long = ocrPages('image', tiff([line('First page'), line('Second page'), line('Third page')]), 3, (done) => finished.push(`long ${done}`));
    const short = ocrPages('image', tiff([line('Urgent note')]), 1, (done) => finished.push(`short ${done}`));
    const [, quick] = await Promise.all([long, short]);
    expect(words(quick.pages[0]!)).toContain('Urgent');
    expect(finished.indexOf('short 1')).toBeLessThan(finished.indexOf('long 3'));
  }, 60_000);

  test('a page over its time limit is skipped with a reason, and the next read works', async () => {
    configureOcr({ languages: ['eng'], workers: 1, pageTimeoutMs: 1 });
    const error = await readImage(doc(drawInvoice().png)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocument);
    expect((error as Error).message).toContain('took longer than');
    configureOcr({ languages: ['eng'], workers: 1, pageTimeoutMs: 60_000 });
    expect((await readImage(doc(drawInvoice().png))).text).toContain('Ladder');
  }, 60_000);

  test('a damaged image is unreadable, saying the page could not be read', async () => {
    const error = await readImage(doc(pngHeader(300, 200))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocument);
    expect((error as Error).message).toContain('page 1 could not be read');
  }, 30_000);

  test('a 20000 x 20000 image is refused from its header, before decoding', async () => {
    const error = await readImage(doc(pngHeader(20_000, 20_000))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocument);
    expect((error as Error).message).toContain('20000 x 20000 pixels');
  });
});
