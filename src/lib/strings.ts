/**
 * A copy of a string that holds no reference to the larger string it may have been cut from.
 * Strings decoded from LMDB records are slices of one string per record, so keeping one small
 * value (a row id, an e-mail) in memory would otherwise keep the whole record's text alive:
 * at a million rows that is hundreds of megabytes for the caches derived from the store.
 */
export function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** A text's letters and figures alone, in lower case: what stays of it whatever its spacing and punctuation. */
export const lettersAndFigures = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * The edit distance of `a` to `b` (Levenshtein); with `within`, to the stretch of `b` most like it
 * (`a` may begin and end anywhere in `b` at no cost: a semi-global alignment).
 */
export function editDistance(a: string, b: string, within = false): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (within ? 0 : j));
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return within ? Math.min(...previous) : previous[b.length]!;
}
