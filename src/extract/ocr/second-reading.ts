/**
 * Words the second recogniser reads as words. Where the two recognisers read a word differently
 * (see agreement.ts) and only the second's reading is a word (of the dictionary, the lexicon's
 * labels and addresses, or the towns of the countries the page names), the first misread it:
 * "PHARHACY" beside "PHARMACY". Where neither or both read a word, the first's reading stays: a
 * name the dictionary does not know is no better read as one it does.
 */
import { LEGAL_FORMS } from '../lexicon.data';
import { known } from '../thesaurus';
import { editDistance } from '../../lib/strings';
import { bare, repaired, split } from './glyphs';
import { placeWordsOf } from './places';
import { listedWord } from './second-choices';

/** Words of fewer letters are too often another short word one glyph away. */
const MIN_LETTERS = 3;
/** At most this many glyphs apart: the two read one word, not two words. */
const MAX_EDITS = 2;

/** The words of companies' legal forms ("SDN", "BHD", "GMBH"), which no dictionary holds. */
const FORM_WORDS = new Set(LEGAL_FORMS.flatMap((f) => f.toUpperCase().split(/[\s./]+/)).filter((w) => w.length >= MIN_LETTERS));

/** The page's words, each that only the second recogniser read as a word taking its reading. */
export function repairBySecondReading<W extends { text: string; alternative?: string }>(words: W[]): W[] {
  if (!words.some((w) => w.alternative !== undefined)) return words;
  const isPlace = placeWordsOf(words.map((w) => w.text.toUpperCase()).join(' '));
  const isWord = (stem: string) => FORM_WORDS.has(stem.toUpperCase()) || listedWord(stem.toUpperCase(), isPlace) || known(stem);
  return words.map((w) => {
    if (w.alternative === undefined) return w;
    const { before, core, after } = split(w.text);
    const stem = bare(core);
    const other = bare(split(w.alternative).core);
    if (stem.length < MIN_LETTERS || !/^[\p{L}\p{N}]+$/u.test(stem) || !/^\p{L}+$/u.test(other) || other.length < MIN_LETTERS) return w;
    if (editDistance(stem.toUpperCase(), other.toUpperCase()) > MAX_EDITS || isWord(stem) || !isWord(other)) return w;
    return { ...w, text: before + repaired(core, other) + after };
  });
}
