/**
 * The one dates module: parsing a written date (coercion), finding the dates in a line of text
 * (document fields), and deciding day/month order from a document's own dates or its language.
 * Day-first languages, two-digit years and month names in the lexicon's languages live here only.
 */
import * as chrono from 'chrono-node';
import type { TextLine } from './layout/page';
import { MONTH_NAMES } from './lexicon.data';

/** Lower case without accents ("févr." and "fevr." are one month); characters keep their count. */
export const fold = (s: string) =>
  Array.from(s, (ch) => {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '');
    return f.length === ch.length ? f : ch;
  })
    .join('')
    .toLowerCase();

export const MONTH_BY_NAME = new Map<string, number>();
for (const [month, names] of Object.entries(MONTH_NAMES)) for (const name of names) MONTH_BY_NAME.set(fold(name), Number(month));
/** Month names, longest first, for a regular expression's alternation. */
export const MONTH_ALT = [...MONTH_BY_NAME.keys()].sort((a, b) => b.length - a.length).join('|');

/** Languages whose numeric dates put the day first (English is written both ways). */
const DAY_FIRST_LANGUAGES = new Set(['de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'ms', 'id']);

/** Whether a document in `language` writes the day first; undefined when the language does not say. */
export function dayFirstOf(language: string | null): boolean | undefined {
  if (!language || language === 'en') return undefined;
  return DAY_FIRST_LANGUAGES.has(language);
}

/**
 * Where a document comes from, as evidence of its day/month order when its dates and language do
 * not say: its currency (RM, £, €, ₹ are used where the day comes first; "$" alone is used on both
 * sides), its tax's name, a country named on it, an international dialling code.
 */
const LOCALE_EVIDENCE: Array<{ re: RegExp; order: 'dmy' | 'mdy' }> = [
  { re: /(?<![\p{L}])(?:RM|MYR|SGD|S\$|GBP|EUR|INR|Rs\.|AUD|A\$|NZD|ZAR|IDR|Rp|THB|VND|HKD|BRL|R\$|PKR|LKR|NGN|KES|AED|SAR)(?![\p{L}])|[£€₹฿₫₦]/gu, order: 'dmy' },
  { re: /\b(?:malaysia|singapore|united kingdom|england|scotland|ireland|india|australia|new zealand|indonesia|thailand|vietnam|hong kong|south africa|nigeria|kenya|pakistan|sri lanka|brazil|uae|united arab emirates)\b/giu, order: 'dmy' },
  { re: /(?<![\d+])\+\s?(?:60|65|44|353|91|61|64|62|66|84|852|27|234|254|92|94|55|971)(?=[\s(-]?\d)/gu, order: 'dmy' },
  // A goods and services tax: Australia, New Zealand, India, Singapore and Malaysia, all day first (Canada, the
  // one other, writes both ways); the United States has none.
  { re: /(?<![\p{L}])GST(?![\p{L}])/gu, order: 'dmy' },
  // Company forms of day-first countries (Malaysia, Singapore, India, Australia, Britain) and of the United States.
  { re: /(?<![\p{L}])(?:sdn\.?\s?bhd|bhd|S\/B|pte\.?\s?ltd|pvt\.?\s?ltd|pty\.?\s?ltd|plc)(?![\p{L}])/giu, order: 'dmy' },
  { re: /\b(?:united states|u\.s\.a\.|usa)\b/giu, order: 'mdy' },
  { re: /(?<![\p{L}])(?:inc\.|llc)(?![\p{L}])/giu, order: 'mdy' },
  { re: /(?<![\d+])\+\s?1(?=[\s(-]\d{3})/gu, order: 'mdy' },
];

/** The day/month order a document's currency, country or phone numbers point to, or null. */
export function localeDayOrder(text: string): DayOrder {
  let dmy = 0;
  let mdy = 0;
  for (const { re, order } of LOCALE_EVIDENCE) {
    const n = text.match(re)?.length ?? 0;
    if (order === 'dmy') dmy += n;
    else mdy += n;
  }
  return dmy > mdy ? 'dmy' : mdy > dmy ? 'mdy' : null;
}

export const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${pad(m)}-${pad(d)}`;

/** YYYY-MM-DD of a real calendar day, or null (31 February). */
export function isoOf(y: number, m: number, d: number): string | null {
  return validDate(y, m, d) ? ymd(y, m, d) : null;
}

/** A two-digit year: 00-69 in this century, 70-99 in the last. */
export const expandYear = (y: number) => (y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y);

/** A date as `YYYY-MM-DD`, or a full ISO timestamp when a time of day is given. */
export function dateFromDate(date: Date): string {
  const midnight = date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;
  return midnight ? date.toISOString().slice(0, 10) : date.toISOString();
}

// ---------------------------------------------------------------- one written date

/** How the rest of a document reads an ambiguous date (see ValueHints in coerce.ts). */
export interface DateHints {
  dayFirst?: boolean;
  dayFirstDefault?: boolean;
}

export type DateParse = { value: string } | { ambiguous: string } | null;

/** A date whose day and month could be swapped: 03/04/2024 (not 13/04/2024, not 03.04.2024). */
export function ambiguousDate(input: unknown): boolean {
  if (typeof input !== 'string') return false;
  const m = /^\s*(\d{1,2})[/-](\d{1,2})[/-]\d{2,4}\s*$/.exec(input);
  return !!m && +m[1]! <= 12 && +m[2]! <= 12 && m[1] !== m[2];
}

/**
 * A date written with its month's name in one of the lexicon's languages: "12. März 2024",
 * "15 de marzo de 2024", "1 maja 2024", "2 févr. 2024", "March 5, 2024"; [year, month, day].
 */
function monthNameDate(input: string): [number, number, number] | null {
  // Dashes and slashes between the parts as printed by tills ("05- Jan-2017", "15/Apr/2017").
  const s = input.toLowerCase().replace(/\b(de|del|di|den|le|the|of)\b/gu, ' ').replace(/[,./-]/g, ' ').replace(/\s+/g, ' ').trim();
  const month = (name: string) => MONTH_BY_NAME.get(fold(name));
  const dayFirst = /^(\d{1,2}) (\p{L}+) (\d{4})$/u.exec(s);
  if (dayFirst && month(dayFirst[2]!)) return [+dayFirst[3]!, month(dayFirst[2]!)!, +dayFirst[1]!];
  const monthFirst = /^(\p{L}+) (\d{1,2}) (\d{4})$/u.exec(s);
  if (monthFirst && month(monthFirst[1]!)) return [+monthFirst[3]!, month(monthFirst[1]!)!, +monthFirst[2]!];
  return null;
}

/** A whole string read as a date; `guess` takes the month first when nothing decides the order. */
export function parseHumanDate(input: string, guess: boolean, hints: DateHints = {}): DateParse {
  const s = input.trim();
  const iso = ISO_DATE.exec(s);
  if (iso) return validDate(+iso[1]!, +iso[2]!, +iso[3]!) ? { value: s } : null;
  if (ISO_TIMESTAMP.test(s)) {
    const date = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
    return Number.isNaN(date.getTime()) ? null : { value: dateFromDate(date) };
  }
  // Numeric day/month orders: 31.12.2024 is day-first; 12/31/2024 or 31/12/2024 by whichever part can be a day.
  const numeric = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})$/.exec(s);
  if (numeric) {
    const [a, sep, b, c] = [+numeric[1]!, numeric[2]!, +numeric[3]!, +numeric[4]!];
    if (numeric[1]!.length === 4) return validDate(a, b, c) ? { value: ymd(a, b, c) } : null;
    const y = expandYear(c);
    if (sep === '.') return validDate(y, b, a) ? { value: ymd(y, b, a) } : null;
    const dayFirst = isoOf(y, b, a);
    const monthFirst = isoOf(y, a, b);
    if (dayFirst && monthFirst && dayFirst !== monthFirst) {
      const order = hints.dayFirst ?? hints.dayFirstDefault;
      if (order !== undefined) return { value: order ? dayFirst : monthFirst };
      return guess ? { value: monthFirst } : { ambiguous: `"${s}" could be ${monthFirst} or ${dayFirst}` };
    }
    return dayFirst || monthFirst ? { value: (dayFirst ?? monthFirst)! } : null;
  }
  const written = monthNameDate(s);
  if (written) return validDate(...written) ? { value: ymd(...written) } : null;
  const [result] = chrono.parse(s, new Date(Date.UTC(2000, 0, 1)), { forwardDate: false });
  if (!result || result.text.length < s.replace(/[.,\s]+$/, '').length * 0.6) return null;
  const start = result.start;
  if (!guess && (!start.isCertain('day') || !start.isCertain('month') || !start.isCertain('year'))) return null;
  const y = start.get('year')!;
  const m = start.get('month')!;
  const d = start.get('day')!;
  if (start.isCertain('hour')) {
    return { value: new Date(Date.UTC(y, m - 1, d, start.get('hour')!, start.get('minute') ?? 0, start.get('second') ?? 0)).toISOString() };
  }
  return validDate(y, m, d) ? { value: ymd(y, m, d) } : null;
}

// ---------------------------------------------------------------- dates inside text

const DATE_PATTERNS: Array<{ re: RegExp; kind: 'iso' | 'numeric' | 'dmy' | 'mdy' }> = [
  // Year first, as ISO writes it and East Asian and Hungarian tills print it ("2019/03/14", "2019.03.14.").
  // A figure after a separator continues an identifier, unless it starts a time of day ("14.07.2024-10:12").
  { re: /(?<![\d.\/-])(\d{4})(?:-(\d{1,2})-|\/(\d{1,2})\/|\.(\d{1,2})\.)(\d{1,2})(?![\d]|[.\/-]\d(?!\d?:\d{2}))/g, kind: 'iso' },
  { re: /(?<![\d.\/-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d]|[./-]\d(?!\d?:\d{2}))/g, kind: 'numeric' },
  // "12. März 2024", "15 de marzo de 2024", and as tills and logs print them: "24-Mar-2018",
  // "24 Mar-18", "15/Apr/2017", "14May/2017" (a separator lost), "05- Jan-2017" (a space read
  // beside a dash), "15 Jun 18 08:34" (a two-digit year only before a time of day).
  { re: new RegExp(`(?<![\\p{L}\\d/])(\\d{1,2})(?:\\.?\\s*|\\s?-\\s?|/)(?:de\\s+)?(${MONTH_ALT})(?!\\p{L})\\.?(?:,?\\s*|\\s?-\\s?|/)(?:de\\s+)?(\\d{4}|(?<=[-/])\\d{2}|(?<=\\s)\\d{2}(?=\\s+\\d{1,2}:\\d{2}))(?!\\d)`, 'gu'), kind: 'dmy' },
  // A comma after the day may take the space's place ("Nov 22,2026", as tills and recognisers print it).
  { re: new RegExp(`(?<![\\p{L}])(${MONTH_ALT})(?!\\p{L})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+|,)(\\d{4})(?!\\d)`, 'gu'), kind: 'mdy' },
];

export type DayOrder = 'dmy' | 'mdy' | null;

export interface FoundDate {
  start: number;
  end: number;
  raw: string;
  /** YYYY-MM-DD when the date or the document decides it; null while the day/month order is open. */
  iso: string | null;
  /** For numeric dates with `/` or `-`: the two leading numbers, for day/month evidence. */
  parts?: [number, number];
}

const DATES_MEMO = new Map<string, FoundDate[]>();

/** The dates in a text (memoised: every rule looks at the same lines). */
export function findDates(text: string, order: DayOrder): FoundDate[] {
  const key = `${order ?? ''}|${text}`;
  let found = DATES_MEMO.get(key);
  if (!found) {
    found = computeDates(text, order);
    if (DATES_MEMO.size >= 20000) DATES_MEMO.clear();
    DATES_MEMO.set(key, found);
  }
  return found;
}

function computeDates(text: string, order: DayOrder): FoundDate[] {
  // Most lines hold no date: skip the patterns when there are no figures at all.
  if (!/\d/.test(text)) return [];
  const folded = fold(text);
  const found: FoundDate[] = [];
  for (const { re, kind } of DATE_PATTERNS) {
    for (const m of folded.matchAll(re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      let iso: string | null = null;
      let parts: [number, number] | undefined;
      if (kind === 'iso') iso = isoOf(+m[1]!, +(m[2] ?? m[3] ?? m[4])!, +m[5]!);
      else if (kind === 'dmy') iso = isoOf(expandYear(+m[3]!), MONTH_BY_NAME.get(m[2]!)!, +m[1]!);
      else if (kind === 'mdy') iso = isoOf(+m[3]!, MONTH_BY_NAME.get(m[1]!)!, +m[2]!);
      else {
        const [a, sep, b, y] = [+m[1]!, m[2]!, +m[3]!, expandYear(+m[4]!)];
        const dayFirst = isoOf(y, b, a);
        const monthFirst = isoOf(y, a, b);
        if (!dayFirst && !monthFirst) continue;
        if (sep === '.') iso = dayFirst;
        else {
          parts = [a, b];
          if (!dayFirst || !monthFirst || dayFirst === monthFirst) iso = dayFirst ?? monthFirst;
          else iso = order === 'dmy' ? dayFirst : order === 'mdy' ? monthFirst : null;
        }
        if (sep === '.' && !iso) continue;
      }
      if (kind !== 'numeric' && !iso) continue;
      found.push({ start, end, raw: text.slice(start, end), iso, parts });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The document's day/month order from its own dates: a first number above 12 is a day. */
export function dayOrderOf(lines: TextLine[]): DayOrder {
  let dmy = 0;
  let mdy = 0;
  for (const line of lines) {
    for (const d of findDates(line.text, null)) {
      if (!d.parts) {
        if (/^\d{1,2}\.\d{1,2}\./.test(d.raw)) dmy++;
        continue;
      }
      if (d.parts[0] > 12) dmy += 2;
      else if (d.parts[1] > 12) mdy += 2;
    }
  }
  if (dmy > mdy) return 'dmy';
  if (mdy > dmy) return 'mdy';
  return null;
}
