/** Grey-level page images and the pixel work OCR needs around the recogniser. */
import type { Box } from '../layout/page';

/** One byte per pixel, 0 black to 255 white, rows top to bottom. */
export interface GreyImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export function greyFromRgba(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): GreyImage {
  const data = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < data.length; i++, p += 4) {
    // Transparent pixels are paper: a PNG with an alpha channel draws its text on nothing.
    const alpha = rgba[p + 3]! / 255;
    const luma = (rgba[p]! * 299 + rgba[p + 1]! * 587 + rgba[p + 2]! * 114) / 1000;
    data[i] = Math.round(luma * alpha + 255 * (1 - alpha));
  }
  return { width, height, data };
}

/** Turned clockwise by a quarter turn count (1 = 90 degrees). */
export function rotateQuarters(image: GreyImage, quarters: number): GreyImage {
  const q = ((quarters % 4) + 4) % 4;
  if (q === 0) return image;
  const { width: w, height: h, data } = image;
  const out = new Uint8Array(w * h);
  const width = q === 2 ? w : h;
  const height = q === 2 ? h : w;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x]!;
      if (q === 1) out[x * width + (h - 1 - y)] = v;
      else if (q === 2) out[(h - 1 - y) * width + (w - 1 - x)] = v;
      else out[(w - 1 - x) * width + y] = v;
    }
  }
  return { width, height, data: out };
}

/** Shrunk by a whole or fractional factor (> 1), averaging the pixels each output pixel covers. */
export function shrink(image: GreyImage, factor: number): GreyImage {
  const width = Math.max(1, Math.round(image.width / factor));
  const height = Math.max(1, Math.round(image.height / factor));
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * factor);
    const y1 = Math.min(image.height, Math.max(y0 + 1, Math.floor((y + 1) * factor)));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * factor);
      const x1 = Math.min(image.width, Math.max(x0 + 1, Math.floor((x + 1) * factor)));
      let sum = 0;
      for (let yy = y0; yy < y1; yy++) for (let xx = x0; xx < x1; xx++) sum += image.data[yy * image.width + xx]!;
      data[y * width + x] = Math.round(sum / ((y1 - y0) * (x1 - x0)));
    }
  }
  return { width, height, data };
}

/** Resized by any factor: shrinking averages the pixels each output pixel covers, enlarging interpolates. */
export function resize(image: GreyImage, factor: number): GreyImage {
  if (factor === 1) return image;
  if (factor < 1) return shrink(image, 1 / factor);
  const width = Math.max(1, Math.round(image.width * factor));
  const height = Math.max(1, Math.round(image.height * factor));
  const data = new Uint8Array(width * height);
  const { width: w, height: h, data: source } = image;
  // Each column's source pixels and weight, worked out once rather than on every row.
  const xs0 = new Int32Array(width);
  const xs1 = new Int32Array(width);
  const fxs = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const sx = Math.min(w - 1, Math.max(0, (x + 0.5) / factor - 0.5));
    xs0[x] = Math.floor(sx);
    xs1[x] = Math.min(w - 1, xs0[x]! + 1);
    fxs[x] = sx - xs0[x]!;
  }
  for (let y = 0; y < height; y++) {
    const sy = Math.min(h - 1, Math.max(0, (y + 0.5) / factor - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(h - 1, y0 + 1);
    const fy = sy - y0;
    const r0 = y0 * w;
    const r1 = y1 * w;
    const out = y * width;
    for (let x = 0; x < width; x++) {
      const x0 = xs0[x]!;
      const x1 = xs1[x]!;
      const fx = fxs[x]!;
      const top = source[r0 + x0]! * (1 - fx) + source[r0 + x1]! * fx;
      const bottom = source[r1 + x0]! * (1 - fx) + source[r1 + x1]! * fx;
      data[out + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { width, height, data };
}

/** How many pixels have each grey level. An indexed loop: iterating a typed array with for-of cost seconds on large pages. */
export function histogram(image: GreyImage): Uint32Array {
  const counts = new Uint32Array(256);
  const data = image.data;
  for (let i = 0; i < data.length; i++) counts[data[i]!]!++;
  return counts;
}

/** Otsu's threshold: the grey level that best separates ink from paper. */
export function inkThreshold(image: GreyImage, counts: Uint32Array = histogram(image)): number {
  const total = image.data.length;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) sumAll += i * counts[i]!;
  let sumBelow = 0;
  let countBelow = 0;
  let best = 127;
  let bestVariance = -1;
  for (let t = 0; t < 256; t++) {
    countBelow += counts[t]!;
    if (countBelow === 0) continue;
    const countAbove = total - countBelow;
    if (countAbove === 0) break;
    sumBelow += t * counts[t]!;
    const meanBelow = sumBelow / countBelow;
    const meanAbove = (sumAll - sumBelow) / countAbove;
    const variance = countBelow * countAbove * (meanBelow - meanAbove) ** 2;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = t;
    }
  }
  return best;
}

/**
 * Which way the text lines run. Lines of text are separated by blank rows of paper, while blank
 * columns only occur where every line has a gap at the same place (a gutter), so across the text
 * there are far fewer of them. Ruling lines cross every gap, and text too small for its gaps to
 * show merges them: the letters' neighbours (textRunsAcross) tell better, and this is for pages
 * with too few letters for that. Returns the fractions of blank rows and of blank columns between the first and last inked ones,
 * and whether the lines run across the page.
 */
export function blankLines(image: GreyImage): { rows: number; columns: number; horizontal: boolean } {
  const threshold = Math.min(160, inkThreshold(image));
  const rows = new Float64Array(image.height);
  const columns = new Float64Array(image.width);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (image.data[y * image.width + x]! <= threshold) {
        rows[y]!++;
        columns[x]!++;
      }
    }
  }
  const blankFraction = (profile: Float64Array) => {
    const first = profile.findIndex((v) => v > 0);
    if (first < 0) return 0;
    let last = profile.length - 1;
    while (profile[last] === 0) last--;
    let max = 0;
    for (const v of profile) max = Math.max(max, v);
    // A speck of dust does not make a row inked.
    let blank = 0;
    for (let i = first; i <= last; i++) if (profile[i]! <= max * 0.02) blank++;
    return blank / (last - first + 1);
  };
  // A sparse table leaves wide blank columns between its cells too; what tells the direction then
  // is how long the inked stretches are: a text line is as tall as its letters, but as wide as
  // its words.
  const inkRun = (profile: Float64Array) => {
    let max = 0;
    for (const v of profile) max = Math.max(max, v);
    // Gaps narrower than a hundredth of the page (between letters, between words) do not end a stretch.
    const minGap = Math.max(2, Math.round(profile.length / 100));
    const runs: number[] = [];
    let run = 0;
    let gap = 0;
    for (const v of profile) {
      if (v > max * 0.02) {
        if (run && gap) run += gap;
        run++;
        gap = 0;
      } else if (run) {
        gap++;
        if (gap >= minGap) {
          runs.push(run);
          run = 0;
          gap = 0;
        }
      }
    }
    if (run) runs.push(run);
    runs.sort((a, b) => a - b);
    return runs[Math.floor(runs.length / 2)] ?? 0;
  };
  const rowRun = inkRun(rows);
  const columnRun = inkRun(columns);
  const fractions = { rows: blankFraction(rows), columns: blankFraction(columns) };
  return { ...fractions, horizontal: rowRun && columnRun ? rowRun <= columnRun : fractions.rows >= fractions.columns };
}

/**
 * Ruling lines: runs of ink at least `minLength` pixels long and at most `maxThickness` thick,
 * horizontal and vertical. Text never makes runs that long, table borders and underlines do.
 */
export function findRules(image: GreyImage, minLength: number, maxThickness: number): Box[] {
  const threshold = Math.min(160, inkThreshold(image));
  const { width, height, data } = image;
  const ink = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) ink[i] = data[i]! <= threshold ? 1 : 0;
  const rules: Box[] = [];
  // Runs along each row (or column), each merged into the overlapping run of the row before.
  const scan = (horizontal: boolean) => {
    const outer = horizontal ? height : width;
    const inner = horizontal ? width : height;
    const step = horizontal ? 1 : width;
    const found: Box[] = [];
    let open: Box[] = [];
    for (let o = 0; o < outer; o++) {
      const base = horizontal ? o * width : o;
      const next: Box[] = [];
      let start = -1;
      for (let i = 0; i <= inner; i++) {
        const dark = i < inner && ink[base + i * step] === 1;
        if (dark && start < 0) start = i;
        if (dark || start < 0) continue;
        if (i - start >= minLength) {
          const a = start;
          const b = i;
          const at = open.findIndex((r) => (horizontal ? Math.min(r.x1, b) - Math.max(r.x0, a) : Math.min(r.y1, b) - Math.max(r.y0, a)) > minLength / 2);
          if (at >= 0) {
            const match = open.splice(at, 1)[0]!;
            if (horizontal) Object.assign(match, { x0: Math.min(match.x0, a), x1: Math.max(match.x1, b), y1: o + 1 });
            else Object.assign(match, { y0: Math.min(match.y0, a), y1: Math.max(match.y1, b), x1: o + 1 });
            next.push(match);
          } else {
            next.push(horizontal ? { x0: a, x1: b, y0: o, y1: o + 1 } : { y0: a, y1: b, x0: o, x1: o + 1 });
          }
        }
        start = -1;
      }
      found.push(...open);
      open = next;
    }
    found.push(...open);
    for (const r of found) if ((horizontal ? r.y1 - r.y0 : r.x1 - r.x0) <= maxThickness) rules.push(r);
  };
  scan(true);
  scan(false);
  return rules;
}

/** Boxes of an image's pixels moved to where a clockwise quarter turn of the image puts them. */
export function rotateBoxes(boxes: Box[], quarters: number, width: number, height: number): Box[] {
  const q = ((quarters % 4) + 4) % 4;
  return boxes.map((b) => {
    if (q === 1) return { x0: height - b.y1, y0: b.x0, x1: height - b.y0, y1: b.x1 };
    if (q === 2) return { x0: width - b.x1, y0: height - b.y1, x1: width - b.x0, y1: height - b.y0 };
    if (q === 3) return { x0: b.y0, y0: width - b.x1, x1: b.y1, y1: width - b.x0 };
    return { ...b };
  });
}

/** Binary PGM, which the recogniser reads without a decoder of its own. */
export function encodePgm(image: GreyImage): Uint8Array {
  const header = new TextEncoder().encode(`P5\n${image.width} ${image.height}\n255\n`);
  const out = new Uint8Array(header.length + image.data.length);
  out.set(header);
  out.set(image.data, header.length);
  return out;
}

/**
 * Evens out the paper: each pixel divided by the brightness of the paper around it, so shaded
 * cells, coloured header bands and the shadows of a phone photo become white and only the ink
 * stays dark. The paper's brightness is the brightest pixel of each block (blocks larger than a
 * letter's stroke always hold some paper), smoothed over the neighbouring blocks.
 */
export function normaliseBackground(image: GreyImage, block: number): GreyImage {
  const { width, height, data } = image;
  const bw = Math.ceil(width / block);
  const bh = Math.ceil(height / block);
  const brightest = new Float64Array(bw * bh);
  // Per column, worked out once: its block, and the blocks and weight its paper level is interpolated from.
  const blockOf = new Int32Array(width);
  const xs0 = new Int32Array(width);
  const xs1 = new Int32Array(width);
  const txs = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    blockOf[x] = Math.floor(x / block);
    const fx = Math.min(bw - 1, Math.max(0, (x + 0.5) / block - 0.5));
    xs0[x] = Math.floor(fx);
    xs1[x] = Math.min(bw - 1, xs0[x]! + 1);
    txs[x] = fx - xs0[x]!;
  }
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / block) * bw;
    const at = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + blockOf[x]!;
      const v = data[at + x]!;
      if (v > brightest[i]!) brightest[i] = v;
    }
  }
  // A block inside a large letter or a filled shape has no paper: it takes its neighbours' paper.
  const paper = new Float64Array(bw * bh);
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let best = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = bx + dx;
          const ny = by + dy;
          if (nx >= 0 && ny >= 0 && nx < bw && ny < bh) best = Math.max(best, brightest[ny * bw + nx]!);
        }
      }
      paper[by * bw + bx] = Math.max(best, 40);
    }
  }
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(bh - 1, Math.max(0, (y + 0.5) / block - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(bh - 1, y0 + 1);
    const ty = fy - y0;
    const r0 = y0 * bw;
    const r1 = y1 * bw;
    const at = y * width;
    for (let x = 0; x < width; x++) {
      const x0 = xs0[x]!;
      const x1 = xs1[x]!;
      const tx = txs[x]!;
      const level = (paper[r0 + x0]! * (1 - tx) + paper[r0 + x1]! * tx) * (1 - ty) + (paper[r1 + x0]! * (1 - tx) + paper[r1 + x1]! * tx) * ty;
      out[at + x] = Math.min(255, Math.round((data[at + x]! * 255) / level));
    }
  }
  return { width, height, data: out };
}
