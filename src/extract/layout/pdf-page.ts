/**
 * PDF text layer -> page model, through unpdf (PDF.js): words from the text content, ruling lines and
 * filled rectangles from the drawing operators, all in top-left page coordinates. The page is turned
 * so that most of its text reads left to right: a /Rotate page whose content was drawn sideways, or a
 * landscape table printed sideways, both come out upright.
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'unpdf/pdfjs';
import type { Box, Page, Rule, Word } from './page';

type Matrix = [number, number, number, number, number, number];

/** PDF.js operator codes (`OPS` in the installed version) and path codes (`DrawOPS`). */
const OPS = {
  save: 10, restore: 11, transform: 12, stroke: 20, closeStroke: 21, fill: 22, eoFill: 23, fillStroke: 24,
  eoFillStroke: 25, closeFillStroke: 26, closeEOFillStroke: 27, endPath: 28, setStrokeGray: 56, setFillGray: 57,
  setStrokeRGBColor: 58, setFillRGBColor: 59, setStrokeCMYKColor: 60, setFillCMYKColor: 61, paintFormXObjectBegin: 74,
  paintFormXObjectEnd: 75, constructPath: 91,
} as const;
const PATH = { moveTo: 0, lineTo: 1, curveTo: 2, quadraticCurveTo: 3, closePath: 4 } as const;
const STROKES = new Set<number>([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
const FILLS = new Set<number>([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);

/** A filled rectangle thinner than this (points) is drawn as a ruling line. */
const RULE_THICKNESS = 2.5;

function multiply(m: Matrix, n: Matrix): Matrix {
  // m applied first, then n.
  return [
    m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

function boxOf(points: Array<[number, number]>): Box {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** Clockwise angle of a direction in top-left coordinates, to the nearest quarter turn. */
function quarterTurn(dx: number, dy: number): 0 | 90 | 180 | 270 {
  const degrees = (Math.atan2(dy, dx) * 180) / Math.PI;
  return ((((Math.round(degrees / 90) * 90) % 360) + 360) % 360) as 0 | 90 | 180 | 270;
}

/**
 * Control characters come from glyphs without a Unicode mapping. One standing alone before a number
 * is almost always the minus sign of a math or symbol font; any other is not text.
 */
export function cleanGlyphs(text: string): string {
  return text
    .replace(/(^|\s)[\u0000-\u0008\u000e-\u001f](?=\s?\d)/g, '$1-')
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f\u00ad\u200b-\u200d\ufeff]/g, '')
    .replace(/[\t\n\r\u000b\u000c\u00a0\u2000-\u200a\u202f\u3000]/g, ' ');
}

interface RawText { str: string; m: Matrix; width: number; size: number; bold: boolean; ascent: number; descent: number; fixedPitch: boolean }

const BOLD_NAME = /bold|black|heavy|semibold|demibold|[-,+]bd\b|-b$/i;
/** Fonts whose every character is as wide as the next (typewriter, terminal and ERP prints). */
const FIXED_PITCH_NAME = /courier|mono|consol|fixedsys|lucida ?console|ocr-?[ab]/i;

async function textRuns(page: PDFPageProxy): Promise<RawText[]> {
  const content = await page.getTextContent({ disableNormalization: false });
  const styles = content.styles as Record<string, { fontFamily?: string; ascent?: number; descent?: number }>;
  const fixedPitch = (fontName: string) => styles[fontName]?.fontFamily === 'monospace' || FIXED_PITCH_NAME.test(styles[fontName]?.fontFamily ?? '');
  const boldFonts = new Map<string, boolean>();
  const isBold = (fontName: string): boolean => {
    let bold = boldFonts.get(fontName);
    if (bold === undefined) {
      let name = styles[fontName]?.fontFamily ?? '';
      try {
        // Fonts reach commonObjs once the operator list has been built; their names say the weight.
        const font = page.commonObjs.has(fontName) ? (page.commonObjs.get(fontName) as { name?: string }) : null;
        name = `${font?.name ?? ''} ${name}`;
      } catch {
        // A font PDF.js could not load has no name to read.
      }
      bold = BOLD_NAME.test(name);
      boldFonts.set(fontName, bold);
    }
    return bold;
  };
  const runs: RawText[] = [];
  const items = content.items as Array<{ str?: string; transform?: number[]; width?: number; fontName?: string }>;
  items.forEach((item, k) => {
    if (!item.str || !/^[\u0000-\u0008\u000e-\u001f]+$/.test(item.str) || !item.transform) return;
    // An unmapped glyph drawn on its own just before a number is that number's minus sign.
    const next = items.slice(k + 1, k + 4).find((n) => n.str?.trim());
    if (next?.str && next.transform && /^\s?\d/.test(next.str) && Math.abs(next.transform[5]! - item.transform[5]!) < 1) {
      next.str = `-${next.str.trimStart()}`;
      next.transform = [...next.transform.slice(0, 4), Math.min(next.transform[4]!, item.transform[4]!), next.transform[5]!];
      item.str = '';
    }
  });
  for (const item of items) {
    if (!item.str || !item.transform || !item.str.trim()) continue;
    const m = item.transform as Matrix;
    const size = Math.hypot(m[2], m[3]) || Math.hypot(m[0], m[1]);
    if (!(size > 0)) continue;
    const style = styles[item.fontName ?? ''];
    runs.push({
      str: item.str, m, width: item.width ?? 0, size, bold: isBold(item.fontName ?? ''), fixedPitch: fixedPitch(item.fontName ?? ''),
      ascent: Math.min(Math.max(style?.ascent ?? 0.8, 0.5), 1.1), descent: Math.min(Math.max(-(style?.descent ?? -0.2), 0), 0.4),
    });
  }
  return runs;
}

/**
 * Rough advance of a character in ems, as in common proportional fonts: the text layer gives only
 * a run's width, and placing words by a plain share of characters would make every space as wide
 * as a letter (too close to the gap between columns).
 */
function advance(ch: string): number {
  if (ch === ' ') return 0.28;
  if (/[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/.test(ch)) return 1;
  if (/[il.,:;'|!Ijtf()\[\]]/.test(ch)) return 0.3;
  if (/[MWmw@%]/.test(ch)) return 0.85;
  if (/[A-Z]/.test(ch)) return 0.68;
  return 0.55;
}

/** Splits a text run into words, each placed by its share of the run's width. */
function runWords(run: RawText, toPage: Matrix): Word[] {
  const m = multiply(run.m, toPage);
  if (!(Math.hypot(m[0], m[1]) > 0)) return [];
  const scale = Math.hypot(m[0], m[1]) / (Math.hypot(run.m[0], run.m[1]) || 1);
  const length = run.width * scale;
  const ux = m[0] / Math.hypot(m[0], m[1]);
  const uy = m[1] / Math.hypot(m[0], m[1]);
  const size = run.size * (Math.hypot(m[2], m[3]) / (Math.hypot(run.m[2], run.m[3]) || 1));
  // Perpendicular to the reading direction, towards the top of the glyphs (y grows downwards).
  const upX = uy;
  const upY = -ux;
  const rotation = quarterTurn(ux, uy);
  const text = cleanGlyphs(run.str);
  const offsets = [0];
  // In a fixed-pitch font every character takes one cell, spaces too: columns of such a print line up by characters.
  for (const ch of text) offsets.push(offsets[offsets.length - 1]! + (run.fixedPitch ? 1 : advance(ch)));
  // Offsets are per UTF-16 unit below; characters outside the BMP count once, as their first unit.
  const units: number[] = [];
  let k = 0;
  for (const ch of text) {
    units.push(offsets[k]!);
    if (ch.length > 1) units.push(offsets[k]!);
    k++;
  }
  units.push(offsets[k]!);
  const total = units[units.length - 1] || 1;
  const words: Word[] = [];
  for (const match of text.matchAll(/\S+/g)) {
    const start = (units[match.index]! / total) * length;
    const end = (units[match.index + match[0].length]! / total) * length;
    const corners: Array<[number, number]> = [];
    for (const along of [start, end]) {
      for (const across of [run.ascent * size, -run.descent * size]) {
        corners.push([m[4] + ux * along + upX * across, m[5] + uy * along + upY * across]);
      }
    }
    words.push({ text: match[0], ...boxOf(corners), size: Math.round(size * 100) / 100, bold: run.bold || undefined, rotation });
  }
  return words;
}

/** Ruling lines and filled rectangles, from the paths the page paints. */
async function drawings(page: PDFPageProxy, toPage: Matrix): Promise<{ rules: Rule[]; rects: Box[] }> {
  const ops = await page.getOperatorList();
  const rules: Rule[] = [];
  const rects: Box[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  let white = false;
  // Colours as set (operator and arguments), to tell an outline drawn in its box's own fill colour.
  let fillColor = '';
  let strokeColor = '';
  const fillColorIsWhite = (args: unknown[]): boolean => {
    const [first] = args;
    if (typeof first === 'string') return /^#?f[c-f]f[c-f]f[c-f]$/i.test(first);
    const values = args.filter((v): v is number => typeof v === 'number');
    return values.length === 1 ? values[0]! > 0.97 : values.length === 3 ? values.every((v) => v > 0.97 || v > 247) : false;
  };
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i]!;
    const args = ops.argsArray[i] as unknown[];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = multiply(args as Matrix, ctm);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (Array.isArray(args[0]) || ArrayBuffer.isView(args[0])) ctm = multiply(Array.from(args[0] as ArrayLike<number>) as Matrix, ctm);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.setFillRGBColor || fn === OPS.setFillGray || fn === OPS.setFillCMYKColor) {
      white = fn !== OPS.setFillCMYKColor && fillColorIsWhite(args);
      // Keyed like the matching stroke operator (each fill code is its stroke code + 1).
      fillColor = `${fn - 1}:${JSON.stringify(args)}`;
    } else if (fn === OPS.setStrokeRGBColor || fn === OPS.setStrokeGray || fn === OPS.setStrokeCMYKColor) strokeColor = `${fn}:${JSON.stringify(args)}`;
    else if (fn === OPS.constructPath) {
      const paint = args[0] as number;
      const data = (args[1] as Array<ArrayLike<number> | null>)?.[0];
      if (!data || (!STROKES.has(paint) && !FILLS.has(paint))) continue;
      const full = multiply(ctm, toPage);
      const subpaths = splitPath(data);
      for (const points of subpaths) {
        const onPage = points.map(([x, y]) => apply(full, x, y));
        // A filled box outlined in its own colour shows no line: its edges are no rules.
        const box = boxOf(onPage);
        const invisible = FILLS.has(paint) && fillColor === strokeColor && Math.min(box.x1 - box.x0, box.y1 - box.y0) > RULE_THICKNESS && isAxisRectangle(onPage, box);
        if (STROKES.has(paint) && !invisible) {
          for (let k = 1; k < onPage.length; k++) {
            const a = onPage[k - 1]!;
            const b = onPage[k]!;
            if (Math.abs(a[1] - b[1]) < 0.5 || Math.abs(a[0] - b[0]) < 0.5) rules.push(boxOf([a, b]));
          }
        }
        if (FILLS.has(paint) && !white && onPage.length >= 4) {
          if (!isAxisRectangle(onPage, box)) continue;
          const w = box.x1 - box.x0;
          const h = box.y1 - box.y0;
          if (Math.min(w, h) <= RULE_THICKNESS && Math.max(w, h) > RULE_THICKNESS) rules.push(box);
          else if (Math.min(w, h) > RULE_THICKNESS) rects.push(box);
        }
      }
    }
  }
  return { rules, rects };
}

/** Subpaths of a PDF.js path buffer as point lists; a curve ends the straight run it is in. */
function splitPath(data: ArrayLike<number>): Array<Array<[number, number]>> {
  const paths: Array<Array<[number, number]>> = [];
  let current: Array<[number, number]> = [];
  const flush = () => {
    if (current.length > 1) paths.push(current);
    current = [];
  };
  for (let i = 0; i < data.length; ) {
    const op = data[i]!;
    if (op === PATH.moveTo) {
      flush();
      current.push([data[i + 1]!, data[i + 2]!]);
      i += 3;
    } else if (op === PATH.lineTo) {
      current.push([data[i + 1]!, data[i + 2]!]);
      i += 3;
    } else if (op === PATH.curveTo) {
      const end: [number, number] = [data[i + 5]!, data[i + 6]!];
      flush();
      current.push(end);
      i += 7;
    } else if (op === PATH.quadraticCurveTo) {
      const end: [number, number] = [data[i + 3]!, data[i + 4]!];
      flush();
      current.push(end);
      i += 5;
    } else if (op === PATH.closePath) {
      if (current.length > 2) current.push(current[0]!);
      i += 1;
    } else break;
  }
  flush();
  return paths;
}

/** Every point on the box's edges: a drawn rectangle rather than a slanted or curved shape. */
function isAxisRectangle(points: Array<[number, number]>, box: Box): boolean {
  const near = (a: number, b: number) => Math.abs(a - b) < 0.5;
  return points.every(([x, y]) => (near(x, box.x0) || near(x, box.x1)) && (near(y, box.y0) || near(y, box.y1)));
}

/** The direction most of the words read in, weighted by their letters. */
function dominantRotation(words: Word[]): number {
  const weight = new Map<number, number>();
  for (const w of words) weight.set(w.rotation, (weight.get(w.rotation) ?? 0) + w.text.length);
  let dominant = 0;
  for (const [rotation, count] of weight) if (count > (weight.get(dominant) ?? 0)) dominant = rotation;
  return dominant;
}

/** The direction most of a page's text reads in on its viewport: the page model turns it back to read left to right (a rendered page must turn with it). */
export async function textDirection(page: PDFPageProxy): Promise<number> {
  const toViewport = Array.from(page.getViewport({ scale: 1 }).transform) as Matrix;
  return dominantRotation((await textRuns(page)).flatMap((run) => runWords(run, toViewport)));
}

/** The turn that makes most of the page's text read left to right, as a matrix on top-left coordinates. */
function uprightTurn(words: Word[], width: number, height: number): { turn: Matrix; width: number; height: number } {
  const dominant = dominantRotation(words);
  if (dominant === 90) return { turn: [0, -1, 1, 0, 0, width], width: height, height: width };
  if (dominant === 270) return { turn: [0, 1, -1, 0, height, 0], width: height, height: width };
  if (dominant === 180) return { turn: [-1, 0, 0, -1, width, height], width, height };
  return { turn: [1, 0, 0, 1, 0, 0], width, height };
}

/** A turn of the event loop: PDF.js works in microtasks, which keep timers and sockets waiting. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One page of a PDF as the page model; the PDF.js page's resources are released afterwards. */
export async function pdfPage(pdf: PDFDocumentProxy, number: number): Promise<Page> {
  const page = await pdf.getPage(number);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const toViewport = Array.from(viewport.transform) as Matrix;
    // The operator list comes first: it loads the fonts whose names tell bold text.
    const operatorList = drawings(page, toViewport);
    const drawn = await operatorList;
    await yieldTurn();
    const runs = await textRuns(page);
    await yieldTurn();
    const first = runs.flatMap((run) => runWords(run, toViewport));
    const { turn, width, height } = uprightTurn(first, viewport.width, viewport.height);
    const toPage = multiply(toViewport, turn);
    const words = turn[0] === 1 ? first : runs.flatMap((run) => runWords(run, toPage));
    const turnBox = (b: Box): Box => boxOf([apply(turn, b.x0, b.y0), apply(turn, b.x1, b.y1)]);
    return {
      number, width, height, words,
      rules: drawn.rules.map(turnBox),
      rects: drawn.rects.map(turnBox),
    };
  } finally {
    page.cleanup();
  }
}
