/**
 * Legal forms of companies repaired where the recogniser misread one glyph of them ("SON BHD",
 * "GM8H", "5/B"). A company's name ends in its legal form, and the form is a short fixed word, so
 * a word one confusable glyph away from it, in the place a legal form stands, is that form. Only
 * the form itself is repaired: the name before it is left as read.
 */
import { LEGAL_FORMS } from '../lexicon.data';

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

/**
 * Glyphs the recogniser takes for one another in print; a repair changes one glyph for another of
 * its group. E and B differ only on their right side, which faint thermal print loses.
 */
const CONFUSABLE_GROUPS = ['OD0Q', '1IL|!', '5S', '8BE', '2Z', '6G'];
const GROUP_OF = new Map<string, number>();
CONFUSABLE_GROUPS.forEach((group, i) => {
  for (const glyph of group) GROUP_OF.set(glyph, i);
});

/** Whether `read` is `form` with one glyph misread (or "rn" read for "m"); neither exactly equal nor further. */
function oneGlyphFrom(read: string, form: string): boolean {
  const upper = read.toUpperCase();
  if (upper === form) return false;
  if (upper.replace('RN', 'M') === form) return true;
  if (upper.length !== form.length) return false;
  let differences = 0;
  for (let i = 0; i < form.length; i++) {
    if (upper[i] === form[i]) continue;
    const group = GROUP_OF.get(upper[i]!);
    if (group === undefined || group !== GROUP_OF.get(form[i]!)) return false;
    differences++;
  }
  return differences === 1;
}

/**
 * The form in the letter case of the word it replaces, glyph by glyph: "Sdn" for "Son", "SDN" for
 * "SON". Where a digit or sign was read, a first glyph is a capital (forms are written "Inc",
 * "INC") and a later one takes the case of the glyph before it.
 */
function inCaseOf(read: string, form: string): string {
  let out = '';
  for (let i = 0; i < form.length; i++) {
    const glyph = read[i] ?? '';
    const lower = /\p{L}/u.test(glyph) ? glyph === glyph.toLowerCase() : i > 0 && out[i - 1] === out[i - 1]!.toLowerCase() && /\p{L}/u.test(out[i - 1]!);
    out += lower ? form[i]!.toLowerCase() : form[i]!;
  }
  return out;
}

/** A word split into the brackets or punctuation around it and its core: "(SON," gives "(", "SON", ",". */
function split(text: string): { before: string; core: string; after: string } {
  const match = text.match(/^([("']*)(.*?)([)"',:;]*)$/)!;
  return { before: match[1]!, core: match[2]!, after: match[3]! };
}

/** A core without its full stops ("SDN." and "SDN" are the same word of a form; "S.A." keeps its own). */
const bare = (core: string) => core.replace(/\.$/, '');

/** The core repaired to `form`, keeping a full stop the word ended in. */
function repaired(core: string, form: string): string {
  const stop = core.endsWith('.') && !form.endsWith('.') ? '.' : '';
  return inCaseOf(core, form) + stop;
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
    const core = bare(word.core);
    const next = i + 1 < texts.length ? split(texts[i + 1]!) : null;
    const nextCore = next ? bare(next.core) : null;
    for (const [first, second] of TWO_WORD_FORMS) {
      if (nextCore === null) break;
      if (oneGlyphFrom(core, first) && nextCore.toUpperCase() === second) set(i, word.before + repaired(word.core, first) + word.after);
      if (core.toUpperCase() === first && oneGlyphFrom(nextCore, second)) set(i + 1, next!.before + repaired(next!.core, second) + next!.after);
    }
    // A one-word form ends the name: the line ends there or a bracketed number follows.
    const last = i === texts.length - 1 || /^\(/.test(texts[i + 1]!);
    if (i === 0 || !last || out[i] !== texts[i]) continue;
    const form = ONE_WORD_FORMS.find((f) => oneGlyphFrom(word.core, f) || oneGlyphFrom(core, f));
    if (form) set(i, word.before + repaired(word.core, form) + word.after);
  }
  return out;
}
