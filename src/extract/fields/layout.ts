/** The layout of a document's lines: segments, label/value pairs beside and under their labels, day/month order. */
import type { TextLine } from '../layout/page';
import { conceptsOf, inVocabulary, languageOf } from '../lexicon';
import { dayFirstOf, dayOrderOf, localeDayOrder, type DayOrder } from '../dates';

export interface Seg {
  text: string;
  x0: number;
  x1: number;
  line: number;
  page: number;
  y: number;
  size: number;
  bold: boolean;
}

export interface Pair {
  label: string;
  value: string;
  /** The value's segment (for blocks under a label and for positions). */
  seg: Seg;
  line: number;
  /** 1 for a value beside its label, a little less for one under it. */
  placement: number;
}

export interface Layout {
  lines: TextLine[];
  segs: Seg[][];
  pairs: Pair[];
  order: DayOrder;
  /** Text sources have no font sizes or positions in points. */
  plain: boolean;
  /** Per page, the y of its first and last lines. */
  pageSpan: Map<number, [number, number]>;
}

// The colon of a label, not of a URL ("http://") or a time ("13:59").
export const LABEL_COLON = /^([^:：]{1,60}?)\s*[:：](?!\/\/)\s*(.*)$/;

/**
 * Several "Label: value" pairs run together in one segment ("Invoice No.: 12 Date: 01.02.2024"):
 * each value ends where the words before the next colon name a field.
 */
export function colonPairs(label: string, rest: string): Array<{ label: string; value: string }> {
  const out: Array<{ label: string; value: string }> = [];
  let current = { label, value: rest };
  for (;;) {
    const next = /^(.*?\S)\s+([^:：]{1,40}?)\s*[:：](?!\/\/)\s*(\S.*)$/.exec(current.value);
    if (!next) break;
    const words = next[2]!.split(/\s+/);
    // The longest run of words before the colon that names a field is the next label.
    let cut = -1;
    for (let k = 0; k < words.length && cut < 0; k++) if (!/\d/.test(words.slice(k).join(' ')) && (conceptsOf(words.slice(k).join(' '))[0]?.score ?? 0) >= 0.6) cut = k;
    if (cut < 0) break;
    const value = [next[1]!, ...words.slice(0, cut)].join(' ').trim();
    out.push({ label: current.label, value });
    current = { label: words.slice(cut).join(' '), value: next[3]! };
  }
  out.push(current);
  return out;
}

/** Where a label ends inside one segment: the longest leading words that name a field. */
export function splitLabel(text: string): { label: string; value: string } | null {
  // Dot leaders between a label and its value ("Total ....... 6.48") set them apart as a space would.
  const words = text.replace(/\.{2,}|…+/g, ' ').trim().split(/\s+/);
  if (words.length < 2 || !inVocabulary(words[0]!)) return null;
  for (let k = Math.min(words.length - 1, 6); k >= 1; k--) {
    const label = words.slice(0, k).join(' ');
    const value = words.slice(k).join(' ');
    if ((label.match(/\p{L}/gu)?.length ?? 0) < 3) continue;
    if (!/[\p{N}$€£¥]/u.test(value) && !/^[\p{Lu}]/u.test(value)) continue;
    if (/\d/.test(label)) continue;
    const top = conceptsOf(label)[0];
    if (top && top.score >= 0.9) return { label, value };
  }
  return null;
}

export function isLabelLike(text: string): boolean {
  if (/\d/.test(text)) return false;
  const top = conceptsOf(text.replace(/[:：]\s*$/, ''))[0];
  return !!top && top.score >= 0.9;
}

/** The next line below `line` on the same page, within a few line heights. */
export function linesBelow(layout: Layout, line: number, reach: number): number[] {
  const here = layout.lines[line]!;
  const out: number[] = [];
  for (let j = line + 1; j < layout.lines.length && out.length < reach; j++) {
    const next = layout.lines[j]!;
    if (next.page !== here.page) break;
    const gap = next.y - here.y;
    if (gap > (layout.plain ? reach + 0.5 : Math.max(here.size, next.size) * (reach + 1.5))) break;
    // Rules drawn with characters ("-----", "=====") are not lines of values.
    if (!/[\p{L}\p{N}]/u.test(next.text)) continue;
    out.push(j);
  }
  return out;
}

export const overlapX = (a: { x0: number; x1: number }, b: { x0: number; x1: number }) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

export function buildLayout(input: TextLine[]): Layout {
  const lines = [...input].sort((a, b) => a.page - b.page || a.y - b.y);
  const plain = lines.every((l) => l.size === 1);
  const segs = lines.map((l, i) => l.segments.map((s) => ({ ...s, text: s.text.trim(), line: i, page: l.page, y: l.y, size: l.size, bold: !!l.bold })).filter((s) => s.text));
  const pageSpan = new Map<number, [number, number]>();
  for (const l of lines) pageSpan.set(l.page, [pageSpan.get(l.page)?.[0] ?? l.y, l.y]);
  const layout: Layout = { lines, segs, pairs: [], order: null, plain, pageSpan };
  for (let i = 0; i < lines.length; i++) {
    const row = segs[i]!;
    row.forEach((seg, k) => {
      const colon = LABEL_COLON.exec(seg.text);
      const urlOrTime = /^(https?|mailto)$/i.test(colon?.[1] ?? '') || /\d$/.test(colon?.[1] ?? '');
      let label: string | null = null;
      if (colon && !urlOrTime) {
        label = colon[1]!.trim();
        const rest = colon[2]!.trim();
        if (rest) {
          for (const pair of colonPairs(label, rest)) layout.pairs.push({ ...pair, seg, line: i, placement: 1 });
          return;
        }
      } else {
        const split = splitLabel(seg.text);
        if (split) layout.pairs.push({ label: split.label, value: split.value, seg, line: i, placement: 1 });
        label = seg.text;
      }
      // A label is a few words (a sentence before a value is prose), and words, not figures.
      if (label.length > 60 || label.split(/\s+/).length > 8 || (label.match(/\p{L}/gu)?.length ?? 0) < 2) return;
      // A label's value beside it on the same line, or under it.
      // Beside it: the next segment, or one further right (a total printed at the far right).
      for (let n = k + 1; n < row.length && n <= k + 3; n++) {
        const next = row[n]!;
        if (isLabelLike(next.text) && (colon !== null || isLabelLike(label))) break;
        layout.pairs.push({ label, value: next.text, seg: next, line: i, placement: n === k + 1 ? 0.95 : 0.9 });
      }
      for (const j of linesBelow(layout, i, 2)) {
        const under = segs[j]!.filter((s) => overlapX(s, seg) > 0 || Math.abs(s.x0 - seg.x0) < (plain ? 1.5 : seg.size));
        if (under.length === 1) {
          const value = under[0]!;
          // A column of values under a header is a table's column, not one field's value.
          // A row of words without figures under the values is the next row of labels.
          const labelRow = (k: number) => segs[k]!.length >= 2 && segs[k]!.every((s) => !/\d/.test(s.text));
          const column = linesBelow(layout, j, 1).some((k) => !labelRow(k) && segs[k]!.some((s) => overlapX(s, value) > 0 && !isLabelLike(s.text) && /\d/.test(s.text) === /\d/.test(value.text)));
          layout.pairs.push({ label, value: value.text, seg: value, line: j, placement: (j === i + 1 || layout.plain ? 0.85 : 0.75) * (column ? 0.5 : 1) });
          break;
        }
        if (under.length > 1) break;
      }
    });
  }
  // Day/month order: the document's own dates first, then the language of its labels, then where it comes from.
  layout.order = dayOrderOf(lines) ?? (dayFirstOf(languageOf(layout.pairs.map((p) => p.label))) ? 'dmy' : null) ?? localeDayOrder(lines.map((l) => l.text).join('\n'));
  return layout;
}

/** Whether a line sits in the bottom strip of its page (print stamps, bank details, page numbers). */
export function inFooter(layout: Layout, line: number): boolean {
  if (layout.plain || line < 0) return false;
  const here = layout.lines[line]!;
  const [top, bottom] = layout.pageSpan.get(here.page)!;
  return bottom - top > 0 && here.y > top + (bottom - top) * 0.88;
}
