/**
 * The page model every layout source feeds (PDF text layers, OCR): words with boxes, ruling lines
 * and filled rectangles, in page coordinates after rotation (points, origin top-left, y downwards).
 * Nothing downstream may depend on where the words came from.
 */

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Word extends Box {
  text: string;
  /** Font size (height of the text line), in points. */
  size: number;
  bold?: boolean;
  /** Text direction on the page after the page's own rotation: 0 reads left to right. */
  rotation: 0 | 90 | 180 | 270;
  /** Recognition confidence 0..1 (OCR); absent for a text layer. */
  confidence?: number;
  /** A second recogniser read other letters or figures in it (OCR). */
  doubted?: boolean;
  /** Words a recogniser found as one run of text (OCR: one detected region) share this number. */
  run?: number;
}

/** A horizontal or vertical ruling line (thin filled rectangles count as lines). */
export type Rule = Box;

export interface Page {
  /** 1-based. */
  number: number;
  width: number;
  height: number;
  words: Word[];
  rules: Rule[];
  /** Filled rectangles larger than a rule (cell shading, header bands). */
  rects: Box[];
}

/** A page's words as kept with a document's reading, for provenance and learned layouts: text and box in points. */
export interface PageModel {
  number: number;
  width: number;
  height: number;
  words: Array<Box & { text: string }>;
}

export function pageModel(page: Page): PageModel {
  const round = (v: number) => Math.round(v * 10) / 10;
  const words = page.words.filter((w) => w.text.trim()).map((w) => ({ text: w.text, x0: round(w.x0), y0: round(w.y0), x1: round(w.x1), y1: round(w.y1) }));
  return { number: page.number, width: page.width, height: page.height, words };
}

/** A line of text outside tables, split into segments at wide gaps. */
export interface TextLine {
  page: number;
  /** Top of the line; for sources without positions, the line's index. */
  y: number;
  /** Font size; 1 for sources without positions. */
  size: number;
  bold?: boolean;
  /** Segments left to right; x in points, or in characters for plain text. */
  segments: Array<{ text: string; x0: number; x1: number }>;
  text: string;
  /** Mean recognition confidence of its words (OCR); absent for a text layer. */
  confidence?: number;
  /** Its words a second recogniser read otherwise (OCR), when there are any. */
  doubted?: string[];
}
