/**
 * The learned document-field model: candidates per role scored by a conditional logit trained
 * from the dev corpus (`npm run train`, weights in fields.weights.json), then decoded jointly
 * under constraints: net + tax = total within rounding, the due date not before the issue date,
 * seller and buyer different parties, an address that does not open with the seller's name. Each
 * written field carries its probability; a row's confidence comes from its fields, an empty field
 * that is usually present counting against it.
 */
import type { Candidate } from '../fields/candidates';
import type { Layout } from '../fields/layout';
import { close } from '../fields/amounts';
import { findAmounts } from '../fields/values';
import type { Want } from '../fields/wants';
import { languageOf, normalizeLabel } from '../lexicon';
import { modelCandidates, roleOf, type ModelCandidate, type Role } from './features';
import WEIGHTS from './fields.weights.json';
import { probabilities, type RoleWeights } from './logit';

export type Weights = Partial<Record<Role, RoleWeights>>;

/** How the joint decoding weighs what the fields say together, chosen by cross-validation with the weights. */
export interface DecodeParams {
  /** Log-score a net, tax and total that add up earn together, beside their own probabilities. */
  arithmetic: number;
  /** An empty field scores as the model's chance that no candidate is right, times this. */
  empty: number;
}

const DEFAULT_WEIGHTS = WEIGHTS as unknown as { roles: Weights; decode?: DecodeParams };
/** The trained decoding; a weights file written before the decoding was trained gets the hand-set one. */
export const DECODE_DEFAULTS: DecodeParams = DEFAULT_WEIGHTS.decode ?? { arithmetic: 1, empty: 1 };

export interface Option {
  value: string;
  p: number;
  line: number;
  /** Every line the value was a candidate on (`line` among them). */
  lines: number[];
  amount?: number;
}

export interface RoleOptions {
  want: Want;
  role: Role;
  /** Distinct values, likeliest first. */
  options: Option[];
  none: number;
  model: RoleWeights;
  /** The document was recognised from an image (its lines carry OCR confidences). */
  scan?: boolean;
}

/** The writing threshold of a role for this document. */
export const thresholdOf = (r: Pick<RoleOptions, 'model' | 'scan'>) => (r.scan && r.model.scanThreshold !== undefined ? r.model.scanThreshold : r.model.threshold);

/** The key two candidates share when they are one value ("1.234,50" twice, a name on two lines). */
function keyOf(role: Role, c: ModelCandidate): string {
  if (c.amount !== undefined) return `#${Math.round(c.amount * 100)}`;
  return role === 'currency' ? c.value.toUpperCase() : normalizeLabel(c.value) || c.value;
}

/**
 * Every modelled column's options: candidates, their features and probabilities. `found` holds
 * candidates found before for these wants, which do not depend on the weights (training scores
 * each document with many).
 */
export function roleOptions(
  layout: Layout,
  wants: Want[],
  result: Map<string, Candidate>,
  weights: Weights = DEFAULT_WEIGHTS.roles,
  found?: Map<Want, ModelCandidate[]>,
): Array<RoleOptions & { candidates: ModelCandidate[] }> {
  const out: Array<RoleOptions & { candidates: ModelCandidate[] }> = [];
  const language = languageOf(layout.pairs.map((p) => p.label));
  const scan = layout.lines.some((l) => l.confidence !== undefined);
  for (const want of wants) {
    const role = roleOf(want);
    const base = role ? weights[role] : undefined;
    const model = scan && base?.scan ? base.scan : base;
    if (!role || !model) continue;
    const rule = result.get(want.column.id);
    const candidates = found?.get(want) ?? modelCandidates(role, layout, want, wants, rule && rule.score > 0 ? { value: rule.value, score: rule.score, line: rule.line } : null, language);
    const scored = probabilities(model, candidates.map((c) => c.features));
    // The probabilities given that no candidate ruled out is the value.
    const kept = 1 - candidates.reduce((sum, c, i) => sum + (c.ruledOut ? scored.p[i]! : 0), 0);
    const p = scored.p.map((x) => x / kept);
    const none = scored.none / kept;
    const byKey = new Map<string, Option>();
    // One value printed in several ways ("ACME SDN. BHD." and "ACME SDN BHD") is written as its likeliest way.
    const bestWay = new Map<string, number>();
    candidates.forEach((c, i) => {
      if (c.ruledOut) return;
      const key = keyOf(role, c);
      const seen = byKey.get(key);
      if (seen) {
        seen.p += p[i]!;
        if (!seen.lines.includes(c.line)) seen.lines.push(c.line);
        if (p[i]! > bestWay.get(key)!) {
          bestWay.set(key, p[i]!);
          Object.assign(seen, { value: c.value, line: c.line, amount: c.amount });
        }
      } else {
        byKey.set(key, { value: c.value, p: p[i]!, line: c.line, lines: [c.line], amount: c.amount });
        bestWay.set(key, p[i]!);
      }
    });
    const options = [...byKey.values()].sort((a, b) => b.p - a.p || a.line - b.line);
    out.push({ want, role, options, none, model, candidates, scan });
  }
  return out;
}

/** Whether two options stand on two different lines between them, one on each. */
const printedTwice = (a: Option, b: Option) => a.lines.some((x) => b.lines.some((y) => x !== y));
const TOP = 4;
const TOP_BELOW = 12;

/** The joint choice: one option (or none) per column, the likeliest that keeps the constraints. */
export function decode(all: RoleOptions[], params: DecodeParams = DECODE_DEFAULTS): Map<string, Option | null> {
  const chosen = new Map<string, Option | null>();
  const byRole = (role: Role) => all.find((r) => r.role === role);
  // Values below their role's threshold are no choices: the field is then left empty.
  const choices = (r: RoleOptions | undefined): Array<Option | null> => (r ? [...r.options.filter((o) => o.p >= thresholdOf(r)).slice(0, TOP), null] : [null]);
  // An empty field scores as the model's chance that none of the candidates is right, weighed by the trained factor.
  const logp = (r: RoleOptions | undefined, o: Option | null) => (r ? Math.log(Math.max(1e-9, o ? o.p : r.none * params.empty)) : 0);
  const amountOf = (o: Option | null) => (o ? (o.amount ?? findAmounts(o.value)[0]?.value ?? null) : null);

  const [net, tax, total] = [byRole('net'), byRole('tax'), byRole('total')];
  // A tax printed on the document (however its column decides): a "subtotal" equal to the total is then gross, no net.
  const taxPrinted = !!tax && tax.options.some((o) => o.p >= 0.3 && (amountOf(o) ?? 0) > 0);
  const grossTotals = (total?.options ?? []).filter((o) => o.p >= 0.3).map(amountOf).filter((v): v is number => v !== null);
  const topNet = net?.options[0] ? amountOf(net.options[0]) : null;
  const grossSubtotal = taxPrinted && topNet !== null && grossTotals.some((g) => close(topNet, g));
  if (net || tax || total) {
    let best = { score: -Infinity, picks: [null, null, null] as Array<Option | null> };
    // Amounts below their threshold may still be written, but only as three that add up: the
    // arithmetic is evidence the single amount's probability does not see. Zeros add up too
    // easily to say anything.
    const below = (r: RoleOptions | undefined): Option[] => (r ? r.options.filter((o) => o.p < thresholdOf(r) && amountOf(o)).slice(0, TOP_BELOW) : []);
    const weak = new Set([...below(net), ...below(tax), ...below(total)]);
    const isWeak = (o: Option | null) => o !== null && weak.has(o);
    for (const n of [...choices(net), ...below(net)])
      for (const t of [...choices(tax), ...below(tax)])
        for (const T of [...choices(total), ...below(total)]) {
          let score = logp(net, n) + logp(tax, t) + logp(total, T);
          const [a, b, c] = [amountOf(n), amountOf(t), amountOf(T)];
          const complete = a !== null && b !== null && c !== null;
          if (!complete && (isWeak(n) || isWeak(t) || isWeak(T))) continue;
          if (a !== null && taxPrinted && grossTotals.some((g) => close(a, g))) continue;
          // The likeliest "net" being such a gross subtotal says the prices include the printed tax: it is written.
          if (t === null && grossSubtotal) continue;
          // Three amounts that do not add up are never written together: one of them is left out.
          // A credit note's tax may be printed without its sign.
          if (complete) {
            if (!close(a + b, c) && !(c < 0 && close(a - Math.abs(b), c))) continue;
            score += params.arithmetic;
          }
          // Net and tax are parts of the total: neither exceeds it (but for a negative tax); a credit note's by their size.
          const exceeds =
            c !== null && (c < 0 ? (a !== null && Math.abs(a) > -c + 0.011) || (b !== null && Math.abs(b) > -c) : (a !== null && a > c + 0.011 && (b === null || b >= 0)) || (b !== null && b > c));
          if (exceeds) continue;
          if (score > best.score) best = { score, picks: [n, t, T] };
        }
    // A credit note's tax printed without its sign is written with the total's.
    const [a, b, c] = [0, 1, 2].map((i) => amountOf(best.picks[i] ?? null)) as [number | null, number | null, number | null];
    if (a !== null && b !== null && c !== null && c < 0 && b > 0 && close(a - b, c)) best.picks[1] = { ...best.picks[1]!, value: `-${best.picks[1]!.value.trim()}`, amount: -b };
    [net, tax, total].forEach((r, i) => r && chosen.set(r.want.column.id, best.picks[i]!));
  }

  const [issue, due] = [byRole('issue_date'), byRole('due_date')];
  if (issue || due) {
    let best = { score: -Infinity, picks: [null, null] as Array<Option | null> };
    for (const i of choices(issue))
      for (const d of choices(due)) {
        if (i && d && /^\d{4}-\d{2}-\d{2}$/.test(i.value) && /^\d{4}-\d{2}-\d{2}$/.test(d.value) && d.value < i.value) continue;
        // One printed date is not both: the same date (an invoice due on its day of issue) is printed twice.
        if (i && d && i.value === d.value && !printedTwice(i, d)) continue;
        const score = logp(issue, i) + logp(due, d);
        if (score > best.score) best = { score, picks: [i, d] };
      }
    [issue, due].forEach((r, i) => r && chosen.set(r.want.column.id, best.picks[i]!));
  }

  const [seller, buyer, address] = [byRole('seller'), byRole('buyer'), byRole('address')];
  if (seller || buyer) {
    // An address is the issuer's, not its name: one that opens with the seller's value on its line (a
    // shop named with a number reads as a street's line) is no address beside that seller, and the
    // pair is chosen together. An address option above the threshold is written, as it is alone.
    const opens = (a: Option | null, s: Option | null) => !!a && !!s && a.line === s.line && normalizeLabel(a.value).startsWith(normalizeLabel(s.value));
    const addresses = address ? choices(address).filter((o) => o !== null) : [];
    let best = { score: -Infinity, picks: [null, null, null] as Array<Option | null> };
    for (const s of choices(seller))
      for (const b of choices(buyer)) {
        if (s && b && normalizeLabel(s.value) === normalizeLabel(b.value)) continue;
        for (const a of addresses.length ? addresses : [null]) {
          if (opens(a, s)) continue;
          const score = logp(seller, s) + logp(buyer, b) + logp(address, a);
          if (score > best.score) best = { score, picks: [s, b, a] };
        }
      }
    [seller, buyer, address].forEach((r, i) => r && chosen.set(r.want.column.id, best.picks[i]!));
  }

  for (const r of all) if (!chosen.has(r.want.column.id)) chosen.set(r.want.column.id, choices(r)[0] ?? null);
  return chosen;
}

/**
 * The learned fields of a document: for each modelled column its value and probability, or an
 * empty field with how much the emptiness costs the row (the share of documents that have it),
 * and the values the document rules out.
 */
export function learnedFields(
  layout: Layout,
  wants: Want[],
  result: Map<string, Candidate>,
  weights?: Weights,
): Map<string, { value: string | null; p: number; presence: number; ruledOut: string[] }> {
  const all = roleOptions(layout, wants, result, weights);
  const chosen = decode(all);
  const out = new Map<string, { value: string | null; p: number; presence: number; ruledOut: string[] }>();
  for (const r of all) {
    const o = chosen.get(r.want.column.id) ?? null;
    const ruledOut = r.candidates.filter((c) => c.ruledOut).map((c) => c.value);
    out.set(r.want.column.id, { value: o?.value ?? null, p: o ? Math.min(1, o.p) : 0, presence: r.model.presence, ruledOut });
  }
  return out;
}
