/** Images known by their bytes, their headers read without decoding, and the OCR language check. */
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, test } from 'bun:test';
import { ConfigError, loadConfig } from '../../../src/config';
import { detectFormat, FILE_TYPES } from '../../../src/extract/document';
import { imageInfo, imageKind } from '../../../src/extract/ocr/image-info';
import { parseOcrEngine, parseOcrLanguages } from '../../../src/extract/ocr/languages';
import { rasteriseImage } from '../../../src/extract/ocr/rasterise';
import { pngHeader, tiff } from './draw';

/** White, with a black band down the left quarter. */
function encoded(format: 'png' | 'jpeg' | 'webp' | 'gif', width = 120, height = 80): Uint8Array {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#000';
  g.fillRect(0, 0, width / 4, height);
  return new Uint8Array(canvas.encodeSync(format as 'png'));
}

/** A 2 x 1 24-bit BMP with a 300 dpi resolution: a black pixel, then a white one. */
function bmp(): Uint8Array {
  const out = new Uint8Array(54 + 8);
  const view = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  view.setUint32(2, out.length, true);
  view.setUint32(10, 54, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, 2, true);
  view.setInt32(22, 1, true);
  view.setUint16(26, 1, true);
  view.setUint16(28, 24, true);
  view.setInt32(38, 11811, true);
  out.set([255, 255, 255], 57);
  return out;
}

describe('image formats', () => {
  test('images are detected by their bytes, whatever the name says', () => {
    const png = encoded('png');
    expect(detectFormat({ name: 'invoice.pdf', contentType: 'application/pdf', bytes: png })).toBe('image');
    expect(detectFormat({ name: 'scan', contentType: '', bytes: encoded('jpeg') })).toBe('image');
    expect(FILE_TYPES.image).toBe('image');
    // Text starting with "BM" is not a bitmap.
    const csv = new TextEncoder().encode('BMW,Model,Price\nBMW,X5,70000\n');
    expect(detectFormat({ name: 'cars.csv', contentType: 'text/csv', bytes: csv })).toBe('csv');
  });

  test('size and resolution come from the header of every kind', () => {
    expect(imageInfo(encoded('png', 120, 80))).toMatchObject({ kind: 'png', width: 120, height: 80, pages: 1 });
    expect(imageInfo(encoded('jpeg', 120, 80))).toMatchObject({ kind: 'jpeg', width: 120, height: 80 });
    expect(imageInfo(encoded('webp', 120, 80))).toMatchObject({ kind: 'webp', width: 120, height: 80 });
    expect(imageInfo(bmp())).toEqual({ kind: 'bmp', width: 2, height: 1, dpi: 300, pages: 1 });
    const pages = tiff([
      { width: 3, height: 2, grey: new Uint8Array(6) },
      { width: 4, height: 5, grey: new Uint8Array(20) },
    ]);
    expect(imageInfo(pages)).toEqual({ kind: 'tiff', width: 3, height: 2, dpi: 150, pages: 2 });
    expect(imageKind(new TextEncoder().encode('just some text here'))).toBeNull();
  });

  test('every kind decodes to the same grey pixels', async () => {
    const limits = { maxSourcePixels: 1_000_000, maxPagePixels: 1_000_000 };
    for (const format of ['png', 'jpeg', 'webp', 'gif'] as const) {
      const { image } = await rasteriseImage(encoded(format), 1, limits);
      expect([format, image.width, image.height]).toEqual([format, 120, 80]);
      expect(image.data[40 * 120 + 5]!).toBeLessThan(30);
      expect(image.data[40 * 120 + 100]!).toBeGreaterThan(225);
    }
    const { image, dpi } = await rasteriseImage(bmp(), 1, limits);
    expect([Array.from(image.data), dpi]).toEqual([[0, 255], 300]);
  });

  test('a page larger than the reading limit is shrunk, with a note saying so', async () => {
    const raster = await rasteriseImage(encoded('png', 400, 300), 1, { maxSourcePixels: 1_000_000, maxPagePixels: 30_000 });
    expect(raster.image.width * raster.image.height).toBeLessThanOrEqual(30_000 * 1.02);
    expect(raster.notes[0]).toContain('400 x 300 pixels');
    await expect(rasteriseImage(pngHeader(2000, 2000), 1, { maxSourcePixels: 1_000_000, maxPagePixels: 30_000 })).rejects.toThrow('2000 x 2000 pixels');
  });

  test('OCR languages must be installed, and the error names the package', () => {
    expect(parseOcrLanguages(undefined)).toEqual(['eng']);
    expect(() => parseOcrLanguages('eng+xyz')).toThrow('npm install @tesseract.js-data/xyz');
    expect(() => parseOcrLanguages('eng;rm -rf')).toThrow('language codes');
    expect(() => loadConfig({ ROWSMITH_OCR_LANGS: 'klingon_x' })).toThrow(ConfigError);
    expect(loadConfig({}).ocr).toEqual({ languages: ['eng'], workers: 1, pageTimeoutMs: 120_000, engine: 'paddle' });
  });

  test('the recogniser: PP-OCR for the languages it reads, Tesseract for the others, either when asked', () => {
    expect(parseOcrEngine(undefined, ['eng'])).toBe('paddle');
    expect(parseOcrEngine('auto', ['eng', 'chi_sim'])).toBe('paddle');
    expect(parseOcrEngine('auto', ['eng', 'deu'])).toBe('tesseract');
    expect(parseOcrEngine('tesseract', ['eng'])).toBe('tesseract');
    expect(parseOcrEngine(' paddle ', ['deu'])).toBe('paddle');
    expect(() => parseOcrEngine('easyocr', ['eng'])).toThrow('ROWSMITH_OCR_ENGINE must be auto, tesseract or paddle');
    expect(() => loadConfig({ ROWSMITH_OCR_ENGINE: 'nope' })).toThrow(ConfigError);
    expect(loadConfig({ ROWSMITH_OCR_ENGINE: 'tesseract' }).ocr.engine).toBe('tesseract');
    expect(() => loadConfig({ ROWSMITH_OCR_WORKERS: '0' })).toThrow('ROWSMITH_OCR_WORKERS');
  });
});
