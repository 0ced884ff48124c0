/**
 * The first index in [0, length) for which `before(i)` is false, given that it is true for a
 * prefix of the indexes and false after it (a sorted array searched for a bound); `length` when
 * it is true for all.
 */
export function firstNotBefore(length: number, before: (i: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (before(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}
