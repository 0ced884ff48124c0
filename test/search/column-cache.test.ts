/** The storage kinds of a cached column and every move between them. */
import { expect, test } from 'bun:test';
import { Column, MAX_DICTIONARY } from '../../src/search/column-cache';

const read = (c: Column, n: number) => Array.from({ length: n }, (_, i) => c.reader()(i));

test('numbers stay numbers, grow, and hold nulls', () => {
  const c = new Column([1, null, 2.5]);
  c.set(40, 7);
  c.set(1, 3);
  c.set(0, null);
  expect(read(c, 3)).toEqual([null, 3, 2.5]);
  expect(c.reader()(40)).toBe(7);
  expect(c.reader()(39)).toBeNull();
});

test('a number column that gets text moves to a plain array and keeps its values', () => {
  const c = new Column([1, 2, null]);
  c.set(3, 'many');
  expect(read(c, 4)).toEqual([1, 2, null, 'many']);
  c.set(0, { any: 'thing' });
  expect(c.reader()(0)).toEqual({ any: 'thing' });
});

test('strings are coded; new strings extend the dictionary; other values unpack it', () => {
  const c = new Column(['a', 'b', null, 'a']);
  c.set(4, 'c');
  c.set(1, null);
  expect(read(c, 5)).toEqual(['a', null, null, 'a', 'c']);
  c.set(5, 42);
  expect(read(c, 6)).toEqual(['a', null, null, 'a', 'c', 42]);
});

test('more distinct strings than the dictionary holds: while building and while writing', () => {
  const many = Array.from({ length: MAX_DICTIONARY + 10 }, (_, i) => `v${i}`);
  const built = new Column(many);
  expect(built.reader()(MAX_DICTIONARY + 9)).toBe(`v${MAX_DICTIONARY + 9}`);
  expect(built.reader()(0)).toBe('v0');
  const grown = new Column(many.slice(0, MAX_DICTIONARY));
  grown.set(MAX_DICTIONARY, 'one too many');
  expect(grown.reader()(MAX_DICTIONARY)).toBe('one too many');
  expect(grown.reader()(17)).toBe('v17');
});

test('counts: live positions only, nulls left out, null past the limit or for plain arrays', () => {
  const ids = ['r1', 'r2', null, 'r4', 'r5', 'r6'];
  const codes = new Column(['a', 'b', 'a', null, 'a', 'b']);
  expect(codes.counts(ids, 10)).toEqual(new Map([['a', 2], ['b', 2]]));
  expect(codes.counts(ids, 2)).toEqual(new Map([['a', 2], ['b', 2]]));
  expect(codes.counts(ids, 1)).toBeNull();
  const numbers = new Column([1, 1.5, 1, 1, null, 2]);
  expect(numbers.counts(ids, 10)).toEqual(new Map([[1, 2], [1.5, 1], [2, 1]]));
  expect(numbers.counts(ids, 2)).toBeNull();
  expect(new Column([['a'], 'b', null, 1, 2, 3]).counts(ids, 10)).toBeNull();
  // Positions past the ids (capacity not yet used) are not rows.
  const grown = new Column(['a']);
  grown.set(20, 'z');
  expect(grown.counts(['r1', 'r2'], 10)).toEqual(new Map([['a', 1]]));
});

test('a column filled value by value takes its storage from the first value, nulls before it kept', () => {
  const numbers = new Column();
  numbers.set(0, null);
  numbers.set(1, null);
  numbers.set(2, 4.5);
  numbers.set(30, 1);
  expect(read(numbers, 3)).toEqual([null, null, 4.5]);
  expect(numbers.reader()(30)).toBe(1);
  expect('numbers' in numbers.sortable()!).toBe(true);

  const strings = new Column();
  strings.set(0, null);
  strings.set(1, 'b');
  strings.set(2, 'a');
  strings.set(3, 'b');
  expect(read(strings, 4)).toEqual([null, 'b', 'a', 'b']);
  expect(strings.sortable()).toMatchObject({ dictionary: ['b', 'a'] });
  strings.set(4, 7);
  expect(read(strings, 5)).toEqual([null, 'b', 'a', 'b', 7]);
  expect(strings.sortable()).toBeNull();

  const lists = new Column();
  lists.set(0, ['x']);
  expect(lists.reader()(0)).toEqual(['x']);
  expect(lists.sortable()).toBeNull();

  const nothing = new Column();
  for (let i = 0; i < 40; i++) nothing.set(i, null);
  expect(read(nothing, 40).every((v) => v === null)).toBe(true);
  expect(nothing.counts(Array.from({ length: 40 }, (_, i) => `r${i}`), 10)).toEqual(new Map());
  expect('numbers' in nothing.sortable()!).toBe(true);
});
