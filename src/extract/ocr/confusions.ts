/**
 * Letters the recogniser reads in place of digits (O for 0, l or I for 1, S for 5), repaired only
 * where the reading is unambiguous: a value meant to be a number whose other characters are
 * digits and number punctuation. A word stays a word.
 */

const DIGIT_FOR: Record<string, string> = { O: '0', o: '0', l: '1', I: '1', '|': '1', S: '5', s: '5' };
const CONFUSABLE = /[OolI|Ss]/g;
const HAS_CONFUSABLE = /[OolI|Ss]/;

/**
 * The text with confusable letters inside a number turned into their digits, or the text as it
 * was when it is not such a number. Currency signs and codes around the number are kept as they are.
 */
export function repairOcrNumber(text: string): string {
  const match = text.match(/^(\s*(?:[A-Z]{3}\s+|[$€£¥₹]\s*)?[-(]?)(.*?)([)]?(?:\s+[A-Z]{3}|\s*[$€£¥₹%])?\s*)$/);
  if (!match) return text;
  const [, before, body, after] = match as unknown as [string, string, string, string];
  if (!/^[\dOolI|Ss.,' -]+$/.test(body)) return text;
  // A real digit says this is a number; without one ("SOLD", "Is") it is a word.
  if (!/\d/.test(body) || !HAS_CONFUSABLE.test(body)) return text;
  const repaired = body.replace(CONFUSABLE, (c) => DIGIT_FOR[c]!).trim();
  const grouped = /^-?\d{1,3}([.,' ]\d{3})*([.,]\d+)?$/;
  const plain = /^-?\d+([.,]\d+)?$/;
  if (!grouped.test(repaired) && !plain.test(repaired)) return text;
  return `${before}${repaired}${after}`;
}
