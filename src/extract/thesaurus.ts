/**
 * The English thesaurus of header matching: WordNet's common words compiled into
 * thesaurus.data.txt (JSON; see model/thesaurus.compile.ts). Tells how two words relate: one sense
 * (synonyms), one a kind of the other, one derived from the other ("employ", "employer"), one
 * named in the other's definition, or definitions that share words. Parsed on first use, so a
 * server that never maps a header pays nothing for it.
 */
import TEXT from './thesaurus.data.txt' with { type: 'text' };

interface Compiled {
  words: number;
  vocabulary: string[];
  senses: number[][];
  synsets: Array<[number[], number[]?, number[]?, number[]?]>;
}

interface Sense {
  words: Set<string>;
  broader: number[];
  derived: number[];
  gloss: Set<string>;
}

let loaded: { index: Map<string, number[]>; sense: (i: number) => Sense } | null = null;

function load(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const data = JSON.parse(TEXT) as Compiled;
  const word = (i: number) => data.vocabulary[i]!;
  const index = new Map<string, number[]>();
  for (let i = 0; i < data.words; i++) index.set(word(i), data.senses[i]!);
  // Senses are unpacked when first asked for: most of them never are.
  const unpacked = new Map<number, Sense>();
  const sense = (i: number) => {
    let found = unpacked.get(i);
    if (!found) {
      const [words, broader, derived, gloss] = data.synsets[i]!;
      found = { words: new Set(words.map(word)), broader: broader ?? [], derived: derived ?? [], gloss: new Set((gloss ?? []).map(word)) };
      unpacked.set(i, found);
    }
    return found;
  };
  loaded = { index, sense };
  return loaded;
}

/** The dictionary forms a printed word may have: itself, then without plural or verb endings. */
function forms(word: string): string[] {
  const out = [word];
  const add = (w: string) => w.length >= 2 && !out.includes(w) && out.push(w);
  if (word.endsWith('ies')) add(`${word.slice(0, -3)}y`);
  // "simplified", "certified": a verb in -y.
  if (word.endsWith('ied')) add(`${word.slice(0, -3)}y`);
  if (word.endsWith('es')) add(word.slice(0, -2));
  if (word.endsWith('s') && !word.endsWith('ss')) add(word.slice(0, -1));
  for (const ending of ['ing', 'ed']) {
    if (!word.endsWith(ending)) continue;
    const stem = word.slice(0, -ending.length);
    add(stem);
    add(`${stem}e`);
    // "winning", "stopped": a doubled last consonant.
    if (/(.)\1$/.test(stem)) add(stem.slice(0, -1));
  }
  return out;
}

/** The senses of a word, most frequent first; none for a word the thesaurus does not know. */
export function senses(word: string): number[] {
  const { index } = load();
  for (const form of forms(word.toLowerCase())) {
    const found = index.get(form);
    if (found) return found;
  }
  return [];
}

export function known(word: string): boolean {
  return senses(word).length > 0;
}

export interface Relation {
  /** A sense in common. */
  synonym: number;
  /** A sense of one is directly a kind of a sense of the other (1), or both of one kind (0.5). */
  broader: number;
  /** A sense of one is derived from a sense of the other ("employ", "employer"). */
  derived: number;
  /** One word appears in the definition of the other's sense. */
  gloss: number;
  /** The share of definition words two senses have in common (Dice), the best pair. */
  overlap: number;
}

const NONE: Relation = { synonym: 0, broader: 0, derived: 0, gloss: 0, overlap: 0 };
const MEMO = new Map<string, Relation>();

/** How two words relate in the thesaurus; all zero when either is unknown or they are the same word. */
export function relate(a: string, b: string): Relation {
  if (a === b) return NONE;
  const key = a < b ? `${a}|${b}` : `${b}|${a}`;
  let hit = MEMO.get(key);
  if (!hit) {
    hit = compute(a, b);
    if (MEMO.size >= 50000) MEMO.clear();
    MEMO.set(key, hit);
  }
  return hit;
}

function compute(a: string, b: string): Relation {
  const sa = senses(a);
  const sb = senses(b);
  if (!sa.length || !sb.length) return NONE;
  const { sense } = load();
  const setB = new Set(sb);
  const out = { ...NONE };
  const formsA = new Set(forms(a));
  const formsB = new Set(forms(b));
  for (const i of sa) {
    const x = sense(i);
    if (setB.has(i)) out.synonym = 1;
    for (const j of sb) {
      const y = sense(j);
      if (x.broader.includes(j) || y.broader.includes(i)) out.broader = 1;
      else if (x.broader.some((h) => y.broader.includes(h))) out.broader = Math.max(out.broader, 0.5);
      if (x.derived.includes(j) || y.derived.includes(i) || x.derived.some((d) => y.derived.includes(d))) out.derived = 1;
      if ([...formsB].some((f) => x.gloss.has(f)) || [...formsA].some((f) => y.gloss.has(f))) out.gloss = 1;
      if (x.gloss.size && y.gloss.size) {
        let shared = 0;
        for (const w of x.gloss) if (y.gloss.has(w)) shared++;
        out.overlap = Math.max(out.overlap, (2 * shared) / (x.gloss.size + y.gloss.size));
      }
    }
    // A derived sense that holds the other word ("employing" from "employ", whose derived "employer").
    if (x.derived.some((d) => [...formsB].some((f) => sense(d).words.has(f)))) out.derived = 1;
  }
  return out;
}

/** The words of the definitions of a word's senses, for initialisms and definitions naming a header. */
export function definitionWords(word: string): string[][] {
  const { sense } = load();
  return senses(word).map((i) => [...sense(i).gloss]);
}

/** Other words for a word: those of its most frequent sense, then of its other senses. */
export function synonyms(word: string): string[] {
  const { sense } = load();
  const out: string[] = [];
  for (const i of senses(word)) for (const w of sense(i).words) if (w !== word && !out.includes(w)) out.push(w);
  return out;
}

/** Words for what a word is a kind of ("region" for "zone"), from its most frequent senses first. */
export function broaderWords(word: string): string[] {
  const { sense } = load();
  const out: string[] = [];
  for (const i of senses(word)) for (const h of sense(i).broader) for (const w of sense(h).words) if (w !== word && !out.includes(w)) out.push(w);
  return out;
}

/** Words derived from a word or it from them ("employing" and "employer" from "employ"). */
export function derivedWords(word: string): string[] {
  const { sense } = load();
  const out: string[] = [];
  for (const i of senses(word)) for (const d of sense(i).derived) for (const w of sense(d).words) if (w !== word && !out.includes(w)) out.push(w);
  return out;
}
