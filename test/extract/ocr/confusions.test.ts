/** Digits read as letters, repaired only inside what is unmistakably a number. */
import { describe, expect, test } from 'bun:test';
import { repairOcrNumber, repairOcrWord } from '../../../src/extract/ocr/confusions';
import { repairLines } from '../../../src/extract/ocr/recognise';

describe('OCR digit confusions', () => {
  test('O, l and S inside a number become 0, 1 and 5', () => {
    expect(repairOcrNumber('1O.5O')).toBe('10.50');
    expect(repairOcrNumber('$ 1,2l5.00')).toBe('$ 1,215.00');
    expect(repairOcrNumber('S5.99')).toBe('55.99');
    expect(repairOcrNumber('1OO EUR')).toBe('100 EUR');
    expect(repairOcrNumber('(4O.00)')).toBe('(40.00)');
  });

  test('words, codes and numbers without a confusion stay as they are', () => {
    for (const text of ['SOLD', 'Is', 'lOl', '12.50', 'INV-1O42', '12 Sets', 'O', 'S1.2.3']) expect(repairOcrNumber(text)).toBe(text);
  });
});

describe('OCR letter confusions', () => {
  test('a 0 or 1 inside a word becomes its letter, in the case around it; an O inside a long number its 0', () => {
    expect(repairOcrWord('Ja1an')).toBe('Jalan');
    expect(repairOcrWord('Sc0op')).toBe('Scoop');
    expect(repairOcrWord('SHOPP1NG')).toBe('SHOPPING');
    expect(repairOcrWord('C0MPANY')).toBe('COMPANY');
    expect(repairOcrWord('4780O')).toBe('47800');
    expect(repairOcrWord('2O19')).toBe('2019');
    // After a capital, before small letters only.
    expect(repairOcrWord('F1oor,')).toBe('Floor,');
    expect(repairOcrWord('C0ffee')).toBe('Coffee');
    // A 0 opening a word of small letters is its capital O; a unit after a figure stays.
    expect(repairOcrWord('0rchard')).toBe('Orchard');
    expect(repairOcrWord('(0range,')).toBe('(Orange,');
    expect(repairOcrWord('0ml')).toBe('0ml');
  });

  test('an f before an amount with pence is the pound sign it misread', () => {
    expect(repairOcrWord('f210.00')).toBe('£210.00');
    expect(repairOcrWord('f1,032.11')).toBe('£1,032.11');
    for (const text of ['f2', 'fit', 'f210', 'of210.00']) expect(repairOcrWord(text)).toBe(text);
  });

  test("an apostrophe after a word's last letter is a speck, unless after an s; figures keep theirs", () => {
    expect(repairOcrWord("FOUR'")).toBe('FOUR');
    expect(repairOcrWord('Wood’')).toBe('Wood');
    for (const text of ["SHOPS'", "James'", "6'", "O'", "'TIS", "rock'n'roll"]) expect(repairOcrWord(text)).toBe(text);
  });

  test('codes, numbers and ordinary words keep their glyphs', () => {
    for (const text of ['SW1A', 'U13/BG', 'L0T', 'A1B2', 'PJU1A/3', 'NO', '1O', 'B1750', 'Level', '10AM', 'ISO9001', '1OO', 'x10y', 'Room101', 'A1b2', 'B10b'])
      expect(repairOcrWord(text)).toBe(text);
  });

  test('on a page the words are repaired before legal forms are', () => {
    const words = [
      { text: 'G0LDEN', line: 1 },
      { text: 'Sc0op', line: 1 },
      { text: 'SDN', line: 1 },
      { text: 'EHD', line: 1 },
    ];
    expect(repairLines(words).map((w) => w.text)).toEqual(['GOLDEN', 'Scoop', 'SDN', 'BHD']);
  });
});
