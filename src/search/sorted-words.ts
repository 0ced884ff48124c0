/**
 * The words of a search index that no typo-tolerant query term can reach (`fuzzyReachable`):
 * e-mail local parts, order numbers, amounts. They are found by exact value and by prefix only, so
 * they live in a sorted array with their postings beside it, not in the radix tree, which takes a
 * Map per node: at a million rows with two such words each, that was 2 million Maps (about half
 * of the index's memory, and most of what the garbage collector had to walk).
 */

import { firstNotBefore } from '../lib/bisect';

/** How far a typo-tolerant query term may be from a word: the rule `maxDistance` in search.ts. */
export type DistanceRule = (queryTermLength: number) => number;

/**
 * Whether a query term without digits (only those get typo tolerance) can be within its distance
 * of `word`: the distance is at least the word's count of digits (each must be replaced or
 * dropped) and at least the difference in length.
 */
export function fuzzyReachable(word: string, maxDistanceOfLength: DistanceRule, longest: number): boolean {
  let digits = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  if (digits === 0) return true;
  for (let length = 1; length <= word.length + longest; length++) {
    const d = maxDistanceOfLength(length);
    if (digits <= d && Math.abs(word.length - length) <= d) return true;
  }
  return false;
}

/** Words a chunk holds before it is split in two. */
const CHUNK = 1024;

interface Chunk<P> {
  words: string[];
  postings: P[];
}

/**
 * A sorted array of words cut into chunks of at most CHUNK (each sorted, chunks in order), so a
 * word goes in with a short splice rather than a move of the whole array or a sort at the end of a
 * build (a sort of two million words held the event loop for over a second).
 */
export class SortedWords<P> {
  private chunks: Chunk<P>[] = [];
  /**
   * The first word of each chunk when it was made, for the binary search that picks a chunk. Only
   * the first chunk takes words below its own first word, and it takes every word below the
   * second chunk's, so that one may be out of date.
   */
  private firsts: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(word: string): P | undefined {
    if (this.chunks.length === 0) return undefined;
    const chunk = this.chunks[this.chunkFor(word)]!;
    const i = lowerBound(chunk.words, word);
    return chunk.words[i] === word ? chunk.postings[i] : undefined;
  }

  set(word: string, posting: P): void {
    if (this.chunks.length === 0) {
      this.chunks.push({ words: [word], postings: [posting] });
      this.firsts.push(word);
      this.count++;
      return;
    }
    const c = this.chunkFor(word);
    const chunk = this.chunks[c]!;
    const i = lowerBound(chunk.words, word);
    if (chunk.words[i] === word) {
      chunk.postings[i] = posting;
      return;
    }
    chunk.words.splice(i, 0, word);
    chunk.postings.splice(i, 0, posting);
    this.count++;
    if (chunk.words.length > CHUNK) {
      const half = chunk.words.length >> 1;
      const tail: Chunk<P> = { words: chunk.words.splice(half), postings: chunk.postings.splice(half) };
      this.chunks.splice(c + 1, 0, tail);
      this.firsts.splice(c + 1, 0, tail.words[0]!);
    }
  }

  /** The postings of every word starting with `prefix` (the word itself included). */
  withPrefix(prefix: string): P[] {
    const out: P[] = [];
    if (this.chunks.length === 0) return out;
    let c = this.chunkFor(prefix);
    let i = lowerBound(this.chunks[c]!.words, prefix);
    for (; c < this.chunks.length; c++, i = 0) {
      const { words, postings } = this.chunks[c]!;
      for (; i < words.length; i++) {
        if (!words[i]!.startsWith(prefix)) return out;
        out.push(postings[i]!);
      }
    }
    return out;
  }

  /** A new store of the postings `change` gives (words it maps to null left out), in order, without searching. */
  map(change: (posting: P) => P | null): SortedWords<P> {
    const next = new SortedWords<P>();
    let open: Chunk<P> | null = null;
    for (const { words, postings } of this.chunks) {
      for (let i = 0; i < words.length; i++) {
        const posting = change(postings[i]!);
        if (posting === null) continue;
        if (!open || open.words.length >= CHUNK / 2) {
          open = { words: [], postings: [] };
          next.chunks.push(open);
          next.firsts.push(words[i]!);
        }
        open.words.push(words[i]!);
        open.postings.push(posting);
        next.count++;
      }
    }
    return next;
  }

  /** The chunk a word belongs in: the last whose first word is not above it (the first chunk for words before all). */
  private chunkFor(word: string): number {
    return Math.max(0, firstNotBefore(this.firsts.length, (mid) => this.firsts[mid]! <= word) - 1);
  }
}

/** The first index whose word is not below `word` (code-unit order). */
function lowerBound(words: string[], word: string): number {
  return firstNotBefore(words.length, (mid) => words[mid]! < word);
}
