/**
 * The one type-coercion module, for API writes and extraction alike: checks and normalises a value
 * for a column's type in the table's strictness.
 *   strict:   accepts only values already valid in their canonical form;
 *   balanced: also converts what parses unambiguously (numeric strings, "yes", "March 5, 2024");
 *   flexible: converts what it can, guessing where needed, and keeps anything else as given.
 */
import currencyCodes from 'currency-codes';
import { minorUnits, roundTo } from '../lib/decimal';
import type { Column } from '../domain/columns';
import type { Strictness } from '../domain/tables';
import { dateFromDate, ISO_DATE, ISO_TIMESTAMP, parseHumanDate } from './dates';
import { repairOcrNumber } from './ocr/confusions';

export { ambiguousDate, parseHumanDate } from './dates';

export type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

const ok = (value: unknown): Coerced => ({ ok: true, value });
const bad = (message: string): Coerced => ({ ok: false, message });

// ---------------------------------------------------------------- numbers

const CURRENCY_SYMBOLS = /US\$|R\$|[$€£¥₹₩₽₺₪₫฿₴₦₱₡₲₵₸]|kr\.?/g;
const SYMBOL_CODES: Record<string, string> = { $: 'USD', 'US$': 'USD', 'R$': 'BRL', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', '₽': 'RUB', '₺': 'TRY', '₪': 'ILS' };

/**
 * Currencies whose sign is letters, written before the figure ("RM 12.50", "Rp5.000", "Rs. 300"):
 * a sign only there, since the same letters stand for other things elsewhere.
 */
const LETTER_CODES: Record<string, string> = { RM: 'MYR', Rp: 'IDR', Rs: 'INR' };
/** The letter signs as a pattern, for the amounts found in text too (fields/values.ts). */
export const LETTER_SIGN_SOURCE = Object.keys(LETTER_CODES).join('|');
const LETTER_SIGNS = new RegExp(`\\b(${LETTER_SIGN_SOURCE})\\.?\\s?(?=[-−(]?\\d)`);
const LETTER_SIGNS_ALL = new RegExp(LETTER_SIGNS.source, 'g');
/** A letter sign alone at the end, as an amount's prefix is passed. */
const LETTER_SIGN_ALONE = new RegExp(`\\b(${LETTER_SIGN_SOURCE})\\.?\\s*$`);

/** Drops currency signs and ISO 4217 codes, also glued to the figure ("USD12.00"; only real codes: "SKU1" keeps its letters). */
function stripCurrency(s: string): string {
  return s
    .replace(CURRENCY_SYMBOLS, '')
    .replace(LETTER_SIGNS_ALL, '')
    .replace(/\b[A-Z]{3}(?![A-Za-z])/g, (code) => (currencyCodes.code(code) ? '' : code));
}

/** The currency a text names: an ISO 4217 code, else the usual code of its sign; null when none. */
export function currencyIn(text: string): string | null {
  for (const [code] of text.matchAll(/\b[A-Z]{3}\b/g)) if (currencyCodes.code(code)) return code;
  const sign = text.match(/US\$|R\$|[$€£¥₹₩₽₺₪]/)?.[0];
  if (sign) return SYMBOL_CODES[sign]!;
  const letters = (LETTER_SIGNS.exec(text) ?? LETTER_SIGN_ALONE.exec(text))?.[1];
  return letters ? LETTER_CODES[letters]! : null;
}

/** A number, or an ambiguity with the reading `flexible` guesses (groups of thousands), or nothing. */
export type NumberParse = { value: number } | { ambiguous: string; guess: number } | null;

/**
 * What the rest of a document says about how it writes values, so that one ambiguous value is read
 * like its neighbours: `dayFirst` (another date of the column has a day above 12 first),
 * `decimalComma` (its numbers write decimals after a comma).
 */
export interface ValueHints {
  dayFirst?: boolean;
  decimalComma?: boolean;
  /** The day/month order to guess when nothing else decides (the document's language, the server's default). */
  dayFirstDefault?: boolean;
  /** The text was recognised from an image: letters read in place of digits inside a number are repaired. */
  ocr?: boolean;
}

/**
 * Reads a number written by a person: currency signs and codes, group separators (`,` `.` space
 * `'`), a decimal comma, and negatives as `-12`, `12-` or `(12)`. The locale-number library we
 * tried reads "1.234,50" as 1.2345 under en-US, so separators are decided here: with both `.` and
 * `,` the last is the decimal mark; one `,` before exactly three digits is ambiguous (1234 or
 * 1.234) unless the hints say how the document writes decimals; several of one kind are groups; a
 * single `.` is a decimal point, or a group before three digits in a decimal-comma document.
 */
/** A unit after a number: a word after a space, or a common unit written on to it ("2kg"). */
const UNIT_AFTER = /(\d)(?:\s+\p{L}{1,6}\.?|(?:kg|g|mg|t|km|m|cm|mm|l|ml|h|min|s|pcs|pc|x|st|stk))$/iu;

export function parseHumanNumber(input: string, hints: ValueHints = {}): NumberParse {
  // A percentage reads as its number as printed ("12,5 %" is 12.5); a unit after a number is
  // dropped ("142 min", "3 Piece", "2,5 kg").
  let s = stripCurrency(input).trim().replace(/\s*%$/, '').replace(/^(\(.*)%\)$/, '$1)').replace(UNIT_AFTER, '$1');
  if (s === '') return null;
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  s = stripCurrency(s).trim();
  if (/^[-−–]/.test(s)) {
    negative = !negative;
    s = s.slice(1).trim();
  } else if (/[-−–]$/.test(s)) {
    negative = !negative;
    s = s.slice(0, -1).trim();
  }
  // Spaces (and apostrophes) group thousands only: "98 452" is a number, "+44 20 7946" a phone.
  const grouped = s.replace(/^\+/, '').split(/[.,](?=\d+$)/)[0]!;
  if (/\d[\s\u00a0\u202f']+\d/.test(grouped) && !/^\d{1,3}([\s\u00a0\u202f']\d{3})+$/.test(grouped.replace(/[.,]/g, '').trim())) return null;
  s = s.replace(/^\+/, '').replace(/[\s\u00a0\u202f']/g, '');
  if (/^\d+(\.\d+)?e[-+]?\d+$/i.test(s)) return { value: (negative ? -1 : 1) * Number(s) };
  if (!/^(\d|[.,]\d)[\d.,]*$/.test(s) || /[.,]$/.test(s)) return null;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let normalized: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    const [intPart, frac, ...rest] = s.split(decimal);
    if (rest.length || !groupsValid(intPart!, group)) return null;
    normalized = `${intPart!.split(group).join('')}.${frac}`;
  } else if (lastComma >= 0) {
    const parts = s.split(',');
    if (parts.length > 2) {
      if (!groupsValid(s, ',')) return null;
      normalized = parts.join('');
    } else if (parts[1]!.length === 3 && parts[0]!.length <= 3 && parts[0] !== '0' && hints.decimalComma === undefined) {
      const sign = negative ? -1 : 1;
      return { ambiguous: `"${input.trim()}" could be ${parts.join('')} or ${parts.join('.')}`, guess: sign * Number(parts.join('')) };
    } else if (parts[1]!.length === 3 && hints.decimalComma === false) {
      if (!groupsValid(s, ',')) return null;
      normalized = parts.join('');
    } else {
      normalized = parts.join('.');
    }
  } else if (lastDot >= 0 && (s.indexOf('.') !== lastDot || (hints.decimalComma && s.length - lastDot === 4 && !s.startsWith('0.')))) {
    if (!groupsValid(s, '.')) return null;
    normalized = s.split('.').join('');
  } else {
    normalized = s;
  }
  const value = Number(normalized);
  if (!Number.isFinite(value)) return null;
  return { value: negative ? -value : value };
}

function groupsValid(intPart: string, group: string): boolean {
  const groups = intPart.split(group);
  return groups.length === 1 || (groups[0]!.length >= 1 && groups[0]!.length <= 3 && groups.slice(1).every((g) => g.length === 3));
}


// ---------------------------------------------------------------- the rest

const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]{2,}$/;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'on', 'x', '✓', 'checked']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'off', '', '✗', '✘']);

function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
  return text && text.length > 60 ? `${text.slice(0, 57)}...` : String(text);
}

function matchOption(value: string, options: string[], loose: boolean): string | undefined {
  if (options.includes(value)) return value;
  if (!loose) return undefined;
  const folded = value.trim().toLowerCase();
  return options.find((o) => o.toLowerCase() === folded);
}

/** Checks and converts one non-null value for `column`; nulls and blanks are handled by the caller. */
function coerceValue(value: unknown, column: Column, strictness: Strictness, hints: ValueHints): Coerced {
  const loose = strictness !== 'strict';
  const guess = strictness === 'flexible';
  switch (column.type) {
    case 'number':
    case 'currency': {
      let n: number | undefined;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'string' && loose) {
        const parsed = parseHumanNumber(value, hints) ?? (hints.ocr ? parseHumanNumber(repairOcrNumber(value), hints) : null);
        if (parsed && 'value' in parsed) n = parsed.value;
        else if (parsed && guess) n = parsed.guess;
        else if (parsed) return bad(`ambiguous number: ${parsed.ambiguous}`);
      }
      if (n === undefined || !Number.isFinite(n)) return bad(`expected a number, got ${describe(value)}`);
      const stored = column.type === 'currency' ? roundTo(n, minorUnits(column.currency_code)) : n;
      // -0 is stored as 0: LMDB's keys would sort it before every 0, apart from its equals.
      return ok(stored === 0 ? 0 : stored);
    }
    case 'boolean': {
      if (typeof value === 'boolean') return ok(value);
      if (loose && (typeof value === 'string' || typeof value === 'number')) {
        const word = String(value).trim().toLowerCase();
        if (TRUE_WORDS.has(word)) return ok(true);
        if (FALSE_WORDS.has(word)) return ok(false);
      }
      return bad(`expected true or false, got ${describe(value)}`);
    }
    case 'date': {
      if (value instanceof Date && !Number.isNaN(value.getTime())) return ok(dateFromDate(value));
      if (typeof value !== 'string') return bad(`expected a date as YYYY-MM-DD, got ${describe(value)}`);
      if (!loose) {
        const parsed = ISO_DATE.test(value) || ISO_TIMESTAMP.test(value) ? parseHumanDate(value, false) : null;
        return parsed && 'value' in parsed ? ok(parsed.value) : bad(`expected a date as YYYY-MM-DD or an ISO timestamp, got ${describe(value)}`);
      }
      const parsed = parseHumanDate(value, guess, hints);
      if (parsed && 'value' in parsed) return ok(parsed.value);
      if (parsed) return bad(`ambiguous date: ${parsed.ambiguous}; write it as YYYY-MM-DD`);
      return bad(`expected a date, got ${describe(value)}`);
    }
    case 'email': {
      if (typeof value !== 'string') return bad(`expected an email address, got ${describe(value)}`);
      const s = loose ? value.trim().replace(/^mailto:/i, '') : value;
      return EMAIL.test(s) ? ok(s) : bad(`expected an email address, got ${describe(value)}`);
    }
    case 'url': {
      if (typeof value !== 'string') return bad(`expected an http or https URL, got ${describe(value)}`);
      let s = loose ? value.trim() : value;
      if (guess && !/^[a-z][a-z0-9+.-]*:/i.test(s) && /^[\w-]+(\.[\w-]+)+(\/\S*)?$/.test(s)) s = `https://${s}`;
      return isHttpUrl(s) ? ok(s) : bad(`expected an http or https URL, got ${describe(value)}`);
    }
    case 'enum': {
      const options = column.options ?? [];
      const text = typeof value === 'string' ? value : loose && (typeof value === 'number' || typeof value === 'boolean') ? String(value) : null;
      const match = text === null ? undefined : matchOption(text, options, loose);
      return match !== undefined ? ok(match) : bad(`expected one of ${options.map((o) => `"${o}"`).join(', ')}, got ${describe(value)}`);
    }
    case 'multi_select': {
      const options = column.options ?? [];
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else if (loose && typeof value === 'string') items = value.split(/[,;|\n]/).map((s) => s.trim()).filter(Boolean);
      else return bad(`expected a list of options, got ${describe(value)}`);
      const out: string[] = [];
      for (const item of items) {
        const match = typeof item === 'string' ? matchOption(item, options, loose) : undefined;
        if (match === undefined) return bad(`${describe(item)} is not one of ${options.map((o) => `"${o}"`).join(', ')}`);
        if (!out.includes(match)) out.push(match);
      }
      return ok(out);
    }
    case 'array': {
      if (Array.isArray(value)) return ok(value);
      if (loose && typeof value === 'string') {
        const s = value.trim();
        if (s.startsWith('[')) {
          try {
            const parsed = JSON.parse(s);
            if (Array.isArray(parsed)) return ok(parsed);
          } catch {
            // not JSON: fall through
          }
        }
        if (guess) return ok(s.split(/[,;|\n]/).map((x) => x.trim()).filter(Boolean));
      }
      return bad(`expected an array, got ${describe(value)}`);
    }
    case 'string':
    case 'text': {
      let s: string;
      if (typeof value === 'string') s = value;
      else if (loose && (typeof value === 'number' || typeof value === 'boolean')) s = String(value);
      else if (value instanceof Date && loose) s = dateFromDate(value);
      else return bad(`expected text, got ${describe(value)}`);
      if (column.type === 'string' && /[\r\n]/.test(s)) {
        if (!loose) return bad('expected a single line; use a text column for several lines');
        s = s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
      }
      return ok(s);
    }
  }
}

/** Blank strings count as no value for every type but text-like ones. */
function isBlank(value: unknown, column: Column): boolean {
  if (value === null || value === undefined) return true;
  return typeof value === 'string' && value.trim() === '' && column.type !== 'string' && column.type !== 'text';
}

/** `value` without U+0000 in any of its strings: a list's items, an object's keys and values. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '') : value;
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [withoutNul(key), withoutNul(item)]));
  }
  return value;
}

/**
 * Coerces `value` for `column`. `null` means no value. In flexible mode a value that cannot be
 * converted is kept as given; otherwise it is an error with a message for the user. U+0000 is
 * dropped first, in every mode: PostgreSQL text cannot hold it, and a document that holds it does so
 * by accident. The API refuses it in what clients send (http/body.ts).
 */
export function coerce(value: unknown, column: Column, strictness: Strictness, hints: ValueHints = {}): Coerced {
  value = withoutNul(value);
  if (value === null || value === undefined) return ok(null);
  if (isBlank(value, column)) return strictness === 'strict' ? bad(`expected a ${column.type} value or null, got ""`) : ok(null);
  const result = coerceValue(value, column, strictness, hints);
  if (!result.ok && strictness === 'flexible') return ok(value);
  return result;
}

/** Whether a document's value reads as a value of `column` (in balanced mode, as extraction reads). */
export function fits(value: unknown, column: Pick<Column, 'type' | 'options' | 'currency_code'> & Partial<Column>): boolean {
  const result = coerce(value, { id: 'x', name: 'x', required: false, ...column } as Column, 'balanced');
  return result.ok && result.value !== null;
}
