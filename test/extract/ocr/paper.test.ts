/**
 * Preparing photos for the recogniser: the sheet found on its background, skew and text
 * direction measured, faint print made black; then receipt photos drawn here read end to end.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { SKRSContext2D } from '@napi-rs/canvas';
import { closeOcr, configureOcr, ocrPages } from '../../../src/extract/ocr';
import { binarise, darkenFaintInk, findPaper, rotate, skewAngle, textLineHeight, textRunsAcross } from '../../../src/extract/ocr/paper';
import { rotateQuarters, type GreyImage } from '../../../src/extract/ocr/raster';
import { drawReceiptPhoto, greyPixels, RECEIPT_LINES } from './draw';

configureOcr({ languages: ['eng'], workers: 1, pageTimeoutMs: 60_000 });
afterAll(closeOcr);

/** Lines of text on white, turned `degrees` clockwise about the image's centre. */
function textPage(degrees: number, options: { ink?: string; size?: number; width?: number; height?: number } = {}): GreyImage {
  const width = options.width ?? 700;
  const height = options.height ?? 600;
  const size = options.size ?? 22;
  const data = greyPixels(width, height, (g: SKRSContext2D) => {
    g.translate(width / 2, height / 2);
    g.rotate((degrees * Math.PI) / 180);
    g.translate(-width / 2, -height / 2);
    g.fillStyle = options.ink ?? '#000000';
    g.font = `${size}px sans-serif`;
    for (let line = 0; line * size * 1.8 + size * 3 < height - size * 2; line++) {
      g.fillText(`Item ${line + 1} delivered to store ${(line * 37) % 90} paid 12.${line}0`, 80, size * 3 + line * size * 1.8);
    }
  });
  return { width, height, data };
}

const at = (image: GreyImage, x: number, y: number) => image.data[Math.round(y) * image.width + Math.round(x)]!;

describe('preparing a photo', () => {
  test('a sheet on a darker table is found and cut out, the table around it painted the paper grey', () => {
    const width = 600;
    const height = 800;
    const data = greyPixels(width, height, (g) => {
      g.fillStyle = '#3c3c3c';
      g.fillRect(0, 0, width, height);
      g.translate(300, 400);
      g.rotate((8 * Math.PI) / 180);
      g.fillStyle = '#ececec';
      g.fillRect(-150, -300, 300, 600);
      g.fillStyle = '#000000';
      g.font = '20px sans-serif';
      for (let i = 0; i < 10; i++) g.fillText(`Line ${i} of the receipt`, -130, -250 + i * 50);
    });
    const found = findPaper({ width, height, data });
    expect(found).not.toBeNull();
    const { box, image } = found!;
    // The turned sheet spans about 380 x 640 pixels around the centre.
    expect(box.x0).toBeGreaterThan(80);
    expect(box.x0).toBeLessThan(130);
    expect(box.x1).toBeGreaterThan(470);
    expect(box.x1).toBeLessThan(520);
    expect(box.y0).toBeGreaterThan(50);
    expect(box.y1).toBeLessThan(750);
    expect([image.width, image.height]).toEqual([box.x1 - box.x0, box.y1 - box.y0]);
    // The corners are table, now paper (#ececec); the ink on the sheet stays.
    expect(Math.abs(at(image, 2, 2) - 0xec)).toBeLessThanOrEqual(2);
    expect(Math.abs(at(image, image.width - 3, image.height - 3) - 0xec)).toBeLessThanOrEqual(2);
    expect(Math.min(...image.data)).toBeLessThan(60);
  });

  test('a scan already cut to its page, or an image of no sheet, has no sheet to find', () => {
    expect(findPaper(textPage(0))).toBeNull();
    expect(findPaper({ width: 200, height: 200, data: new Uint8Array(200 * 200).fill(90) })).toBeNull();
  });

  test('skew is measured in degrees, the right end lower being positive, and turning back levels the lines', () => {
    expect(skewAngle(textPage(0))).toBe(0);
    for (const degrees of [4, -3, 7.5]) {
      const page = textPage(degrees);
      expect(Math.abs(skewAngle(page) - degrees)).toBeLessThanOrEqual(0.3);
      expect(Math.abs(skewAngle(rotate(page, -degrees)))).toBeLessThanOrEqual(0.3);
    }
  });

  test('a page on its side has its skew measured along its lines', () => {
    const page = rotateQuarters(textPage(3), 1);
    expect(Math.abs(skewAngle(page, false) - 3)).toBeLessThanOrEqual(0.3);
  });

  test('turning grows the image to hold all of it, and the new corners are paper', () => {
    const page = textPage(0, { width: 300, height: 200 });
    const turned = rotate(page, 30);
    expect(turned.width).toBe(Math.ceil(300 * Math.cos(Math.PI / 6) + 200 * Math.sin(Math.PI / 6)));
    expect(turned.height).toBe(Math.ceil(300 * Math.sin(Math.PI / 6) + 200 * Math.cos(Math.PI / 6)));
    expect(at(turned, 1, 1)).toBe(255);
    expect(rotate(page, 0)).toBe(page);
  });

  test('text runs across an upright page and down one on its side, table columns or not', () => {
    const page = textPage(0);
    expect(textRunsAcross(page)).toBe(true);
    expect(textRunsAcross(rotateQuarters(page, 1))).toBe(false);
    expect(textRunsAcross(rotateQuarters(page, 3))).toBe(false);
    // Digits stacked in columns, as monospaced receipts print them: their lines are still across.
    const width = 500;
    const height = 500;
    const grid = greyPixels(width, height, (g) => {
      g.font = '20px sans-serif';
      for (let row = 0; row < 14; row++) for (let column = 0; column < 4; column++) g.fillText('8.88', 40 + column * 110, 40 + row * 32);
    });
    expect(textRunsAcross({ width, height, data: grid })).toBe(true);
    expect(textRunsAcross({ width: 100, height: 100, data: new Uint8Array(100 * 100).fill(255) })).toBeNull();
  });

  test('the text line height follows the size of the print', () => {
    const small = textLineHeight(textPage(0, { size: 14 }))!;
    const large = textLineHeight(textPage(0, { size: 28 }))!;
    expect(small).toBeGreaterThan(9);
    expect(small).toBeLessThan(22);
    expect(large / small).toBeGreaterThan(1.6);
    expect(large / small).toBeLessThan(2.4);
    expect(textLineHeight({ width: 50, height: 50, data: new Uint8Array(2500).fill(255) })).toBeNull();
  });

  test('faint ink is stretched to black, dark ink and blank paper are left alone', () => {
    const faint = textPage(0, { ink: '#d0d0d0' });
    const darker = darkenFaintInk(faint, 0.02);
    expect(Math.min(...darker.data)).toBeLessThan(40);
    expect(darker.data[0]).toBe(255);
    const dark = textPage(0);
    expect(darkenFaintInk(dark, 0.02)).toBe(dark);
    const blank = { width: 50, height: 50, data: new Uint8Array(2500).fill(255) };
    expect(darkenFaintInk(blank, 0.02)).toBe(blank);
    // A dark mark beside faint print: only a large share looks past it.
    const marked = textPage(0, { ink: '#d0d0d0' });
    for (let y = 10; y < 60; y++) marked.data.fill(0, y * marked.width + 10, y * marked.width + 70);
    expect(darkenFaintInk(marked, 0.02)).toBe(marked);
    expect(Math.min(...darkenFaintInk(marked, 0.25).data.subarray(100 * marked.width))).toBeLessThan(40);
  });

  test('faint print turns black while blank paper stays white', () => {
    const faint = textPage(0, { ink: '#c8c8c8' });
    const ink = binarise(faint, 31, 0.1);
    let black = 0;
    for (let i = 0; i < faint.data.length; i++) {
      // The strokes' cores; their anti-aliased edges may go either way.
      if (faint.data[i]! <= 205) expect(ink.data[i]).toBe(0);
      if (ink.data[i] === 0) black++;
    }
    expect(black).toBeGreaterThan(1000);
    // The margin above the first line is plain paper.
    for (let y = 0; y < 30; y++) for (let x = 0; x < faint.width; x++) expect(at(ink, x, y)).toBe(255);
  });
});

describe('reading receipt photos', () => {
  const words = (pages: Awaited<ReturnType<typeof ocrPages>>['pages']) => pages.flatMap((p) => p.words.map((w) => w.text)).join(' ');

  test('a receipt photographed askew on a table is cut out, straightened and read', async () => {
    const { pages, notes, nothingFound } = await ocrPages('image', drawReceiptPhoto({ degrees: 6 }), 1);
    expect(nothingFound).toBeNull();
    const text = words(pages);
    for (const line of RECEIPT_LINES) expect(text).toContain(line);
    expect(notes.join(' ')).toContain('cut out');
    expect(notes.join(' ')).toMatch(/straightened by (5\.[6-9]|6(\.[0-4])?) degrees/);
    // The page is the sheet, not the photo: about 16 x 18 text heights.
    expect(pages[0]!.width / pages[0]!.height).toBeGreaterThan(0.7);
    expect(pages[0]!.width / pages[0]!.height).toBeLessThan(1.1);
  }, 60_000);

  test('a receipt turned the other way and upside down is read too', async () => {
    const { pages, notes } = await ocrPages('image', drawReceiptPhoto({ degrees: 180 - 5 }), 1);
    const text = words(pages);
    for (const line of RECEIPT_LINES) expect(text).toContain(line);
    expect(notes.join(' ')).toContain('turned 180 degrees');
  }, 60_000);

  test('faint print beside a dark pen mark is darkened and read, not reported as no text', async () => {
    const { pages, nothingFound } = await ocrPages('image', drawReceiptPhoto({ degrees: 0, ink: '#dadada', size: 20, penMark: true }), 1);
    expect(nothingFound).toBeNull();
    const text = words(pages);
    // Stretched this far the print is rough, but the amounts come through (PP-OCR loses the date
    // line's small print, which Tesseract reads).
    for (const value of ['3.10', '5.50']) expect(text).toContain(value);
  }, 60_000);

  test('small faded print is enlarged and read, not reported as no text', async () => {
    const { pages, nothingFound } = await ocrPages('image', drawReceiptPhoto({ degrees: 0, ink: '#9a9a9a', size: 9, table: '#f4f1ea' }), 1);
    expect(nothingFound).toBeNull();
    const text = words(pages);
    for (const line of ['Invoice 20431', 'Date 14/03/2019', 'Total 5.50']) expect(text).toContain(line);
  }, 60_000);
});
