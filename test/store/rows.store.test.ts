/** The row index's capped count: what the planner asks to pick a probe. */
import { afterAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/db';
import { RowsStore, type IndexKeyBound, type RowRecord } from '../../src/store/rows.store';
import { tempDir } from '../helpers/app';

const dataDir = tempDir();
const store = openStore(dataDir);
const rows = new RowsStore(store);
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const row = (i: number): RowRecord => ({
  id: `row_${String(i).padStart(26, '0')}`,
  created_at: i,
  updated_at: i,
  batch_id: null,
  confidence: null,
  // 0..39 repeating, a null every seventh row, so values have runs of ties.
  values: { 1: i % 7 === 0 ? null : i % 40 },
});

/** LMDB's key order of these entries (null < false < numbers, then id), as a plain model. */
type Entry = { value: number | null; id: string };
const entries: Entry[] = Array.from({ length: 600 }, (_, i) => ({ value: (row(i).values[1] as number | null) ?? null, id: row(i).id }));
const rank = (v: unknown) => (v === null ? 0 : v === false ? 1 : 2);
const versus = (e: Entry, value: unknown) => rank(e.value) - rank(value) || (rank(value) === 2 ? (e.value as number) - (value as number) : 0);
const above = (e: Entry, b: IndexKeyBound) => {
  if (!b) return true;
  const c = versus(e, b.value);
  if (c !== 0) return c > 0;
  // From a row (keyset paging) the range starts at that row's own key.
  return b.afterId !== undefined ? e.id >= b.afterId : b.inclusive;
};
const below = (e: Entry, b: IndexKeyBound) => {
  if (!b) return true;
  const c = versus(e, b.value);
  if (c !== 0) return c < 0;
  return b.afterId !== undefined ? e.id < b.afterId : b.inclusive;
};

test('countIndex counts up to its limit, the same as walking the entries between the bounds', async () => {
  // Other tables' and slots' entries beside the counted ones must not be counted.
  await store.transaction(() => {
    for (let i = 0; i < 600; i++) rows.put(5, row(i), [{ slot: 1, multi: false }]);
    for (let i = 0; i < 50; i++) {
      rows.put(4, row(i), [{ slot: 1, multi: false }]);
      rows.put(6, row(i), [{ slot: 1, multi: false }]);
    }
  });
  const bounds: IndexKeyBound[] = [
    null,
    { value: null, inclusive: true },
    { value: false, inclusive: true },
    { value: 10, inclusive: true },
    { value: 10, inclusive: false },
    { value: 25, inclusive: true },
    { value: 25, inclusive: true, afterId: row(145).id },
    { value: 39, inclusive: false },
    { value: 100, inclusive: true },
  ];
  for (const from of bounds) {
    for (const to of bounds) {
      const exact = entries.filter((e) => above(e, from) && below(e, to)).length;
      for (const limit of [1, 2, 15, 16, 17, 300, Infinity]) {
        expect({ from, to, limit, n: rows.countIndex(5, 1, from, to, limit) }).toEqual({ from, to, limit, n: Math.min(limit, exact) });
      }
    }
  }
  expect(rows.countIndex(5, 1, null, null, Infinity)).toBe(600);
  expect(rows.countIndex(5, 1, null, null, 0)).toBe(0);
});
