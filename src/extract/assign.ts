/**
 * The assignment problem (Hungarian method, Jonker-Volgenant style with potentials): each row takes
 * at most one column and each column at most one row, maximising the total score. Used to match
 * target columns to a document's columns; the matrices are small (tens by tens).
 */

/** For each row, the column assigned to it, or -1; pairs scoring 0 or less are never assigned. */
export function assignMax(scores: number[][]): number[] {
  const n = scores.length;
  const m = scores.reduce((w, r) => Math.max(w, r.length), 0);
  if (n === 0 || m === 0) return new Array(n).fill(-1);
  // The method wants no more rows than columns; a tall matrix is solved turned on its side.
  if (n > m) {
    const turned = Array.from({ length: m }, (_, j) => scores.map((row) => row[j] ?? 0));
    const byColumn = assignMax(turned);
    const out = new Array<number>(n).fill(-1);
    byColumn.forEach((i, j) => {
      if (i >= 0) out[i] = j;
    });
    return out;
  }
  // Costs against the best score, so every cost is >= 0; an unassigned pair scores 0. With rows
  // <= columns the work grows as rows^2 x columns, not with the cube of the wider side.
  let top = 0;
  for (const row of scores) for (const s of row) if (s > top) top = s;
  const cost = (i: number, j: number) => top - Math.max(0, scores[i]![j] ?? 0);
  const INF = Number.POSITIVE_INFINITY;
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1);
  const way = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(m + 1).fill(INF);
    const used = new Uint8Array(m + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = INF;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else {
          minv[j] = minv[j]! - delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0);
  }
  const out = new Array<number>(n).fill(-1);
  for (let j = 1; j <= m; j++) {
    const i = p[j]! - 1;
    if (i >= 0 && (scores[i]![j - 1] ?? 0) > 0) out[i] = j - 1;
  }
  return out;
}
