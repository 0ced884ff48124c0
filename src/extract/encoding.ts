/**
 * The text encoding of a document, decided from its bytes alone: a byte-order mark (UTF-8,
 * UTF-16 LE/BE), else UTF-16 without a mark when every other byte of ASCII text is NUL, else valid
 * UTF-8, else a single-byte code page: Windows-1252 (a superset of ISO-8859-1), or ISO-8859-2 when
 * the bytes inside words are Central European letters there and symbols in Windows-1252.
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'iso-8859-2';

/** How the file's result names an encoding. */
export const ENCODING_NAMES: Record<TextEncoding, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252 (ISO-8859-1)',
  'iso-8859-2': 'ISO-8859-2 (Central European)',
};

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** Whether a byte-order mark said so (rather than the bytes' content). */
  bom: boolean;
}

const BOMS: Array<[number[], TextEncoding]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

/** The mark's encoding and length, or null. */
export function byteOrderMark(bytes: Uint8Array): { encoding: TextEncoding; length: number } | null {
  for (const [mark, encoding] of BOMS) if (mark.every((b, i) => bytes[i] === b)) return { encoding, length: mark.length };
  return null;
}

/** UTF-16 without a mark: text of mostly ASCII characters has a NUL in every other byte. */
function unmarkedUtf16(bytes: Uint8Array): TextEncoding | null {
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 4) return null;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenNul++;
    if (bytes[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul > pairs * 0.6 && evenNul < pairs * 0.05) return 'utf-16le';
  if (evenNul > pairs * 0.6 && oddNul < pairs * 0.05) return 'utf-16be';
  return null;
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isAsciiLetter = (b: number | undefined) => b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));

/**
 * Windows-1252 or ISO-8859-2 for bytes that are not UTF-8. Bytes 0x80-0x9F are printable only in
 * Windows-1252 (€, curly quotes, Š); otherwise each high byte next to an ASCII letter votes for the
 * code page in which it is a letter when the other makes it a symbol (0xB3: ł or ³, 0xB1: ą or ±).
 */
function singleByte(bytes: Uint8Array): TextEncoding {
  let votes = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) continue;
    if (b < 0xa0) return 'windows-1252';
    if (!isAsciiLetter(bytes[i - 1]) && !isAsciiLetter(bytes[i + 1])) continue;
    votes += CENTRAL_VOTE[b - 0xa0]!;
  }
  return votes > 0 ? 'iso-8859-2' : 'windows-1252';
}

/** Per byte 0xA0-0xFF: +1 a letter only in ISO-8859-2, -1 a letter only in Windows-1252, 0 both or neither. */
const CENTRAL_VOTE = (() => {
  const western = new TextDecoder('windows-1252');
  const central = new TextDecoder('iso-8859-2');
  return Array.from({ length: 0x60 }, (_, i) => {
    const one = new Uint8Array([0xa0 + i]);
    return Number(isLetter(central.decode(one))) - Number(isLetter(western.decode(one)));
  });
})();

/** Decides a document's encoding from its bytes and decodes it, without the byte-order mark. */
export function decodeBytes(bytes: Uint8Array): DecodedText {
  const mark = byteOrderMark(bytes);
  if (mark) return { text: new TextDecoder(mark.encoding).decode(bytes.subarray(mark.length)), encoding: mark.encoding, bom: true };
  const utf16 = unmarkedUtf16(bytes);
  if (utf16) return { text: new TextDecoder(utf16).decode(bytes), encoding: utf16, bom: false };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8', bom: false };
  } catch {
    const encoding = singleByte(bytes);
    return { text: new TextDecoder(encoding).decode(bytes), encoding, bom: false };
  }
}

/** A note for the file's result when the encoding was not plain UTF-8; null when it was. */
export function encodingNote(decoded: Pick<DecodedText, 'encoding' | 'bom'>): string | null {
  if (decoded.encoding === 'utf-8') return null;
  return `text read as ${ENCODING_NAMES[decoded.encoding]}${decoded.bom ? ' (byte-order mark)' : ', decided from its bytes'}`;
}
