/**
 * Words of labels and addresses repaired from the recogniser's own second choices. Where the recogniser
 * misreads a glyph it often gave the printed one the next highest probability ("Kuautan" with an
 * "n" second at the u, "2S1o0" with "5" and "0" second): a word that is no known word as
 * read, but becomes one listed word by taking second choices the recogniser gave
 * some weight, is that word, each glyph taken in the case the recogniser saw it. Unlike the
 * repairs by glyph groups (address-words.ts), the substituted glyph may be any the recogniser saw,
 * so the words repaired to are only those the page is likely to hold: the lexicon's labels
 * ("Total", "Inclusive") and its words of addresses and regions, and the town names of the
 * countries the page names (places.ts).
 */
import { CONCEPTS, DOCUMENT_TITLES, TAX_EXCLUDED_WORDS, TAX_INCLUDED_WORDS } from '../lexicon.data';
import { known } from '../thesaurus';
import { WORDS as ADDRESS } from './address-words';
import { bare, split } from './glyphs';
import { placeWordsOf } from './places';

/** The glyph the recogniser found next likeliest for a character of a word, and its probability. */
export interface SecondChoice {
  glyph: string;
  p: number;
}

/**
 * A second choice this likely is one the recogniser hesitated over. On the dev receipts 0.02 and
 * 0.1 read the same fields exactly as this (`npm run bench -- receipts-ocr`); the middle is kept.
 */
const SECOND_P = 0.05;
/** At most this many glyphs of a word are changed: more makes other words out of doubtful ones. */
const MAX_CHANGES = 2;
/** A word of fewer letters is too often another short word one glyph away. */
const MIN_LETTERS = 4;
/** Positions of a word tried at most: the doubtful ones, most doubtful first. */
const MAX_POSITIONS = 6;

/** The words of the lexicon's labels and titles (capitals), in its languages ("Total", "Inclusive", "Rechnung"). */
const LABELS = new Set(
  [...CONCEPTS.flatMap((c) => [...Object.values(c.terms).flat(), ...(c.weak ?? [])]), ...DOCUMENT_TITLES, ...TAX_INCLUDED_WORDS, ...TAX_EXCLUDED_WORDS]
    .flatMap((entry) => entry.toUpperCase().split(/[^\p{L}]+/u))
    .filter((word) => word.length >= MIN_LETTERS),
);

/**
 * What `stem` becomes by taking up to MAX_CHANGES of its doubtful second choices, each glyph in the
 * case the recogniser read it, by the reading in capitals.
 */
function readings(stem: string, seconds: SecondChoice[]): Map<string, string> {
  const doubtful = [...stem]
    .map((_, i) => i)
    .filter((i) => seconds[i]!.p >= SECOND_P && /^\p{L}$/u.test(seconds[i]!.glyph) && seconds[i]!.glyph.toUpperCase() !== stem[i]!.toUpperCase())
    .sort((a, b) => seconds[b]!.p - seconds[a]!.p)
    .slice(0, MAX_POSITIONS);
  const out = new Map<string, string>();
  const walk = (from: number, text: string[], changes: number) => {
    if (changes) out.set(text.join('').toUpperCase(), text.join(''));
    if (changes === MAX_CHANGES) return;
    for (let k = from; k < doubtful.length; k++) {
      const i = doubtful[k]!;
      const next = [...text];
      next[i] = seconds[i]!.glyph;
      walk(k + 1, next, changes + 1);
    }
  };
  walk(0, [...stem], 0);
  return out;
}

/** Whether a word (in capitals) is one of the lexicon's labels or address words, or a town word of the page's countries. */
export const listedWord = (upper: string, isPlace: (word: string) => boolean) => ADDRESS.has(upper) || LABELS.has(upper) || isPlace(upper);

/** A word as read, repaired to the one listed or place word its second choices make it; null when none or several. */
function repairWord(text: string, seconds: SecondChoice[], isPlace: (word: string) => boolean): string | null {
  const { before, core, after } = split(text);
  const stem = bare(core);
  if (stem.length < MIN_LETTERS || !/^\p{L}+$/u.test(stem)) return null;
  const listed = (word: string) => listedWord(word, isPlace);
  if (listed(stem.toUpperCase()) || known(stem)) return null;
  const matches = [...readings(stem, seconds.slice(before.length, before.length + stem.length))].filter(([upper]) => listed(upper));
  return matches.length === 1 ? before + matches[0]![1] + core.slice(stem.length) + after : null;
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
 * The page's words with misread words of labels and addresses, and postal codes, repaired from
 * their second choices. Only words `open` marks (those no earlier repair changed, whose choices
 * still line up with their text) are repaired.
 */
export function repairBySecondChoices<W extends { text: string; line: number; seconds?: SecondChoice[] }>(words: W[], open: boolean[]): W[] {
  const isTown = placeWordsOf(words.map((w) => w.text.toUpperCase()).join(' '));
  const usable = (i: number) => open[i] && words[i]!.seconds?.length === words[i]!.text.length;
  const out = words.map((w, i) => {
    const text = usable(i) ? repairWord(w.text, w.seconds!, isTown) : null;
    return text ? { ...w, text } : w;
  });
  const isPlace = (w: W | undefined) => {
    const stem = w ? bare(split(w.text).core).toUpperCase() : '';
    return (stem.length >= MIN_LETTERS && ADDRESS.has(stem)) || isTown(stem);
  };
  return out.map((w, i) => {
    if (!usable(i) || out[i + 1]?.line !== w.line || !isPlace(out[i + 1])) return w;
    const text = repairCode(w.text, w.seconds!);
    return text ? { ...w, text } : w;
  });
}
