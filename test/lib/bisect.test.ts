import { expect, test } from 'bun:test';
import { firstNotBefore } from '../../src/lib/bisect';

test('firstNotBefore finds the first index past the prefix the predicate holds for, at every split', () => {
  for (let length = 0; length < 40; length++) {
    for (let split = 0; split <= length; split++) {
      let calls = 0;
      const got = firstNotBefore(length, (i) => {
        calls++;
        expect(i >= 0 && i < length).toBe(true);
        return i < split;
      });
      expect(got).toBe(split);
      expect(calls).toBeLessThanOrEqual(Math.ceil(Math.log2(length + 1)));
    }
  }
});
