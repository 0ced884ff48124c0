/**
 * One page image to words: the paper is evened out (shading, coloured bands, shadows), the page
 * turned upright (quarter turns chosen by the direction of the text lines and by which way the
 * recogniser is most confident), deskewed by the recogniser, and text too small to read enlarged.
 */
import type { Worker as TesseractWorker } from 'tesseract.js';
import type { Box } from '../layout/page';
import { blankLines, encodePgm, enlarge, erase, findRules, normaliseBackground, rotateBoxes, rotateQuarters, type GreyImage } from './raster';
import { median } from '../layout/lines';

/** A recognised word, in pixels of the upright page image. */
export interface PixelWord extends Box {
  text: string;
  /** Height of the word's text line, in pixels. */
  lineHeight: number;
  /** 0..1 */
  confidence: number;
}

export interface PageScan {
  /** Size of the upright page image, in pixels. */
  width: number;
  height: number;
  /** Quarter turns clockwise that made the page upright. */
  quarters: number;
  words: PixelWord[];
  rules: Box[];
}

interface Pass {
  quarters: number;
  image: GreyImage;
  words: PixelWord[];
  /** Character-weighted mean confidence, 0..1. */
  confidence: number;
}

/** Below this mean confidence a reading is doubted and the other orientations are tried. */
const CONFIDENT = 0.7;
/** Text lines lower than this (in pixels) are read better enlarged. */
const SMALL_TEXT = 16;

interface TesseractBlock {
  paragraphs: Array<{
    lines: Array<{
      bbox: Box;
      rowAttributes?: { row_height?: number };
      words: Array<{ text: string; confidence: number; bbox: Box }>;
    }>;
  }>;
}

async function recognise(tesseract: TesseractWorker, image: GreyImage, dpi: number): Promise<PixelWord[]> {
  const { data } = await tesseract.recognize(
    Buffer.from(encodePgm(image)),
    { rotateAuto: true, user_defined_dpi: String(Math.round(dpi)) } as never,
    { blocks: true, text: false },
  );
  const words: PixelWord[] = [];
  for (const block of (data.blocks ?? []) as unknown as TesseractBlock[]) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const lineHeight = line.rowAttributes?.row_height || line.bbox.y1 - line.bbox.y0;
        for (const word of line.words) {
          const text = word.text.trim();
          if (!text) continue;
          words.push({ text, ...word.bbox, lineHeight, confidence: Math.max(0, Math.min(1, word.confidence / 100)) });
        }
      }
    }
  }
  return words;
}

function meanConfidence(words: PixelWord[]): number {
  let chars = 0;
  let sum = 0;
  for (const w of words) {
    chars += w.text.length;
    sum += w.confidence * w.text.length;
  }
  return chars === 0 ? 0 : sum / chars;
}


/** A reading is better when it is more confident, counting how much text it found a little. */
const score = (pass: Pass) => pass.confidence * Math.log2(2 + pass.words.length);

async function readOriented(tesseract: TesseractWorker, image: GreyImage, rules: Box[], dpi: number, deadline: () => void): Promise<Pass> {
  const blank = blankLines(erase(image, rules, 2));
  // Upright first, then upside down, on the axis the text lines suggest; the other axis only when
  // neither reading was confident.
  const order = blank.horizontal ? [0, 2, 1, 3] : [1, 3, 0, 2];
  let best: Pass | null = null;
  for (const [i, quarters] of order.entries()) {
    deadline();
    const turned = rotateQuarters(image, quarters);
    const words = await recognise(tesseract, turned, dpi);
    const pass: Pass = { quarters, image: turned, words, confidence: meanConfidence(words) };
    if (!best || score(pass) > score(best)) best = pass;
    if (words.length === 0 && i === 0) break;
    if (best.confidence >= CONFIDENT && best.words.length >= 3) break;
  }
  return best!;
}

/**
 * Reads a page image. `deadline` throws once the page's time is up; it is checked between the
 * recogniser's passes, and the pool ends a worker that overruns anyway.
 */
export async function readPageImage(tesseract: TesseractWorker, source: GreyImage, dpi: number, maxPixels: number, deadline: () => void): Promise<PageScan> {
  // Blocks a few strokes wide: about 2 mm on a page at 300 dpi.
  const image = normaliseBackground(source, Math.max(16, Math.round(Math.sqrt(source.width * source.height) / 100)));
  const pageRules = findRules(image, Math.min(image.width, image.height) / 40, Math.max(3, image.width / 300));
  let pass = await readOriented(tesseract, image, pageRules, dpi, deadline);
  let factor = 1;
  const lineHeight = median(pass.words.filter((w) => w.confidence > 0.3).map((w) => w.lineHeight));
  if (pass.words.length > 0 && lineHeight > 0 && lineHeight < SMALL_TEXT) {
    const wanted = Math.min(3, Math.ceil((SMALL_TEXT * 1.5) / lineHeight));
    const possible = Math.floor(Math.sqrt(maxPixels / (pass.image.width * pass.image.height)));
    const enlargeBy = Math.min(wanted, possible);
    if (enlargeBy >= 2) {
      deadline();
      const bigger = enlarge(pass.image, enlargeBy);
      const words = await recognise(tesseract, bigger, dpi * enlargeBy);
      if (meanConfidence(words) * Math.log2(2 + words.length) >= score(pass)) {
        factor = enlargeBy;
        pass = { ...pass, image: bigger, words, confidence: meanConfidence(words) };
      }
    }
  }
  const scaleBack = (b: Box): Box => ({ x0: b.x0 / factor, y0: b.y0 / factor, x1: b.x1 / factor, y1: b.y1 / factor });
  const words = pass.words.map((w) => ({ ...w, ...scaleBack(w), lineHeight: w.lineHeight / factor }));
  const uprightRules = rotateBoxes(pageRules, pass.quarters, image.width, image.height);
  // Rules shorter than two text lines are letters (an underscore, a dash), not table borders.
  const textHeight = Math.max(8, median(words.map((w) => w.lineHeight)) || 20);
  const rules = uprightRules.filter(
    (r) => Math.max(r.x1 - r.x0, r.y1 - r.y0) >= textHeight * 2 && Math.min(r.x1 - r.x0, r.y1 - r.y0) <= Math.max(3, textHeight / 3),
  );
  const upright = pass.quarters % 2 === 0 ? image : { width: image.height, height: image.width };
  return {
    width: upright.width,
    height: upright.height,
    quarters: pass.quarters,
    words: words.filter((w) => !isRuleArtifact(w, uprightRules) && !isSpeck(w)),
    rules,
  };
}

/** A doubtful "word" without a letter or digit is a speck, a torn edge or a shadow read as text. */
export const isSpeck = (word: { text: string; confidence: number }) => word.confidence < 0.5 && !/[\p{L}\p{N}]/u.test(word.text);

/** Glyphs the recogniser makes of a stretch of a vertical line. */
const STROKES = /^[|¦!\[\]Il]+$/;

/**
 * A "word" that is only a vertical bar, or only stroke-like glyphs standing on a vertical ruling
 * line, is a piece of a table border read as text.
 */
export function isRuleArtifact(word: Box & { text: string }, rules: Box[]): boolean {
  if (/^[|¦]+$/.test(word.text)) return true;
  if (!STROKES.test(word.text)) return false;
  return rules.some(
    (r) => r.y1 - r.y0 > r.x1 - r.x0 && r.x0 <= word.x1 && r.x1 >= word.x0 && Math.min(r.y1, word.y1) - Math.max(r.y0, word.y0) > (word.y1 - word.y0) / 2,
  );
}
