/**
 * A second recogniser's opinion of a reading. Two recognisers trained apart err in different
 * places, so where a second one reads a word otherwise (its letters or figures, case aside) the
 * first more likely misread it: on the dev receipts a shop name or address the Latin recogniser
 * also read was right 135 of 148 times, one it read otherwise 13 of 37 (docs/benchmarks.md). The
 * reading itself stays the first recogniser's (fusing the two lowered `check`); the doubt is a
 * feature of the field model.
 */
/** A recognised glyph (a recogniser's character), which may be marked doubted. */
interface Glyph {
  char: string;
  doubted?: boolean;
}

/**
 * Marks the characters of `first` that lie in a stretch where `second` reads other letters or
 * figures (glyphs aligned by fewest edits; punctuation, spacing and case do not count).
 */
export function markDoubted(first: Glyph[], second: Glyph[]): void {
  const key = (c: Glyph) => c.char.toLowerCase();
  const a = first.map((c, i) => ({ i, k: key(c) })).filter((c) => /[\p{L}\p{N}]/u.test(c.k));
  const b = second.map(key).filter((k) => /[\p{L}\p{N}]/u.test(k));
  const [n, m] = [a.length, b.length];
  // Edit distance between each pair of suffixes, so the alignment can be walked from the start.
  const d = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      if (i === n) d[i]![j] = m - j;
      else if (j === m) d[i]![j] = n - i;
      else d[i]![j] = Math.min(d[i + 1]![j]! + 1, d[i]![j + 1]! + 1, d[i + 1]![j + 1]! + (a[i]!.k === b[j] ? 0 : 1));
    }
  }
  let [i, j] = [0, 0];
  while (i < n || j < m) {
    if (i < n && j < m && a[i]!.k === b[j] && d[i]![j] === d[i + 1]![j + 1]) {
      i++;
      j++;
    } else if (i < n && j < m && d[i]![j] === d[i + 1]![j + 1]! + 1) {
      first[a[i]!.i]!.doubted = true;
      i++;
      j++;
    } else if (i < n && d[i]![j] === d[i + 1]![j]! + 1) {
      first[a[i]!.i]!.doubted = true;
      i++;
    } else {
      // A glyph the second read that the first did not: the first's glyph beside it is in doubt.
      const near = a[Math.min(i, n - 1)];
      if (near) first[near.i]!.doubted = true;
      j++;
    }
  }
}
