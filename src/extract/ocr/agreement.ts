/**
 * A second recogniser's opinion of a reading. Two recognisers trained apart err in different
 * places, so where a second one reads a word otherwise (its letters or figures, case aside) the
 * first more likely misread it: on the dev receipts a shop name or address the Latin recogniser
 * also read was right 135 of 148 times, one it read otherwise 13 of 37 (docs/benchmarks.md). The
 * reading itself stays the first recogniser's (fusing the two lowered `check`), but for a word
 * only the second reads as a known word (see second-reading.ts); the doubt is a feature of the
 * field model.
 */
/** A recognised glyph (a recogniser's character), which may be marked doubted. */
interface Glyph {
  char: string;
  doubted?: boolean;
  /** What the second recogniser read in this glyph's place ('' for nothing), where it read letters or figures otherwise. */
  other?: string;
}

/**
 * Marks the characters of `first` that lie in a stretch where `second` reads other letters or
 * figures (glyphs aligned by fewest edits; punctuation, spacing and case do not count), and notes
 * on each what the second read in its place.
 */
export function markDoubted(first: Glyph[], second: Glyph[]): void {
  const key = (c: Glyph) => c.char.toLowerCase();
  const a = first.map((c, i) => ({ i, k: key(c) })).filter((c) => /[\p{L}\p{N}]/u.test(c.k));
  const seconds = second.filter((c) => /[\p{L}\p{N}]/u.test(c.char));
  const b = seconds.map(key);
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
  // Per glyph of the first: what the second read in its place, and before or after it.
  const read = first.map((c) => ({ own: c.char, before: '', after: '' }));
  const doubt = (i: number, other: string) => {
    first[i]!.doubted = true;
    read[i]!.own = other;
  };
  let [i, j] = [0, 0];
  while (i < n || j < m) {
    if (i < n && j < m && a[i]!.k === b[j] && d[i]![j] === d[i + 1]![j + 1]) {
      i++;
      j++;
    } else if (i < n && j < m && d[i]![j] === d[i + 1]![j + 1]! + 1) {
      doubt(a[i]!.i, seconds[j]!.char);
      i++;
      j++;
    } else if (i < n && d[i]![j] === d[i + 1]![j]! + 1) {
      doubt(a[i]!.i, '');
      i++;
    } else {
      // A glyph the second read that the first did not: the first's glyph beside it is in doubt.
      const before = a[i - 1];
      const near = before ?? a[Math.min(i, n - 1)];
      if (near) {
        first[near.i]!.doubted = true;
        if (before) read[near.i]!.after += seconds[j]!.char;
        else read[near.i]!.before += seconds[j]!.char;
      }
      j++;
    }
  }
  first.forEach((glyph, k) => {
    if (glyph.doubted) glyph.other = read[k]!.before + read[k]!.own + read[k]!.after;
  });
}
