/**
 * The business-field lexicon at work: labels, headers and column names normalised the same way
 * (case, accents, plurals, punctuation, abbreviations), then matched against the concepts of
 * `lexicon.data.ts`. Everything the matching needs is built once at load time, and results are
 * memoised, because the mapper asks for every header x column pair.
 */
import type { ColumnType } from '../domain/columns';
import { CONCEPTS, TAX_EXCLUDED_WORDS, TAX_INCLUDED_WORDS, type ConceptEntry, type Language, type Level } from './lexicon.data';

export type { Language, Level } from './lexicon.data';

export interface ConceptHit {
  concept: string;
  score: number;
}

// ---------------------------------------------------------------- normalisation

/** Abbreviations and spellings that mean one word, mapped to that word (after accents are folded). */
const TOKEN_CANON: Record<string, string> = {
  qty: 'quantity',
  qte: 'quantite',
  amt: 'amount',
  nr: 'no',
  nro: 'no',
  num: 'no',
  numero: 'no',
  nummer: 'no',
  number: 'no',
  numer: 'no',
  nummern: 'no',
  pc: 'pcs',
  pce: 'pcs',
  stk: 'pcs',
  szt: 'pcs',
  desc: 'description',
  descr: 'description',
  mwst: 'vat',
  ust: 'vat',
  tva: 'vat',
  iva: 'vat',
  btw: 'vat',
  gst: 'vat',
  hst: 'vat',
  including: 'incl',
  inclusive: 'incl',
  inkl: 'incl',
  inklusive: 'incl',
  inclusief: 'incl',
  excluding: 'excl',
  exclusive: 'excl',
  exkl: 'excl',
  exklusive: 'excl',
  exclusief: 'excl',
  pct: 'percent',
  percentage: 'percent',
  prozent: 'percent',
  pourcentage: 'percent',
  porcentaje: 'percent',
  percentuale: 'percent',
  procent: 'percent',
  percentagem: 'percent',
  einh: 'einheit',
  tel: 'phone',
  telephone: 'phone',
  telefon: 'phone',
  telefono: 'phone',
  telefone: 'phone',
  telefoon: 'phone',
};

/** Function words dropped before matching (a label "Date of issue" is "date issue"). */
const STOPWORDS = new Set(
  (
    'the of a an and or is was for in at with this that which its per ' +
    'der die das des dem den und am im zum zur fur je ' +
    'le la les l d et pour en par ' +
    'el los las del y para ' +
    'il lo i gli di della dei e ' +
    'het een voor ' +
    'w z na ' +
    'o os as do da dos das em'
  ).split(' '),
);

const foldAccents = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .replace(/[łŁ]/g, 'l')
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .replace(/œ/g, 'oe');

function singular(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (/(x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

const TOKENS_MEMO = new Map<string, string[]>();

/** Lower-case words of a label, accents folded, abbreviations and plurals normalised; stopwords kept. */
export function normalizeTokens(text: string): string[] {
  let tokens = TOKENS_MEMO.get(text);
  if (!tokens) {
    tokens = computeTokens(text);
    if (TOKENS_MEMO.size >= 50000) TOKENS_MEMO.clear();
    TOKENS_MEMO.set(text, tokens);
  }
  return tokens;
}

function computeTokens(text: string): string[] {
  const s = foldAccents(
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/_/g, ' ')
      .toLowerCase(),
  )
    .replace(/\be-?\s?mail/g, 'email')
    // Initials written with dots are one word: "P.O." is "po".
    .replace(/\b(?:\p{L}\.){2,}/gu, (m) => m.replace(/\./g, ''))
    .replace(/\bmw\.?\s*-?\s*st\b/g, 'mwst')
    .replace(/\bn\s*\.?\s*[°º]/g, ' no ')
    .replace(/[°º]/g, ' ')
    .replace(/#/g, ' no ')
    .replace(/%/g, ' percent ');
  return s
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => TOKEN_CANON[w] ?? singular(w))
    .map((w) => TOKEN_CANON[w] ?? w);
}

/** The words that carry meaning: normalised tokens without function words. */
export function coreTokens(text: string): string[] {
  return normalizeTokens(text).filter((w) => !STOPWORDS.has(w));
}

/** A label's normalised form, for equality tests ("Invoice No." and "invoice #" are equal). */
export function normalizeLabel(text: string): string {
  return normalizeTokens(text).join(' ');
}

// ---------------------------------------------------------------- the index

interface Term {
  concept: string;
  language: Language | null;
  full: string;
  tokens: string[];
  core: string[];
  weak: boolean;
}

const BY_ID = new Map<string, ConceptEntry>(CONCEPTS.map((c) => [c.id, c]));
const EXACT = new Map<string, Term[]>();
const BY_TOKEN = new Map<string, Term[]>();
const VOCABULARY = new Set<string>();

function addTerm(concept: string, text: string, weak: boolean, language: Language | null): void {
  const tokens = normalizeTokens(text);
  if (!tokens.length) return;
  const term: Term = { concept, language, full: tokens.join(' '), tokens, core: tokens.filter((w) => !STOPWORDS.has(w)), weak };
  for (const w of tokens) VOCABULARY.add(w);
  if (!EXACT.has(term.full)) EXACT.set(term.full, []);
  EXACT.get(term.full)!.push(term);
  // Weak terms and function words name a concept only as a whole label ("No.", "To").
  if (weak) return;
  for (const w of new Set(term.core)) {
    if (!BY_TOKEN.has(w)) BY_TOKEN.set(w, []);
    BY_TOKEN.get(w)!.push(term);
  }
}

for (const entry of CONCEPTS) {
  for (const [language, terms] of Object.entries(entry.terms)) for (const t of terms ?? []) addTerm(entry.id, t, false, language as Language);
  for (const t of entry.weak ?? []) addTerm(entry.id, t, true, null);
}

for (const w of [...TAX_EXCLUDED_WORDS, ...TAX_INCLUDED_WORDS]) for (const t of normalizeTokens(w)) VOCABULARY.add(t);

/**
 * Glyphs a recogniser reads for one another (a stroke: i, l, t, 1; a bowl: o, a, 0; humps: m, n,
 * u; ...). An unknown word of five letters or more that one such swap turns into exactly one word
 * of the vocabulary is read as it ("lnclusive", "Roundlng", "Amaunt"): labels of scanned pages keep
 * their meaning. Shorter words have too many neighbours; e and c are left out of the bowls, which
 * took common words for others ("state" for the Italian "stato").
 */
const LOOKALIKES = ['il1t', 'oa0', 'mn', 'un', 's5', 'bh6', 'g9', 'z2'];
const LOOKALIKE_OF = new Map<string, string[]>();
for (const group of LOOKALIKES) for (const c of group) LOOKALIKE_OF.set(c, [...(LOOKALIKE_OF.get(c) ?? []), ...group.replace(c, '')]);
const REPAIRED = new Map<string, string>();

function repairToken(word: string): string {
  if (word.length < 5 || VOCABULARY.has(word) || !/\p{L}/u.test(word)) return word;
  let repaired = REPAIRED.get(word);
  if (repaired === undefined) {
    const found = new Set<string>();
    // The swapped word as the vocabulary holds it ("inclusive" as "incl").
    const add = (other: string) => {
      const tokens = normalizeTokens(other);
      if (tokens.length === 1 && VOCABULARY.has(tokens[0]!)) found.add(tokens[0]!);
    };
    for (let i = 0; i < word.length; i++) {
      for (const c of LOOKALIKE_OF.get(word[i]!) ?? []) add(word.slice(0, i) + c + word.slice(i + 1));
      // "rn" read for "m", and the other way round.
      if (word.startsWith('rn', i)) add(word.slice(0, i) + 'm' + word.slice(i + 2));
      if (word[i] === 'm') add(word.slice(0, i) + 'rn' + word.slice(i + 1));
    }
    repaired = found.size === 1 ? [...found][0]! : word;
    if (REPAIRED.size >= 50000) REPAIRED.clear();
    REPAIRED.set(word, repaired);
  }
  return repaired;
}

/** A printed label's tokens, with words misread by a glyph repaired (see LOOKALIKES). */
export function labelTokens(text: string): string[] {
  return normalizeTokens(text).map(repairToken);
}

/** Vocabulary words long enough to be recognised at the end of a compound ("Leistungs|datum"). */
const COMPOUND_HEADS = [...VOCABULARY].filter((w) => w.length >= 4 && BY_TOKEN.has(w)).sort((a, b) => b.length - a.length);

/**
 * German and Dutch glue words together: an unknown word ending in a known one is read as its
 * parts ("Lieferscheindatum" -> "lieferschein datum"), with the linking s dropped from the first.
 */
function splitCompound(word: string): string[] | null {
  if (word.length < 7 || VOCABULARY.has(word)) return null;
  for (const head of COMPOUND_HEADS) {
    if (word.length - head.length >= 3 && word.endsWith(head)) {
      const first = word.slice(0, -head.length);
      const stem = first.endsWith('s') && VOCABULARY.has(first.slice(0, -1)) ? first.slice(0, -1) : first;
      return [stem, head];
    }
  }
  return null;
}

// ---------------------------------------------------------------- matching

function containsRun(haystack: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

const MEMO = new Map<string, ConceptHit[]>();
const MEMO_LIMIT = 20000;
const MIN_HIT = 0.3;
const WEAK = 0.7;

/** A document's type code printed in its title ("Rechnung (380) Nr.", UNTDID 1001's three digits). */
const TYPE_CODE = /\(\s*\d{3}\s*\)\s*/g;

/** A text without the type codes in it: they name nothing of a field, nor are they its value. */
export const withoutTypeCodes = (text: string) => text.replace(TYPE_CODE, ' ').trim();

function computeConcepts(text: string): ConceptHit[] {
  const tokens = labelTokens(withoutTypeCodes(text));
  if (!tokens.length) return [];
  const best = new Map<string, number>();
  // Only German writes ß: a label with it matches no other language's terms ("Kaffee groß" is no English "gross").
  const german = text.includes('ß');
  const raise = (concept: string, score: number) => {
    if (score > (best.get(concept) ?? 0)) best.set(concept, score);
  };
  for (const term of EXACT.get(tokens.join(' ')) ?? []) if (!german || !term.language || term.language === 'de') raise(term.concept, term.weak ? WEAK : 1);

  let core = tokens.filter((w) => !STOPWORDS.has(w));
  let split = false;
  core = core.flatMap((w) => {
    const parts = splitCompound(w);
    if (parts) split = true;
    return parts ?? [w];
  });
  if (core.length) {
    const present = new Set(core);
    const seen = new Set<Term>();
    for (const w of present) {
      for (const term of BY_TOKEN.get(w) ?? []) {
        if (seen.has(term) || !term.core.length || (german && term.language && term.language !== 'de')) continue;
        seen.add(term);
        // "Facturé à" is not "facture": a term whose only word left is common needs all its words.
        if (term.core.length === 1 && term.tokens.length > 1 && !containsRun(tokens, term.tokens)) continue;
        const coverage = term.core.length / core.length;
        let score = 0;
        if (containsRun(core, term.core)) score = coverage >= 1 ? 0.92 : 0.55 + 0.45 * coverage;
        else if (term.core.every((t) => present.has(t))) score = 0.45 + 0.35 * coverage;
        else continue;
        if (coverage >= 1 && split) score = 0.95;
        // English compounds name their head last ("Supplier phone" is a phone): ties go to it.
        else if (coverage < 1 && core.at(-1) === term.core.at(-1)) score += 0.01;
        raise(term.concept, Math.min(score, 1));
      }
    }
  }
  // A specific concept also names its broader one, a little less surely.
  for (const [concept, score] of [...best]) {
    const broader = BY_ID.get(concept)?.broader;
    if (broader) raise(broader, score * 0.8);
  }
  return [...best]
    .filter(([, s]) => s >= MIN_HIT)
    .map(([concept, score]) => ({ concept, score: Math.round(score * 1000) / 1000 }))
    .sort((a, b) => b.score - a.score || a.concept.localeCompare(b.concept));
}

/** The concepts a header, label or column name/description names, best first (scores 0..1). */
export function conceptsOf(text: string): ConceptHit[] {
  let hits = MEMO.get(text);
  if (!hits) {
    hits = computeConcepts(text);
    if (MEMO.size >= MEMO_LIMIT) MEMO.clear();
    MEMO.set(text, hits);
  }
  return hits;
}

/** The best concept of a text when it is clear enough, else null. */
export function topConcept(text: string, minScore = 0.6): string | null {
  const [top] = conceptsOf(text);
  return top && top.score >= minScore ? top.concept : null;
}

/** Whether a concept is a field of the whole document, of a line item, or both. */
export function conceptLevel(concept: string): Level | undefined {
  return BY_ID.get(concept)?.level;
}

/** The column types a concept's values fit. */
export function conceptTypes(concept: string): ColumnType[] {
  return BY_ID.get(concept)?.types ?? [];
}

/** How near two different concepts are, 0..1 (a document's "Amount" may be the table's "Total"). */
export function relatedness(a: string, b: string): number {
  if (a === b) return 1;
  return RELATED.get(`${a}|${b}`) ?? RELATED.get(`${b}|${a}`) ?? 0;
}

const RELATED = new Map<string, number>();
for (const entry of CONCEPTS) for (const [other, weight] of Object.entries(entry.related ?? {})) RELATED.set(`${entry.id}|${other}`, weight);

/** Whether `general` is `specific` or one of the concepts it is a kind of. */
export function isKindOf(specific: string, general: string): boolean {
  for (let c: string | undefined = specific; c; c = BY_ID.get(c)?.broader) if (c === general) return true;
  return false;
}

/**
 * The language of a set of labels: the one whose terms they are, when one stands out. Labels
 * that are the same word in several languages ("Total", "IBAN") count for none.
 */
export function languageOf(labels: string[]): Language | null {
  const votes = new Map<Language, number>();
  for (const label of labels) {
    const languages = new Set((EXACT.get(normalizeLabel(label)) ?? []).map((t) => t.language).filter((l): l is Language => l !== null));
    if (languages.size !== 1) continue;
    const [language] = languages;
    votes.set(language!, (votes.get(language!) ?? 0) + 1);
  }
  const ranked = [...votes].sort((a, b) => b[1] - a[1]);
  if (!ranked.length || (ranked[1] && ranked[1][1] === ranked[0]![1])) return null;
  return ranked[0]![0];
}

/** Whether a word (as printed) is one the lexicon's terms use: a cheap test before matching. */
export function inVocabulary(word: string): boolean {
  return normalizeTokens(word).some((w) => VOCABULARY.has(w));
}

// ---------------------------------------------------------------- similarity of two labels

function diceTokens(a: string[], b: string[]): number {
  if (!a.length || !b.length) return 0;
  const x = new Set(a);
  const y = new Set(b);
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return (2 * shared) / (x.size + y.size);
}

/**
 * How surely two labels (a document header and a column name, say) mean the same field, 0..1:
 * the same normalised words, a shared concept of the lexicon (across languages), or shared words.
 * Two labels that each clearly name a different specific concept ("Due date", "Invoice date")
 * share only their broader concept and score low.
 */
export function labelSimilarity(a: string, b: string): number {
  const ta = normalizeTokens(a);
  const tb = normalizeTokens(b);
  if (!ta.length || !tb.length) return 0;
  if (ta.join(' ') === tb.join(' ')) return 1;
  const ca = conceptsOf(a);
  const cb = conceptsOf(b);
  let conceptScore = 0;
  const scoresB = new Map(cb.map((h) => [h.concept, h.score]));
  for (const hit of ca) {
    const other = scoresB.get(hit.concept);
    if (other !== undefined) conceptScore = Math.max(conceptScore, hit.score * other);
  }
  // Related concepts count between what the two labels mainly name, not their broader senses.
  if (ca[0] && cb[0]) {
    const near = relatedness(ca[0].concept, cb[0].concept);
    if (near > 0 && near < 1) conceptScore = Math.max(conceptScore, ca[0].score * cb[0].score * near);
  }
  const topA = ca[0];
  const topB = cb[0];
  if (topA && topB && topA.score >= 0.9 && topB.score >= 0.9 && topA.concept !== topB.concept) {
    const related = isKindOf(topA.concept, topB.concept) || isKindOf(topB.concept, topA.concept) || relatedness(topA.concept, topB.concept) > 0;
    if (!related && (scoresB.get(topA.concept) ?? 0) < 0.9 && (ca.find((h) => h.concept === topB.concept)?.score ?? 0) < 0.9) conceptScore *= 0.5;
  }
  const words = 0.9 * diceTokens(
    ta.filter((w) => !STOPWORDS.has(w)),
    tb.filter((w) => !STOPWORDS.has(w)),
  );
  return Math.round(Math.min(1, Math.max(conceptScore, words)) * 1000) / 1000;
}
