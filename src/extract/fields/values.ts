/** Values inside text: amounts, times, contacts, bank details, address lines. */
import { currencyIn, LETTER_SIGN_SOURCE, parseHumanNumber } from '../coerce';
import { normalizeLabel } from '../lexicon';
import { DOCUMENT_TITLES } from '../lexicon.data';
import { findDates, type FoundDate } from '../dates';

export interface FoundAmount {
  start: number;
  end: number;
  raw: string;
  value: number;
  /** Written with decimals or a currency: surely money, not a count. */
  money: boolean;
  currency: string | null;
}

export const SYMBOLS = 'US\\$|R\\$|[$€£¥₹₩₽₺₪]';
/** An amount; after dot leaders ("Total ....... 6.48") too, but not after a lone full stop (the decimals of "1.50"). */
export const AMOUNT_RE = new RegExp(
  `(?<![\\p{L}\\d,/-])(?<!(?:^|[^.])\\.)([-−](?=\\s?(?:${SYMBOLS})))?((?:${SYMBOLS}|(?:${LETTER_SIGN_SOURCE})\\.?|[A-Z]{3})\\s?)?([-−]\\s?|\\()?(\\d{1,3}(?:[.,'’\\u00a0\\u202f ]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?)(\\))?(\\s?(?:${SYMBOLS}|[A-Z]{3}))?(-(?!\\d))?(?![\\d%]|\\s?%|[.,]\\d|[./-]\\d)`,
  'gu',
);

export function findAmounts(text: string, dates: FoundDate[] = findDates(text, null)): FoundAmount[] {
  const out: FoundAmount[] = [];
  for (const m of text.matchAll(AMOUNT_RE)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (dates.some((d) => start < d.end && end > d.start)) continue;
    // A sign before the currency ("-£189.00") is the amount's.
    const [, lead, pre, sign, digits, close, post, trail] = m;
    // Three capitals that are no currency ("VAT 19.00") are a word before the amount, not its code.
    const fakePrefix = !!pre && /^[A-Z]{3}/.test(pre) && !currencyIn(pre);
    const fakeSuffix = !!post && /[A-Z]{3}/.test(post) && !currencyIn(post);
    const prefix = fakePrefix ? '' : (pre ?? '');
    const suffix = fakeSuffix ? '' : (post ?? '');
    const raw = `${lead ?? ''}${prefix}${sign ?? ''}${digits}${close ?? ''}${suffix}${trail ?? ''}`.trim();
    const currency = prefix || suffix ? currencyIn(`${prefix} ${suffix}`) : null;
    const parsed = parseHumanNumber(raw);
    const value = parsed && 'value' in parsed ? parsed.value : parsed?.guess;
    if (value === undefined) continue;
    out.push({ start: start + (fakePrefix ? pre!.length : 0), end: end - (fakeSuffix ? post!.length : 0), raw, value, money: /[.,]\d{1,2}$/.test(digits!) || currency !== null, currency });
  }
  return out;
}

export const TIME_RE = /(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[ap]\.?m\.?)?(?![\d:])/i;
export const EMAIL_RE = /[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/i;
export const URL_RE = /\b(?:https?:\/\/|www\.)[^\s,;]+/i;
export const IBAN_RE = /\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b/;
export const BIC_RE = /\b([A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b/;
export const PHONE_RE = /(?:\+\s?\d|\(\d|\b\d)[\d()\/ .-]{5,}\d/;
export const POSTAL_LINE = /(?:^|[\s,])(?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3,4})?\s+\p{Lu}|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b|\b\d{2}-\d{3}\s+\p{Lu}|\b[A-Z]{2}\s+[A-Z]\d[A-Z]\s?\d[A-Z]\d\b|\b(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4}\b/u;
/** A kind of street (an abbreviation's full stop ends its word, so no `\b` after it). */
export const STREET_WORD =
  /\b(?:str\.|straße|strasse|weg|gasse|allee|platz|street|st\.|road|rd\.|avenue|ave\.?|lane|drive|blvd|rue|avenue|boulevard|calle|avda\.?|via|viale|piazza|straat|laan|plein|ulica|ul\.|rua|avenida|jalan|jln\.?|jl\.|lorong|lrg\.?|taman|persiaran|lebuh)(?![\p{L}\d])/iu;
/** A street line: a house number, or a kind of street. */
export const STREET_LINE = new RegExp(String.raw`\d+\s*[a-z]?\s*$|^\d+\s+\p{L}|${STREET_WORD.source}`, 'iu');

/**
 * A company's registration number on a line of its own under its name ("(123456-A)", "Co. Reg:
 * 704427-T", "Company No. 01234567"): an identifier, perhaps after a short label, in parentheses or not.
 */
export const REGISTRATION_LINE = /^[\s(]*(?:[\p{L}. ]{0,20}[:.;]\s*)?\(?\s*[A-Z]{0,3}\d[\d\s-]{3,}[A-Z]?[\s).]*$/u;

export function validIban(text: string): string | null {
  const compact = text.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34) return null;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const code = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of code) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1 ? text : null;
}

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Document titles ("Invoice", "Rechnung") as normalised labels. */
export const TITLES = new Set(DOCUMENT_TITLES.map(normalizeLabel));
