/**
 * Document fields (invoices, receipts, statements, orders, e-mails): one value per document-level
 * column, read from the lines of a document outside its tables. Labels are matched to columns
 * through the lexicon in any of its languages; values are picked by the column's type. Dates are
 * told apart by their labels and phrases, amounts checked against each other (net + tax = total),
 * the issuer found in the letterhead and the customer in the bill-to block. Values are returned as
 * printed (the caller coerces them), except dates whose day/month order the document itself
 * decides, which come back as YYYY-MM-DD.
 */
import type { Column } from '../../domain/columns';
import type { TextLine } from '../layout/page';
import { currencyIn } from '../coerce';
import { conceptLevel } from '../lexicon';
import { bestOf, resolveAmounts } from './amounts';
import { type Candidate, documentDateCandidates, dueDateCandidates, labeledCandidates, letterheadCandidates, namesCustomer, periodCandidates, taxRateCandidates, timeCandidates, titleNumberCandidates } from './candidates';
import { buildLayout, inFooter, type Layout } from './layout';
import { resolveParties } from './parties';
import { findAmounts, IBAN_RE, validIban } from './values';
import { wantOf, type Want } from './wants';
import { learnedFields, type Weights } from '../model';
import { roundTo } from '../../lib/decimal';
import { weightedMeans } from '../../lib/means';

export { linesFromText, tableLines } from './text';

export interface DocumentFields {
  values: Record<string, unknown>;
  scores: Record<string, number>;
  /** The row's confidence from the learned model's field probabilities, when it scored any field. */
  confidence?: number;
  /** How well the document fits the table: the same probabilities' mean (see `documentFields`). */
  fit?: number;
  /** Per column, values printed on the page that the document itself rules out (see ModelCandidate). */
  ruledOut?: Record<string, string[]>;
}

// ---------------------------------------------------------------- currency

/** The document's currency, most frequent near its amounts; surer when amounts carry it. */
function currencyOf(layout: Layout): { code: string; sure: boolean } | null {
  const counts = new Map<string, number>();
  let money = false;
  let attached = false;
  for (const line of layout.lines) {
    const amounts = findAmounts(line.text);
    if (amounts.some((a) => a.money)) money = true;
    if (amounts.some((a) => a.currency)) attached = true;
    for (const a of amounts) if (a.currency) counts.set(a.currency, (counts.get(a.currency) ?? 0) + 1);
    // A sign printed apart from the amounts on its line ("Total € incl. VAT  681.87").
    if (amounts.some((a) => a.money && !a.currency)) {
      const sign = currencyIn(line.text.replace(/\b[A-Z]{3}\b/g, ''));
      if (sign) counts.set(sign, (counts.get(sign) ?? 0) + 0.5);
    }
    for (const m of line.text.matchAll(/\b(EUR|USD|GBP|CHF|PLN|JPY|CAD|AUD|SEK|NOK|DKK|CZK|HUF|BRL|INR|CNY|MXN|ZAR|RON)\b/g)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 0.5);
  }
  let best: string | null = null;
  for (const [code, n] of counts) if (!best || n > counts.get(best)!) best = code;
  // A code in a text without amounts names no currency of the document.
  return best && money ? { code: best, sure: attached } : null;
}

function currencyValue(column: Column, code: string): string | null {
  if (column.type !== 'enum' && column.type !== 'multi_select') return code;
  const options = column.options ?? [];
  const symbol: Record<string, string> = { EUR: '€', USD: '$', GBP: '£', JPY: '¥' };
  return options.find((o) => o.toUpperCase() === code) ?? options.find((o) => o === symbol[code]) ?? null;
}

// ---------------------------------------------------------------- the engine

const MIN_SCORE = 0.5;
/** A field's share of a row's confidence is at least this: an empty or unsure field lowers the row without zeroing it. */
const MIN_PART = 0.01;

/**
 * One value per column from a document's lines (outside its tables; add `tableLines` of its
 * tables for key/value tables), keyed by column id, with a 0..1 score for each column that found
 * one. A column the document does not have gets nothing.
 */
export function documentFields(lines: TextLine[], columns: Column[], weights?: Weights): DocumentFields {
  const values: Record<string, unknown> = {};
  const scores: Record<string, number> = {};
  if (!lines.length || !columns.length) return { values, scores };
  const { layout, wants, result } = ruleFields(lines, columns);
  const learned = learnedFields(layout, wants, result, weights);
  // A row's confidence: its fields' probabilities, an empty field that documents usually have counting as unsure.
  const parts: number[] = [];
  const ruledOut: Record<string, string[]> = {};
  for (const want of wants) {
    const id = want.column.id;
    const model = learned.get(id);
    if (model?.ruledOut.length) ruledOut[id] = model.ruledOut;
    if (model) {
      if (model.value !== null) {
        values[id] = model.value;
        scores[id] = roundTo(model.p, 3);
        parts.push(model.p);
      } else if (model.presence >= 0.5) parts.push(1 - model.presence);
      continue;
    }
    const c = result.get(id);
    // A line item's field (a SKU, a quantity) is a document's field only when plainly labelled.
    if (c && want.concept && conceptLevel(want.concept) === 'item') c.score *= 0.6;
    if (!c || c.score < MIN_SCORE) {
      // Left empty, a column that names no field documents have ("Handgun", "Given name") says
      // the document does not fit the table; one that a document may lack (a due date) does not.
      if (!want.concept) parts.push(0);
      continue;
    }
    values[id] = c.value;
    scores[id] = roundTo(Math.min(1, c.score), 3);
    parts.push(scores[id]!);
  }
  const ruled = Object.keys(ruledOut).length ? { ruledOut } : {};
  if (!parts.length) return { values, scores, ...ruled };
  // The row is right only when every field is: their geometric mean, so that one doubtful field
  // makes the row doubtful. Whether the document fits the table at all is their plain mean: a
  // receipt with a misread address is still a receipt.
  const confidence = weightedMeans(parts.map((p) => [Math.max(MIN_PART, p), 1])).geometric;
  const fit = weightedMeans(parts.map((p) => [p, 1])).plain;
  return { values, scores, confidence: roundTo(confidence, 3), fit: roundTo(fit, 3), ...ruled };
}

/** The layout, what each column asks for, and the label rules' choice per column (the model's inputs). */
export function ruleFields(lines: TextLine[], columns: Column[]): { layout: Layout; wants: Want[]; result: Map<string, Candidate> } {
  const layout = buildLayout(lines);
  const wants = columns.map(wantOf);
  const result = new Map<string, Candidate>();
  const labeled = new Map<string, Candidate[]>();
  for (const want of wants) {
    if (want.concept === 'vendor' || want.concept === 'customer') continue;
    labeled.set(want.column.id, labeledCandidates(layout, want));
  }

  // Dates: labels first, then phrases, places and the document's own number line.
  const due = dueDateCandidates(layout);
  const titleNumbers = titleNumberCandidates(layout);
  const documentDates = documentDateCandidates(layout, new Set(titleNumbers.map((c) => c.line)));
  const periods = periodCandidates(layout);
  for (const want of wants) {
    const list = labeled.get(want.column.id);
    if (!list) continue;
    if (want.concept === 'due_date') list.push(...due);
    if (want.concept === 'invoice_number') list.push(...titleNumbers);
    if (want.concept === 'tax_rate') list.push(...taxRateCandidates(layout));
    if (want.concept === 'time') list.push(...timeCandidates(layout));
    if ((want.concept === 'phone' || want.concept === 'email' || want.concept === 'website') && !list.length && !namesCustomer(want)) {
      list.push(...letterheadCandidates(layout, want));
    }
    // A date in the page's bottom strip is a print stamp more often than the document's date.
    if (want.column.type === 'date') for (const c of list) if (inFooter(layout, c.line)) c.score *= 0.85;
    if ((want.concept === 'invoice_date' || want.concept === 'date') && want.column.type === 'date') list.push(...documentDates);
    if (want.concept === 'period_start' || want.concept === 'period_end') {
      const other = want.concept === 'period_start' ? 'period_end' : 'period_start';
      const both = wants.some((w) => w.concept === other);
      for (const p of periods) list.push({ value: want.concept === 'period_start' ? p.start : p.end, score: (both ? 0.8 : 0.6) * p.labeled, line: p.line });
    }
    if (want.concept === 'period' && (want.column.type === 'string' || want.column.type === 'text')) {
      for (const p of periods) list.push({ value: p.text, score: 0.75 * p.labeled, line: p.line });
    }
  }

  resolveAmounts(wants, labeled, layout, result);
  resolveParties(layout, wants, result);

  for (const want of wants) {
    const id = want.column.id;
    if (result.has(id)) continue;
    if (want.concept === 'currency' && want.column.type !== 'number' && want.column.type !== 'currency') {
      const fromLabel = bestOf((labeled.get(id) ?? []).filter((c) => currencyIn(c.value) !== null));
      const labelled = fromLabel ? currencyValue(want.column, currencyIn(fromLabel.value)!) : null;
      const found = currencyOf(layout);
      const counted = found ? currencyValue(want.column, found.code) : null;
      // "Currency: EUR" says it outright; otherwise the signs and codes beside the amounts.
      if (labelled && fromLabel!.score >= 0.8) result.set(id, { ...fromLabel!, value: labelled });
      else if (counted) result.set(id, { value: counted, score: found!.sure ? 0.85 : 0.6, line: -1 });
      else if (labelled) result.set(id, { ...fromLabel!, value: labelled });
      continue;
    }
    if (want.concept === 'iban' && !(labeled.get(id) ?? []).length) {
      for (const line of layout.lines) {
        const m = IBAN_RE.exec(line.text.toUpperCase());
        if (m && validIban(m[1]!)) {
          result.set(id, { value: m[1]!, score: 0.75, line: -1 });
          break;
        }
      }
      continue;
    }
    const best = bestOf(labeled.get(id) ?? []);
    if (best) result.set(id, best);
  }

  return { layout, wants, result };
}
