/** Weighted means of shares (0..1): the plain one, and the geometric one, which a single low share pulls down. */
export function weightedMeans(parts: Array<[value: number, weight: number]>): { plain: number; geometric: number } {
  const total = parts.reduce((s, [, w]) => s + w, 0);
  if (total <= 0) return { plain: 0, geometric: 0 };
  const plain = parts.reduce((s, [v, w]) => s + v * w, 0) / total;
  const geometric = Math.exp(parts.reduce((s, [v, w]) => s + Math.log(v) * w, 0) / total);
  return { plain, geometric };
}
