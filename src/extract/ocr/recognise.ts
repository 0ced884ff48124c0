/**
 * One page image to words. Before the recogniser sees it, the page is prepared: a photographed
 * sheet is cut out of its background, the paper evened out (shading, coloured bands, shadows),
 * the text lines straightened, and the image scaled so its text lines are the height the
 * recogniser reads best, whatever the camera's or scanner's resolution. The page is then turned
 * upright: the direction of the text lines gives the axis, the recogniser's confidence which end
 * is up.
 */
import { PSM, type Worker as TesseractWorker } from 'tesseract.js';
import type { Box } from '../layout/page';
import { blankLines, encodePgm, findRules, histogram, normaliseBackground, resize, rotateBoxes, rotateQuarters, shrink, type GreyImage } from './raster';
import { binarise, crop, darkenFaintInk, findPaper, rotate, skewAngle, textLineHeight, textRunsAcross } from './paper';
import { median } from '../layout/lines';
import { repairLegalForms } from './legal-forms';
import { repairOcrWord } from './confusions';
import { addressLine, repairAddressAbbreviations, repairAddressWord } from './address-words';
import { repairBySecondChoices, type SecondChoice } from './second-choices';
import { repairBySecondReading } from './second-reading';

/** A recognised word, in pixels of the upright page image. */
export interface PixelWord extends Box {
  text: string;
  /** Height of the word's text line, in pixels. */
  lineHeight: number;
  /** 0..1 */
  confidence: number;
  /** Which text line of the reading the word is on (the recogniser's lines, counted from 1). */
  line: number;
  /** Which run of text (a detected region) the recogniser read it in, where it tells. */
  run?: number;
  /** The recogniser's second choice for each character of the text, where it gives them; dropped once the words are repaired. */
  seconds?: SecondChoice[];
  /** A second recogniser read other letters or figures in it (see agreement.ts), and how it read the word; dropped once the words are repaired. */
  doubted?: boolean;
  alternative?: string;
}

export interface PageScan {
  /** Size of the upright page image, in pixels of the source image (the sheet alone when it was cut out). */
  width: number;
  height: number;
  /** Quarter turns clockwise that made the page upright. */
  quarters: number;
  /** Degrees the page was turned counter-clockwise to level its text lines. */
  skew: number;
  /** Whether the sheet was cut out of a photo's background. */
  cropped: boolean;
  words: PixelWord[];
  rules: Box[];
}

interface Pass {
  quarters: number;
  words: PixelWord[];
  /** Character-weighted mean confidence, 0..1. */
  confidence: number;
}

/** A reading of fewer words than this has (almost) nothing: the page is tried again other ways. */
const FEW_WORDS = 3;
/** Below this mean confidence a reading is doubted and the page is also read the other way up. */
const CONFIDENT = 0.7;
/**
 * The text line height (in pixels, ascenders to descenders) pages are scaled to: the recogniser
 * scales every line to a fixed height itself, and reads best, and fastest, near it.
 */
const LINE_HEIGHT = 32;
/** Pages are looked at (direction, skew, line height) at most this large: enough to see letters, quick to measure. */
const SURVEY_SIDE = 2000;
/**
 * Shares of the off-white pixels taken as the ink's grey (see darkenFaintInk): the darkest print
 * for every page; past a dark mark to the print beside it only when nothing else was read, since
 * stretching ordinary grey print costs the recogniser accuracy.
 */
const DARKEST_INK = 0.02;
const FAINT_INK_BESIDE_DARK = 0.25;
/** Skews smaller than this are left alone: the recogniser copes, and turning blurs. */
const MIN_SKEW = 0.3;

interface TesseractBlock {
  paragraphs: Array<{
    lines: Array<{
      bbox: Box;
      rowAttributes?: { row_height?: number };
      words: Array<{ text: string; confidence: number; bbox: Box }>;
    }>;
  }>;
}

/**
 * How the recogniser finds text on the page: `page` looks for blocks, columns and tables; `column`
 * takes the page as one column of lines, so nothing on it is set aside as a picture.
 */
export type Layout = 'page' | 'column';

/** A recogniser: the words of a prepared page image, in its pixels. */
export type ReadImage = (image: GreyImage, dpi: number, layout?: Layout) => Promise<PixelWord[]>;

/** Tesseract as the recogniser. */
export const tesseractReader =
  (tesseract: TesseractWorker): ReadImage =>
  (image, dpi, layout) =>
    recognise(tesseract, image, dpi, layout);

async function recognise(tesseract: TesseractWorker, image: GreyImage, dpi: number, layout: Layout = 'page'): Promise<PixelWord[]> {
  const { data } = await tesseract.recognize(
    Buffer.from(encodePgm(image)),
    { user_defined_dpi: String(Math.round(dpi)), ...(layout === 'column' ? { tessedit_pageseg_mode: PSM.SINGLE_COLUMN } : {}) } as never,
    { blocks: true, text: false },
  );
  const words: PixelWord[] = [];
  let lineNumber = 0;
  for (const block of (data.blocks ?? []) as unknown as TesseractBlock[]) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const lineHeight = line.rowAttributes?.row_height || line.bbox.y1 - line.bbox.y0;
        lineNumber++;
        for (const word of line.words) {
          const text = word.text.trim();
          if (!text) continue;
          words.push({ text, ...word.bbox, lineHeight, confidence: Math.max(0, Math.min(1, word.confidence / 100)), line: lineNumber });
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

/** A page ready for the recogniser, and how it was made from the source image. */
interface Prepared {
  image: GreyImage;
  /** Pixels of `image` per pixel of the source. */
  scale: number;
  skew: number;
  cropped: boolean;
  /** Whether the text lines run across the image; null when there were too few letters to tell. */
  across: boolean | null;
}

/** The block size the paper is evened out over: a few strokes wide, about 2 mm on a page at 300 dpi. */
const paperBlock = (image: GreyImage) => Math.max(16, Math.round(Math.sqrt(image.width * image.height) / 100));

/**
 * Cuts out the sheet, and measures the direction, skew and line height of its text on a survey
 * copy (at most SURVEY_SIDE pixels long, ink made black by a local threshold so faint print
 * counts); then levels and scales the sheet so its lines are LINE_HEIGHT pixels high, within
 * `maxPixels`.
 */
function prepare(source: GreyImage, maxPixels: number): Prepared {
  const paper = findPaper(source);
  const sheet = paper?.image ?? source;
  const surveyFactor = Math.max(1, Math.max(sheet.width, sheet.height) / SURVEY_SIDE);
  const survey = surveyFactor > 1 ? shrink(sheet, surveyFactor) : sheet;
  const level = normaliseBackground(survey, paperBlock(survey));
  // The paper is already even, so a low k: faint print counts as ink, and the survey tolerates some grain.
  let ink = binarise(level, Math.max(15, Math.round(Math.min(level.width, level.height) / 30)) | 1, 0.1);
  const across = textRunsAcross(ink);
  const horizontal = across ?? blankLines(ink).horizontal;
  const measured = skewAngle(ink, horizontal);
  const skew = Math.abs(measured) >= MIN_SKEW ? measured : 0;
  if (skew) ink = rotate(ink, -skew);
  const lineHeight = textLineHeight(ink, horizontal);
  let scale = lineHeight ? Math.max(0.25, Math.min(4, LINE_HEIGHT / (lineHeight * surveyFactor))) : 1;
  scale = Math.min(scale, Math.sqrt(maxPixels / (sheet.width * sheet.height)));
  const scaled = resize(sheet, scale);
  const image = rotate(darkenFaintInk(normaliseBackground(scaled, paperBlock(scaled)), DARKEST_INK), -skew);
  return { image, scale, skew, cropped: paper !== null, across };
}

/** The page with only its paper evened out, shrunk to `maxPixels`: no sheet cut out, no turn, no scaling to the text. */
function asItCame(source: GreyImage, maxPixels: number): Prepared {
  const scale = Math.min(1, Math.sqrt(maxPixels / (source.width * source.height)));
  const scaled = resize(source, scale);
  return { image: darkenFaintInk(normaliseBackground(scaled, paperBlock(scaled)), DARKEST_INK), scale, skew: 0, cropped: false, across: null };
}

async function readOriented(recognise: ReadImage, image: GreyImage, across: boolean | null, dpi: number, deadline: () => void, layout: Layout = 'page'): Promise<Pass> {
  // Along the axis the text lines give, upright first; upside down when that reading is doubtful.
  // When the axis is unknown, the other one too.
  const order = across === false ? [1, 3] : across === true ? [0, 2] : blankLines(image).horizontal ? [0, 2, 1, 3] : [1, 3, 0, 2];
  let best: Pass | null = null;
  for (const [i, quarters] of order.entries()) {
    deadline();
    const turned = rotateQuarters(image, quarters);
    if (best && i % 2 === 1) {
      // Which end is up shows on a band of the page as well as on the whole, at a third of the cost.
      const band = await recognise(crop(turned, { x0: 0, y0: turned.height / 3, x1: turned.width, y1: (turned.height * 2) / 3 }), dpi, layout);
      if (meanConfidence(band) <= best.confidence + 0.1) continue;
      deadline();
    }
    const words = await recognise(turned, dpi, layout);
    const pass: Pass = { quarters, words, confidence: meanConfidence(words) };
    if (!best || score(pass) > score(best)) best = pass;
    if (best.confidence >= CONFIDENT && best.words.length >= FEW_WORDS) break;
  }
  return best!;
}

/** Grey levels a page must span to hold any print at all: within fewer it is one even tone. */
const EVEN_TONE = 8;
/** How much darker than the paper a pixel of the prepared page (faint ink already darkened) must be to count as print. */
const INK_CONTRAST = 64;
/**
 * Share of the prepared page's pixels that must be print for reading it again in other ways to be
 * worth it: a few stray letters on an empty page are read once (trying again took seconds and
 * found nothing).
 */
const RETRY_INK_SHARE = 0.001;

function toneRange(counts: Uint32Array): { low: number; high: number } {
  let low = 0;
  while (low < 255 && counts[low] === 0) low++;
  let high = 255;
  while (high > 0 && counts[high] === 0) high--;
  return { low, high };
}

/** The share of the page's pixels darker than its brightest tone (the paper) by INK_CONTRAST. */
function inkShare(image: GreyImage): number {
  const counts = histogram(image);
  const { high } = toneRange(counts);
  let ink = 0;
  for (let v = 0; v < high - INK_CONTRAST; v++) ink += counts[v]!;
  return ink / Math.max(1, image.data.length);
}

/**
 * The resolution the recogniser is told for a page whose source did not state one. It sizes its
 * noise filters by it: the source's own guess scaled with the page would call text that was
 * enlarged fourfold four times too small to be text.
 */
const ASSUMED_DPI = 300;

/**
 * Reads a page image of `dpi` pixels per inch (null when the source did not say). `deadline`
 * throws once the page's time is up; it is checked between the recogniser's passes, and the pool
 * ends a worker that overruns anyway.
 */
export async function readPageImage(recognise: ReadImage, source: GreyImage, dpi: number | null, maxPixels: number, deadline: () => void): Promise<PageScan> {
  // An even page (an empty page rendered, a blank scan) has nothing to read, in any direction.
  const tones = toneRange(histogram(source));
  if (tones.high - tones.low < EVEN_TONE) return { width: source.width, height: source.height, quarters: 0, skew: 0, cropped: false, words: [], rules: [] };
  const read = (page: Prepared, layout?: Layout) => readOriented(recognise, page.image, page.across, dpi ? dpi * page.scale : ASSUMED_DPI, deadline, layout);
  const first = prepare(source, maxPixels);
  let prepared = first;
  let pass = await read(first);
  const ink = inkShare(first.image);
  // A page on which (almost) nothing was found is tried again before that is reported: as one
  // column of lines (a photo's texture or shadow can make the whole page look like a picture,
  // whose text is not read), as it came, should the survey have misjudged it (a sheet where there
  // is none, lines too small to measure), and last with faint print made dark however dark
  // something beside it is (a shadow, a pen mark), and with ink made black wherever it is darker
  // than the paper around it.
  const retries: Array<[() => Prepared, Layout]> = [
    [() => first, 'column'],
    [() => asItCame(source, maxPixels), 'page'],
    [() => ({ ...first, image: darkenFaintInk(first.image, FAINT_INK_BESIDE_DARK) }), 'page'],
    [() => ({ ...first, image: binarise(first.image, LINE_HEIGHT * 2 + 1, 0.1) }), 'column'],
  ];
  for (const [page, layout] of retries) {
    if (pass.words.length >= FEW_WORDS || ink < RETRY_INK_SHARE) break;
    deadline();
    const retry = page();
    const again = await read(retry, layout);
    if (score(again) > score(pass)) {
      prepared = retry;
      pass = again;
    }
  }
  const { image, scale } = prepared;
  const pageRules = findRules(image, Math.min(image.width, image.height) / 40, Math.max(3, image.width / 300));
  // Back to pixels of the source, whose resolution the caller knows.
  const back = (b: Box): Box => ({ x0: b.x0 / scale, y0: b.y0 / scale, x1: b.x1 / scale, y1: b.y1 / scale });
  const words = pass.words.map((w) => ({ ...w, ...back(w), lineHeight: w.lineHeight / scale }));
  const uprightRules = rotateBoxes(pageRules, pass.quarters, image.width, image.height).map(back);
  // Rules shorter than two text lines are letters (an underscore, a dash), not table borders.
  const textHeight = Math.max(8, median(words.map((w) => w.lineHeight)) || 20);
  const rules = uprightRules.filter(
    (r) => Math.max(r.x1 - r.x0, r.y1 - r.y0) >= textHeight * 2 && Math.min(r.x1 - r.x0, r.y1 - r.y0) <= Math.max(3, textHeight / 3),
  );
  const upright = pass.quarters % 2 === 0 ? image : { width: image.height, height: image.width };
  return {
    width: upright.width / scale,
    height: upright.height / scale,
    quarters: pass.quarters,
    skew: prepared.skew,
    cropped: prepared.cropped,
    words: splitDateTimes(repairLines(words.filter((w) => !isRuleArtifact(w, uprightRules) && !isSpeck(w)))),
    rules,
  };
}

/**
 * The words only a second recogniser read as words taken as it read them (see second-reading.ts),
 * those with glyphs misread across letters and digits repaired ("Ja1an", "4780O"; see
 * confusions.ts), then misread legal forms of companies, line by line (see legal-forms.ts), and
 * misread words of addresses and their abbreviations (see address-words.ts), last the words left
 * that the recogniser's second choices make words of labels or of the page's addresses (see
 * second-choices.ts).
 */
export function repairLines<W extends { text: string; line: number; seconds?: SecondChoice[]; alternative?: string }>(given: W[]): W[] {
  const read = repairBySecondReading(given);
  const words = read.map((w) => {
    const text = repairOcrWord(w.text);
    return text === w.text ? w : { ...w, text };
  });
  const lines = new Map<number, number[]>();
  words.forEach((w, i) => lines.set(w.line, [...(lines.get(w.line) ?? []), i]));
  const out = [...words];
  const texts = new Map([...lines].map(([line, indexes]) => [line, repairLegalForms(indexes.map((i) => words[i]!.text)).map(repairAddressWord)]));
  // An address's lines: one holding an address word or a postal code, and the lines next to it.
  const addressLines = new Set([...texts].filter(([, t]) => addressLine(t)).map(([line]) => line));
  for (const [line, indexes] of lines) {
    const inAddress = [line - 1, line, line + 1].some((l) => addressLines.has(l));
    const repaired = repairAddressAbbreviations(texts.get(line)!, inAddress);
    indexes.forEach((i, k) => {
      if (repaired[k] !== words[i]!.text) out[i] = { ...words[i]!, text: repaired[k]! };
    });
  }
  const open = out.map((w, i) => w.text === given[i]!.text);
  return repairBySecondChoices(out, open).map((w) => {
    const plain = { ...w };
    delete plain.seconds;
    delete plain.alternative;
    return plain;
  });
}

/** A date whose four-digit year runs straight into a time ("6/10/201913:59"): the space the recogniser lost. */
const DATE_THEN_TIME = /^(\d{1,2}[/.-]\d{1,2}[/.-](?:19|20)\d{2})(\d{1,2}:\d{2}(?::\d{2})?)$/;

/**
 * Words with a date and a time read as one split in two, each with its share of the box by its
 * characters, half a character apart (the page model reads words that touch as one).
 */
export function splitDateTimes<W extends Box & { text: string }>(words: W[]): W[] {
  return words.flatMap((word) => {
    const match = DATE_THEN_TIME.exec(word.text);
    if (!match) return [word];
    const [date, time] = [match[1]!, match[2]!];
    const glyph = (word.x1 - word.x0) / word.text.length;
    const cut = word.x0 + glyph * date.length;
    return [
      { ...word, text: date, x1: cut - glyph / 4 },
      { ...word, text: time, x0: cut + glyph / 4 },
    ];
  });
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
