/**
 * Repairing a recognised word into a known word it misread by one glyph: which glyphs a
 * recogniser takes for one another, whether a word is one such glyph from a known word, and the
 * known word written in the letter case and punctuation of the word it replaces. Shared by the
 * repairs of legal forms and of address words.
 */

/**
 * Glyphs the recogniser takes for one another in print; a repair changes one glyph for another of
 * its group. E and B differ only on their right side, which faint thermal print loses.
 */
export const PRINT_GROUPS = ['OD0Q', '1IL|!', '5S', '8BE', '2Z', '6G'];

/**
 * Small letters that differ in one stroke, which thermal print and low resolution lose (m and n
 * and h, u and n, a and e, c and e, t and l, f and t), compared as capitals.
 */
export const LOWERCASE_GROUPS = ['MNH', 'UN', 'AE', 'CE', 'TL', 'FT'];

/** Whether two glyphs (capitals) are one group's. */
export function glyphsAlike(groups: string[]): (a: string, b: string) => boolean {
  const pairs = new Set<string>();
  for (const group of groups) for (const a of group) for (const b of group) if (a !== b) pairs.add(a + b);
  return (a, b) => pairs.has(a + b);
}

/** Whether `read` is `word` (capitals) with one glyph misread (or "rn" read for "m"); neither exactly equal nor further. */
export function oneGlyphFrom(read: string, word: string, alike: (a: string, b: string) => boolean): boolean {
  const upper = read.toUpperCase();
  if (upper === word) return false;
  if (upper.replace('RN', 'M') === word) return true;
  if (upper.length !== word.length) return false;
  let differences = 0;
  for (let i = 0; i < word.length; i++) {
    if (upper[i] === word[i]) continue;
    if (!alike(upper[i]!, word[i]!)) return false;
    differences++;
  }
  return differences === 1;
}

/**
 * The word in the letter case of the word it replaces, glyph by glyph: "Sdn" for "Son", "SDN" for
 * "SON". Where a digit or sign was read, a first glyph is a capital (forms are written "Inc",
 * "INC") and a later one takes the case of the glyph before it. A word in capitals but for one
 * glyph ("SEtANGOR") is a word in capitals whose odd glyph was the misread one.
 */
function inCaseOf(read: string, word: string): string {
  const letters = read.match(/\p{L}/gu) ?? [];
  const capitals = letters.filter((l) => l !== l.toLowerCase()).length;
  if (capitals >= 3 && capitals >= letters.length - 1) return word.toUpperCase();
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const glyph = read[i] ?? '';
    const lower = /\p{L}/u.test(glyph) ? glyph === glyph.toLowerCase() : i > 0 && out[i - 1] === out[i - 1]!.toLowerCase() && /\p{L}/u.test(out[i - 1]!);
    out += lower ? word[i]!.toLowerCase() : word[i]!;
  }
  return out;
}

/** A word split into the brackets or punctuation around it and its core: "(SON," gives "(", "SON", ",". */
export function split(text: string): { before: string; core: string; after: string } {
  const match = text.match(/^([("']*)(.*?)([)"',:;]*)$/)!;
  return { before: match[1]!, core: match[2]!, after: match[3]! };
}

/** A core without its full stop ("SDN." and "SDN" are the same word; "S.A." keeps its own). */
export const bare = (core: string) => core.replace(/\.$/, '');

/** The core repaired to `word`, keeping a full stop the core ended in. */
export function repaired(core: string, word: string): string {
  const stop = core.endsWith('.') && !word.endsWith('.') ? '.' : '';
  return inCaseOf(core, word) + stop;
}
