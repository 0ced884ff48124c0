/**
 * Sorted orders against lmdb's own key order: every scan, with every kind of bound, in both
 * directions, before and after writes, must give exactly the entries an LMDB index range would.
 */
import { describe, expect, test } from 'bun:test';
import { SortedOrder, type SortableColumn } from '../../src/search/sorted-order';
import { indexKeyBytes, indexValue, type IndexKeyBound, type IndexValue } from '../../src/store/rows.store';

let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const LONG = 'x'.repeat(210);
const STRINGS = ['', 'a', 'A', 'b', 'é', 'e\u0301', '😀', '\uffff', 'a\u0001', 'ab', 'Zed', `${LONG}1`, `${LONG}2`, '2024-01-02', '10', '9'];

/** Values in LMDB's order: by their encoded keys. */
const compareKeys = (a: IndexValue, b: IndexValue) => Buffer.compare(indexKeyBytes(a), indexKeyBytes(b));

/** Entries an LMDB range [seq, slot, value, id] between the bounds holds, in key order. */
function reference(values: IndexValue[], ids: Array<string | null>, from: IndexKeyBound, to: IndexKeyBound, reverse: boolean): string[] {
  const entries = ids.flatMap((id, p) => (id === null ? [] : [{ v: values[p]!, id }]));
  const cmp = (a: { v: IndexValue; id: string }, b: { v: IndexValue; id: string }) => compareKeys(a.v, b.v) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const versus = (e: { v: IndexValue; id: string }, b: NonNullable<IndexKeyBound>, side: 'low' | 'high') => {
    const c = compareKeys(e.v, b.value);
    if (c !== 0) return c;
    if (b.afterId !== undefined) return e.id < b.afterId ? -1 : e.id > b.afterId ? 1 : 0;
    return (side === 'low') === b.inclusive ? 1 : -1;
  };
  const inside = entries.filter((e) => (!from || versus(e, from, 'low') > 0) && (!to || versus(e, to, 'high') < 0)).sort(cmp);
  return (reverse ? inside.reverse() : inside).map((e) => e.id);
}

function bounds(values: IndexValue[], ids: Array<string | null>): IndexKeyBound[] {
  const live = ids.flatMap((id, p) => (id === null ? [] : [{ v: values[p]!, id }]));
  const out: IndexKeyBound[] = [null, { value: null, inclusive: true }, { value: false, inclusive: true }, { value: true, inclusive: false }, { value: '', inclusive: false }];
  for (let i = 0; i < 40; i++) {
    const e = pick(live);
    const value = rand() < 0.7 ? e.v : pick<IndexValue>([...STRINGS, 'aa', 'zz', 0, -1.5, 3]);
    out.push(rand() < 0.3 ? { value: e.v, inclusive: true, afterId: e.id } : { value, inclusive: rand() < 0.5 });
  }
  return out;
}

function check(order: SortedOrder, values: IndexValue[], ids: Array<string | null>) {
  const all = bounds(values, ids);
  for (let i = 0; i < 120; i++) {
    const [from, to, reverse] = [pick(all), pick(all), rand() < 0.5];
    let placed = order.scan(from, to, reverse);
    if (placed === false) {
      order.sort();
      placed = order.scan(from, to, reverse);
    }
    expect({ from, to, reverse, ids: [...(placed as Iterable<{ id: string }>)].map((e) => e.id) }).toEqual({ from, to, reverse, ids: reference(values, ids, from, to, reverse) });
  }
}

const N = 600;
const ids = () => Array.from({ length: N }, (_, i) => `row_${String(i).padStart(6, '0')}`) as Array<string | null>;

describe('strings as dictionary codes', () => {
  test('scans match LMDB order, also after rewrites, deletes and new strings', () => {
    const rowIds = ids();
    const dictionary = [...STRINGS];
    const codes = new Uint16Array(N + 100);
    for (let p = 0; p < N; p++) codes[p] = rand() < 0.15 ? 0 : 1 + Math.floor(rand() * dictionary.length);
    const column: SortableColumn = { codes, dictionary };
    const values = () => Array.from({ length: N + 100 }, (_, p) => (codes[p] ? indexValue(dictionary[codes[p]! - 1]) : null));
    const order = SortedOrder.of(() => column, rowIds)!;
    check(order, values(), rowIds);
    for (let k = 0; k < 80; k++) {
      const p = Math.floor(rand() * N);
      if (rand() < 0.2) rowIds[p] = null;
      else {
        if (rand() < 0.3) dictionary.push(`new ${k} ${pick(STRINGS)}`);
        codes[p] = rand() < 0.1 ? 0 : 1 + Math.floor(rand() * dictionary.length);
        order.dirty.add(p);
      }
    }
    for (let p = N; p < N + 20; p++) {
      rowIds.push(`row_${String(p).padStart(6, '0')}`);
      codes[p] = 1 + Math.floor(rand() * dictionary.length);
      order.dirty.add(p);
    }
    check(order, values(), rowIds);
  });
});

describe('numbers', () => {
  test('scans match LMDB order, also after rewrites and deletes; a -0 makes the order unusable', () => {
    const rowIds = ids();
    const numbers = new Float64Array(N + 50).fill(NaN);
    const some = () => pick([0, 1, -1, 2.5, -2.5, 1e300, -1e300, 5e-324, Math.round(rand() * 2000) / 10 - 100]);
    for (let p = 0; p < N; p++) if (rand() > 0.1) numbers[p] = some();
    const values = () => Array.from(numbers, (v) => (Number.isNaN(v) ? null : v));
    const order = SortedOrder.of(() => ({ numbers }), rowIds)!;
    check(order, values(), rowIds);
    for (let k = 0; k < 60; k++) {
      const p = Math.floor(rand() * N);
      if (rand() < 0.2) rowIds[p] = null;
      else {
        numbers[p] = rand() < 0.1 ? NaN : some();
        order.dirty.add(p);
      }
    }
    check(order, values(), rowIds);
    numbers[3] = -0;
    order.dirty.add(3);
    expect(order.scan(null, null, false)).toBe(false);
    order.sort();
    expect(order.usable()).toBe(false);
  });
});
