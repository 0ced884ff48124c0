/** What a column asks for (its concept through the lexicon) and how surely a printed label names it. */
import type { Column } from '../../domain/columns';
import { conceptsOf, coreTokens, isKindOf, labelSimilarity, labelTokens, normalizeLabel, type ConceptHit } from '../lexicon';
import { TAX_EXCLUDED_WORDS, TAX_INCLUDED_WORDS } from '../lexicon.data';

export const AMOUNT_CONCEPTS = new Set(['net_amount', 'tax_amount', 'total', 'amount_due', 'subtotal', 'line_amount']);
export const ID_CONCEPTS = new Set(['invoice_number', 'order_number', 'customer_number', 'reference', 'item_number', 'tax_id', 'postal_code']);

/**
 * Labels that stand in for a column's concept when the document has no label of its own kind,
 * with how surely: a document's "Date" is its invoice date, a "Subtotal" before tax its net.
 */
export const STAND_INS: Record<string, Array<[string, number]>> = {
  date: [['invoice_date', 0.95]],
  invoice_date: [['date', 0.8]],
  net_amount: [['subtotal', 0.8]],
  subtotal: [['net_amount', 0.85]],
  total: [['amount_due', 0.8]],
  amount_due: [['total', 0.8]],
  customer: [['name', 0.5]],
};

export interface Want {
  column: Column;
  concept: string | null;
  /** The column's own words, for labels outside the lexicon ("Sales rep"). */
  labels: string[];
  memo: Map<string, number>;
  /** Concepts a label must name, or words it must share, to match at all. */
  related: Set<string>;
  words: Set<string>;
}

export function typeFits(concept: string, column: Column): boolean {
  const t = column.type;
  if (t === 'date') return isKindOf(concept, 'date') || concept === 'date';
  if (t === 'number' || t === 'currency') return AMOUNT_CONCEPTS.has(concept) || ['quantity', 'unit_price', 'tax_rate', 'discount', 'customer_number', 'invoice_number', 'order_number', 'position', 'postal_code'].includes(concept);
  if (t === 'email') return concept === 'email';
  if (t === 'url') return concept === 'website';
  return !isKindOf(concept, 'date') || concept === 'period';
}

export function wantOf(column: Column): Want {
  const best = new Map<string, number>();
  const add = (hits: ConceptHit[], weight: number) => {
    for (const h of hits) if (h.score * weight > (best.get(h.concept) ?? 0)) best.set(h.concept, h.score * weight);
  };
  add(conceptsOf(column.name), 1);
  if (column.id !== column.name) add(conceptsOf(column.id), 0.95);
  if (column.description) add(conceptsOf(column.description), 0.9);
  if (column.instruction) add(conceptsOf(column.instruction), 0.85);
  const ranked = [...best].filter(([c]) => typeFits(c, column)).sort((a, b) => b[1] - a[1]);
  let concept = ranked[0] && ranked[0][1] >= 0.6 ? ranked[0][0] : null;
  // A bare "Amount" of a whole document is its total; a "Line total" stays a line's.
  if (concept === 'line_amount' && coreTokens(column.name).length === 1) concept = 'total';
  const labels = [column.name, column.description ?? ''].filter((l) => l.trim());
  const related = new Set<string>(labels.flatMap((l) => conceptsOf(l).map((h) => h.concept)));
  if (concept) for (const c of [concept, ...(STAND_INS[concept] ?? []).map(([c]) => c)]) related.add(c);
  const words = new Set(labels.flatMap(coreTokens));
  return { column, concept, labels, memo: new Map(), related, words };
}

const qualifiers = (words: string[]) => words.map((w) => ` ${normalizeLabel(w)} `).filter((w) => w.trim());
const TAX_EXCLUDED = qualifiers(TAX_EXCLUDED_WORDS);
const TAX_INCLUDED = qualifiers(TAX_INCLUDED_WORDS);

/** Whether an amount's label says it is before tax ("excl. VAT") or after ("incl. VAT"), or neither. */
export function taxQualifier(label: string): 'excluded' | 'included' | null {
  const words = ` ${labelTokens(label).join(' ')} `;
  const excluded = TAX_EXCLUDED.some((w) => words.includes(w));
  const included = TAX_INCLUDED.some((w) => words.includes(w));
  return excluded === included ? null : excluded ? 'excluded' : 'included';
}

/** How surely a printed label names what the column wants, 0..1. */
export function labelMatch(want: Want, label: string): number {
  let score = want.memo.get(label);
  if (score === undefined) {
    score = computeLabelMatch(want, label);
    want.memo.set(label, score);
  }
  return score;
}

export function computeLabelMatch(want: Want, label: string): number {
  if (!label.trim()) return 0;
  const hits = conceptsOf(label);
  // Most labels share neither a concept nor a word with the column: nothing more to weigh.
  if (!hits.some((h) => want.related.has(h.concept)) && !coreTokens(label).some((w) => want.words.has(w))) return 0;
  let score = 0;
  if (want.concept) {
    const scoreOf = (c: string) => hits.find((h) => h.concept === c)?.score ?? 0;
    score = scoreOf(want.concept);
    for (const [standIn, factor] of STAND_INS[want.concept] ?? []) score = Math.max(score, scoreOf(standIn) * factor);
  }
  for (const own of want.labels) score = Math.max(score, labelSimilarity(own, label) * (own === want.column.name ? 1 : 0.9));
  // A run of labels printed as one ("Subtotal Sales tax Total") names no single field; a rate
  // printed in the label ("Total GST 10%") is its value, no label of its own.
  const rated = /\d\s*%/.test(label);
  const named = hits.filter((h) => h.score >= 0.6 && !hits.some((o) => o !== h && isKindOf(o.concept, h.concept)) && !(rated && h.concept === 'tax_rate'));
  if (named.length >= 3) score *= 0.5;
  // "Total (excl. tax)" is the net, "Subtotal incl. VAT" the gross: the qualifier decides.
  const tax = taxQualifier(label);
  if ((tax === 'excluded' && (want.concept === 'total' || want.concept === 'amount_due')) || (tax === 'included' && (want.concept === 'net_amount' || want.concept === 'subtotal'))) score *= 0.5;
  const top = hits[0];
  // A label that is clearly about something else ("Due date" for an invoice date, "No." for an
  // invoice number) does not count, whatever words it shares with the column.
  const related = top && want.concept && (top.concept === want.concept || isKindOf(top.concept, want.concept) || (STAND_INS[want.concept] ?? []).some(([c]) => c === top.concept));
  const own = want.concept ? (hits.find((h) => h.concept === want.concept)?.score ?? 0) : 0;
  if (top && !related && top.score >= 0.6 && top.score > own + 0.1) score *= 0.5;
  // A label that names another field just as well ("Ref": a reference or an article number) is unsure.
  else if (want.concept && own > 0 && hits.some((h) => h.concept !== want.concept && h.score >= own && typeFits(h.concept, want.column) && !isKindOf(want.concept!, h.concept) && !isKindOf(h.concept, want.concept!))) score *= 0.8;
  return score;
}
