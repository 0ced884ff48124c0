/** PP-OCR's characters into words: at its spaces, where a space was likely, never inside a number's decimals. */
import { describe, expect, test } from 'bun:test';
import { bundledModels, charsOf, PaddleRecogniser, widening, wordsOf, type Char } from '../../../src/extract/ocr/ppocr';
import type { GreyImage } from '../../../src/extract/ocr/raster';
import { greyPixels } from './draw';
import { pageFromScan } from '../../../src/extract/ocr';

/** A grey page of text lines, each drawn at its position in the given grey and size. */
function textPage(width: number, height: number, ink: string, size: number, lines: Array<[string, number, number]>): GreyImage {
  return {
    width,
    height,
    data: greyPixels(width, height, (g) => {
      g.fillStyle = ink;
      g.font = `${size}px "DejaVu Sans", sans-serif`;
      for (const [text, x, y] of lines) g.fillText(text, x, y);
    }),
  };
}

/**
 * Characters one output step each; `~` before a character marks a likely space (probability 0.3),
 * `^` a character at which a comma had probability 0.2, `'` one at which it had 0.01.
 */
function chars(text: string): Char[] {
  const out: Char[] = [];
  let likely = 0;
  let comma = 0;
  for (const char of text) {
    if (char === '~' || char === '^' || char === "'") {
      if (char === '~') likely = 0.3;
      else comma = char === '^' ? 0.2 : 0.01;
      continue;
    }
    out.push({ char, first: out.length, last: out.length, p: 0.9, spaceBefore: likely, comma, second: '', secondP: 0 });
    likely = 0;
    comma = 0;
  }
  return out;
}

const text = (read: string) => wordsOf(chars(read)).map((w) => w.text).join(' ');

describe('PP-OCR words', () => {
  test('a likely space between letters or after a number ends a word', () => {
    expect(wordsOf(chars('TOTAL~RM~72.00')).map((w) => w.text)).toEqual(['TOTAL', 'RM', '72.00']);
    expect(wordsOf(chars('QTY 2~100.88')).map((w) => w.text)).toEqual(['QTY', '2', '100.88']);
  });

  test("a space after a number's decimal mark, likely or read, does not split the number", () => {
    expect(wordsOf(chars('TOTAL:~72.~00')).map((w) => w.text)).toEqual(['TOTAL:', '72.00']);
    expect(wordsOf(chars('8,~20')).map((w) => w.text)).toEqual(['8,20']);
    // Even where the recogniser read a space there.
    expect(wordsOf(chars('PAYABLE: 72. 00')).map((w) => w.text)).toEqual(['PAYABLE:', '72.00']);
    // A full stop ending a word is no decimal mark.
    expect(wordsOf(chars('No.~12')).map((w) => w.text)).toEqual(['No.', '12']);
  });

  test('a full stop read where the recogniser also saw a comma is a comma, after a number or a whole word', () => {
    expect(text('NO 12^. MAIN ROAD')).toBe('NO 12, MAIN ROAD');
    expect(text('GREEN PARK^. 40150 CITY')).toBe('GREEN PARK, 40150 CITY');
    expect(text('HILL VIEW^.')).toBe('HILL VIEW,');
    // Where the comma was no real reading, the full stop stays.
    expect(text("GREEN PARK'. 40150 CITY")).toBe('GREEN PARK. 40150 CITY');
  });

  test('a decimal mark, a code and an abbreviation keep their full stop, however likely a comma', () => {
    expect(text('TOTAL 72^.00')).toBe('TOTAL 72.00');
    expect(text('TOTAL 72^. 00')).toBe('TOTAL 72.00');
    expect(text('No^.12')).toBe('No.12');
    expect(text('ACME SDN^. BHD^.')).toBe('ACME SDN. BHD.');
    expect(text('D^.E^. Co^. Ltd^.')).toBe('D.E. Co. Ltd.');
  });

  describe('decoding the output steps', () => {
    const alphabet = ['A', 'B', '1', '2', '.', ',', ' '];
    /** Output steps: each a character of the alphabet at 0.9, or `_` (the blank) at 0.9 with the comma at `comma`. */
    function steps(spec: string, comma = 0): Float32Array {
      const classes = alphabet.length + 1;
      const probs = new Float32Array(spec.length * classes);
      [...spec].forEach((c, t) => {
        const k = c === '_' ? 0 : alphabet.indexOf(c) + 1;
        probs[t * classes + k] = 0.9;
        if (c === '_') probs[t * classes + alphabet.indexOf(',') + 1] = comma;
      });
      return probs;
    }
    const decoded = (spec: string, comma = 0) => wordsOf(charsOf(steps(spec, comma), spec.length, alphabet.length + 1, alphabet)).map((w) => w.text).join(' ');

    test('repeats merge, blanks separate', () => {
      expect(decoded('AA_A_BB 1_12')).toBe('AAB 112');
    });

    test('a comma the blank outvoted after a word or a number is kept', () => {
      expect(decoded('AB_ 12_', 0.2)).toBe('AB, 12,');
      expect(decoded('A_B', 0.2)).toBe('A,B');
      // Where the comma had no real chance, nothing is added.
      expect(decoded('AB_ 12_', 0.03)).toBe('AB 12');
    });

    test('no comma is added after an amount or after punctuation', () => {
      expect(decoded('1.2_2_', 0.3)).toBe('1.22');
      expect(decoded('A,_ B.__', 0.3)).toBe('A, B.');
      // Nor before a comma or full stop the recogniser read after the blank.
      expect(decoded('AB_, 12_.', 0.3)).toBe('AB, 12.');
    });

    test("each character keeps the recogniser's likeliest other glyph over its steps, never the blank or the space", () => {
      const classes = alphabet.length + 1;
      // "AB1": at B's second step a 2 had 0.3 and a 1 0.2; the space beside the A is no glyph choice.
      const probs = new Float32Array(4 * classes);
      const set = (t: number, glyph: string, p: number) => (probs[t * classes + alphabet.indexOf(glyph) + 1] = p);
      set(0, 'A', 0.8);
      set(0, ' ', 0.15);
      set(1, 'B', 0.9);
      set(2, 'B', 0.5);
      set(2, '2', 0.3);
      set(2, '1', 0.2);
      set(3, '1', 0.9);
      const [word] = wordsOf(charsOf(probs, 4, classes, alphabet));
      expect(word!.text).toBe('AB1');
      expect(word!.seconds.map((s) => s.glyph)).toEqual(['', '2', '']);
      expect(word!.seconds[1]!.p).toBeCloseTo(0.3, 5);
      expect(word!.seconds[0]!.p).toBe(0);
    });
  });
});

describe('the recognisers', () => {
  test("a letterhead's tall type is read widened; tall type further down, and usual type, as it stands", () => {
    expect(widening({ text: 40, y0: 30 }, 24, 1000)).toBe(1.25);
    expect(widening({ text: 40, y0: 700 }, 24, 1000)).toBe(1);
    expect(widening({ text: 25, y0: 30 }, 24, 1000)).toBe(1);
  });

  // Faint grey print at a small size: glyphs the first recogniser is less than sure of, which the second reads again.
  const page = () =>
    textPage(700, 160, '#8a8a8a', 15, [
      ['Jalan Perindustrian 5, Taman Bukit Indah', 20, 50],
      ['Invoice No: CS10217   Total RM 104.00', 20, 100],
    ]);

  test('without a second recogniser a page is read alike, and no word is doubted', async () => {
    const both = await PaddleRecogniser.create();
    const alone = await PaddleRecogniser.create({ ...bundledModels(), latin: undefined });
    const [withSecond, withoutSecond] = [await both.read(page()), await alone.read(page())];
    expect(withoutSecond.map((w) => w.text)).toEqual(withSecond.map((w) => w.text));
    expect(withoutSecond.map((w) => w.text).join(' ')).toContain('104.00');
    expect(withoutSecond.filter((w) => w.doubted)).toEqual([]);
  }, 60_000);
});

describe('runs of text', () => {
  test('words found in one text region share its run; words set far apart on a line are other runs', async () => {
    const recogniser = await PaddleRecogniser.create();
    const words = await recogniser.read(
      textPage(700, 120, '#101010', 20, [
        ['Kestrel Bakery Ltd', 20, 50],
        ['Total', 20, 95],
        ['12.50', 560, 95],
      ]),
    );
    const run = (text: string) => words.find((w) => w.text === text)?.run;
    expect(run('Kestrel')).toBeDefined();
    expect(new Set([run('Kestrel'), run('Bakery'), run('Ltd')]).size).toBe(1);
    expect(run('Total')).not.toBe(run('12.50'));
    expect(run('Total')).not.toBe(run('Kestrel'));
    // The page model keeps them, for the layout to read a run as one text.
    const page = pageFromScan({ width: 700, height: 120, quarters: 0, skew: 0, cropped: false, words, rules: [], dpi: null, notes: [] }, 1);
    expect(page.words.find((w) => w.text === 'Bakery')!.run).toBe(run('Kestrel'));
  }, 60_000);
});
