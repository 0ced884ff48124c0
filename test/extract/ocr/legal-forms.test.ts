/** Legal forms of companies misread by one glyph, repaired where a legal form stands; other words left alone; a date run into its time split. */
import { describe, expect, test } from 'bun:test';
import { repairLegalForms } from '../../../src/extract/ocr/legal-forms';
import { repairLines, splitDateTimes } from '../../../src/extract/ocr/recognise';

const line = (text: string) => repairLegalForms(text.split(' ')).join(' ');

describe('OCR legal forms', () => {
  test('a two-word form with one word misread by a confusable glyph is repaired when the other reads exactly', () => {
    expect(line('ACME HARDWARE SON BHD')).toBe('ACME HARDWARE SDN BHD');
    expect(line('ACME HARDWARE SDN BHO')).toBe('ACME HARDWARE SDN BHD');
    expect(line('Acme Trading Pte Lt0')).toBe('Acme Trading Pte Ltd');
    expect(line('Acme Son. Bhd. (123456-X)')).toBe('Acme Sdn. Bhd. (123456-X)');
    expect(line('ACME TRADING C0 LTD')).toBe('ACME TRADING CO LTD');
    expect(line('ACME BAKERIES SDN EHD')).toBe('ACME BAKERIES SDN BHD');
  });

  test("after a first word read exactly, the second may be off by any one letter: nothing else goes on from there", () => {
    expect(line('ACME HARDWARE SDN RHD')).toBe('ACME HARDWARE SDN BHD');
    expect(line('Acme Trading Pte Lxd.')).toBe('Acme Trading Pte Ltd.');
    // Not before the first word, nor two letters off.
    for (const text of ['ACME SUN BHD', 'ACME SDN RHO', 'ACME SDN BH'])
      expect(line(text)).toBe(text);
  });

  test('a two-word form whose words a full stop joins, read as one word, is repaired too', () => {
    expect(line('Acme Cash & Carry Sdn.Rhd')).toBe('Acme Cash & Carry Sdn.Bhd');
    expect(line('ACME STORE SON.BHD.')).toBe('ACME STORE SDN.BHD.');
    expect(line('ACME STORE SDN.BHD (123456-X)')).toBe('ACME STORE SDN.BHD (123456-X)');
    expect(line('No.Rhd')).toBe('No.Rhd');
  });

  test('a one-word form ending a name is repaired, keeping its punctuation and letter case', () => {
    expect(line('Beispiel Werkzeug GM8H')).toBe('Beispiel Werkzeug GMBH');
    expect(line('Example Holdings 1nc.')).toBe('Example Holdings Inc.');
    expect(line('CORNER MART 5/B (123456-X)')).toBe('CORNER MART S/B (123456-X)');
    expect(line('Exemplo Comercio 5.A.')).toBe('Exemplo Comercio S.A.');
    expect(line('Example Widgets Ltd')).toBe('Example Widgets Ltd');
    expect(line('Beispiel Werkzeug Grnbh')).toBe('Beispiel Werkzeug Gmbh');
  });

  test('words that only look like a form elsewhere on a line, or that are further from one, stay as read', () => {
    // Not the last word of a name, no second word of a form, two glyphs off, or a glyph that is no confusion.
    for (const text of ['LTO 5 PIECES', 'SON OF ACME', 'ACME SON', 'ACME 50N LTD', 'ACME SUN BHD', 'LTO', 'ACME PHD', 'Beispiel Werkzeug GMBR', 'SAS'])
      expect(line(text)).toBe(text);
  });

  test('on a page, forms are repaired within each recognised line, not across lines', () => {
    const words = [
      { text: 'ACME', line: 1 },
      { text: 'SON', line: 1 },
      { text: 'BHD', line: 1 },
      { text: 'SON', line: 2 },
      { text: 'BHD', line: 3 },
    ];
    expect(repairLines(words).map((w) => w.text)).toEqual(['ACME', 'SDN', 'BHD', 'SON', 'BHD']);
  });
});

describe('OCR words run together', () => {
  test('a date run into its time by a lost space is two words, each with its part of the box', () => {
    const word = (text: string, x0: number, x1: number) => ({ text, x0, x1, y0: 0, y1: 10 });
    const split = splitDateTimes([word('6/10/201913:59', 0, 140), word('12.03.2024', 150, 250), word('2019.5', 260, 320)]);
    expect(split.map((w) => [w.text, w.x0, w.x1])).toEqual([['6/10/2019', 0, 87.5], ['13:59', 92.5, 140], ['12.03.2024', 150, 250], ['2019.5', 260, 320]]);
  });
});
