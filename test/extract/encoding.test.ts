/** Text encodings decided from the bytes: marks first, then valid UTF-8, then the single-byte code pages. */
import { describe, expect, test } from 'bun:test';
import { detectFormat } from '../../src/extract/document';
import { decodeBytes, encodingNote } from '../../src/extract/encoding';

const TEXT = 'Buchungstext;Betrag\nKontoführungsentgelt;-4,95\nÜberweisung Müller;120,00\n';

/** Windows-1252 / ISO-8859-1 bytes of text whose characters are all in Latin-1. */
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
function utf16(text: string, bigEndian: boolean, mark: boolean): Uint8Array {
  const out: number[] = mark ? (bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]) : [];
  for (const c of text) {
    const code = c.charCodeAt(0);
    out.push(...(bigEndian ? [code >> 8, code & 0xff] : [code & 0xff, code >> 8]));
  }
  return new Uint8Array(out);
}

describe('decided from the bytes', () => {
  test('UTF-8, with and without its mark', () => {
    expect(decodeBytes(new TextEncoder().encode(TEXT))).toEqual({ text: TEXT, encoding: 'utf-8', bom: false });
    expect(decodeBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(TEXT)]))).toEqual({ text: TEXT, encoding: 'utf-8', bom: true });
  });

  test('UTF-16 LE and BE, with their mark and without', () => {
    for (const bigEndian of [false, true]) {
      const name = bigEndian ? 'utf-16be' : 'utf-16le';
      expect(decodeBytes(utf16(TEXT, bigEndian, true))).toEqual({ text: TEXT, encoding: name, bom: true });
      expect(decodeBytes(utf16(TEXT, bigEndian, false))).toEqual({ text: TEXT, encoding: name, bom: false });
    }
  });

  test('Windows-1252 when the bytes are not UTF-8, euro sign and curly quotes included', () => {
    expect(decodeBytes(latin1(TEXT))).toEqual({ text: TEXT, encoding: 'windows-1252', bom: false });
    const euro = new Uint8Array([...latin1('Preis: 5 '), 0x80, 0x20, 0x93, ...latin1('gut'), 0x94]);
    expect(decodeBytes(euro).text).toBe('Preis: 5 € “gut”');
  });

  test('ISO-8859-2 when the letters inside words are Central European there and symbols in Windows-1252', () => {
    // "Opłata za prowadzenie rachunku; Przelew źródło" in ISO-8859-2: ł is 0xB3 (³ in Windows-1252), ź 0xBC (¼), ó 0xF3.
    const bytes = new Uint8Array([...latin1('Op'), 0xb3, ...latin1('ata za prowadzenie rachunku;Przelew '), 0xbc, 0x72, 0xf3, 0x64, 0xb3, 0x6f, 0x0a]);
    const decoded = decodeBytes(bytes);
    expect(decoded.encoding).toBe('iso-8859-2');
    expect(decoded.text).toBe('Opłata za prowadzenie rachunku;Przelew źródło\n');
    // German umlauts are letters in both: Windows-1252 stays the choice.
    expect(decodeBytes(latin1('Größe;Maß;Übergabe')).encoding).toBe('windows-1252');
  });

  test("the file's result states every encoding but plain UTF-8", () => {
    expect(encodingNote({ encoding: 'utf-8', bom: false })).toBeNull();
    expect(encodingNote({ encoding: 'windows-1252', bom: false })).toBe('text read as Windows-1252 (ISO-8859-1), decided from its bytes');
    expect(encodingNote({ encoding: 'utf-16le', bom: true })).toBe('text read as UTF-16 LE (byte-order mark)');
  });
});

test('UTF-16 text is text to format detection, not a binary', () => {
  const csv = 'Name,Amount\nAda,1\nGrace,2\n';
  expect(detectFormat({ name: 'upload', contentType: '', bytes: utf16(csv, false, true) })).toBe('csv');
  expect(detectFormat({ name: 'upload', contentType: '', bytes: utf16(csv, true, false) })).toBe('csv');
  expect(detectFormat({ name: 'upload', contentType: '', bytes: new Uint8Array([0, 1, 2, 3, 0, 0, 7, 8]) })).toBeNull();
});
