/** Net, tax and total checked together. */
import type { Candidate } from './candidates';
import type { Layout } from './layout';
import { findAmounts } from './values';
import { AMOUNT_CONCEPTS, type Want } from './wants';

export const close = (a: number, b: number) => Math.abs(a - b) < 0.011;

/**
 * Cash rounding: a till rounds what is paid in cash to five cents (or ten), so a rounded total
 * differs from the exact one by a few cents, and net + tax may miss the printed total by as much.
 */
export const CASH_ROUNDING = 0.045;
const CASH_STEP_CENTS = 5;
const roundsToCashStep = (v: number) => Math.round(Math.abs(v) * 100) % CASH_STEP_CENTS === 0;

/** Whether `rounded` is `exact` rounded to the cash step: on the step, `exact` off it, a few cents apart. */
export const cashRounded = (exact: number, rounded: number) =>
  !roundsToCashStep(exact) && roundsToCashStep(rounded) && Math.abs(exact - rounded) > 0.005 && Math.abs(exact - rounded) < CASH_ROUNDING;

/**
 * Net, tax and total chosen together: among the labelled candidates of each, the combination
 * where net + tax = total wins over labels alone; a missing one is taken from a printed amount
 * that completes the sum.
 */
export function resolveAmounts(wants: Want[], candidates: Map<string, Candidate[]>, layout: Layout, result: Map<string, Candidate>): void {
  const role = (concept: string) => wants.find((w) => w.concept === concept && candidates.has(w.column.id));
  const net = role('net_amount') ?? role('subtotal');
  const tax = role('tax_amount');
  const total = role('total') ?? role('amount_due');
  const top = (w: Want | undefined) => (w ? dedupe(candidates.get(w.column.id)!).slice(0, 5) : []);
  if (net && tax && total) {
    const printed = allAmounts(layout);
    let best: { score: number; picks: Array<Candidate | null> } | null = null;
    const options = (w: Want) => [...top(w), null];
    for (const n of options(net))
      for (const t of options(tax))
        for (const T of options(total)) {
          const picks = [n, t, T];
          let score = picks.reduce((s, c) => s + (c?.score ?? 0), 0);
          const known = picks.filter((c) => c) as Candidate[];
          if (known.length === 3 && close(n!.amount! + t!.amount!, T!.amount!)) score += 1.5;
          if (known.length === 2 && !T && printed.some((p) => close(p, n!.amount! + t!.amount!))) score += 0.4;
          if (!best || score > best.score) best = { score, picks };
        }
    const [n, t, T] = best!.picks;
    const all = n && t && T;
    const agree = all && close(n.amount! + t.amount!, T.amount!);
    // A "subtotal" equal to the total of a receipt whose prices include the tax is no net amount.
    const grossSubtotal = all && !agree && close(n.amount!, T.amount!) && t.amount! > 0;
    for (const [w, c] of [[net, n], [tax, t], [total, T]] as const) {
      if (grossSubtotal && w === net) {
        // Decided empty: a zero score keeps the later rules from filling it.
        result.set(w.column.id, { ...c!, score: 0 });
        continue;
      }
      if (c) result.set(w.column.id, { ...c, score: agree ? Math.min(1, c.score + 0.15) : c.score });
      else if (!w.column.required) {
        // Complete the sum from a printed amount: the one missing part of net + tax = total.
        const known = [n, t, T];
        const missing = w === net && t && T ? T.amount! - t.amount! : w === tax && n && T ? T.amount! - n.amount! : w === total && n && t ? n.amount! + t.amount! : null;
        // Only a plausible part: positive, smaller than the total, and the tax smaller than the net.
        const plausible =
          missing !== null && missing > 0 && (w === total || missing < T!.amount!) && (w !== tax || missing < n!.amount!) && (w !== net || missing > t!.amount!);
        const hit = plausible ? allAmountRaws(layout).find((a) => close(a.value, missing!)) : undefined;
        if (hit && known.filter(Boolean).length === 2) result.set(w.column.id, { value: hit.raw, score: 0.55, line: -1, amount: hit.value });
      }
    }
  }
  for (const w of wants) {
    if (!w.concept || !AMOUNT_CONCEPTS.has(w.concept) || result.has(w.column.id)) continue;
    const best = bestOf(candidates.get(w.column.id) ?? [], 'last');
    if (best) result.set(w.column.id, best);
  }
}

export function dedupe(cands: Candidate[]): Candidate[] {
  const byValue = new Map<string, Candidate>();
  for (const c of cands.sort((a, b) => b.score - a.score)) if (!byValue.has(c.value)) byValue.set(c.value, c);
  return [...byValue.values()];
}

export const amountCache = new WeakMap<Layout, Array<{ raw: string; value: number }>>();
export function allAmountRaws(layout: Layout): Array<{ raw: string; value: number }> {
  let all = amountCache.get(layout);
  if (!all) {
    all = layout.lines.flatMap((l) => findAmounts(l.text).filter((a) => a.money).map((a) => ({ raw: a.raw, value: a.value })));
    amountCache.set(layout, all);
  }
  return all;
}
export const allAmounts = (layout: Layout) => allAmountRaws(layout).map((a) => a.value);

/** The best candidate; between equals, the first one printed, or the last for totals. */
export function bestOf(cands: Candidate[], prefer: 'first' | 'last' = 'first'): Candidate | null {
  let best: Candidate | null = null;
  for (const c of cands) {
    if (!best || c.score > best.score + 1e-9) best = c;
    else if (Math.abs(c.score - best.score) <= 1e-9 && (prefer === 'last' ? c.line > best.line : c.line < best.line)) best = c;
  }
  return best;
}
