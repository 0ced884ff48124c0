/**
 * The arithmetic of line items: quantity × unit price = line amount. Which document columns hold
 * the three is checked on the rows themselves, so that a column assignment by names and value types
 * alone (article numbers taken for quantities, quantities for prices) gives way to the one the
 * numbers agree with, and a table whose rows add up is known as the item table.
 */
import type { Column } from '../domain/columns';
import { parseHumanNumber, type ValueHints } from './coerce';
import { isKindOf, topConcept } from './lexicon';

export interface ItemRoles {
  quantity: Column;
  price: Column;
  amount: Column;
}

/** Rows needed before agreement counts: one row agrees by chance too easily (1 × 40 = 40). */
const MIN_ROWS = 2;
/** Share of rows that must agree: a free item, a discount line or a misread cell may not. */
export const MIN_AGREEMENT = 0.6;

const conceptOf = (c: Column) => topConcept(c.name) ?? (c.description ? topConcept(c.description) : null);
const NUMERIC = new Set(['number', 'currency']);

/** The target columns asking for quantity, unit price and line amount, when all three are asked. */
export function itemRoles(columns: Column[]): ItemRoles | null {
  const find = (test: (concept: string) => boolean) => columns.find((c) => NUMERIC.has(c.type) && (() => {
    const concept = conceptOf(c);
    return concept !== null && test(concept);
  })());
  const quantity = find((c) => c === 'quantity');
  const price = find((c) => c === 'unit_price');
  const amount = find((c) => c === 'line_amount' || isKindOf(c, 'line_amount'));
  return quantity && price && amount ? { quantity, price, amount } : null;
}

function numberOf(value: unknown, hints: ValueHints): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || !/\d/.test(value)) return null;
  const parsed = parseHumanNumber(value, hints);
  return parsed === null ? null : 'value' in parsed ? parsed.value : parsed.guess;
}

/** Whether a × b = c to the cent (or to a hundredth of the amount for long prices). */
const agrees = (a: number, b: number, c: number) => Math.abs(a * b - c) <= Math.max(0.011, Math.abs(c) * 0.001);

/** The share of rows (with all three numbers) where a × b = c; null below MIN_ROWS such rows. */
export function agreement(rows: Array<[unknown, unknown, unknown]>, hints: ValueHints = {}): number | null {
  let checked = 0;
  let good = 0;
  for (const [a, b, c] of rows) {
    const [x, y, z] = [numberOf(a, hints), numberOf(b, hints), numberOf(c, hints)];
    if (x === null || y === null || z === null) continue;
    checked++;
    if (agrees(x, y, z)) good++;
  }
  return checked >= MIN_ROWS ? good / checked : null;
}

/**
 * The document columns (keys of `values`) whose rows agree best as quantity × price = amount,
 * when they agree on at least MIN_AGREEMENT of the rows. Of the two factors, the one currently
 * given the quantity column keeps it; else the one with whole numbers more often is the quantity.
 */
export function arithmeticColumns(
  values: Array<{ key: string; values: unknown[] }>,
  hints: ValueHints,
  current: { quantity?: string; price?: string },
): { quantity: string; price: string; amount: string; share: number } | null {
  const numeric = values.filter((f) => f.values.filter((v) => numberOf(v, hints) !== null).length >= Math.max(MIN_ROWS, f.values.length * 0.5));
  let best: { a: string; b: string; amount: string; share: number } | null = null;
  for (const c of numeric) {
    for (const a of numeric) {
      for (const b of numeric) {
        if (a === b || a === c || b === c || a.key > b.key) continue;
        const rows = c.values.map((v, i): [unknown, unknown, unknown] => [a.values[i], b.values[i], v]);
        const share = agreement(rows, hints);
        if (share !== null && share >= MIN_AGREEMENT && (!best || share > best.share)) best = { a: a.key, b: b.key, amount: c.key, share };
      }
    }
  }
  if (!best) return null;
  const whole = (key: string) => values.find((f) => f.key === key)!.values.filter((v) => Number.isInteger(numberOf(v, hints))).length;
  const aIsQuantity = current.quantity === best.a || current.price === best.b || (current.quantity !== best.b && current.price !== best.a && whole(best.a) >= whole(best.b));
  return aIsQuantity
    ? { quantity: best.a, price: best.b, amount: best.amount, share: best.share }
    : { quantity: best.b, price: best.a, amount: best.amount, share: best.share };
}

/**
 * The column (key of `values`) that runs as a balance: each row's number the one above it plus or
 * minus another number of the row, on at least MIN_AGREEMENT of the steps and MIN_ROWS of them (a
 * statement's or a ledger's balance). Its rows are entries of an account, not items; null when no
 * column runs so.
 */
export function runningBalance(values: Array<{ key: string; values: unknown[] }>, hints: ValueHints): string | null {
  const numbers = values.map((f) => ({ key: f.key, n: f.values.map((v) => numberOf(v, hints)) }));
  for (const balance of numbers) {
    let steps = 0;
    let explained = 0;
    for (let i = 1; i < balance.n.length; i++) {
      const [before, after] = [balance.n[i - 1], balance.n[i]];
      if (before === null || before === undefined || after === null || after === undefined) continue;
      steps++;
      const step = Math.abs(after - before);
      if (step < 0.005) continue;
      if (numbers.some((f) => f !== balance && f.n[i] !== null && f.n[i] !== undefined && Math.abs(Math.abs(f.n[i]!) - step) < 0.011)) explained++;
    }
    if (explained >= MIN_ROWS && explained / steps >= MIN_AGREEMENT) return balance.key;
  }
  return null;
}
