/**
 * Sub-fields inside a cell: invoices print an item's article number, EAN or gross price on small
 * lines under its description ("Desk lamp / Art-Nr: DL-22 / 4006381333931 (EAN)"), tables put a
 * duration in parentheses after a title ("Spring concert (Duration: 90 min)"). Such a part is a
 * labelled value, `Label: value`, `(Label: value)` or `value (Label)`, whose value is a number or a
 * code. What is left of the cell is its text.
 */
import { conceptsOf } from './lexicon';

export interface SubField {
  label: string;
  value: string;
  /** The text of the cell the part was found in, as printed. */
  raw: string;
}

/** A value that a sub-field can hold: a number or a code (a digit in it, at most two words). */
const CODE_LIKE = /^(?=.*\d)[^\s:;()]+(?:\s[^\s:;()]+)?$/u;
const PARENTHESIZED = /\(\s*([\p{L}][\p{L}\p{N}.\-/ ]{0,28}?)\s*:\s*([^():;]+?)\s*\)/gu;
const SUFFIX_LABEL = /(?:^|\s)([^\s():;]*\d[^\s():;]*)\s*\(\s*([\p{L}][\p{L}\p{N}.\-/]{1,20})\s*\)/gu;
const COLON_VALUE = /\s*:\s*([^\s:;()]+(?:\s[^\s:;()\p{Lu}]+)?)/gu;

/** A label the lexicon knows as a business field (an article number, a gross price). */
const known = (label: string) => (conceptsOf(label)[0]?.score ?? 0) >= 0.75;

/**
 * The labelled parts of a cell's text and the text without them. `wanted(label)` says whether a
 * label names something the caller asks for; a part whose label does not is taken only when its
 * label is a business field of the lexicon (a gross price line is not part of a description).
 * A `Label: value` part's label is the last one to three words before its colon, the fewest that
 * qualify.
 */
export function splitSubFields(text: string, wanted: (label: string) => boolean): { main: string; parts: SubField[] } {
  const parts: SubField[] = [];
  let rest = text;
  const qualifies = (label: string, value: string) => CODE_LIKE.test(value.trim()) && (wanted(label) || known(label));
  const take = (label: string, value: string, whole: string) => {
    parts.push({ label: label.trim(), value: value.trim(), raw: whole.trim() });
    rest = rest.replace(whole, ' ');
  };
  for (const m of [...rest.matchAll(PARENTHESIZED)]) if (qualifies(m[1]!, m[2]!)) take(m[1]!, m[2]!, m[0]);
  for (const m of [...rest.matchAll(SUFFIX_LABEL)]) if (qualifies(m[2]!, m[1]!)) take(m[2]!, m[1]!, m[0]);
  for (const m of [...rest.matchAll(COLON_VALUE)]) {
    const words = rest.slice(0, m.index).trimEnd().split(/\s+/);
    for (let k = 1; k <= Math.min(3, words.length); k++) {
      const label = words.slice(-k).join(' ');
      if (!/^\p{L}/u.test(label) || !qualifies(label, m[1]!)) continue;
      take(label, m[1]!, `${label}${m[0]}`);
      break;
    }
  }
  return { main: rest.replace(/\s+/g, ' ').replace(/\s+([;,])/g, '$1').replace(/[;,]\s*$/, '').trim(), parts };
}
