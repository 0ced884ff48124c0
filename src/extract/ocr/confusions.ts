/**
 * Glyphs the recogniser reads for one another across letters and digits: letters in place of
 * digits (O for 0, l or I for 1, S for 5) inside what is unmistakably a number, and digits in
 * place of letters inside a word. Each repair is made only where the glyphs around it decide it.
 * Also a speck after a word read as an apostrophe.
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

/** A 0 or 1 between small letters ("Ja1an", "Sc0op"): a word's o or l. */
const DIGIT_IN_LOWER = /(?<=\p{Ll})[01](?=\p{Ll})/gu;
/**
 * A word of capitals but for one 0 or 1 inside, four letters at least ("SHOPP1NG", "G0LDEN"): the
 * digit is its O or I. Codes ("SW1A", "U13", "A1B2") are shorter or hold more digits.
 */
const DIGIT_IN_UPPER = /^([("']*\p{Lu}+)([01])(\p{Lu}+[)"'.,:;]*)$/u;
/** A capital, then a 0 or 1, then small letters only ("F1oor", "C1ub"): the digit is the word's o or l. */
const DIGIT_AFTER_CAPITAL = /^([("']*\p{Lu})([01])(\p{Ll}+[)"'.,:;]*)$/u;
/** A number of three or more digits with one O among them ("4780O"): a postal code's or amount's 0. */
const LETTER_IN_DIGITS = /^(?=(?:\D*\d){3})\d*[Oo]\d*$/;

/** A pound sign read as an f before an amount with pence ("f210.00"): no word is written so. */
const POUND_AS_F = /^f(?=\d{1,3}(?:,\d{3})*\.\d{2}$)/;
/** A 0 opening a word of four small letters or more ("0rchard"): the word's capital O; a unit after a figure ("0ml") is shorter. */
const ZERO_OPENING_WORD = /^([("']*)0(?=\p{Ll}{4,}[)"'.,:;]*$)/u;

/**
 * A word of letters ending in an apostrophe not after an s ("FOUR'"): a speck beside the last
 * letter read as a mark. A possessive after a plural ("SHOPS'") keeps it; so do figures ("6'").
 */
const STRAY_APOSTROPHE = /^(\p{L}+[^\P{L}sS])['’]$/u;

/**
 * A recognised word with a digit read inside letters, or an O inside digits, repaired: the
 * surrounding glyphs say which was meant. Mixed codes keep their digits. A stray apostrophe after
 * a word is dropped.
 */
export function repairOcrWord(text: string): string {
  const stray = STRAY_APOSTROPHE.exec(text);
  if (stray) return stray[1]!;
  if (POUND_AS_F.test(text)) return text.replace(POUND_AS_F, '£');
  if (ZERO_OPENING_WORD.test(text)) return text.replace(ZERO_OPENING_WORD, '$1O');
  if (LETTER_IN_DIGITS.test(text)) return text.replace(/[Oo]/, '0');
  if (!/[01]/.test(text)) return text;
  const upper = DIGIT_IN_UPPER.exec(text);
  if (upper && (upper[1]! + upper[3]!).replace(/[^\p{L}]/gu, '').length >= 4) return upper[1]! + (upper[2] === '0' ? 'O' : 'I') + upper[3]!;
  const title = DIGIT_AFTER_CAPITAL.exec(text);
  if (title) return title[1]! + (title[2] === '0' ? 'o' : 'l') + title[3]!;
  return text.replace(DIGIT_IN_LOWER, (d) => (d === '0' ? 'o' : 'l'));
}
