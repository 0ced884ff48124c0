/** The pixel rules around the recogniser, each on a small image made up here. */
import { describe, expect, test } from 'bun:test';
import { isRuleArtifact, isSpeck } from '../../../src/extract/ocr/recognise';
import { blankLines, findRules, histogram, inkThreshold, normaliseBackground, resize, rotateBoxes, rotateQuarters, shrink, type GreyImage } from '../../../src/extract/ocr/raster';

function blank(width: number, height: number, value = 255): GreyImage {
  return { width, height, data: new Uint8Array(width * height).fill(value) };
}

function fill(image: GreyImage, x0: number, y0: number, x1: number, y1: number, value: number): void {
  for (let y = y0; y < y1; y++) image.data.fill(value, y * image.width + x0, y * image.width + x1);
}

/** Lines of "words": dark blocks of uneven length, gaps between words and between lines. */
function textLines(width: number, height: number): GreyImage {
  const image = blank(width, height);
  for (let line = 0; line * 30 + 40 < height; line++) {
    let x = 20 + (line % 3) * 7;
    for (let word = 0; x < width - 60; word++) {
      const length = 20 + ((line * 7 + word * 13) % 40);
      fill(image, x, 20 + line * 30, Math.min(width - 20, x + length), 34 + line * 30, 0);
      x += length + 10 + ((line + word) % 4) * 3;
    }
  }
  return image;
}

describe('page pixels', () => {
  test('grey levels are counted, and the ink threshold falls between ink and paper', () => {
    const page = blank(50, 40, 240);
    fill(page, 5, 5, 25, 15, 30);
    const counts = histogram(page);
    expect([counts[30], counts[240], counts.reduce((a, b) => a + b, 0)]).toEqual([200, 1800, 2000]);
    const threshold = inkThreshold(page);
    expect(threshold).toBeGreaterThanOrEqual(30);
    expect(threshold).toBeLessThan(240);
  });

  test('text lines leave blank rows between them, but few blank columns across them', () => {
    const across = blankLines(textLines(400, 300));
    expect(across.rows).toBeGreaterThan(0.3);
    expect(across.columns).toBeLessThan(0.1);
    const down = blankLines(rotateQuarters(textLines(400, 300), 1));
    expect(down.columns).toBeGreaterThan(down.rows);
    expect([across.horizontal, down.horizontal]).toEqual([true, false]);
  });

  test('a sparse table (short cells far apart) still reads as lines across the page', () => {
    const table = blank(700, 300);
    for (let row = 0; row < 4; row++) for (let cell = 0; cell < 3; cell++) fill(table, 40 + cell * 220, 40 + row * 60, 40 + cell * 220 + 90, 58 + row * 60, 0);
    expect(blankLines(table).horizontal).toBe(true);
    expect(blankLines(rotateQuarters(table, 1)).horizontal).toBe(false);
  });

  test('quarter turns move pixels where a clockwise turn puts them', () => {
    const image = blank(3, 2);
    image.data[0] = 0; // top left
    const once = rotateQuarters(image, 1);
    expect([once.width, once.height]).toEqual([2, 3]);
    expect(once.data[1]).toBe(0); // top right after a clockwise turn
    const twice = rotateQuarters(image, 2);
    expect(twice.data[5]).toBe(0); // bottom right
    expect(rotateQuarters(rotateQuarters(image, 3), 1).data).toEqual(image.data);
  });

  test('boxes turn with the pixels they cover', () => {
    const image = blank(30, 20);
    fill(image, 2, 3, 12, 5, 0);
    for (const quarters of [1, 2, 3]) {
      const turned = rotateQuarters(image, quarters);
      const [box] = rotateBoxes([{ x0: 2, y0: 3, x1: 12, y1: 5 }], quarters, 30, 20);
      expect(findRules(turned, 5, 3)).toEqual([box!]);
    }
  });

  test('a shaded band becomes paper while the ink on it stays dark', () => {
    const image = blank(200, 100);
    fill(image, 0, 0, 200, 50, 170);
    fill(image, 40, 20, 44, 32, 20);
    const even = normaliseBackground(image, 16);
    expect(even.data[10 * 200 + 100]!).toBeGreaterThan(240);
    expect(even.data[25 * 200 + 41]!).toBeLessThan(60);
    expect(even.data[80 * 200 + 100]!).toBeGreaterThan(240);
  });

  test('long thin runs are rules, letters are not', () => {
    const image = blank(300, 200);
    fill(image, 10, 50, 290, 52, 0);
    fill(image, 150, 10, 152, 190, 0);
    fill(image, 30, 100, 40, 112, 0);
    const rules = findRules(image, 60, 4);
    expect(rules).toHaveLength(2);
    expect(rules).toContainEqual({ x0: 10, y0: 50, x1: 290, y1: 52 });
    expect(rules).toContainEqual({ x0: 150, y0: 10, x1: 152, y1: 190 });
    // A filled block is thicker than a rule.
    fill(image, 0, 150, 300, 180, 0);
    expect(findRules(image, 60, 4)).toHaveLength(2);
  });

  test('a bar, or a stroke standing on a vertical border, is the border read as text', () => {
    const border = { x0: 100, y0: 0, x1: 102, y1: 200 };
    const word = (text: string, x0: number) => ({ text, x0, y0: 50, x1: x0 + 4, y1: 62 });
    expect(isRuleArtifact(word('|', 300), [border])).toBe(true);
    expect(isRuleArtifact(word('l', 99), [border])).toBe(true);
    expect(isRuleArtifact(word('l', 300), [border])).toBe(false);
    expect(isRuleArtifact(word('1', 99), [border])).toBe(false);
    expect(isRuleArtifact(word('Il', 99), [{ x0: 0, y0: 55, x1: 300, y1: 57 }])).toBe(false);
  });

  test('doubtful words without letters or digits are specks', () => {
    expect(isSpeck({ text: '—', confidence: 0.38 })).toBe(true);
    expect(isSpeck({ text: '—', confidence: 0.9 })).toBe(false);
    expect(isSpeck({ text: '$5', confidence: 0.2 })).toBe(false);
  });

  test('shrinking averages and enlarging interpolates', () => {
    const image = blank(4, 4);
    fill(image, 0, 0, 2, 2, 0);
    const small = shrink(image, 2);
    expect(Array.from(small.data)).toEqual([0, 255, 255, 255]);
    const big = resize(small, 2);
    expect([big.width, big.height]).toEqual([4, 4]);
    expect(big.data[0]).toBe(0);
    expect(big.data[15]).toBe(255);
  });
});
