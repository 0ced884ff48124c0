/** Digits read as letters, repaired only inside what is unmistakably a number. */
import { describe, expect, test } from 'bun:test';
import { repairOcrNumber } from '../../../src/extract/ocr/confusions';

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
