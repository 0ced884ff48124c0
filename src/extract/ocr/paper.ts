/**
 * Photos and scans of a sheet made fit for the recogniser: the sheet found on a darker background
 * and cut out, straightened, and scaled so its text is the size the recogniser reads best.
 */
import type { Box } from '../layout/page';
import { histogram as histogramOf, inkThreshold, shrink, type GreyImage } from './raster';

/** The long side of the coarse image the sheet is looked for on: enough to outline it, quick to label. */
const OUTLINE_SIDE = 256;

/**
 * The sheet in a photo: the largest bright region, when it is clearly brighter than what lies
 * around it and neither fills the whole image (a scan, already cut to the page) nor only a sliver
 * of it. Returns its bounding box in pixels of `image`, and the image with everything outside the
 * sheet painted paper so a dark table or a hand at the edge is not read as ink; null when the
 * image shows no sheet on a background.
 */
export function findPaper(image: GreyImage): { box: Box; image: GreyImage } | null {
  const factor = Math.max(1, Math.max(image.width, image.height) / OUTLINE_SIDE);
  const small = shrink(image, factor);
  const { width, height, data } = small;
  const threshold = inkThreshold(small);
  // Labels the bright regions (4-connected), keeping the largest.
  const label = new Int32Array(width * height).fill(-1);
  let best = -1;
  let bestSize = 0;
  const stack: number[] = [];
  for (let start = 0; start < data.length; start++) {
    if (label[start] !== -1 || data[start]! <= threshold) continue;
    let size = 0;
    label[start] = start;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      size++;
      const x = i % width;
      for (const n of [i - width, i + width, x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1]) {
        if (n >= 0 && n < data.length && label[n] === -1 && data[n]! > threshold) {
          label[n] = start;
          stack.push(n);
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = start;
    }
  }
  if (best < 0) return null;
  // What lies outside the sheet: reached from the border without crossing it (ink on the sheet is inside).
  const outside = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) for (const y of [0, height - 1]) stack.push(y * width + x);
  for (let y = 0; y < height; y++) for (const x of [0, width - 1]) stack.push(y * width + x);
  while (stack.length) {
    const i = stack.pop()!;
    if (outside[i] || label[i] === best) continue;
    outside[i] = 1;
    const x = i % width;
    if (i >= width) stack.push(i - width);
    if (i + width < data.length) stack.push(i + width);
    if (x > 0) stack.push(i - 1);
    if (x < width - 1) stack.push(i + 1);
  }
  let sheet = 0;
  let sheetSum = 0;
  let rest = 0;
  let restSum = 0;
  let x0 = width;
  let y0 = height;
  let x1 = 0;
  let y1 = 0;
  for (let i = 0; i < data.length; i++) {
    if (outside[i]) {
      rest++;
      restSum += data[i]!;
      continue;
    }
    sheet++;
    sheetSum += data[i]!;
    const x = i % width;
    const y = (i - x) / width;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x + 1);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y + 1);
  }
  const share = sheet / data.length;
  // A sheet filling nearly all the image is a scan; a small bright patch is a reflection or a label.
  if (share > 0.9 || share < 0.12 || rest === 0) return null;
  // Paper against a table, not a light area against a slightly darker one.
  if (sheetSum / sheet - restSum / rest < 50) return null;
  const box = {
    x0: Math.max(0, Math.floor((x0 - 1) * factor)),
    y0: Math.max(0, Math.floor((y0 - 1) * factor)),
    x1: Math.min(image.width, Math.ceil((x1 + 1) * factor)),
    y1: Math.min(image.height, Math.ceil((y1 + 1) * factor)),
  };
  const cut = crop(image, box);
  const out = cut.data;
  // The table is painted the sheet's own paper grey (its typical brightness), so evening out the
  // paper later sees no brighter border; outside cells are grown by one so the sheet's dark edge
  // does not stay behind as a ruling line.
  const levels = new Array<number>(256).fill(0);
  for (let i = 0; i < data.length; i++) if (!outside[i]) levels[data[i]!]!++;
  let paperGrey = 255;
  for (let seen = 0; paperGrey > 0 && seen + levels[paperGrey]! < sheet / 2; paperGrey--) seen += levels[paperGrey]!;
  for (let y = 0; y < cut.height; y++) {
    const sy = Math.min(height - 1, Math.floor((y + box.y0) / factor));
    for (let x = 0; x < cut.width; x++) {
      const sx = Math.min(width - 1, Math.floor((x + box.x0) / factor));
      let away = false;
      for (let dy = -1; dy <= 1 && !away; dy++) {
        for (let dx = -1; dx <= 1 && !away; dx++) {
          const ny = sy + dy;
          const nx = sx + dx;
          if (ny >= 0 && nx >= 0 && ny < height && nx < width && outside[ny * width + nx]) away = true;
        }
      }
      if (away) out[y * cut.width + x] = paperGrey;
    }
  }
  return { box, image: cut };
}

/** The part of the image inside the box. */
export function crop(image: GreyImage, box: Box): GreyImage {
  const x0 = Math.max(0, Math.floor(box.x0));
  const y0 = Math.max(0, Math.floor(box.y0));
  const width = Math.max(1, Math.min(image.width, Math.ceil(box.x1)) - x0);
  const height = Math.max(1, Math.min(image.height, Math.ceil(box.y1)) - y0);
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) data.set(image.data.subarray((y0 + y) * image.width + x0, (y0 + y) * image.width + x0 + width), y * width);
  return { width, height, data };
}

/** Ink pixels (darker than Otsu's threshold, and than mid-grey) of an image whose paper was evened out. */
function inkPoints(image: GreyImage, limit: number): { xs: Float64Array; ys: Float64Array } {
  const histogram = histogramOf(image);
  const threshold = Math.min(160, inkThreshold(image, histogram));
  let count = 0;
  for (let v = 0; v <= threshold; v++) count += histogram[v]!;
  // An even sample of the ink is enough to weigh each angle.
  const step = Math.max(1, count / limit);
  const xs: number[] = [];
  const ys: number[] = [];
  let next = 0;
  let seen = 0;
  for (let i = 0; i < image.data.length; i++) {
    if (image.data[i]! > threshold) continue;
    if (seen++ >= next) {
      xs.push(i % image.width);
      ys.push(Math.floor(i / image.width));
      next += step;
    }
  }
  return { xs: Float64Array.from(xs), ys: Float64Array.from(ys) };
}

/** The largest skew looked for: a sheet photographed more askew than this is rare, and is read as it is. */
const MAX_SKEW = 12;

/**
 * How many degrees the text lines fall clockwise (positive: the right end lower), found as the
 * angle at which the rows of ink are sharpest: text lines then fall into few rows, the gaps
 * between them into rows of none. `horizontal` says the lines run across the image.
 */
export function skewAngle(image: GreyImage, horizontal = true): number {
  const { xs, ys } = inkPoints(image, 40_000);
  if (xs.length < 50) return 0;
  const along = horizontal ? xs : ys;
  const across = horizontal ? ys : xs;
  const extent = (horizontal ? image.height : image.width) + (horizontal ? image.width : image.height);
  const bins = new Float64Array(extent * 2 + 2);
  const sharpness = (degrees: number) => {
    const tan = Math.tan((degrees * Math.PI) / 180);
    bins.fill(0);
    for (let i = 0; i < along.length; i++) bins[Math.round(across[i]! - along[i]! * tan) + extent]!++;
    let sum = 0;
    for (const b of bins) sum += b * b;
    return sum;
  };
  let best = 0;
  let bestScore = sharpness(0);
  for (let degrees = -MAX_SKEW; degrees <= MAX_SKEW; degrees += 0.5) {
    const s = sharpness(degrees);
    if (s > bestScore) {
      bestScore = s;
      best = degrees;
    }
  }
  const coarse = best;
  for (let degrees = coarse - 0.4; degrees <= coarse + 0.4; degrees += 0.1) {
    const s = sharpness(degrees);
    if (s > bestScore) {
      bestScore = s;
      best = degrees;
    }
  }
  // A horizontal sheet's "clockwise" is a vertical one's counter-clockwise.
  return Math.round((horizontal ? best : -best) * 10) / 10;
}

/** Turned clockwise by `degrees` about its centre, on a canvas grown to hold it all; new corners are paper. */
export function rotate(image: GreyImage, degrees: number): GreyImage {
  if (degrees === 0) return image;
  const radians = (degrees * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const { width: w, height: h, data: source } = image;
  const width = Math.ceil(Math.abs(w * cos) + Math.abs(h * sin));
  const height = Math.ceil(Math.abs(w * sin) + Math.abs(h * cos));
  const data = new Uint8Array(width * height).fill(255);
  const cx = w / 2;
  const cy = h / 2;
  const ox = width / 2;
  const oy = height / 2;
  // Each column's share of the inverse turn, worked out once rather than on every row.
  const dxCos = new Float64Array(width);
  const dxSin = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const dx = x + 0.5 - ox;
    dxCos[x] = dx * cos;
    dxSin[x] = -dx * sin;
  }
  for (let y = 0; y < height; y++) {
    const dy = y + 0.5 - oy;
    const dySin = dy * sin;
    const dyCos = dy * cos;
    for (let x = 0; x < width; x++) {
      // Where this output pixel comes from: the inverse turn.
      const sx = dxCos[x]! + dySin + cx - 0.5;
      const sy = dxSin[x]! + dyCos + cy - 0.5;
      if (sx < -0.5 || sy < -0.5 || sx > w - 0.5 || sy > h - 0.5) continue;
      const x0 = Math.max(0, Math.min(w - 1, Math.floor(sx)));
      const y0 = Math.max(0, Math.min(h - 1, Math.floor(sy)));
      const x1 = Math.min(w - 1, x0 + 1);
      const y1 = Math.min(h - 1, y0 + 1);
      const fx = Math.max(0, Math.min(1, sx - x0));
      const fy = Math.max(0, Math.min(1, sy - y0));
      const top = source[y0 * w + x0]! * (1 - fx) + source[y0 * w + x1]! * fx;
      const bottom = source[y1 * w + x0]! * (1 - fx) + source[y1 * w + x1]! * fx;
      data[y * width + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { width, height, data };
}

/**
 * The typical height of a text line in pixels: the median height of the bands of inked rows
 * (columns when the lines run down the image) that lines of text make, or null when there are
 * too few to tell. Runs of two pixels or less are specks and dotted rules, not lines.
 */
export function textLineHeight(image: GreyImage, horizontal = true): number | null {
  const threshold = Math.min(160, inkThreshold(image));
  const length = horizontal ? image.height : image.width;
  const profile = new Float64Array(length);
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) if (image.data[y * image.width + x]! <= threshold) profile[horizontal ? y : x]!++;
  }
  let max = 0;
  for (const v of profile) max = Math.max(max, v);
  const runs: number[] = [];
  let run = 0;
  for (const v of [...profile, 0]) {
    // A few dark pixels (dust, a descender of the line above) do not make a row part of a line.
    if (v > max * 0.03) run++;
    else {
      if (run > 2) runs.push(run);
      run = 0;
    }
  }
  if (runs.length < 3) return null;
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)]!;
}

/** Blobs of ink: letters, or the pieces of broken ones; lines and logos are dropped by size. */
interface Blob {
  x: number;
  y: number;
  height: number;
}

/** Connected 8-neighbour groups of ink pixels of a letter's size, as centres and heights. */
function inkBlobs(image: GreyImage): Blob[] {
  const { width, height, data } = image;
  const threshold = Math.min(160, inkThreshold(image));
  const seen = new Uint8Array(width * height);
  const blobs: Blob[] = [];
  const stack: number[] = [];
  for (let start = 0; start < data.length; start++) {
    if (seen[start] || data[start]! > threshold) continue;
    seen[start] = 1;
    stack.push(start);
    let count = 0;
    let sx = 0;
    let sy = 0;
    let x0 = width;
    let x1 = 0;
    let y0 = height;
    let y1 = 0;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      count++;
      sx += x;
      sy += y;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const n = ny * width + nx;
          if (!seen[n] && data[n]! <= threshold) {
            seen[n] = 1;
            stack.push(n);
          }
        }
      }
    }
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    // Specks, rules, boxes and pictures are not letters.
    if (count < 6 || w > 150 || h > 150 || w > 8 * h || h > 8 * w) continue;
    blobs.push({ x: sx / count, y: sy / count, height: Math.max(w, h) });
  }
  return blobs;
}

/**
 * Whether the text lines run across the image (true) or down it (false), or null when there are
 * too few letters to tell. A letter's nearest neighbour is the next letter of its word, closer
 * than the line above or below, so the nearest-neighbour directions of the blobs of ink vote; this
 * holds for the columns of monospaced receipts too, where rows and columns of letters both align.
 */
export function textRunsAcross(image: GreyImage): boolean | null {
  const blobs = inkBlobs(image);
  if (blobs.length < 20) return null;
  const sizes = blobs.map((b) => b.height).sort((a, b) => a - b);
  const cell = Math.max(4, sizes[Math.floor(sizes.length / 2)]! * 2);
  const grid = new Map<number, Blob[]>();
  const key = (gx: number, gy: number) => gy * 100_003 + gx;
  for (const b of blobs) {
    const k = key(Math.floor(b.x / cell), Math.floor(b.y / cell));
    const list = grid.get(k);
    if (list) list.push(b);
    else grid.set(k, [b]);
  }
  let across = 0;
  let down = 0;
  for (const b of blobs) {
    const gx = Math.floor(b.x / cell);
    const gy = Math.floor(b.y / cell);
    let best: Blob | null = null;
    let bestDistance = Infinity;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        for (const o of grid.get(key(gx + dx, gy + dy)) ?? []) {
          if (o === b) continue;
          const distance = (o.x - b.x) ** 2 + (o.y - b.y) ** 2;
          if (distance < bestDistance) {
            bestDistance = distance;
            best = o;
          }
        }
      }
    }
    if (!best) continue;
    if (Math.abs(best.x - b.x) > Math.abs(best.y - b.y)) across++;
    else down++;
  }
  if (across + down < 20) return null;
  return across >= down;
}

/**
 * Ink black and paper white by Sauvola's rule: each pixel against the mean and spread of the grey
 * around it, so faint print (a faded thermal receipt, coloured ink) turns as black as dark print
 * elsewhere on the sheet, while plain paper, whose spread is low, stays white. `window` is the
 * side of the neighbourhood in pixels, a few text lines.
 */
export function binarise(image: GreyImage, window: number, k = 0.2): GreyImage {
  const { width, height, data } = image;
  const stride = width + 1;
  // Integral images of the grey values and of their squares.
  const sum = new Float64Array(stride * (height + 1));
  const squares = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let rowSum = 0;
    let rowSquares = 0;
    for (let x = 0; x < width; x++) {
      const v = data[y * width + x]!;
      rowSum += v;
      rowSquares += v * v;
      sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1]! + rowSum;
      squares[(y + 1) * stride + x + 1] = squares[y * stride + x + 1]! + rowSquares;
    }
  }
  const half = Math.max(1, Math.floor(window / 2));
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - half);
    const y1 = Math.min(height, y + half + 1);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(0, x - half);
      const x1 = Math.min(width, x + half + 1);
      const n = (x1 - x0) * (y1 - y0);
      const s = sum[y1 * stride + x1]! - sum[y0 * stride + x1]! - sum[y1 * stride + x0]! + sum[y0 * stride + x0]!;
      const q = squares[y1 * stride + x1]! - squares[y0 * stride + x1]! - squares[y1 * stride + x0]! + squares[y0 * stride + x0]!;
      const mean = s / n;
      const spread = Math.sqrt(Math.max(0, q / n - mean * mean));
      out[y * width + x] = data[y * width + x]! <= mean * (1 + k * (spread / 128 - 1)) ? 0 : 255;
    }
  }
  return { width, height, data: out };
}


/**
 * Faint print made dark: when the ink of a page whose paper was evened out to white is light grey
 * (a faded thermal receipt, a pale scan), the greys are stretched so that ink becomes black; the
 * recogniser otherwise takes the whole page for blank paper. The ink's grey is where `share` of
 * the pixels darker than paper are darker still: a small share takes the darkest print on the page
 * (a few specks aside), a large one looks past a dark pen mark or shadow to the print beside it.
 * A page whose ink is dark is left as it is.
 */
export function darkenFaintInk(image: GreyImage, share: number): GreyImage {
  const histogram = histogramOf(image);
  let marked = 0;
  for (let v = 0; v < PAPER; v++) marked += histogram[v]!;
  // Less than a thousandth of the page off-white is no print at all.
  if (marked < image.data.length / 1000) return image;
  let below = 0;
  let ink = 0;
  while (below + histogram[ink]! < marked * share) below += histogram[ink++]!;
  if (ink <= FAINT_INK) return image;
  const gain = Math.min(MAX_INK_GAIN, 255 / (255 - ink));
  const data = new Uint8Array(image.data.length);
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.round(255 - (255 - image.data[i]!) * gain));
  return { ...image, data };
}

/** Evened-out paper is at least this light. */
const PAPER = 245;
/** Ink lighter than this grey is faint. */
const FAINT_INK = 80;
/** Paper grain is stretched too: beyond this it would become specks. */
const MAX_INK_GAIN = 6;
