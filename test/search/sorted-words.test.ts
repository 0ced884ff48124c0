/** The search index's store of words no typo-tolerant term reaches, against plain references. */
import { expect, test } from 'bun:test';
import SearchableMap from 'minisearch/SearchableMap';
import { fuzzyReachable, SortedWords } from '../../src/search/sorted-words';

let seed = 11;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const ALPHABET = 'abcde0123456789';
const word = (max: number) => Array.from({ length: 1 + Math.floor(rand() * max) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('');

test('get, set and prefix lookups agree with a plain map as chunks fill and split, and after map()', () => {
  const store = new SortedWords<number>();
  const plain = new Map<string, number>();
  const check = () => {
    for (const prefix of ['', 'a', 'ab', '1', '12', '5e', 'zz', ...Array.from({ length: 30 }, () => word(3))]) {
      const want = [...plain].filter(([w]) => w.startsWith(prefix)).map(([, n]) => n).sort((a, b) => a - b);
      expect({ prefix, got: store.withPrefix(prefix).sort((a, b) => a - b) }).toEqual({ prefix, got: want });
    }
    for (const w of [...plain.keys()].slice(0, 200)) expect(store.get(w)).toBe(plain.get(w)!);
    expect(store.get('not-there')).toBeUndefined();
    expect(store.size).toBe(plain.size);
  };
  check();
  // Enough words for several chunks to split (a chunk holds up to 1024), then rewrites of some.
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 1500; i++) {
      const w = word(9);
      const n = Math.floor(rand() * 100000);
      store.set(w, n);
      plain.set(w, n);
    }
    check();
  }
  // Words before every other and after every other.
  for (const w of ['', '0', '000', 'eeeeeeeeeeeee', '\uffff']) {
    store.set(w, 7);
    plain.set(w, 7);
  }
  check();
  const halved = store.map((n) => (n % 2 ? null : n / 2));
  const want = new Map([...plain].filter(([, n]) => n % 2 === 0).map(([w, n]) => [w, n / 2]));
  expect(halved.size).toBe(want.size);
  for (const prefix of ['', 'a', '1', '3', 'e']) {
    expect(halved.withPrefix(prefix).sort((a, b) => a - b)).toEqual([...want].filter(([w]) => w.startsWith(prefix)).map(([, n]) => n).sort((a, b) => a - b));
  }
  for (let i = 0; i < 500; i++) {
    const w = word(9);
    halved.set(w, i);
    want.set(w, i);
  }
  expect(halved.withPrefix('').sort((a, b) => a - b)).toEqual([...want.values()].sort((a, b) => a - b));
});

test('fuzzyReachable never leaves out a word that a typo-tolerant term finds', () => {
  const distance = (length: number) => (length > 4 ? Math.min(6, Math.round(length * 0.2)) : 0);
  const tree = new SearchableMap<number>();
  const words = Array.from({ length: 3000 }, () => word(14));
  words.forEach((w, i) => tree.set(w, i));
  let found = 0;
  let unreachable = 0;
  for (const w of words) {
    if (!fuzzyReachable(w, distance, 6)) unreachable++;
    // Query terms near the word with its digits turned into letters (the closest digit-free terms).
    const base = w.replace(/[0-9]/g, () => 'abcde'[Math.floor(rand() * 5)]!);
    for (const q of [base, `${base}a`, base.slice(1), `${base}${base}`.slice(0, 5 + Math.floor(rand() * 20))]) {
      if (q.length === 0) continue;
      for (const [match] of tree.fuzzyGet(q, distance(q.length))) {
        found++;
        expect({ match, q, reachable: fuzzyReachable(match, distance, 6) }).toEqual({ match, q, reachable: true });
      }
    }
  }
  // The check saw matches, and the rule does move words out of the tree.
  expect(found).toBeGreaterThan(500);
  expect(unreachable).toBeGreaterThan(500);
  expect(fuzzyReachable('user123456', distance, 6)).toBe(false);
  expect(fuzzyReachable('123', distance, 6)).toBe(false);
  expect(fuzzyReachable('freight123', distance, 6)).toBe(true);
  expect(fuzzyReachable('abcd1', distance, 6)).toBe(true);
  expect(fuzzyReachable('invoice', distance, 6)).toBe(true);
});
