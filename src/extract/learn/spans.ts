/**
 * Runs of words on a page, where a value may be printed: the words of a line (cut into segments at
 * wide gaps) and blocks of segments stacked over a few lines (an address). Each span knows its box
 * and the label printed before it or above it. Found values, provenance and learned layouts all
 * look at documents through these spans.
 */
import type { Box, PageModel, TextLine } from '../layout/page';

export interface Span {
  page: number;
  text: string;
  box: Box;
  /** How many lines it covers. */
  lines: number;
  /** The words before it on its line, or a short segment just above it; null when none. */
  label: string | null;
}

interface Line {
  words: PageModel['words'];
  y0: number;
  y1: number;
  segments: Array<{ from: number; to: number; box: Box }>;
}

/** Most words a one-line span may hold, and most lines a block may cover. */
const MAX_WORDS = 10;
const MAX_LINES = 6;

const union = (a: Box, b: Box): Box => ({ x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) });
const joinText = (words: Array<{ text: string }>) => words.map((w) => w.text).join(' ').replace(/\s+/g, ' ').trim();

/** Words into lines (by vertical overlap), left to right, cut into segments at gaps wider than the line is high. */
function linesOf(page: PageModel): Line[] {
  const words = [...page.words].sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2 || a.x0 - b.x0);
  const lines: Line[] = [];
  for (const w of words) {
    const cy = (w.y0 + w.y1) / 2;
    const line = lines.findLast((l) => cy >= l.y0 && cy <= l.y1);
    if (line) {
      line.words.push(w);
      line.y0 = Math.min(line.y0, w.y0);
      line.y1 = Math.max(line.y1, w.y1);
    } else lines.push({ words: [w], y0: w.y0, y1: w.y1, segments: [] });
  }
  for (const line of lines) {
    line.words.sort((a, b) => a.x0 - b.x0);
    const height = Math.max(1, line.y1 - line.y0);
    let from = 0;
    for (let i = 1; i <= line.words.length; i++) {
      if (i === line.words.length || line.words[i]!.x0 - line.words[i - 1]!.x1 > height * 1.2) {
        const part = line.words.slice(from, i);
        line.segments.push({ from, to: i, box: part.reduce<Box>((b, w) => union(b, w), part[0]!) });
        from = i;
      }
    }
  }
  return lines.sort((a, b) => a.y0 - b.y0);
}

const overlapX = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

/** The segment of `below` under `block` (overlapping at least half the narrower), when close enough. */
function segmentUnder(block: Box, above: Line, below: Line): Line['segments'][number] | null {
  if (below.y0 - above.y1 > (above.y1 - above.y0) * 1.5) return null;
  for (const s of below.segments) {
    const narrow = Math.min(block.x1 - block.x0, s.box.x1 - s.box.x0);
    if (overlapX(block, s.box) >= narrow * 0.5) return s;
  }
  return null;
}

const LABEL_WORDS = 6;

/**
 * Labels name fields; figures in them are values that change from one document to the next: a
 * label is its words without their figures ("Total incl. tax@6%" is "Total incl. tax", "Invoice
 * (380) No." is "Invoice No.", "Ref 4471" above a date is "Ref").
 */
const asLabel = (text: string) => {
  const words = text
    .replace(/[:：]\s*$/, '')
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[@#(]?\d[\d.,%/)-]*/g, ''))
    .filter((w) => /\p{L}/u.test(w));
  return words.join(' ') || null;
};

function labelOf(lines: Line[], k: number, segment: number, from: number): string | null {
  const line = lines[k]!;
  const seg = line.segments[segment]!;
  if (from > seg.from) return asLabel(joinText(line.words.slice(Math.max(seg.from, from - LABEL_WORDS), from)));
  if (segment > 0) {
    const before = line.segments[segment - 1]!;
    if (before.to - before.from <= LABEL_WORDS) return asLabel(joinText(line.words.slice(before.from, before.to)));
  }
  const above = lines[k - 1];
  if (above && line.y0 - above.y1 <= (above.y1 - above.y0) * 1.5) {
    const s = above.segments.find((a) => overlapX(a.box, seg.box) >= Math.min(a.box.x1 - a.box.x0, seg.box.x1 - seg.box.x0) * 0.5);
    if (s && s.to - s.from <= LABEL_WORDS) return asLabel(joinText(above.words.slice(s.from, s.to)));
  }
  return null;
}

/** The page's text, a line a line: numbers of two lines never run together. */
export function pageText(page: PageModel): string {
  return lineTexts(page).join('\n');
}

const LINE_TEXTS = new WeakMap<PageModel, string[]>();

/** The page's lines, each as its text (memoised: every learned field of a document looks at them). */
export function lineTexts(page: PageModel): string[] {
  let texts = LINE_TEXTS.get(page);
  if (!texts) {
    texts = linesOf(page).map((line) => joinText(line.words));
    LINE_TEXTS.set(page, texts);
  }
  return texts;
}

const CACHE = new WeakMap<PageModel, Span[]>();

/** Every span of a page: word runs within a segment, and whole segments stacked over lines. */
export function spansOf(page: PageModel): Span[] {
  const cached = CACHE.get(page);
  if (cached) return cached;
  const lines = linesOf(page);
  const spans: Span[] = [];
  lines.forEach((line, k) => {
    line.segments.forEach((seg, si) => {
      for (let i = seg.from; i < seg.to; i++) {
        let box: Box = line.words[i]!;
        for (let j = i; j < Math.min(seg.to, i + MAX_WORDS); j++) {
          box = union(box, line.words[j]!);
          spans.push({ page: page.number, text: joinText(line.words.slice(i, j + 1)), box, lines: 1, label: labelOf(lines, k, si, i) });
        }
      }
      // A block: this segment and the ones under it, line by line.
      let block = seg.box;
      let text = joinText(line.words.slice(seg.from, seg.to));
      for (let m = 1; m < MAX_LINES && lines[k + m]; m++) {
        const under = segmentUnder(block, lines[k + m - 1]!, lines[k + m]!);
        if (!under) break;
        block = union(block, under.box);
        text = `${text} ${joinText(lines[k + m]!.words.slice(under.from, under.to))}`;
        spans.push({ page: page.number, text, box: block, lines: m + 1, label: labelOf(lines, k, si, seg.from) });
      }
    });
    // The whole line, when gaps cut it: a name printed letter-spaced, or whose words the recogniser boxed loosely.
    if (line.segments.length > 1 && line.words.length <= MAX_WORDS) {
      spans.push({ page: page.number, text: joinText(line.words), box: line.segments.reduce<Box>((b, s) => union(b, s.box), line.segments[0]!.box), lines: 1, label: null });
    }
  });
  CACHE.set(page, spans);
  return spans;
}

/**
 * Pages for a document read as text (an e-mail, a text file, a web page): each line a row of
 * words, positions in characters, so spans and learned layouts work the same way.
 */
export function pagesFromLines(lines: TextLine[]): PageModel[] {
  const byPage = new Map<number, PageModel>();
  lines.forEach((line, index) => {
    const page = byPage.get(line.page) ?? { number: line.page, width: 1, height: 1, words: [] };
    byPage.set(line.page, page);
    const y = line.size === 1 ? index : line.y;
    const height = line.size === 1 ? 0.8 : line.size;
    for (const seg of line.segments) {
      let x = seg.x0;
      const perChar = (seg.x1 - seg.x0) / Math.max(1, seg.text.length);
      for (const part of seg.text.split(/(\s+)/)) {
        if (part.trim()) page.words.push({ text: part, x0: x, y0: y, x1: x + part.length * perChar, y1: y + height });
        x += part.length * perChar;
      }
      page.width = Math.max(page.width, seg.x1);
    }
    page.height = Math.max(page.height, y + height + 1);
  });
  return [...byPage.values()];
}
