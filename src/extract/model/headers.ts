/**
 * The learned header score: how surely a document's header names a target column when the words
 * differ. Features of the pair (the label rules' score, thesaurus relations between their words,
 * abbreviations and initialisms, spelling, the column's description, how the values fit the
 * column's type, position) are weighed by a logit fitted from data (`npm run train:headers`,
 * weights in headers.weights.json; the same logit as the document-field model, one candidate
 * against "none"). The rules' score stands when it is sure; below that the learned probability may
 * raise it, never beyond what a sure name match scores.
 */
import type { Column } from '../../domain/columns';
import { nameScore, similarity } from '../names';
import { definitionWords, known, relate } from '../thesaurus';
import WEIGHTS from './headers.weights.json';
import { probabilities, type RoleWeights } from './logit';

/** A rules' score this high is a name match that no learned guess overrides. */
const SURE = 0.9;
/** The most a learned match scores: below a sure name match, above the values-only fallback. */
const CAP = 0.85;

const STOP = new Set('a an the of to in on at by for with from and or per no is was its'.split(' '));

/** Lower-case words of a label: camelCase and snake_case split, function words dropped. */
export function labelWords(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !STOP.has(w));
}

/**
 * How surely a short printed word abbreviates a longer one, 0..1: its letters in order from the
 * word's first letter on ("bldg", "supvr"), 1 for a prefix of three letters or more, less for a skeleton
 * and for two letters. A word the thesaurus knows as a word of its own is rarely an abbreviation.
 */
export function abbreviates(short: string, word: string): number {
  if (short.length < 2 || short.length >= word.length || short[0] !== word[0] || !/^\p{L}+$/u.test(short)) return 0;
  let k = 0;
  for (const ch of word) if (ch === short[k]) k++;
  if (k < short.length) return 0;
  const prefix = word.startsWith(short);
  let score = prefix ? (short.length >= 3 ? 1 : 0.6) : short.length >= 3 ? 0.85 : 0.7;
  // A skeleton far shorter than its word leaves most of it unsaid: a weaker sign ("sr" for "supervisor").
  if (!prefix && short.length * 2 < word.length - 2) score *= 0.7;
  if (known(short)) score *= 0.5;
  return score;
}

/** Letters of an initialism: "P-E", "Q/A", "YTD" (capitals only), none otherwise. */
function initials(label: string): string[] | null {
  const t = label.trim();
  if (/^\p{L}(?:\s*[-/.&]\s*\p{L}){1,4}\.?$/u.test(t)) return t.toLowerCase().match(/\p{L}/gu);
  if (/^\p{Lu}{2,5}$/u.test(t)) return t.toLowerCase().split('');
  return null;
}

/** Whether the letters are the initials of consecutive words of a text. */
function initialsOf(letters: string[], words: string[]): boolean {
  for (let i = 0; i + letters.length <= words.length; i++) if (letters.every((l, k) => words[i + k]![0] === l)) return true;
  return false;
}

export interface PairContext {
  /** Share of the field's values the column's type accepts (1 for text columns). */
  fit: number;
  /** Share of the field's values that are words rather than numbers. */
  textual: number;
  /** How near the field's position is to the column's, 0..1. */
  position: number;
}

export type Features = Record<string, number>;

const NAME_MEMO = new Map<string, Features>();

/** The features of the words alone (memoised: the mapper asks for every header option). */
function wordFeatures(column: Column, label: string): Features {
  const key = `${column.id}\u0000${column.name}\u0000${column.description ?? ''}\u0000${column.instruction ?? ''}\u0000${label}`;
  let hit = NAME_MEMO.get(key);
  if (hit) return hit;
  const name = labelWords(`${column.name} ${column.id.replace(/_/g, ' ')}`);
  const description = labelWords(`${column.description ?? ''} ${column.instruction ?? ''}`);
  const header = labelWords(label);
  const x: Features = { rule: nameScore(column, label), spelling: similarity(name.join(''), header.join('')) };
  const relations = (targets: string[], prefix: string) => {
    let related = 0;
    for (const h of header) {
      let best = 0;
      for (const c of targets) {
        if (c === h) {
          best = 1;
          continue;
        }
        const r = relate(h, c);
        x[`${prefix}synonym`] = Math.max(x[`${prefix}synonym`] ?? 0, r.synonym);
        x[`${prefix}broader`] = Math.max(x[`${prefix}broader`] ?? 0, r.broader);
        x[`${prefix}derived`] = Math.max(x[`${prefix}derived`] ?? 0, r.derived);
        x[`${prefix}gloss`] = Math.max(x[`${prefix}gloss`] ?? 0, r.gloss);
        x[`${prefix}overlap`] = Math.max(x[`${prefix}overlap`] ?? 0, r.overlap);
        const a = Math.max(abbreviates(h, c), abbreviates(c, h));
        x[`${prefix}abbreviation`] = Math.max(x[`${prefix}abbreviation`] ?? 0, a);
        best = Math.max(best, r.synonym, r.derived, r.broader === 1 ? 1 : 0, a >= 0.7 ? 1 : 0);
      }
      related += best;
    }
    // The share of the header's words that something in the column accounts for.
    x[`${prefix}cover`] = header.length ? related / header.length : 0;
  };
  relations(name, 'name:');
  if (description.length) relations(description, 'desc:');
  const letters = initials(label);
  if (letters) {
    const texts = [name, description, ...name.flatMap((w) => definitionWords(w))];
    x.initialism = texts.some((t) => initialsOf(letters, t)) ? 1 : 0;
  }
  if (NAME_MEMO.size >= 20000) NAME_MEMO.clear();
  NAME_MEMO.set(key, x);
  return x;
}

/** Every feature of a column and a document field's header. */
export function pairFeatures(column: Column, label: string, context: PairContext): Features {
  const typed = column.type !== 'string' && column.type !== 'text';
  return {
    ...wordFeatures(column, label),
    fit: typed ? context.fit : 0,
    text: typed ? 0 : context.textual,
    position: context.position,
  };
}

const MODEL = (WEIGHTS as unknown as { model: RoleWeights }).model;

/** The learned probability that the header names the column. */
function headerProbability(features: Features, model: RoleWeights = MODEL): number {
  return probabilities(model, [features]).p[0]!;
}

/**
 * Whether the words of the pair relate at all: the learned score weighs the evidence but does not
 * stand on values and position alone, which would make any column of a wrong table a match.
 */
function related(x: Features): boolean {
  const any = (name: string, min: number) => (x[`name:${name}`] ?? 0) >= min || (x[`desc:${name}`] ?? 0) >= min;
  return x.rule! > 0 || (x.initialism ?? 0) > 0 || x.spelling! >= 0.5 || any('synonym', 1) || any('derived', 1) || any('broader', 1) || any('gloss', 1) || any('abbreviation', 0.5) || any('overlap', 0.3);
}

/** The score of a pair from its features: the rules' when sure or when the words do not relate, else raised by the learned probability. */
export function combinedScore(x: Features, model: RoleWeights = MODEL): number {
  if (x.rule! >= SURE || !related(x)) return x.rule!;
  return Math.max(x.rule!, CAP * headerProbability(x, model));
}

/** How well a document field's header names a column, 0..1. */
export function headerScore(column: Column, label: string, context: PairContext, model: RoleWeights = MODEL): number {
  return combinedScore(pairFeatures(column, label, context), model);
}
