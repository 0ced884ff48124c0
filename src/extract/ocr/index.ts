/**
 * OCR for images and scanned PDFs: pages are read in a worker pool and come back as the page
 * model (`Page`) every layout source feeds, so tables and fields are found exactly as in PDFs
 * with a text layer.
 */
import type { Page } from '../layout/page';
import { ocrChoice, parseOcrEngine, type OcrEngine } from './languages';
import { OcrPool, type OcrOptions, type PageOutcome, type ScannedPage } from './pool';

export { imageInfo, imageKind } from './image-info';
export { checkSourceSize, ImageTooLarge } from './rasterise';

/** Sources above this are refused before decoding: 50 megapixels take 200 MB as RGBA. */
const MAX_SOURCE_PIXELS = 50_000_000;
/** Pages above this are shrunk: an A3 page at 300 dpi is 17 megapixels. */
const MAX_PAGE_PIXELS = 18_000_000;

export const DEFAULT_LIMITS = { maxSourcePixels: MAX_SOURCE_PIXELS, maxPagePixels: MAX_PAGE_PIXELS };

let options: OcrOptions | null = null;
let pool: OcrPool | null = null;

/** Sets the languages, worker count and page time limit (from the config at start-up). */
export function configureOcr(settings: { languages: string[]; workers: number; pageTimeoutMs: number; engine?: OcrEngine }): void {
  void pool?.close();
  pool = null;
  options = { engine: parseOcrEngine(undefined, settings.languages), ...settings, limits: DEFAULT_LIMITS };
}

export function ocrPool(): OcrPool {
  options ??= {
    ...ocrChoice(),
    workers: Number(process.env.ROWSMITH_OCR_WORKERS) || 1,
    pageTimeoutMs: Number(process.env.ROWSMITH_OCR_PAGE_TIMEOUT_MS) || 120_000,
    limits: DEFAULT_LIMITS,
  };
  pool ??= new OcrPool(options);
  return pool;
}

/** Ends the OCR workers (at shutdown, and after tests). */
export async function closeOcr(): Promise<void> {
  await pool?.close();
  pool = null;
}

/** The height, in points, an image's text is taken to have when the image states no resolution. */
const ASSUMED_LINE_POINTS = 11;

/**
 * Points per pixel of a scan. A rendered PDF page and an image that states its resolution say
 * it; otherwise the resolution is estimated from the text, whose lines are taken to be about 11
 * points high, as in most documents, so distances measured in font sizes stay meaningful.
 */
function pointsPerPixel(scan: ScannedPage): number {
  if (scan.dpi) return 72 / scan.dpi;
  const heights = scan.words.map((w) => w.lineHeight).sort((a, b) => a - b);
  const lineHeight = heights[Math.floor(heights.length / 2)];
  if (!lineHeight) return 72 / 300;
  const dpi = Math.max(72, Math.min(600, (lineHeight * 72) / ASSUMED_LINE_POINTS));
  return 72 / dpi;
}

export function pageFromScan(scan: ScannedPage, number: number): Page {
  const scale = pointsPerPixel(scan);
  const round = (v: number) => Math.round(v * scale * 100) / 100;
  return {
    number,
    width: round(scan.width),
    height: round(scan.height),
    words: scan.words.map((w) => ({
      text: w.text,
      x0: round(w.x0),
      y0: round(w.y0),
      x1: round(w.x1),
      y1: round(w.y1),
      size: round(w.lineHeight),
      rotation: 0,
      confidence: Math.round(w.confidence * 1000) / 1000,
      ...(w.doubted ? { doubted: true } : {}),
      ...(w.run !== undefined ? { run: w.run } : {}),
    })),
    rules: scan.rules.map((r) => ({ x0: round(r.x0), y0: round(r.y0), x1: round(r.x1), y1: round(r.y1) })),
    rects: [],
  };
}

export interface OcrPages {
  pages: Page[];
  /** What the reader should know: pages shrunk, turned, cut out, straightened or skipped. */
  notes: string[];
  /** Why no text at all came out (noise, a photo of no document, pages over time); else null. */
  nothingFound: string | null;
}

/** Pages from the pool's outcomes, with a note for every page that was turned, cut out, straightened, shrunk or skipped. */
export function pagesFromOutcomes(outcomes: PageOutcome[], what: string): OcrPages {
  const pages: Page[] = [];
  const notes: string[] = [];
  for (const outcome of outcomes) {
    if ('error' in outcome) {
      notes.push(outcome.error);
      continue;
    }
    const { scan } = outcome;
    notes.push(...scan.notes);
    if (scan.quarters !== 0) notes.push(`page ${outcome.page} was turned ${scan.quarters * 90} degrees clockwise to read it`);
    if (scan.cropped) notes.push(`page ${outcome.page}: the sheet was cut out of the photo's background to read it`);
    if (Math.abs(scan.skew) >= 1) notes.push(`page ${outcome.page} was straightened by ${Math.abs(scan.skew)} degrees to read it`);
    pages.push(pageFromScan(scan, outcome.page));
  }
  let nothingFound: string | null = null;
  if (pages.every((p) => p.words.length === 0)) {
    const why = pages.length === 0 && notes.length > 0 ? notes.join('; ') : 'it may not be a document, or be too blurred or too small to read';
    nothingFound = `no text was recognised in the ${what}: ${why}`;
  }
  return { pages, notes, nothingFound };
}

/** Reads image pages or PDF pages through the pool. */
export async function ocrPages(source: 'image' | 'pdf', bytes: Uint8Array, pageCount: number, onPage?: (done: number, total: number) => void): Promise<OcrPages> {
  const outcomes = await ocrPool().read(source, bytes, pageCount, onPage);
  return pagesFromOutcomes(outcomes, source === 'pdf' ? 'scanned PDF' : 'image');
}
