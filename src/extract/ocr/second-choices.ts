/**
 * Words of addresses repaired from the recogniser's own second choices. Where the recogniser
 * misreads a glyph it often gave the printed one the next highest probability ("Kuautan" with an
 * "n" second at the u, "2S1o0" with "5" and "0" second): a word that is no known word as
 * read, but becomes one word of the page's places by taking second choices the recogniser gave
 * some weight, is that word. Unlike the repairs by glyph groups (address-words.ts), the
 * substituted glyph may be any the recogniser saw, so the words repaired to are only those an
 * address on this page is likely to hold: the lexicon's words of addresses and regions, and the
 * town names of the countries the page names (places.ts).
 */
import { ADDRESS_WORDS, REGIONS } from '../lexicon.data';
import { known } from '../thesaurus';
import { bare, repaired, split } from './glyphs';
import { placeWordsOf } from './places';

/** The glyph the recogniser found next likeliest for a character of a word, and its probability. */
export interface SecondChoice {
  glyph: string;
  p: number;
}

/** A second choice this likely is one the recogniser hesitated over (chosen with `npm run bench -- receipts-ocr`). */
export const SECOND_P = 0.05;
/** At most this many glyphs of a word are changed: more makes other words out of doubtful ones. */
const MAX_CHANGES = 2;
/** A word of fewer letters is too often another short word one glyph away. */
const MIN_LETTERS = 4;
/** Positions of a word tried at most: the doubtful ones, most doubtful first. */
const MAX_POSITIONS = 6;

const ADDRESS = new Set(
  [...ADDRESS_WORDS, ...REGIONS].flatMap((entry) => entry.split(/[\s-]+/)).map((word) => word.toUpperCase()).filter((word) => word.length >= MIN_LETTERS),
);

/** The words (capitals) `stem` becomes by taking up to MAX_CHANGES of its doubtful second choices. */
function readings(stem: string, seconds: SecondChoice[], glyphs: RegExp): Set<string> {
  const upper = stem.toUpperCase();
  const doubtful = [...upper]
    .map((_, i) => i)
    .filter((i) => seconds[i]!.p >= SECOND_P && glyphs.test(seconds[i]!.glyph) && seconds[i]!.glyph.toUpperCase() !== upper[i])
    .sort((a, b) => seconds[b]!.p - seconds[a]!.p)
    .slice(0, MAX_POSITIONS);
  const out = new Set<string>();
  const walk = (from: number, text: string[], changes: number) => {
    if (changes) out.add(text.join(''));
    if (changes === MAX_CHANGES) return;
    for (let k = from; k < doubtful.length; k++) {
      const i = doubtful[k]!;
      const next = [...text];
      next[i] = seconds[i]!.glyph.toUpperCase();
      walk(k + 1, next, changes + 1);
    }
  };
  walk(0, [...upper], 0);
  return out;
}

/** A word as read, repaired to the one place word its second choices make it; null when none or several. */
function repairWord(text: string, seconds: SecondChoice[], places: Set<string>): string | null {
  const { before, core, after } = split(text);
  const stem = bare(core);
  if (stem.length < MIN_LETTERS || !/^\p{L}+$/u.test(stem)) return null;
  const upper = stem.toUpperCase();
  if (ADDRESS.has(upper) || places.has(upper) || known(stem)) return null;
  const own = seconds.slice(before.length, before.length + stem.length);
  const matches = [...readings(stem, own, /^\p{L}$/u)].filter((word) => ADDRESS.has(word) || places.has(word));
  return matches.length === 1 ? before + repaired(core, matches[0]!) + after : null;
}

/**
 * A postal code the recogniser read with letters for some of its digits ("2S1o0"), before
 * a place word: every glyph that is not a digit had a digit as its second choice.
 */
function repairCode(text: string, seconds: SecondChoice[]): string | null {
  if (!/^[\p{L}\d]{4,6}$/u.test(text) || (text.match(/\d/g) ?? []).length < 2 || /^\d+$/.test(text)) return null;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (/\d/.test(text[i]!)) out += text[i];
    else if (seconds[i]!.p >= SECOND_P && /^\d$/.test(seconds[i]!.glyph)) out += seconds[i]!.glyph;
    else return null;
  }
  return out;
}

/**
 * The page's words with misread words of its addresses repaired from their second choices. Only
 * words `open` marks (those no earlier repair changed, whose choices still line up with their
 * text) are repaired.
 */
export function repairBySecondChoices<W extends { text: string; line: number; seconds?: SecondChoice[] }>(words: W[], open: boolean[]): W[] {
  const places = placeWordsOf(words.map((w) => w.text.toUpperCase()).join(' '));
  const usable = (i: number) => open[i] && words[i]!.seconds?.length === words[i]!.text.length;
  const out = words.map((w, i) => {
    const text = usable(i) ? repairWord(w.text, w.seconds!, places) : null;
    return text ? { ...w, text } : w;
  });
  const isPlace = (w: W | undefined) => {
    const stem = w ? bare(split(w.text).core).toUpperCase() : '';
    return ADDRESS.has(stem) || places.has(stem);
  };
  return out.map((w, i) => {
    if (!usable(i) || out[i + 1]?.line !== w.line || !isPlace(out[i + 1])) return w;
    const text = repairCode(w.text, w.seconds!);
    return text ? { ...w, text } : w;
  });
}
