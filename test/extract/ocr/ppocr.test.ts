/** PP-OCR's characters into words: at its spaces, where a space was likely, never inside a number's decimals. */
import { describe, expect, test } from 'bun:test';
import { wordsOf, type Char } from '../../../src/extract/ocr/ppocr';

/** Characters one output step each; `~` before a character marks a likely space (probability 0.3). */
function chars(text: string): Char[] {
  const out: Char[] = [];
  let likely = 0;
  for (const char of text) {
    if (char === '~') {
      likely = 0.3;
      continue;
    }
    out.push({ char, first: out.length, last: out.length, p: 0.9, spaceBefore: likely });
    likely = 0;
  }
  return out;
}

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
});
