/** Words of addresses repaired from the recogniser's second choices, against the places the page names. */
import { describe, expect, test } from 'bun:test';
import { repairLines } from '../../../src/extract/ocr/recognise';
import { repairBySecondChoices, type SecondChoice } from '../../../src/extract/ocr/second-choices';

/** A word as read, with second choices at some of its characters: `{ 2: ['b', 0.4] }`. */
function word(text: string, line: number, choices: Record<number, [string, number]> = {}) {
  const seconds: SecondChoice[] = [...text].map((_, i) => (choices[i] ? { glyph: choices[i]![0], p: choices[i]![1] } : { glyph: '', p: 0 }));
  return { text, line, seconds };
}

const texts = (words: Array<{ text: string }>) => words.map((w) => w.text);
const repair = (words: ReturnType<typeof word>[]) => texts(repairBySecondChoices(words, words.map(() => true)));

describe('OCR second choices', () => {
  test("a town of the country the page names is read from the recogniser's second choice, in the word's letter case", () => {
    // "Kuantan" read "Kuautan", the n second at the u; "Pahang" names the state, so Malaysia's towns apply.
    const page = [word('25100', 1), word('Kuautan,', 1, { 3: ['n', 0.3] }), word('Pahang', 1)];
    expect(repair(page)).toEqual(['25100', 'Kuantan,', 'Pahang']);
    // Two glyphs misread, both second: "SEREMBAN" read "SERENBAH".
    expect(repair([word('SERENBAH', 1, { 4: ['M', 0.2], 7: ['N', 0.1] }), word('MALAYSIA', 1)])).toEqual(['SEREMBAN', 'MALAYSIA']);
  });

  test("a word of the lexicon's labels is read from second choices on any page", () => {
    expect(repair([word('Totai:', 1, { 4: ['l', 0.2] }), word('12.50', 1)])).toEqual(['Total:', '12.50']);
    expect(repair([word('(lnclusive', 1, { 1: ['I', 0.3] }), word('of', 1), word('tax)', 1)])).toEqual(['(Inclusive', 'of', 'tax)']);
  });

  test('without a country or state on the page, or with a second choice the recogniser barely gave, the word stays', () => {
    expect(repair([word('Kuautan,', 1, { 3: ['n', 0.3] })])).toEqual(['Kuautan,']);
    expect(repair([word('Kuautan,', 1, { 3: ['n', 0.01] }), word('Pahang', 1)])).toEqual(['Kuautan,', 'Pahang']);
  });

  test("a word of the dictionary, a place word as read and a word its choices make two places' stay as read", () => {
    // "Water" is a word, whatever its second choices make of it.
    expect(repair([word('Water', 1, { 1: ['i', 0.4] }), word('Pahang', 1)])).toEqual(['Water', 'Pahang']);
    expect(repair([word('Rawang', 1, { 0: ['D', 0.4] }), word('Selangor', 1)])).toEqual(['Rawang', 'Selangor']);
    // "AEPANG": an S first makes one town, an M second another; which was printed, the choices do not say.
    expect(repair([word('AEPANG', 1, { 0: ['S', 0.3], 1: ['M', 0.3] }), word('SELANGOR', 1)])).toEqual(['AEPANG', 'SELANGOR']);
  });

  test("each country's towns apply where the page names that country", () => {
    expect(repair([word('KOBLENX', 1, { 6: ['Z', 0.4] }), word('DEUTSCHLAND', 1)])).toEqual(['KOBLENZ', 'DEUTSCHLAND']);
    expect(repair([word('KOBLENX', 1, { 6: ['Z', 0.4] }), word('MALAYSIA', 1)])).toEqual(['KOBLENX', 'MALAYSIA']);
  });

  test('a postal code read with letters before a place is read from second choices that are all digits', () => {
    const page = [word('2S1o0', 1, { 1: ['5', 0.2], 3: ['0', 0.4] }), word('Kuantan', 1), word('Pahang', 1)];
    expect(repair(page)).toEqual(['25100', 'Kuantan', 'Pahang']);
    // One letter without a digit second: a code, not a misread number.
    expect(repair([word('2S1oA', 1, { 1: ['5', 0.2], 3: ['0', 0.4] }), word('Kuantan', 1), word('Pahang', 1)])[0]).toBe('2S1oA');
    // Not before a place: an item code, say.
    expect(repair([word('2S1o0', 1, { 1: ['5', 0.2], 3: ['0', 0.4] }), word('BOLTS', 1), word('Pahang', 2)])[0]).toBe('2S1o0');
    // Nor on another line than the place.
    expect(repair([word('2S1o0', 1, { 1: ['5', 0.2], 3: ['0', 0.4] }), word('Kuantan', 2), word('Pahang', 2)])[0]).toBe('2S1o0');
  });

  test('in the repairs of recognised lines: a word another repair changed is not repaired again, and the choices are dropped', () => {
    const words = [word('Kuautan', 1, { 3: ['n', 0.3] }), word('Ja1an', 1, { 2: ['m', 0.3] }), word('Pahang', 1)];
    const out = repairLines(words);
    // "Ja1an" is repaired by its glyphs ("Jalan"); its choices no longer line up with a changed text.
    expect(texts(out)).toEqual(['Kuantan', 'Jalan', 'Pahang']);
    expect(out.every((w) => !('seconds' in w))).toBe(true);
  });
});
