/** A second recogniser's opinion: the first reading's glyphs where the second reads other letters or figures. */
import { describe, expect, test } from 'bun:test';
import { readingFromPages } from '../../../src/extract/layout';
import { pageFromScan } from '../../../src/extract/ocr';
import { markDoubted } from '../../../src/extract/ocr/agreement';
import { wordsOf, type Char } from '../../../src/extract/ocr/ppocr';
import type { PixelWord } from '../../../src/extract/ocr/recognise';

const chars = (text: string): Char[] => [...text].map((char, i) => ({ char, first: i, last: i, p: 0.9, spaceBefore: 0, comma: 0, second: '', secondP: 0 }));

/** The words of `first` marked doubted after `second`'s reading. */
function doubted(first: string, second: string): string[] {
  const read = chars(first);
  markDoubted(read, chars(second));
  return wordsOf(read).filter((w) => w.doubted).map((w) => w.text);
}

describe('OCR agreement', () => {
  test('a word read with other letters or figures is doubted, the words read alike are not', () => {
    expect(doubted('JALAN KEMBANGAR 19/9', 'JALAN KEMBANGAN 19/9')).toEqual(['KEMBANGAR']);
    expect(doubted('TOTAL 12.50', 'TOTAL 12.80')).toEqual(['12.50']);
  });

  test('a glyph only one reading has marks the word it stands in', () => {
    expect(doubted('KOH WEI SDN BHD', 'KHOH WEI SDN BHD')).toEqual(['KOH']);
    expect(doubted('KEMBANIGAN 9', 'KEMBANGAN 9')).toEqual(['KEMBANIGAN']);
  });

  test('case, spacing and punctuation do not count', () => {
    expect(doubted('Tower B, Green Park', 'TOWER B. GreenPark')).toEqual([]);
    expect(doubted('SUBANG JAYA,', 'SUBANG JAYA')).toEqual([]);
  });

  test("a doubted word carries the second's reading of it, glyphs it missed or added in place", () => {
    const alternatives = (first: string, second: string) => {
      const read = chars(first);
      markDoubted(read, chars(second));
      return wordsOf(read).filter((w) => w.doubted).map((w) => w.alternative);
    };
    expect(alternatives('PHARHACY CORNER', 'PHARMACY CORNER')).toEqual(['PHARMACY']);
    expect(alternatives('KOH WEI', 'KHOH WEI')).toEqual(['KHOH']);
    expect(alternatives('Ofice, 12', 'Office, 12')).toEqual(['Office,']);
    expect(alternatives('GREEN PARKK', 'GREEN PARK')).toEqual(['PARK']);
  });

  test('a second reading of nothing doubts every word', () => {
    expect(doubted('GST 6%', '')).toEqual(['GST', '6%']);
  });

  test("a doubted word stays marked on its page's text line", () => {
    const word = (text: string, x0: number, line: number, doubted = false): PixelWord => ({ text, x0, x1: x0 + text.length * 16, y0: line * 40, y1: line * 40 + 24, lineHeight: 24, confidence: 0.9, line, ...(doubted ? { doubted } : {}) });
    const words = [word('CORNER', 40, 1), word('STORE', 160, 1), word('27,', 40, 2), word('MARKET', 100, 2), word('R0AD', 220, 2, true)];
    const page = pageFromScan({ width: 600, height: 400, quarters: 0, skew: 0, cropped: false, words, rules: [], dpi: null, notes: [] }, 1);
    const { lines } = readingFromPages([page]);
    expect(lines.map((l) => [l.text, l.doubted ?? []])).toEqual([
      ['CORNER STORE', []],
      ['27, MARKET R0AD', ['R0AD']],
    ]);
  });
});
