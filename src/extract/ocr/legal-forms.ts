/**
 * Legal forms of companies repaired where the recogniser misread one glyph of them ("SON BHD",
 * "GM8H", "5/B"). A company's name ends in its legal form, and the form is a short fixed word, so
 * a word one confusable glyph away from it, in the place a legal form stands, is that form. Only
 * the form itself is repaired: the name before it is left as read.
 */
import { LEGAL_FORMS } from '../lexicon.data';
import { bare, glyphsAlike, oneGlyphFrom, PRINT_GROUPS, repaired, split } from './glyphs';

const formWords = (form: string) => form.toUpperCase().split(/\s+/).map((w) => w.replace(/[.,]+$/, ''));

/**
 * Legal forms of two words (the lexicon's "Sdn Bhd", "Pty Ltd", "Co., Ltd."), each word as printed; a
 * word of one is only repaired when the other reads exactly.
 */
const TWO_WORD_FORMS: Array<[string, string]> = [
  ...new Map(
    LEGAL_FORMS.map(formWords)
      .filter((w) => w.length === 2 && w.every((word) => /^[A-Z]{2,}$/.test(word)))
      .map((w) => [w.join(' '), [w[0]!, w[1]!] as [string, string]]),
  ).values(),
];

/**
 * Legal forms of one word (the lexicon's), repaired only as the last word of a name: at the end of
 * its line or before a bracketed registration number. Forms of two letters are left out: one glyph
 * changes too many ordinary words into them.
 */
const ONE_WORD_FORMS = [...new Set(LEGAL_FORMS.filter((f) => !/\s/.test(f) && f.length >= 3).map((f) => f.toUpperCase()))];

const alike = glyphsAlike(PRINT_GROUPS);

/** Two words of letters joined by a full stop, the second maybe ending in one ("Sdn.Bhd", "PTY.LTD."). */
const JOINED = /^(\p{L}{2,})\.(\p{L}{2,}\.?)$/u;

/**
 * Whether `read` is the second word of a form whose first word read exactly: one confusable glyph
 * off, or, for a word of three letters or more, one letter of any kind ("SDN RHD"): after "SDN"
 * or "PTE" nothing else of that shape goes on.
 */
function continues(read: string, second: string): boolean {
  if (oneGlyphFrom(read, second, alike)) return true;
  const upper = read.toUpperCase();
  if (second.length < 3 || upper.length !== second.length || upper === second || !/^\p{Lu}+$/u.test(upper)) return false;
  return [...second].filter((c, i) => c !== upper[i]).length === 1;
}

/**
 * Two words (cores, maybe ending in a full stop) as a two-word form with one word misread, that
 * word repaired; null when they are no such form.
 */
function repairedPair(one: string, two: string): [string, string] | null {
  for (const [first, second] of TWO_WORD_FORMS) {
    if (oneGlyphFrom(bare(one), first, alike) && bare(two).toUpperCase() === second) return [repaired(one, first), two];
    if (bare(one).toUpperCase() === first && continues(bare(two), second)) return [one, repaired(two, second)];
  }
  return null;
}

/**
 * The texts of one line's words, in reading order, with misread legal forms repaired. Returns
 * the same array when nothing was repaired.
 */
export function repairLegalForms(texts: string[]): string[] {
  let out = texts;
  const set = (i: number, text: string) => {
    if (out === texts) out = [...texts];
    out[i] = text;
  };
  for (let i = 0; i < texts.length; i++) {
    const word = split(texts[i]!);
    const next = i + 1 < texts.length ? split(texts[i + 1]!) : null;
    // The form's two words joined by a full stop the recogniser read without a space ("SDN.BHD"), or two words.
    const joined = JOINED.exec(word.core);
    const inWord = joined ? repairedPair(joined[1]!, joined[2]!) : null;
    if (inWord) set(i, word.before + inWord.join('.') + word.after);
    const pair = !inWord && next ? repairedPair(word.core, next.core) : null;
    if (pair && pair[0] !== word.core) set(i, word.before + pair[0] + word.after);
    if (pair && pair[1] !== next!.core) set(i + 1, next!.before + pair[1] + next!.after);
    // A one-word form ends the name: the line ends there or a bracketed number follows.
    const last = i === texts.length - 1 || /^\(/.test(texts[i + 1]!);
    if (i === 0 || !last || out[i] !== texts[i]) continue;
    const form = ONE_WORD_FORMS.find((f) => oneGlyphFrom(word.core, f, alike) || oneGlyphFrom(bare(word.core), f, alike));
    if (form) set(i, word.before + repaired(word.core, form) + word.after);
  }
  return out;
}
