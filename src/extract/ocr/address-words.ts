/**
 * Words of addresses repaired where the recogniser misread one glyph of them ("FAMAN" for
 * "TAMAN", "Lavel" for "Level", "L0T" for "LOT", "JA.LAN" for "JALAN"). Kinds of street, building
 * and area, and the names of countries and their states, come from short fixed lists (the
 * lexicon's), so a word one confusable glyph from exactly one of them, and no word of the
 * dictionary as read, is that word; so is a word whose only misread glyphs are digits ("10T").
 */
import { ADDRESS_ABBREVIATIONS, ADDRESS_WORDS, REGIONS } from '../lexicon.data';
import { known } from '../thesaurus';
import { bare, glyphsAlike, LOWERCASE_GROUPS, oneGlyphFrom, PRINT_GROUPS, repaired, split } from './glyphs';

const alike = glyphsAlike([...PRINT_GROUPS, ...LOWERCASE_GROUPS]);

/** The lists' words in capitals (three letters or more), and by length. */
const BY_LENGTH = new Map<number, string[]>();
export const WORDS = new Set(
  [...ADDRESS_WORDS, ...REGIONS]
    .flatMap((entry) => entry.split(/[\s-]+/))
    .map((word) => word.toUpperCase())
    .filter((word) => word.length >= 3),
);
for (const word of WORDS) BY_LENGTH.set(word.length, [...(BY_LENGTH.get(word.length) ?? []), word]);

/** Glyphs a recogniser reads for letters: digits and strokes. */
const NOT_LETTER = /[\d|!]/;
/** Below this length a misread letter (not a digit) changes too many ordinary words into a listed one ("ROAD", "LOAD"). */
const MIN_LETTERS = 5;

/** A full stop between two runs of two letters or more inside a word ("JA.LAN"): a speck read as a mark, where a listed word is left without it. */
const INNER_STOP = /^(\p{L}{2,})\.(\p{L}{2,})$/u;

/** Whether `read` (capitals) is `word` with only digits or strokes misread, each for a letter of its group. */
function digitsFor(read: string, word: string): boolean {
  if (read.length !== word.length) return false;
  return [...word].every((letter, i) => read[i] === letter || (NOT_LETTER.test(read[i]!) && alike(read[i]!, letter)));
}

/** A recognised word, repaired to the address word or region it misread by one glyph (or by digits alone); as read otherwise. */
export function repairAddressWord(text: string): string {
  const { before, core, after } = split(text);
  const stem = bare(core);
  const inner = INNER_STOP.exec(stem);
  if (inner && WORDS.has((inner[1]! + inner[2]!).toUpperCase())) return before + inner[1]! + inner[2]! + core.slice(stem.length) + after;
  if (stem.length < 3 || !/^[\p{L}\d|!]+$/u.test(stem) || !/\p{L}/u.test(stem)) return text;
  const upper = stem.toUpperCase();
  if (WORDS.has(upper)) return text;
  const digit = NOT_LETTER.test(stem);
  if (!digit && stem.length < MIN_LETTERS) return text;
  // Same length, or one longer for "rn" read where "m" stands; or, where only digits stand for
  // letters, as many of them as the word holds ("10T" for "LOT"): a digit among letters is a
  // misread glyph whatever the word, while two letters changed make listed words of real ones.
  const matches = [...(BY_LENGTH.get(stem.length) ?? []), ...(BY_LENGTH.get(stem.length - 1) ?? [])].filter(
    (word) => oneGlyphFrom(stem, word, alike) || (digit && digitsFor(upper, word)),
  );
  if (matches.length !== 1) return text;
  // A word of the dictionary is what it reads ("LOWER" floor is no "TOWER").
  if (!digit && known(stem)) return text;
  return before + repaired(core, matches[0]!) + after;
}

const ABBREVIATIONS = ADDRESS_ABBREVIATIONS.map((word) => word.toUpperCase());

/** Glyphs a recogniser reads for an upright stroke, the l of an abbreviation among them. */
const STROKE = /^[lIi1|!]$/;

/** A postal code of five figures, as the address line of many countries prints it. */
const POSTAL_CODE = /(?<!\d)\d{5}(?!\d)/;

/** Whether a line's words hold a listed address word or a five-figure postal code: a line of an address. */
export const addressLine = (texts: string[]) => texts.some((t) => WORDS.has(bare(split(t).core).toUpperCase()) || POSTAL_CODE.test(t));

/**
 * A line's abbreviations of address words whose l was read as another upright stroke, repaired
 * ("JIn Mawar" to "Jln Mawar", "B1k C" to "Blk C"): only in an address (`inAddress`: the line or
 * one next to it is an address's, see `addressLine`), only before another word of the line (a
 * street's or block's name follows its kind), and never a word of the dictionary as read. A short
 * word elsewhere (a name's "Jin") stays as read.
 */
export function repairAddressAbbreviations(texts: string[], inAddress: boolean): string[] {
  if (!inAddress) return texts;
  return texts.map((text, i) => {
    if (i === texts.length - 1) return text;
    const { before, core, after } = split(text);
    const stem = bare(core);
    const upper = stem.toUpperCase();
    const word = ABBREVIATIONS.find((w) => w.length === stem.length && w !== upper && [...w].every((c, k) => upper[k] === c || (c === 'L' && STROKE.test(stem[k]!))));
    if (!word || known(stem)) return text;
    // The stroke's own case says nothing (l and I look alike): the other letters' case decides.
    const others = [...stem].filter((_, k) => word[k] !== 'L' || upper[k] === 'L');
    const capitals = others.every((g) => g === g.toUpperCase());
    const first = STROKE.test(stem[0]!) || stem[0] === stem[0]!.toUpperCase() ? word[0]! : word[0]!.toLowerCase();
    return before + (capitals ? word : first + word.slice(1).toLowerCase()) + core.slice(stem.length) + after;
  });
}
