import { expect, test } from 'bun:test';
import { compareIndexValues } from '../../src/search/index-tail';
import { indexKeyBytes, type IndexValue } from '../../src/store/rows.store';
import * as lmdb from 'lmdb';

const keyValueToBuffer = (lmdb as unknown as { keyValueToBuffer(key: unknown): Uint8Array }).keyValueToBuffer;

test('index values compare as LMDB orders them inside index keys', () => {
  const values: IndexValue[] = [
    null, false, true, -1e300, -5, -0.5, 0, 0.25, 3, 1e300,
    '', ' ', '\u0001', '\u001b', 'A', 'Z', 'a', 'a\u0000', 'ab', 'é', '\ufffd', '\u{1F600}', '\ue000', 'zz', '10', '9',
  ];
  const byKey = (a: IndexValue, b: IndexValue) => Buffer.compare(Buffer.from(keyValueToBuffer([1, 2, a, 'row_x'])), Buffer.from(keyValueToBuffer([1, 2, b, 'row_x'])));
  for (const a of values) {
    for (const b of values) expect([a, b, Math.sign(compareIndexValues(a, b))]).toEqual([a, b, Math.sign(byKey(a, b))]);
  }
  // The scalar encoder and the index key agree for plain values.
  expect(Buffer.compare(indexKeyBytes('a'), indexKeyBytes('b'))).toBe(-1);
});
