/** Words of addresses misread by one glyph, repaired to the listed word; dictionary words, codes and words further off left alone. */
import { describe, expect, test } from 'bun:test';
import { addressLine, repairAddressAbbreviations, repairAddressWord } from '../../../src/extract/ocr/address-words';
import { repairLines } from '../../../src/extract/ocr/recognise';

describe('OCR address words', () => {
  test('a kind of street, building or area one confusable glyph off is repaired, in the letter case it was printed in', () => {
    expect(repairAddressWord('FAMAN')).toBe('TAMAN');
    expect(repairAddressWord('Jalau')).toBe('Jalan');
    expect(repairAddressWord('Lavel')).toBe('Level');
    expect(repairAddressWord('MUKIN')).toBe('MUKIM');
    expect(repairAddressWord('Henara')).toBe('Menara');
    expect(repairAddressWord('Cornplex')).toBe('Complex');
  });

  test('a region one glyph off is repaired, keeping the punctuation around it; a capitals word takes capitals', () => {
    expect(repairAddressWord('SEtANGOR.')).toBe('SELANGOR.');
    expect(repairAddressWord('Lunpur,')).toBe('Lumpur,');
    expect(repairAddressWord('(Hesseu)')).toBe('(Hessen)');
    expect(repairAddressWord('Tasnania')).toBe('Tasmania');
  });

  test('a digit read inside a short listed word is repaired; a short word with a letter misread is not', () => {
    expect(repairAddressWord('L0T')).toBe('LOT');
    expect(repairAddressWord('R0AD')).toBe('ROAD');
    expect(repairAddressWord('LOAD')).toBe('LOAD');
    expect(repairAddressWord('TOT')).toBe('TOT');
    // Only digits misread, as many as the word holds; a letter misread beside a digit is too far.
    expect(repairAddressWord('10T')).toBe('LOT');
    expect(repairAddressWord('R0A0')).toBe('ROAD');
    expect(repairAddressWord('R0AO')).toBe('R0AO');
  });

  test('a full stop read inside a listed word is dropped; abbreviations keep theirs', () => {
    expect(repairAddressWord('JA.LAN')).toBe('JALAN');
    expect(repairAddressWord('Ta.man,')).toBe('Taman,');
    for (const text of ['S.A.', 'Sdn.Bhd', 'P.T.', 'No.12', 'Jln.Mawar']) expect(repairAddressWord(text)).toBe(text);
  });

  test('words of the dictionary, listed words, codes and words two glyphs off stay as read', () => {
    for (const text of ['LOWER', 'Tower', 'STALE', 'JALAN', 'Selangor', 'B1750', 'U13/BG', 'TAMBUN', 'SETIA', 'Kedai', 'FAMAM', '12,', 'RM12.50'])
      expect(repairAddressWord(text)).toBe(text);
  });

  test('on a page, address words are repaired with the other repairs of recognised lines', () => {
    const words = [
      { text: 'L0T', line: 1 },
      { text: '12,', line: 1 },
      { text: 'FAMAN', line: 1 },
      { text: 'MELATI', line: 1 },
      { text: 'SCLANGOR', line: 2 },
    ];
    expect(repairLines(words).map((w) => w.text)).toEqual(['LOT', '12,', 'TAMAN', 'MELATI', 'SELANGOR']);
  });
});

describe('OCR address abbreviations', () => {
  const repair = (texts: string[]) => repairAddressAbbreviations(texts, addressLine(texts));

  test("an abbreviation's l read as another upright stroke is repaired on an address line, before the name it abbreviates", () => {
    expect(repair(['No.8,', 'JIn', 'Mawar', '3,', 'Taman', 'Kestrel'])).toEqual(['No.8,', 'Jln', 'Mawar', '3,', 'Taman', 'Kestrel']);
    expect(repair(['Jin', 'Mawar', '3,', '47100', 'Marrowby'])).toEqual(['Jln', 'Mawar', '3,', '47100', 'Marrowby']);
    expect(repair(['B1K', 'C,', 'JIN', 'BLUEGATE', '2,', 'TAMAN', 'JAYA'])).toEqual(['BLK', 'C,', 'JLN', 'BLUEGATE', '2,', 'TAMAN', 'JAYA']);
    expect(repair(['Unit', '4,', '2nd', 'FIr,', 'Corner', 'BIdg,', 'Kestrel', 'Road'])).toEqual(['Unit', '4,', '2nd', 'Flr,', 'Corner', 'Bldg,', 'Kestrel', 'Road']);
  });

  test('a short word stays as read off an address, at the end of a line, or where the dictionary knows it', () => {
    // A name's word on a line without an address word or postal code.
    expect(repair(['JIN', 'KESTREL', 'TRADING'])).toEqual(['JIN', 'KESTREL', 'TRADING']);
    // Last on its line: no street's name follows it.
    expect(repair(['Taman', 'Kestrel', 'Jin'])).toEqual(['Taman', 'Kestrel', 'Jin']);
    // "in" and "bid" are words; the abbreviation itself is left alone.
    expect(repair(['Taman', 'Jaya', 'in', 'Marrowby'])).toEqual(['Taman', 'Jaya', 'in', 'Marrowby']);
    expect(repair(['Jln', 'Mawar,', 'Taman', 'Jaya'])).toEqual(['Jln', 'Mawar,', 'Taman', 'Jaya']);
  });

  test("on a page, an abbreviation is repaired on an address's line or next to one, with the other repairs of recognised lines", () => {
    const page = (name: string, street: string[], area: string) => [
      { text: name, line: 0 },
      { text: 'KESTREL', line: 0 },
      { text: 'No.1,', line: 1 },
      ...street.map((text) => ({ text, line: 2 })),
      { text: area, line: 3 },
      { text: 'Marrowby,', line: 3 },
    ];
    // The street's line holds no listed word; the area's line under it does.
    expect(repairLines(page('JIN', ['Jin', 'Bluegate', '1/6,'], 'Bandar')).map((w) => w.text)).toEqual(['JIN', 'KESTREL', 'No.1,', 'Jln', 'Bluegate', '1/6,', 'Bandar', 'Marrowby,']);
    // Without an address word near it, the same line is left as read.
    expect(repairLines(page('JIN', ['Jin', 'Bluegate', '1/6,'], 'Upper')).map((w) => w.text)).toEqual(['JIN', 'KESTREL', 'No.1,', 'Jin', 'Bluegate', '1/6,', 'Upper', 'Marrowby,']);
  });
});
