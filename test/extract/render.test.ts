import { describe, expect, test } from 'bun:test';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { degrees, rgb } from 'pdf-lib';
import { getDocumentProxy } from 'unpdf';
import { UnreadableDocument } from '../../src/extract/document';
import type { Box, Page } from '../../src/extract/layout/page';
import { pdfPage } from '../../src/extract/layout/pdf-page';
import { ImageTooLarge } from '../../src/extract/ocr/rasterise';
import { renderPage } from '../../src/extract/render';
import { makePdf, type Drawing } from './layout/pdf-fixtures';
import { DRAW_DPI, drawInvoice, greyPixels, pngHeader, scannedPdf, tiff } from './ocr/draw';

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface Pixels {
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

async function decode(png: Uint8Array): Promise<Pixels> {
  expect(Array.from(png.subarray(0, 8))).toEqual(PNG_MAGIC);
  const image = await loadImage(Buffer.from(png));
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return { width: image.width, height: image.height, rgba: canvas.getContext('2d').getImageData(0, 0, image.width, image.height).data };
}

/** Share of the pixels in a box (pixel coordinates) darker than `level` (dark ink by default; a thin rule shrunk is grey). */
function ink(pixels: Pixels, box: Box, level = 100): number {
  let dark = 0;
  let all = 0;
  for (let y = Math.max(0, Math.floor(box.y0)); y < Math.min(pixels.height, Math.ceil(box.y1)); y++) {
    for (let x = Math.max(0, Math.floor(box.x0)); x < Math.min(pixels.width, Math.ceil(box.x1)); x++) {
      const at = (y * pixels.width + x) * 4;
      if (pixels.rgba[at]! + pixels.rgba[at + 1]! + pixels.rgba[at + 2]! < 3 * level) dark++;
      all++;
    }
  }
  return all ? dark / all : 0;
}

function pixel(pixels: Pixels, x: number, y: number): number[] {
  const at = (Math.round(y) * pixels.width + Math.round(x)) * 4;
  return Array.from(pixels.rgba.subarray(at, at + 4));
}

/** A box of the page model in pixels of a PNG that shows the whole page. */
const toPixels = (box: Box, page: Page, pixels: Pixels): Box => ({
  x0: (box.x0 / page.width) * pixels.width,
  x1: (box.x1 / page.width) * pixels.width,
  y0: (box.y0 / page.height) * pixels.height,
  y1: (box.y1 / page.height) * pixels.height,
});

/** The box turned half round the page: where a word would land in an image upside down or mirrored both ways. */
const opposite = (box: Box, page: Page): Box => ({ x0: page.width - box.x1, x1: page.width - box.x0, y0: page.height - box.y1, y1: page.height - box.y0 });

async function pageModel(bytes: Uint8Array, number = 1): Promise<Page> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 } as Parameters<typeof getDocumentProxy>[1]);
  try {
    return await pdfPage(pdf, number);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** Renders a page and checks it against the page model: same aspect, and ink under the word's box but not opposite it. */
async function expectInkOnWord(bytes: Uint8Array, word: string, number = 1, maxSide?: number): Promise<{ pixels: Pixels; page: Page }> {
  const rendered = await renderPage(bytes, 'pdf', number, maxSide);
  const pixels = await decode(rendered.png);
  expect([pixels.width, pixels.height]).toEqual([rendered.width, rendered.height]);
  const page = await pageModel(bytes, number);
  expect(rendered.width / rendered.height).toBeCloseTo(page.width / page.height, 2);
  const box = page.words.find((w) => w.text === word);
  expect(box).toBeDefined();
  expect(ink(pixels, toPixels(box!, page, pixels))).toBeGreaterThan(0.1);
  expect(ink(pixels, toPixels(opposite(box!, page), page, pixels))).toBe(0);
  return { pixels, page };
}

describe('PDF pages', () => {
  test('a portrait page: a PNG of its shape, long side 1600, text where the page model has it, colours kept', async () => {
    const bytes = await makePdf([
      (d) => {
        d.text('Quarterly', 60, 60, { size: 36 });
        // A red square at x 400..500, y 592..692 from the top.
        d.page.drawRectangle({ x: 400, y: 100, width: 100, height: 100, color: rgb(0.9, 0.1, 0.1) });
      },
    ]);
    const rendered = await renderPage(bytes, 'pdf', 1);
    expect(rendered).toMatchObject({ width: 1236, height: 1600, pageCount: 1 });
    const { pixels } = await expectInkOnWord(bytes, 'Quarterly');
    const scale = 1600 / 792;
    const [r, g, b, a] = pixel(pixels, 450 * scale, 642 * scale);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    expect(a).toBe(255);
    expect(pixel(pixels, 300 * scale, 400 * scale)).toEqual([255, 255, 255, 255]);
  });

  test('a landscape page gives a landscape PNG', async () => {
    const bytes = await makePdf([(d) => d.text('Wide', 60, 60, { size: 36 })], { width: 792, height: 612 });
    const rendered = await renderPage(bytes, 'pdf', 1);
    expect([rendered.width, rendered.height]).toEqual([1600, 1236]);
    await expectInkOnWord(bytes, 'Wide');
  });

  const turned: Array<[string, (d: Drawing) => void, [number, number]]> = [
    [
      '/Rotate 90 over content drawn sideways: landscape, as the page model',
      (d) => {
        d.page.setRotation(degrees(90));
        d.text('Sideways', 80, 400, { size: 36, rotate: 90 });
      },
      [792, 612],
    ],
    [
      '/Rotate 90 over upright content: the page model turns it back to portrait, and so does the PNG',
      (d) => {
        d.page.setRotation(degrees(90));
        d.text('Sideways', 80, 100, { size: 36 });
      },
      [612, 792],
    ],
    [
      'no /Rotate but the text drawn sideways: the page model turns it to read across, and so does the PNG',
      (d) => d.text('Sideways', 80, 400, { size: 36, rotate: 90 }),
      [792, 612],
    ],
  ];
  test.each(turned)('%s', async (_, draw, [width, height]) => {
    const bytes = await makePdf([draw]);
    const { page, pixels } = await expectInkOnWord(bytes, 'Sideways');
    expect([page.width, page.height]).toEqual([width, height]);
    expect(pixels.width > pixels.height).toBe(width > height);
  });

  test('size: at most 3 pixels per point, and at most maxSide', async () => {
    const small = await makePdf([(d) => d.text('Small', 10, 10, { size: 20 })], { width: 200, height: 100 });
    expect(await renderPage(small, 'pdf', 1)).toMatchObject({ width: 600, height: 300 });
    expect(await renderPage(small, 'pdf', 1, 400)).toMatchObject({ width: 400, height: 200 });
    const letter = await makePdf([(d) => d.text('Letter', 60, 60, { size: 36 })]);
    await expectInkOnWord(letter, 'Letter', 1, 500);
    expect(await renderPage(letter, 'pdf', 1, 500)).toMatchObject({ width: 386, height: 500 });
  });

  test('page 2 of a two-page PDF, and pages outside it', async () => {
    const bytes = await makePdf([(d) => d.text('First', 60, 60, { size: 36 }), (d) => d.text('Second', 400, 700, { size: 36 })]);
    expect((await renderPage(bytes, 'pdf', 2)).pageCount).toBe(2);
    await expectInkOnWord(bytes, 'Second', 2);
    await expect(renderPage(bytes, 'pdf', 3)).rejects.toThrow(new RangeError('page 3: the document has 2 pages'));
    await expect(renderPage(bytes, 'pdf', 0)).rejects.toThrow(RangeError);
  });

  test('a committed multi-page fixture renders every page', async () => {
    const bytes = new Uint8Array(readFileSync(join(import.meta.dir, '../fixtures/extract/files/orders-multipage.pdf')));
    const first = await renderPage(bytes, 'pdf', 1);
    expect(first.pageCount).toBeGreaterThan(1);
    const last = await renderPage(bytes, 'pdf', first.pageCount);
    const page = await pageModel(bytes, first.pageCount);
    expect(last.width / last.height).toBeCloseTo(page.width / page.height, 2);
    const pixels = await decode(last.png);
    const word = page.words[0]!;
    expect(ink(pixels, toPixels(word, page, pixels))).toBeGreaterThan(0.05);
  });

  test('a scanned page (an image and no text) shows the scan whole', async () => {
    const drawn = drawInvoice();
    const rendered = await renderPage(await scannedPdf(drawn), 'pdf', 1);
    // 900 x 700 pixels at 150 dpi is 432 x 336 points, rendered at 3 pixels per point.
    expect([rendered.width, rendered.height]).toEqual([1296, 1008]);
    const pixels = await decode(rendered.png);
    const perDrawnPixel = (72 / DRAW_DPI) * 3;
    // The table's top rule, 2 pixels thick around y 220 of the drawing, and the empty corner above the date.
    expect(ink(pixels, { x0: 100 * perDrawnPixel, x1: 800 * perDrawnPixel, y0: 219.5 * perDrawnPixel, y1: 220.5 * perDrawnPixel }, 200)).toBe(1);
    expect(ink(pixels, { x0: 700 * perDrawnPixel, x1: 890 * perDrawnPixel, y0: 10 * perDrawnPixel, y1: 100 * perDrawnPixel })).toBe(0);
  });

  test('bytes that are no PDF are unreadable', async () => {
    await expect(renderPage(new TextEncoder().encode('name,amount\nWidget,3\n'), 'pdf', 1)).rejects.toThrow(UnreadableDocument);
  });
});

/**
 * A 400 x 250 image: a black bar at x 20..120, y 30..60 and a blue square at x 300..360, y 180..240,
 * on transparency where the format keeps it (JPEG has none: white).
 */
function drawnImage(transparent: boolean): Canvas {
  const canvas = createCanvas(400, 250);
  const g = canvas.getContext('2d');
  if (!transparent) {
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, 400, 250);
  }
  g.fillStyle = '#000000';
  g.fillRect(20, 30, 100, 30);
  g.fillStyle = '#0000ff';
  g.fillRect(300, 180, 60, 60);
  return canvas;
}

describe('images', () => {
  test.each(['png', 'jpeg', 'webp'] as const)('a %s as it is: same size, ink and colour in place, transparency shown as white paper', async (kind) => {
    const bytes = new Uint8Array(await drawnImage(kind !== 'jpeg').encode(kind as 'png'));
    const rendered = await renderPage(bytes, 'image', 1);
    expect(rendered).toMatchObject({ width: 400, height: 250, pageCount: 1 });
    const pixels = await decode(rendered.png);
    expect(ink(pixels, { x0: 25, x1: 115, y0: 35, y1: 55 })).toBe(1);
    expect(ink(pixels, { x0: 280, x1: 380, y0: 35, y1: 55 })).toBe(0);
    const [r, g, b] = pixel(pixels, 330, 210);
    expect(b).toBeGreaterThan(200);
    expect(Math.max(r!, g!)).toBeLessThan(60);
    if (kind !== 'jpeg') expect(pixel(pixels, 200, 150)).toEqual([255, 255, 255, 255]);
  });

  test('a large image is shrunk to maxSide, keeping its shape; a small one is never enlarged', async () => {
    const drawn = drawInvoice();
    expect(await renderPage(drawn.png, 'image', 1)).toMatchObject({ width: 900, height: 700 });
    const rendered = await renderPage(drawn.png, 'image', 1, 450);
    expect([rendered.width, rendered.height]).toEqual([450, 350]);
    const pixels = await decode(rendered.png);
    // The table's top rule, 2 pixels thick around y 220 of the drawing, is around y 110 of the half-size PNG.
    expect(ink(pixels, { x0: 70, x1: 190, y0: 109, y1: 111 }, 200)).toBe(1);
    expect(ink(pixels, { x0: 70, x1: 190, y0: 95, y1: 105 }, 250)).toBe(0);
  });

  test('page 2 of a multi-page TIFF, with its own size; a page past the last is a RangeError', async () => {
    const bytes = tiff([
      { width: 300, height: 200, grey: greyPixels(300, 200, (g) => g.fillRect(0, 0, 50, 50)) },
      { width: 120, height: 240, grey: greyPixels(120, 240, (g) => g.fillRect(70, 190, 40, 40)) },
    ]);
    const rendered = await renderPage(bytes, 'image', 2);
    expect(rendered).toMatchObject({ width: 120, height: 240, pageCount: 2 });
    const pixels = await decode(rendered.png);
    expect(ink(pixels, { x0: 75, x1: 105, y0: 195, y1: 225 })).toBe(1);
    expect(ink(pixels, { x0: 0, x1: 50, y0: 0, y1: 50 })).toBe(0);
    await expect(renderPage(bytes, 'image', 3)).rejects.toThrow(new RangeError('page 3: the document has 2 pages'));
  });

  test('a single image has one page', async () => {
    await expect(renderPage(drawInvoice().png, 'image', 2)).rejects.toThrow(new RangeError('page 2: the document has 1 page'));
  });

  test('an image above the OCR pixel limit is refused before decoding, as the OCR refuses it', async () => {
    await expect(renderPage(pngHeader(10_000, 6_000), 'image', 1)).rejects.toThrow(ImageTooLarge);
  });

  test('a non-image, and an image whose pixels cannot be decoded, are unreadable', async () => {
    await expect(renderPage(new TextEncoder().encode('just some words, not a picture'), 'image', 1)).rejects.toThrow(UnreadableDocument);
    await expect(renderPage(pngHeader(100, 80), 'image', 1)).rejects.toThrow(UnreadableDocument);
  });
});
