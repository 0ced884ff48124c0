/**
 * `npm run train:headers`: fits the header score (headers.ts) and writes headers.weights.json.
 *
 * Data: the dev split's table, derived and invoice-lines cases (the check split is never read).
 * Each document is read in-process (readings cached, see corpus.ts); in each of its tables and
 * record groups, a document column is the right one for a target column when it holds most of the
 * column's expected values. Every target column then gives a group: the document's columns as
 * candidates, the right one (or none) as the answer. Generated groups teach what the corpus says
 * too little about: the same pairs with the column's description taken away, and with the right
 * header renamed to a synonym, a broader or a derived word from the thesaurus, or an abbreviation.
 *
 * Cross-validated by document (5 folds by a hash of the case id) to choose the penalty; the
 * printed table compares the learned score's choices with the name rules' alone. Deterministic.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../../domain/columns';
import { coerce } from '../coerce';
import type { Cell, Reading } from '../document';
import { fieldShape, positionOf, valueHints } from '../mapper';
import { cellText, findHeaderRow, gridWidth, isEmpty, stackedLabels } from '../tables';
import { broaderWords, derivedWords, known, synonyms } from '../thesaurus';
import { devCases, type CorpusCase, cachedReading } from './corpus';
import { combinedScore, labelWords, pairFeatures, type Features } from './headers';
import { train, type Group, type RoleWeights } from './logit';

const FOLDS = 5;
const PENALTIES = [0.003, 0.01, 0.03, 0.1];
const OUT = join(import.meta.dir, 'headers.weights.json');
/** The rules' floor for a name match in the mapper (MIN_SCORE there). */
const MIN = 0.45;
const SAMPLE = 60;

interface Sample {
  fold: number;
  /** What generated it: the corpus pair, or a variant. */
  kind: 'corpus' | 'undescribed' | Renaming;
  group: Group;
}

interface DocColumn {
  label: string;
  values: unknown[];
}

const norm = (v: unknown) =>
  String(v)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

/** Whether a document cell holds an expected value, read as the column reads it. */
function holds(cell: unknown, expected: unknown, column: Column): boolean {
  if (isEmpty(cell as Cell)) return false;
  if (typeof expected === 'number' || typeof expected === 'boolean' || column.type === 'date') {
    for (const dayFirstDefault of [false, true]) {
      const r = coerce(typeof cell === 'string' ? cell.trim() : cell, column, 'flexible', { dayFirstDefault });
      if (r.ok && r.value !== null && (typeof expected === 'number' ? Math.abs(Number(r.value) - expected) < 0.005 : String(r.value).slice(0, 10) === String(expected))) return true;
    }
    return false;
  }
  const [e, c] = [norm(expected), norm(typeof cell === 'string' ? cellText(cell as Cell) : cell)];
  return e === c || (e.length >= 4 && c.includes(e));
}

/** The document's columns of a reading: each table under its detected header, each record group by key. */
function documentColumns(reading: Reading): DocColumn[][] {
  const out: DocColumn[][] = [];
  for (const t of reading.tables) {
    const width = gridWidth(t.grid);
    const start = t.headerRows ? 0 : findHeaderRow(t.grid);
    if (start < 0 || width < 2) continue;
    const depth = t.headerRows ?? 1;
    const labels = stackedLabels(t.grid, start, depth, width);
    const body = t.grid.slice(start + depth);
    out.push(labels.map((label, j) => ({ label, values: body.map((r) => r[j]) })));
  }
  for (const g of reading.groups) {
    const keys = [...new Set(g.records.flatMap((r) => Object.keys(r)))];
    out.push(keys.map((label) => ({ label, values: g.records.map((r) => r[label]) })));
  }
  return out;
}

/** The right document column per target column (-1: none), in the table that holds the rows. */
function groundTruth(c: CorpusCase, tables: DocColumn[][]): { table: DocColumn[]; right: number[] } | null {
  let best: { table: DocColumn[]; right: number[]; score: number } | null = null;
  for (const table of tables) {
    const right: number[] = [];
    let score = 0;
    for (const column of c.columns) {
      const expected = c.expected.map((r) => r[column.id]).filter((v) => v !== null && v !== undefined).slice(0, SAMPLE);
      let pick = -1;
      let share = 0;
      if (expected.length)
        table.forEach((dc, j) => {
          const values = dc.values.slice(0, SAMPLE * 3);
          const s = expected.filter((e) => values.some((v) => holds(v, e, column))).length / expected.length;
          if (s > share) [pick, share] = [j, s];
        });
      right.push(share >= 0.6 && table[pick]!.label ? pick : -1);
      score += share >= 0.6 ? share : 0;
    }
    if (right.filter((j) => j >= 0).length * 2 >= c.columns.length && (!best || score > best.score)) best = { table, right, score };
  }
  return best;
}

const hash = (s: string) => parseInt(createHash('sha256').update(s).digest('hex').slice(0, 8), 16);

type Renaming = 'synonym' | 'broader' | 'derived' | 'abbreviation';

/** A header with its words renamed: a synonym, a broader or a derived word from the thesaurus, or an abbreviation. */
function renamed(label: string, how: Renaming, seed: string): string | null {
  const words = labelWords(label);
  let changed = false;
  const out = words.map((w) => {
    if (how !== 'abbreviation') {
      const others = { synonym: synonyms, broader: broaderWords, derived: derivedWords }[how](w).filter((s) => s.length >= 3 && !s.startsWith(w.slice(0, 3)));
      if (!others.length) return w;
      changed = true;
      return others[hash(seed + w) % Math.min(3, others.length)]!;
    }
    if (w.length < 5 || !/^[a-z]+$/.test(w)) return w;
    changed = true;
    // Half the words by their first three letters, half by their consonants ("bldg", "supvr").
    if (hash(seed + w) % 2) return w.slice(0, 3);
    const skeleton = w[0] + w.slice(1).replace(/[aeiou]/g, '').replace(/(.)\1+/g, '$1');
    return skeleton.slice(0, 4);
  });
  const text = out.join(' ');
  return changed && text !== words.join(' ') && !(how === 'abbreviation' && out.every(known)) ? text : null;
}

function groupOf(column: Column, i: number, columns: Column[], table: DocColumn[], right: number, labels: string[]): Group {
  const x = table.map((dc, j) => {
    const values = dc.values.filter((v) => !isEmpty(v as Cell)).slice(0, 200);
    const shape = fieldShape(column, values, valueHints(values));
    return labels[j] ? pairFeatures(column, labels[j]!, { ...shape, position: positionOf(i, columns.length, j, table.length) }) : null;
  });
  // Unlabelled columns are not header matches: left out, the answer moved with them.
  const kept = x.flatMap((f, j) => (f ? [j] : []));
  return { x: kept.map((j) => x[j]!), right: right >= 0 && kept.includes(right) ? [kept.indexOf(right)] : [] };
}

/** What the mapper would choose for one column: the best-scoring candidate that reaches the floor, or none. */
function choice(g: Group, score: (x: Features) => number): number {
  let best = -1;
  let top = MIN;
  g.x.forEach((x, k) => {
    const s = score(x);
    if (s >= top) [best, top] = [k, s];
  });
  return best;
}

const learned = (model: RoleWeights) => (x: Features) => combinedScore(x, model);
const rules = (x: Features) => x.rule!;

async function main(): Promise<void> {
  const started = performance.now();
  const samples: Sample[] = [];
  let used = 0;
  for (const c of devCases(new Set(['table', 'derived', 'invoice-lines']))) {
    const reading = await cachedReading(c);
    if (!reading) continue;
    const truth = groundTruth(c, documentColumns(reading));
    if (!truth) continue;
    used++;
    const fold = hash(c.id) % FOLDS;
    const labels = truth.table.map((dc) => dc.label);
    c.columns.forEach((column, i) => {
      const right = truth.right[i]!;
      samples.push({ fold, kind: 'corpus', group: groupOf(column, i, c.columns, truth.table, right, labels) });
      if (column.description) samples.push({ fold, kind: 'undescribed', group: groupOf({ ...column, description: undefined }, i, c.columns, truth.table, right, labels) });
      if (right < 0) return;
      for (const how of ['synonym', 'broader', 'derived', 'abbreviation'] as const) {
        const other = renamed(labels[right]!, how, `${c.id}|${column.id}`);
        if (!other) continue;
        const changed = labels.map((l, j) => (j === right ? other : l));
        samples.push({ fold, kind: how, group: groupOf({ ...column, description: undefined }, i, c.columns, truth.table, right, changed) });
      }
    });
  }
  console.log(`train:headers: ${used} documents, ${samples.length} column groups, in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const fit = (keep: (s: Sample) => boolean, l2: number): RoleWeights => ({ ...train(samples.filter(keep).map((s) => s.group), { l2, prior: { rule: 6 } }), threshold: 0, presence: 0 });
  const accuracy = (group: Sample[], score: (x: Features) => number) => group.filter((s) => choice(s.group, score) === (s.group.right[0] ?? -1)).length;

  let best: { l2: number; right: number } | null = null;
  const table: string[] = [];
  for (const l2 of PENALTIES) {
    const byKind = new Map<string, { n: number; learned: number; rules: number }>();
    for (let fold = 0; fold < FOLDS; fold++) {
      const model = fit((s) => s.fold !== fold, l2);
      for (const s of samples.filter((x) => x.fold === fold)) {
        const t = byKind.get(s.kind) ?? { n: 0, learned: 0, rules: 0 };
        t.n++;
        t.learned += accuracy([s], learned(model));
        t.rules += accuracy([s], rules);
        byKind.set(s.kind, t);
      }
    }
    const right = [...byKind.values()].reduce((a, t) => a + t.learned, 0);
    for (const [kind, t] of byKind) table.push(`${String(l2).padEnd(6)} ${kind.padEnd(13)} ${String(t.n).padStart(6)} ${String(t.learned).padStart(11)} ${String(t.rules).padStart(11)}`);
    if (!best || right > best.right) best = { l2, right };
  }
  console.log('\nl2     pairs          groups  cv learned  rules alone');
  console.log(table.join('\n'));
  const model = fit(() => true, best!.l2);
  const weights = {
    trained: 'dev split of the extraction corpus: table, derived and invoice-lines cases, with renamed variants (npm run train:headers)',
    l2: best!.l2,
    model,
  };
  writeFileSync(OUT, `${JSON.stringify(weights, null, 1)}\n`);
  console.log(`\ntrain:headers: l2 ${best!.l2}; wrote ${OUT} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// A missing corpus is a one-line error, not a stack.
try {
  await main();
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}
