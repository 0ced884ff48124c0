/**
 * Text lines from words: words side by side on one baseline make a line, split into segments where
 * the gap is wider than a space. Superscripts (smaller, raised: footnote marks) join the line they
 * sit on but are flagged so that values can leave them out.
 */
import type { Box, Word } from './page';

export interface LayoutWord extends Word {
  /** A footnote mark or superscript: smaller than its line and raised above its baseline. */
  raised?: boolean;
}

export interface Segment extends Box {
  words: LayoutWord[];
  text: string;
}

export interface Line extends Box {
  words: LayoutWord[];
  segments: Segment[];
  /** Median font size of the line's words. */
  size: number;
  bold: boolean;
  text: string;
}

/** A gap wider than this share of the font size separates segments (a space is about a quarter). */
export const SEGMENT_GAP = 0.6;

export function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Joins words into text, with a space only where the words do not touch. */
export function joinWords(words: LayoutWord[]): string {
  let text = '';
  let previous: LayoutWord | null = null;
  for (const w of words) {
    if (previous) {
      const touching = w.x0 - previous.x1 < Math.min(w.size, previous.size) * 0.08 && w.x0 >= previous.x0;
      text += touching ? w.text : ` ${w.text}`;
    } else text = w.text;
    previous = w;
  }
  return text;
}

export function segmentsOf(words: LayoutWord[], size: number, gapRatio = SEGMENT_GAP): Segment[] {
  const segments: Segment[] = [];
  for (const w of [...words].sort((a, b) => a.x0 - b.x0)) {
    const last = segments[segments.length - 1];
    if (last && w.x0 - last.x1 < Math.max(w.size, size) * gapRatio) {
      last.words.push(w);
      last.x1 = Math.max(last.x1, w.x1);
      last.y0 = Math.min(last.y0, w.y0);
      last.y1 = Math.max(last.y1, w.y1);
    } else segments.push({ words: [w], text: '', x0: w.x0, y0: w.y0, x1: w.x1, y1: w.y1 });
  }
  for (const s of segments) s.text = joinWords(s.words);
  return segments;
}

/**
 * The gap that separates segments, in font sizes: wider than a space. Most fonts set a space at a
 * quarter of the size, but some (CJK fonts, wide tracking) set it wider, so the common gap between
 * words of a page decides, within limits.
 */
function segmentGap(groups: LayoutWord[][]): number {
  const gaps: number[] = [];
  for (const group of groups) {
    const sorted = [...group].sort((a, b) => a.x0 - b.x0);
    for (let k = 1; k < sorted.length; k++) {
      const ratio = (sorted[k]!.x0 - sorted[k - 1]!.x1) / (sorted[k]!.size || 1);
      if (ratio > 0.05 && ratio < 2) gaps.push(ratio);
    }
  }
  if (gaps.length < 20) return SEGMENT_GAP;
  gaps.sort((a, b) => a - b);
  const common = gaps[Math.floor(gaps.length * 0.25)]!;
  return Math.min(1.2, Math.max(SEGMENT_GAP, common * 2));
}

/** Lines of upright words, top to bottom; each word belongs to the line its middle falls in. */
export function buildLines(words: Word[]): Line[] {
  const upright = words.filter((w) => w.rotation === 0).sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2 || a.x0 - b.x0);
  const groups: LayoutWord[][] = [];
  const bands: Box[] = [];
  for (const w of upright) {
    const middle = (w.y0 + w.y1) / 2;
    let target = -1;
    // Only recent lines can hold it: words come sorted by their middle.
    for (let i = bands.length - 1; i >= 0 && i >= bands.length - 3; i--) {
      const band = bands[i]!;
      const height = band.y1 - band.y0;
      // A smaller word (a footnote mark, an exponent) and the line it mostly overlaps go together,
      // whichever of the two came first.
      const overlap = Math.min(band.y1, w.y1) - Math.max(band.y0, w.y0);
      const shorter = Math.min(w.y1 - w.y0, height);
      const small = shorter < Math.max(w.y1 - w.y0, height) * 0.9 && overlap >= shorter * 0.6;
      if (((middle >= band.y0 + height * 0.15 && middle <= band.y1 - height * 0.1) || small) && !overlapsAny(groups[i]!, w)) {
        target = i;
        break;
      }
    }
    if (target < 0) {
      groups.push([{ ...w }]);
      bands.push({ x0: w.x0, y0: w.y0, x1: w.x1, y1: w.y1 });
    } else {
      groups[target]!.push({ ...w });
      const band = bands[target]!;
      band.x0 = Math.min(band.x0, w.x0);
      band.x1 = Math.max(band.x1, w.x1);
      // The line's band is that of its main text, not of a mark that opened it.
      if (w.y1 - w.y0 > band.y1 - band.y0) {
        band.y0 = w.y0;
        band.y1 = w.y1;
      }
    }
  }
  const gap = segmentGap(groups);
  const lines = groups.map((g) => lineOf(g, gap));
  return lines.sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
}

/** Two words on top of each other are two lines (a tight line spacing), not one. */
function overlapsAny(group: LayoutWord[], w: Word): boolean {
  return group.some((o) => Math.min(o.x1, w.x1) - Math.max(o.x0, w.x0) > Math.min(o.x1 - o.x0, w.x1 - w.x0) * 0.5);
}

export function lineOf(words: LayoutWord[], gapRatio = SEGMENT_GAP): Line {
  const size = median(words.map((w) => w.size));
  const baseline = median(words.filter((w) => w.size >= size * 0.9).map((w) => w.y1));
  for (const w of words) {
    // Smaller and sitting above the baseline: a footnote mark or exponent.
    w.raised = w.size < size * 0.9 && w.y1 < baseline - size * 0.15 ? true : undefined;
  }
  const segments = segmentsOf(words, size, gapRatio);
  const boldChars = words.filter((w) => w.bold).reduce((n, w) => n + w.text.length, 0);
  const chars = words.reduce((n, w) => n + w.text.length, 0);
  return {
    words: segments.flatMap((s) => s.words),
    segments,
    size,
    bold: boldChars > chars / 2,
    text: segments.map((s) => s.text).join('  '),
    x0: Math.min(...words.map((w) => w.x0)),
    y0: Math.min(...words.map((w) => w.y0)),
    x1: Math.max(...words.map((w) => w.x1)),
    y1: Math.max(...words.map((w) => w.y1)),
  };
}

/**
 * The text of the words in a cell, in reading order: upright words line by line; words turned a
 * quarter (column headers written upwards or downwards) line by line across the cell.
 */
export function cellText(words: LayoutWord[], dropRaised = true): string {
  const byRotation = new Map<number, LayoutWord[]>();
  for (const w of words) {
    const group = byRotation.get(w.rotation);
    if (group) group.push(w);
    else byRotation.set(w.rotation, [w]);
  }
  const parts: string[] = [];
  // Marks are told from their line, so lines come first and the marks are left out of each.
  const text = (lines: Line[]) => lines.map((l) => joinWords(dropRaised ? l.words.filter((w) => !w.raised) : l.words)).join(' ');
  for (const [rotation, group] of byRotation) {
    if (rotation === 0) {
      parts.push(text(buildLines(group)));
      continue;
    }
    // Turn the words upright, then read them like upright words.
    const turned = group.map((w): LayoutWord => {
      if (rotation === 270) return { ...w, rotation: 0, x0: -w.y1, x1: -w.y0, y0: w.x0, y1: w.x1 };
      if (rotation === 90) return { ...w, rotation: 0, x0: w.y0, x1: w.y1, y0: -w.x1, y1: -w.x0 };
      return { ...w, rotation: 0, x0: -w.x1, x1: -w.x0, y0: -w.y1, y1: -w.y0 };
    });
    parts.push(text(buildLines(turned)));
  }
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}
