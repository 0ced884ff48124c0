/**
 * A conditional logit (softmax over a document's candidates for one role, plus "none of them"):
 * P(candidate) = exp(w·x) / (exp(b) + Σ exp(w·x')). Trained by full-batch gradient descent with
 * an L2 penalty from zero weights, so two runs on the same data give the same weights.
 */

export interface RoleWeights {
  /** Feature names in the order of `weights`. */
  names: string[];
  mean: number[];
  scale: number[];
  weights: number[];
  /** The score of "none of the candidates". */
  none: number;
  /** The L2 penalty it was fitted with (chosen by cross-validation). */
  l2?: number;
  /** A value is written when its probability reaches this (chosen by cross-validation). */
  threshold: number;
  /** The same for recognised scans, whose misread values cost more often (when trained apart). */
  scanThreshold?: number;
  /** Share of training documents that have this field: an empty field counts against a row by it. */
  presence: number;
  /** The model for recognised scans, when trained apart from the one for text. */
  scan?: RoleWeights;
}

export interface Group {
  /** One feature vector per candidate. */
  x: Array<Record<string, number>>;
  /** Indices of the right candidates; empty when none is right (the answer is "none"). */
  right: number[];
  /** How much the document counts in the fit (1 unless said). */
  weight?: number;
}

export function featureNames(groups: Group[]): string[] {
  const names = new Set<string>();
  for (const g of groups) for (const x of g.x) for (const k of Object.keys(x)) names.add(k);
  return [...names].sort();
}

/**
 * Features a source may not have (font sizes and positions of plain text, OCR confidence of a text
 * layer) are left out when unknown and then count as average, not as zero.
 */
const OPTIONAL = /^(?:font:|ocr:|pos:right$)/;

const valueOf = (x: Record<string, number>, name: string, mean: number) => x[name] ?? (OPTIONAL.test(name) ? mean : 0);

const vector = (x: Record<string, number>, names: string[], mean: number[], scale: number[]) => names.map((n, i) => (valueOf(x, n, mean[i]!) - mean[i]!) / scale[i]!);

/** Candidate probabilities and the probability of none, for one document. */
export function probabilities(model: RoleWeights, x: Array<Record<string, number>>): { p: number[]; none: number } {
  const scores = x.map((c) => vector(c, model.names, model.mean, model.scale).reduce((s, v, i) => s + v * model.weights[i]!, 0));
  const top = Math.max(model.none, ...scores);
  const exps = scores.map((s) => Math.exp(s - top));
  const noneExp = Math.exp(model.none - top);
  const sum = exps.reduce((a, b) => a + b, noneExp);
  return { p: exps.map((e) => e / sum), none: noneExp / sum };
}

/**
 * Fits the weights; `prior` is what the penalty pulls them towards (see PRIORS in features.ts).
 * Features in `leaveOut` get no weight: the model learns without them and ignores them when it scores.
 */
export function train(
  groups: Group[],
  options: { iterations?: number; l2?: number; rate?: number; prior?: Record<string, number>; leaveOut?: string[] } = {},
): Omit<RoleWeights, 'threshold' | 'presence'> {
  const names = featureNames(groups).filter((n) => !options.leaveOut?.includes(n));
  const d = names.length;
  const all = groups.flatMap((g) => g.x);
  const known = (n: string) => all.filter((x) => x[n] !== undefined || !OPTIONAL.test(n));
  const mean = names.map((n) => {
    const xs = known(n);
    return xs.reduce((s, x) => s + (x[n] ?? 0), 0) / Math.max(1, xs.length);
  });
  const scale = names.map((n, i) => Math.sqrt(all.reduce((s, x) => s + (valueOf(x, n, mean[i]!) - mean[i]!) ** 2, 0) / Math.max(1, all.length)) || 1);
  // The candidates' standardised features in one flat array, row after row: the descent reads them
  // on every iteration, and loops over typed arrays are many times faster than array callbacks.
  // Sums are taken in the same order as ever, so the weights are the same to the last bit.
  const x = new Float64Array(all.length * d);
  all.forEach((c, r) => x.set(vector(c, names, mean, scale), r * d));
  const right = new Uint8Array(all.length);
  const starts: number[] = [];
  let row = 0;
  for (const g of groups) {
    starts.push(row);
    for (const k of g.right) right[row + k] = 1;
    row += g.x.length;
  }
  const { iterations = 800, l2 = 0.01, rate = 0.5, prior = {} } = options;
  // The penalty pulls towards `prior` (raw feature units), not towards zero. In standardised units a raw weight is multiplied by the feature's scale.
  const w0 = Float64Array.from(names, (n, i) => (prior[n] ?? 0) * scale[i]!);
  const w = Float64Array.from(w0);
  let b = 0;
  const n = groups.reduce((t, g) => t + (g.weight ?? 1), 0) || 1;
  const gw = new Float64Array(d);
  const exps = new Float64Array(Math.max(0, ...groups.map((g) => g.x.length)));
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < d; i++) gw[i] = 0;
    let gb = 0;
    for (let j = 0; j < groups.length; j++) {
      const g = groups[j]!;
      const first = starts[j]!;
      const m = g.x.length;
      let top = b;
      for (let k = 0; k < m; k++) {
        let score = 0;
        for (let i = 0, at = (first + k) * d; i < d; i++, at++) score += x[at]! * w[i]!;
        exps[k] = score;
        top = Math.max(top, score);
      }
      for (let k = 0; k < m; k++) exps[k] = Math.exp(exps[k]! - top);
      const noneExp = Math.exp(b - top);
      let sum = noneExp;
      for (let k = 0; k < m; k++) sum += exps[k]!;
      let rightSum = g.right.length ? 0 : noneExp;
      for (const k of g.right) rightSum += exps[k]!;
      // Gradient of -log P(right): expected features under the model minus under the right answers.
      const gwt = g.weight ?? 1;
      for (let k = 0; k < m; k++) {
        const p = exps[k]! / sum;
        const q = right[first + k] ? exps[k]! / rightSum : 0;
        const step = gwt * (p - q);
        for (let i = 0, at = (first + k) * d; i < d; i++, at++) gw[i]! += step * x[at]!;
      }
      gb += gwt * (noneExp / sum - (g.right.length ? 0 : 1));
    }
    for (let i = 0; i < d; i++) w[i]! -= rate * (gw[i]! / n + l2 * (w[i]! - w0[i]!));
    b -= rate * (gb / n);
  }
  return { names, mean, scale, weights: Array.from(w, (v) => Math.round(v * 1e6) / 1e6), none: Math.round(b * 1e6) / 1e6 };
}
