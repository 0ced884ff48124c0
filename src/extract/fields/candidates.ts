/** Candidate values of a column: labelled values, dates from phrases and places, document numbers after titles. */
import { parseHumanNumber } from '../coerce';
import { conceptsOf, coreTokens, isKindOf, normalizeLabel, withoutTypeCodes } from '../lexicon';
import { DUE_PHRASES, PLACE_DATE_WORDS } from '../lexicon.data';
import { findDates, fold, MONTH_ALT } from '../dates';
import { isLabelLike, LABEL_COLON, type Layout, type Seg } from './layout';
import { BIC_RE, EMAIL_RE, escapeRe, findAmounts, IBAN_RE, PHONE_RE, TIME_RE, TITLES, URL_RE, validIban } from './values';
import { AMOUNT_CONCEPTS, ID_CONCEPTS, labelMatch, type Want } from './wants';

export interface Candidate {
  value: string;
  score: number;
  line: number;
  /** Amounts: the number, for the net + tax = total check. */
  amount?: number;
}

export function pickDate(layout: Layout, text: string): string | null {
  const [d] = findDates(text, layout.order);
  return d ? (d.iso ?? d.raw) : null;
}

export function pickAmount(text: string): { raw: string; value: number } | null {
  const amounts = findAmounts(text);
  if (!amounts.length) return null;
  // "19 % 19,00 €": the money, the last one when several.
  const money = amounts.filter((a) => a.money);
  const chosen = (money.length ? money : amounts).at(-1)!;
  return { raw: chosen.raw, value: chosen.value };
}

export const ID_STOP = /^(?:von|vom|du|del|dated|of|from|on|am|le|il|dd|z|dnia|de|van)$/i;

export function pickId(text: string, concept: string | null): string | null {
  const cleaned = text.replace(/^[#:.\s]+|^(?:no|nr|n°|nº)\.?\s+/i, '').trim();
  if (concept === 'tax_id') {
    const m = /^[A-Z]{0,3}[\s-]?[\dA-Z][\dA-Z .\/-]{4,}/.exec(cleaned);
    return m && /\d{4}/.test(m[0]) ? m[0].trim().replace(/[.\s]+$/, '') : null;
  }
  const words = cleaned.split(/\s+/);
  const out: string[] = [];
  for (const w of words) {
    if (ID_STOP.test(w) || (out.length && !/\d/.test(w)) || /[:：]$/.test(w)) break;
    // Letters alone start an id only as a short code before its number ("RE 2024-17").
    if (!/\d/.test(w) && !/^[A-Z]{1,4}[-/]?$/.test(w)) break;
    out.push(w);
    if (/\d/.test(w)) break;
  }
  const id = out.join(' ').replace(/[,;.]+$/, '');
  return id && /\d/.test(id) && id.length <= 40 ? id : null;
}

export function pickText(text: string, long: boolean): string | null {
  const value = text.trim();
  if (!value || value.length > (long ? 200 : 80) || isLabelLike(value)) return null;
  // A one-line field holds a name or a phrase, not a sentence.
  if (!long && (value.split(/\s+/).length > 10 || /[.!?;]\s+\p{L}/u.test(value))) return null;
  return value;
}

export function valueFor(layout: Layout, want: Want, text: string): { value: string; amount?: number; fit: number } | null {
  const { column, concept } = want;
  if (column.type === 'date') {
    const v = pickDate(layout, text);
    return v ? { value: v, fit: 1 } : null;
  }
  if (column.type === 'number' || column.type === 'currency') {
    if (concept && ID_CONCEPTS.has(concept)) {
      const id = pickId(text, concept);
      return id && parseHumanNumber(id) ? { value: id, fit: 1 } : null;
    }
    if (concept === 'tax_rate' || concept === 'discount') {
      const percent = /(?<![\d.,])(-?\d{1,3}(?:[.,]\d{1,2})?)\s?%/.exec(text);
      if (percent) return { value: percent[1]!, fit: 1 };
      if (concept === 'tax_rate') return null;
    }
    const a = pickAmount(text);
    if (!a) return null;
    // An amount is printed alone or nearly: a figure inside a sentence is not the field's value.
    const rest = text.replace(a.raw, ' ').split(/\s+/).filter((w) => /\p{L}{2}/u.test(w));
    return rest.length <= 4 ? { value: a.raw, amount: a.value, fit: 1 } : null;
  }
  if (column.type === 'email') {
    const m = EMAIL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (column.type === 'url') {
    const m = URL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (column.type === 'enum' || column.type === 'multi_select') {
    const folded = fold(text);
    const option = (column.options ?? []).find((o) => new RegExp(`(?<![\\p{L}\\d])${escapeRe(fold(o))}(?![\\p{L}\\d])`, 'u').test(folded));
    return option ? { value: option, fit: 1 } : null;
  }
  if (column.type === 'boolean') return null;
  if (concept && ID_CONCEPTS.has(concept)) {
    const id = pickId(text, concept);
    return id ? { value: id, fit: 1 } : null;
  }
  if (concept === 'iban') {
    const m = IBAN_RE.exec(text.toUpperCase());
    return m && validIban(m[1]!) ? { value: m[1]!, fit: 1 } : null;
  }
  if (concept === 'bic') {
    const m = BIC_RE.exec(text);
    return m ? { value: m[1]!, fit: 1 } : null;
  }
  if (concept === 'email') {
    const m = EMAIL_RE.exec(text);
    return m ? { value: m[0], fit: 1 } : null;
  }
  if (concept === 'time') {
    const m = TIME_RE.exec(text);
    return m ? { value: m[0].trim(), fit: 1 } : null;
  }
  if (concept === 'phone') {
    const m = PHONE_RE.exec(text);
    return m && (m[0].match(/\d/g)?.length ?? 0) >= 7 && !findDates(m[0], null).length ? { value: m[0].trim(), fit: 1 } : null;
  }
  if (concept && isKindOf(concept, 'date')) return null;
  const v = pickText(text, column.type === 'text');
  // A text column takes any value, but a bare date under its label is rarely what it asks.
  return v ? { value: v, fit: findDates(v, null).length && !/\p{L}{3}/u.test(v.replace(new RegExp(MONTH_ALT, 'giu'), '')) ? 0.6 : 1 } : null;
}

export const MIN_LABEL = 0.65;

export function labeledCandidates(layout: Layout, want: Want): Candidate[] {
  const labelled: Array<Candidate & { label: string }> = [];
  for (const pair of layout.pairs) {
    const match = labelMatch(want, pair.label);
    if (match < MIN_LABEL) continue;
    const v = valueFor(layout, want, pair.value);
    if (!v) continue;
    labelled.push({ value: v.value, score: match * pair.placement * v.fit, line: pair.line, amount: v.amount, label: listKey(pair.label) });
  }
  // The column's own words at the start of a segment, its value after them with no colon or gap
  // ("Locker 13"): labels outside the lexicon that the pairs could not cut off.
  const prefixed: Array<Candidate & { label: string }> = [];
  const own = new Set(want.labels.map(normalizeLabel).filter(Boolean));
  for (const row of layout.segs) {
    for (const seg of row) {
      for (const { label, value } of prefixesOf(seg)) {
        // A value starts like one: "Locker 13", not "Name of the product line".
        if (!own.has(label) || !/^[\p{Lu}\p{N}$€£¥#(+-]/u.test(value)) continue;
        const v = valueFor(layout, want, value);
        if (v) prefixed.push({ value: v.value, score: 0.7 * v.fit, line: seg.line, amount: v.amount, label });
      }
    }
  }
  const amounts = want.concept !== null && AMOUNT_CONCEPTS.has(want.concept);
  return [...withoutListLabels(labelled, amounts ? Infinity : 3), ...withoutListLabels(prefixed, 2)];
}

/** A label without its numbering ("Step 1B." and "Step 2." are both "step"). */
export const listKey = (label: string) =>
  normalizeLabel(label)
    .split(' ')
    .filter((w) => !/\d/.test(w) && !/^[ivx]+$/.test(w))
    .join(' ');

/**
 * A label that heads many lines with different values ("Step 1.", "Step 2.", "Step 3.") starts
 * the rows of a list, not one field: its candidates are dropped.
 */
export function withoutListLabels<T extends Candidate & { label: string }>(cands: T[], limit: number): Candidate[] {
  const values = new Map<string, Set<string>>();
  const lines = new Map<string, Set<number>>();
  for (const c of cands) {
    if (!values.has(c.label)) values.set(c.label, new Set());
    if (!lines.has(c.label)) lines.set(c.label, new Set());
    values.get(c.label)!.add(c.value);
    lines.get(c.label)!.add(c.line);
  }
  return cands.filter((c) => values.get(c.label)!.size < limit || lines.get(c.label)!.size < limit).map(({ label: _, ...c }) => c);
}

export const PREFIXES = new WeakMap<Seg, Array<{ label: string; value: string }>>();

/** A segment's leading words (up to six) normalised, each with the rest of the segment. */
export function prefixesOf(seg: Seg): Array<{ label: string; value: string }> {
  let out = PREFIXES.get(seg);
  if (!out) {
    const words = seg.text.split(/\s+/);
    out = [];
    for (let k = 1; k < words.length && k <= 6; k++) out.push({ label: normalizeLabel(words.slice(0, k).join(' ')), value: words.slice(k).join(' ') });
    PREFIXES.set(seg, out);
  }
  return out;
}

// ---------------------------------------------------------------- dates from phrases and places

export const normalizedPhrases = (phrases: string[]) => phrases.map((p) => coreTokens(p).join(' ') || normalizeLabel(p)).filter(Boolean);
export const DUE = normalizedPhrases(DUE_PHRASES);
export const PLACE_WORDS = new Set(PLACE_DATE_WORDS.map(fold));

/** Whether a text ends in words that introduce a due date ("payable by", "bis zum"). */
export function endsWithDuePhrase(text: string): boolean {
  const tokens = normalizeLabel(text).split(' ').filter(Boolean);
  const core = coreTokens(text);
  const tail = (n: number, from: string[]) => from.slice(-n).join(' ');
  return DUE.some((p) => {
    const n = p.split(' ').length;
    return (n <= core.length && tail(n, core) === p) || (n <= tokens.length && tail(n, tokens) === p);
  });
}

/** Dates introduced by a due phrase ("bitte überweisen Sie bis zum 30.05.2017"). */
export function dueDateCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    for (const d of findDates(line.text, layout.order)) {
      const before = line.text.slice(Math.max(0, d.start - 60), d.start);
      // The end of a period ("vom 01.05. bis zum 31.05.2024") is no due date.
      if (findDates(before, null).length || /\d{1,2}\.\d{1,2}\.\s*\S*$/.test(before.trim())) continue;
      if (endsWithDuePhrase(before)) out.push({ value: d.iso ?? d.raw, score: 0.8, line: i });
    }
  });
  return out;
}

/**
 * The document's own date: printed after a place ("Berlin, den 01.11.2024"), on the line of its
 * number ("Invoice 2024-17 of 01.11.2024"), or alone at the top of the first page.
 */
export function documentDateCandidates(layout: Layout, numberLines: Set<number>): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    const row = layout.segs[i]!;
    row.forEach((seg, k) => {
      const [d] = findDates(seg.text, layout.order);
      if (!d) return;
      const own = seg.text.slice(0, d.start).trim();
      const before = own || (k > 0 ? row[k - 1]!.text : '');
      const place = /^(\p{Lu}[\p{L}.' -]{1,40}),\s*(\S+\s+)?$/u.exec(before + ' ');
      if (place && (!place[2] || PLACE_WORDS.has(fold(place[2].trim())))) out.push({ value: d.iso ?? d.raw, score: 0.8, line: i });
    });
    const dates = findDates(line.text, layout.order);
    if (!dates.length) return;
    const d = dates[0]!;
    const value = d.iso ?? d.raw;
    const before = line.text.slice(0, d.start).trim();
    const beforeHits = conceptsOf(before.replace(/[\d#:/-]+[\w/-]*/g, ' '));
    const numbered = (beforeHits[0]?.concept === 'invoice_number' && beforeHits[0].score >= 0.9) || numberLines.has(i);
    // Unless the words just before it name another date ("Invoice 12, due 05/05/2024").
    const lastWords = before.split(/\s+/).slice(-3).join(' ');
    const other = conceptsOf(lastWords).find((h) => h.score >= 0.6 && isKindOf(h.concept, 'date') && h.concept !== 'date' && h.concept !== 'invoice_date');
    if (numbered && dates.length === 1 && !other && !endsWithDuePhrase(before)) out.push({ value, score: 0.7, line: i });
    const wholeLine = line.text.replace(/\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?/gi, '').trim().length - d.raw.length <= 2;
    if (wholeLine && line.page === layout.lines[0]!.page && i < 8) out.push({ value, score: 0.55, line: i });
  });
  return out;
}

export const NUMBERED_TITLE = /(?<![\p{L}])(\p{L}[\p{L}-]{2,30})\s+(?:no\.?|nr\.?|n[°º]\.?|#|number|nummer|numéro|número|numero)\s*:?\s*(\S+(?:\s+\S+)?)/giu;

/** A document's number printed after its title: "Invoice 103767", "Facture n° F-12". */
export function titleNumberCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.segs.forEach((row, i) => {
    for (const seg of row) {
      // The title opens the segment, or the value of a label ("Subject: Invoice 2024-88").
      const afterLabel = LABEL_COLON.exec(seg.text)?.[2]?.trim();
      for (const text of afterLabel ? [seg.text, afterLabel] : [seg.text]) {
        const words = text.split(/\s+/);
        for (let k = Math.min(3, words.length - 1); k >= 1; k--) {
          const title = normalizeLabel(words.slice(0, k).join(' ')).replace(/(?: no)+$/, '');
          if (!TITLES.has(title)) continue;
          // The document's type code after its title ("Rechnung (380) Nr. 17") is no number of its own.
          const id = pickId(withoutTypeCodes(words.slice(k).join(' ')), 'invoice_number');
          if (id) out.push({ value: id, score: 0.75, line: i });
          break;
        }
      }
      // In running text the title needs its number sign: "… die Rechnung Nr. 2024-0815 vom …".
      for (const m of seg.text.matchAll(NUMBERED_TITLE)) {
        if (m.index === 0 || !TITLES.has(normalizeLabel(m[1]!))) continue;
        const id = pickId(m[2]!, 'invoice_number');
        if (id) out.push({ value: id, score: 0.65, line: i });
      }
    }
  });
  return out;
}

/** Percentages printed beside a tax word ("19 % MwSt.", "VAT 20%"): the rate when there is one. */
export function taxRateCandidates(layout: Layout): Candidate[] {
  // Keyed by the rate's value: "19 %" and "19,00 %" are one rate.
  const rates = new Map<number, Candidate>();
  layout.lines.forEach((line, i) => {
    const words = line.text.replace(/[-\d.,]+\s?%/g, ' ');
    if (!conceptsOf(words).some((h) => (h.concept === 'tax_amount' || h.concept === 'tax_rate') && h.score >= 0.55)) return;
    for (const m of line.text.matchAll(/(?<![\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%/g)) {
      const parsed = parseHumanNumber(m[1]!);
      if (parsed && 'value' in parsed && !rates.has(parsed.value)) rates.set(parsed.value, { value: m[1]!, score: 0, line: i });
    }
  });
  // One rate throughout is the rate; several (7 % and 19 %) leave the column empty.
  const score = rates.size === 1 ? 0.7 : 0;
  return [...rates.values()].map((c) => ({ ...c, score }));
}

/** A time of day printed beside the document's date ("6/10/2019 13:59" on a receipt). */
export function timeCandidates(layout: Layout): Candidate[] {
  const out: Candidate[] = [];
  layout.lines.forEach((line, i) => {
    const [d] = findDates(line.text, layout.order);
    if (!d) return;
    const m = TIME_RE.exec(line.text.slice(d.end));
    if (m && line.text.slice(d.end, d.end + m.index).trim().length <= 3) out.push({ value: m[0].trim(), score: 0.65, line: i });
  });
  return out;
}

/** Whether a column asks for the customer's detail ("Customer e-mail"), not the issuer's. */
export function namesCustomer(want: Want): boolean {
  return want.labels.some((l) => conceptsOf(l).some((h) => h.concept === 'customer' && h.score >= 0.7));
}

/**
 * An unlabelled phone number, e-mail address or web site in the letterhead (the top lines of the
 * first page) is the issuer's: a receipt prints its shop's phone under its name.
 */
export function letterheadCandidates(layout: Layout, want: Want): Candidate[] {
  const out: Candidate[] = [];
  const firstPage = layout.lines[0]?.page;
  const top = layout.plain ? 8 : (layout.lines[0]?.y ?? 0) + 200;
  layout.lines.forEach((line, i) => {
    if (line.page !== firstPage || (layout.plain ? i >= top : line.y > top)) return;
    for (const seg of layout.segs[i]!) {
      const v = valueFor(layout, want, seg.text);
      // The segment is the detail alone (perhaps after "Tel."), not a sentence that holds one.
      if (v && seg.text.replace(v.value, '').replace(/^[\p{L}.:\s]{0,8}$/u, '').trim() === '') out.push({ value: v.value, score: 0.6, line: i });
    }
  });
  return out.slice(0, 1);
}

/** Periods "10/14/2019 – 11/14/2019", "vom 01.01. bis 31.01.2024": the start and end dates. */
export function periodCandidates(layout: Layout): Array<{ start: string; end: string; text: string; line: number; labeled: number }> {
  const out: Array<{ start: string; end: string; text: string; line: number; labeled: number }> = [];
  layout.lines.forEach((line, i) => {
    const dates = findDates(line.text, layout.order);
    for (let k = 0; k + 1 < dates.length; k++) {
      const a = dates[k]!;
      const b = dates[k + 1]!;
      const between = line.text.slice(a.end, b.start).trim();
      if (!/^(?:[-–—~]|to|till|until|through|thru|bis|au|al|a|tot|do|até|-\s*)$/i.test(between)) continue;
      const before = line.text.slice(0, a.start);
      const labeled = conceptsOf(before).some((h) => h.concept === 'period' && h.score >= 0.6) ? 1 : 0.7;
      out.push({ start: a.iso ?? a.raw, end: b.iso ?? b.raw, text: line.text.slice(a.start, b.end), line: i, labeled });
    }
  });
  return out;
}
