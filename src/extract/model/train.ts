/**
 * `npm run train`: trains the document-field model on the dev split of the extraction corpus and
 * writes src/extract/model/fields.weights.json. Every dev invoice and receipt is read in-process
 * (readings cached, see corpus.ts), its candidates labelled by comparing their values with the
 * expected row, a conditional logit trained per role, and cross-validated by document (5 folds,
 * a fixed assignment), which also picks each role's writing threshold. Deterministic: two runs on
 * the same readings give the same weights. The check split is never read.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../../domain/columns';
import { coerce } from '../coerce';
import { dayFirstOf, localeDayOrder } from '../dates';
import { documentLanguage } from '../language';
import { ruleFields } from '../fields';
import { tableLines } from '../fields/text';
import { closeOcr } from '../ocr';
import { cachedReading, devCases } from './corpus';
import { decode, roleOptions, type Weights } from './index';
import { train, type Group, type RoleWeights } from './logit';
import { PRIORS, ROLES, type Role } from './features';

const FOLDS = 5;
/**
 * Writing thresholds to choose from: never below one chance in ten, never above seven in ten (the
 * corpus's scans would otherwise teach a field to stay empty on every clean document too).
 */
const THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
/** L2 penalties to choose from by cross-validation: a corpus this small needs a firm one. */
const PENALTIES = [1, 3];
const OUT = join(import.meta.dir, 'fields.weights.json');

const normText = (v: unknown) =>
  String(v)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'.,;:#*\s]+|["'.,;:#*\s]+$/g, '');

/** Whether an extracted value is the expected one, as the corpus scorer judges it. */
function same(expected: unknown, got: string, column: Column, dayFirst: boolean): boolean {
  if (expected === null || expected === undefined) return false;
  // Read as the extractor reads it: day first when the document's language says so, else the default (month first).
  const result = coerce(got, column, 'flexible', { dayFirstDefault: dayFirst });
  if (!result.ok || result.value === null) return false;
  if (column.type === 'number' || column.type === 'currency') return typeof result.value === 'number' && Math.abs(result.value - Number(expected)) < 0.005;
  if (column.type === 'date') return String(result.value).slice(0, 10) === String(expected);
  const [e, g] = [normText(expected), normText(result.value)];
  return e === g || e.replace(/\s+/g, '') === g.replace(/\s+/g, '');
}

interface Sample {
  doc: string;
  fold: number;
  role: Role;
  group: Group;
  /** The document's inputs, for decoding held-out folds. */
  expected: unknown;
}

async function main(): Promise<void> {
  const started = performance.now();
  const cases = devCases(new Set(['invoice', 'receipt']));
  const samples: Sample[] = [];
  const docs: Array<{ id: string; fold: number; inputs: ReturnType<typeof ruleFields>; expected: Record<string, unknown>; dayFirst: boolean }> = [];
  let unread = 0;
  for (const c of cases) {
    const reading = await cachedReading(c);
    if (!reading || c.expected.length !== 1) {
      unread++;
      continue;
    }
    const keyValueTables = reading.tables.filter((t) => t.grid.length <= 40);
    const lines = [...reading.lines, ...tableLines(keyValueTables)];
    if (!lines.length) continue;
    const inputs = ruleFields(lines, c.columns);
    // Folds by a hash of the document's id: fixed, and independent of the order of the corpus.
    const fold = parseInt(createHash('sha256').update(c.id).digest('hex').slice(0, 8), 16) % FOLDS;
    const expected = c.expected[0]!;
    const dayFirst = dayFirstOf(documentLanguage(reading.text)) ?? localeDayOrder(reading.text) === 'dmy';
    docs.push({ id: c.id, fold, inputs, expected, dayFirst });
    // Features only: the weights do not matter for candidate generation.
    const empty = Object.fromEntries(ROLES.map((r) => [r, { names: [], mean: [], scale: [], weights: [], none: 0, threshold: 0, presence: 0 }])) as Weights;
    for (const r of roleOptions(inputs.layout, inputs.wants, inputs.result, empty)) {
      const column = r.want.column;
      const right = r.candidates.flatMap((cand, i) => (same(expected[column.id], cand.value, column, dayFirst) ? [i] : []));
      samples.push({ doc: c.id, fold, role: r.role, group: { x: r.candidates.map((cand) => cand.features), right }, expected: expected[column.id] });
    }
  }
  console.log(`train: ${docs.length} documents (${unread} unread or not one row), ${samples.length} fields, read in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const fit = (role: Role, folds: (f: number) => boolean, l2: number): RoleWeights | null => {
    const groups = samples.filter((s) => s.role === role && folds(s.fold)).map((s) => s.group);
    if (!groups.length) return null;
    const present = samples.filter((s) => s.role === role && folds(s.fold) && s.expected !== null && s.expected !== undefined).length;
    return { ...train(groups, { l2, prior: PRIORS[role] }), threshold: 0, presence: Math.round((present / groups.length) * 1000) / 1000 };
  };

  // Cross-validation: each fold decoded with weights trained on the others; per role, penalty and
  // threshold, right written fields count +1, wrong ones -1, empty ones 0. Each written field is
  // also kept per document, to weigh a wrong one by what it costs that document's F1 (below).
  type Tally = { n: number; oracle: number; net: number[]; right: number[]; wrong: number[]; rulesRight: number; rulesWrong: number };
  const tallies = new Map<string, Tally>();
  const written: Array<{ doc: string; key: string; k: number; ok: boolean }> = [];
  const tallyOf = (role: Role, l2: number, scan: boolean) => {
    const key = `${role}|${l2}|${scan}`;
    if (!tallies.has(key)) tallies.set(key, { n: 0, oracle: 0, net: THRESHOLDS.map(() => 0), right: THRESHOLDS.map(() => 0), wrong: THRESHOLDS.map(() => 0), rulesRight: 0, rulesWrong: 0 });
    return tallies.get(key)!;
  };
  for (const l2 of PENALTIES) {
    for (let fold = 0; fold < FOLDS; fold++) {
      const weights: Weights = {};
      for (const role of ROLES) {
        const w = fit(role, (f) => f !== fold, l2);
        if (w) weights[role] = w;
      }
      for (const doc of docs.filter((d) => d.fold === fold)) {
        const all = roleOptions(doc.inputs.layout, doc.inputs.wants, doc.inputs.result, weights);
        for (const [k, threshold] of THRESHOLDS.entries()) {
          const chosen = decode(all.map((r) => ({ ...r, model: { ...r.model, threshold, scanThreshold: threshold } })));
          for (const r of all) {
            const column = r.want.column;
            const t = tallyOf(r.role, l2, !!r.scan);
            const o = chosen.get(column.id);
            if (o) {
              const ok = same(doc.expected[column.id], o.value, column, doc.dayFirst);
              t.net[k]! += ok ? 1 : -1;
              (ok ? t.right : t.wrong)[k]!++;
              written.push({ doc: doc.id, key: `${r.role}|${l2}|${!!r.scan}`, k, ok });
            }
            if (k === 0) {
              t.n++;
              // The label rules alone, for comparison.
              const rule = doc.inputs.result.get(column.id);
              if (rule && rule.score >= 0.5) same(doc.expected[column.id], rule.value, column, doc.dayFirst) ? t.rulesRight++ : t.rulesWrong++;
              if (r.candidates.some((c) => same(doc.expected[column.id], c.value, column, doc.dayFirst)) || doc.expected[column.id] === null) t.oracle++;
            }
          }
        }
      }
    }
  }

  // A document is scored by its fields' F1: a right field raises it by about (2 - F1), a wrong one
  // lowers it by about F1 (over the fields written and expected). So a wrong field costs a
  // document F1 / (2 - F1) right ones: as much as a right one gains where the document is read
  // well, little where it is read badly (a receipt whose recognised text holds half its fields).
  // Each document's F1 is taken at the thresholds the plain net score chooses.
  const first = new Map<string, number>();
  for (const [key, t] of tallies) first.set(key, t.net.findIndex((n) => n >= Math.max(...t.net) - 1));
  const perDoc = new Map<string, { right: number; written: number }>();
  for (const w of written) {
    if (first.get(w.key) !== w.k) continue;
    const d = perDoc.get(w.doc) ?? { right: 0, written: 0 };
    d.written++;
    if (w.ok) d.right++;
    perDoc.set(w.doc, d);
  }
  const cost = new Map<string, number>();
  for (const doc of docs) {
    const d = perDoc.get(doc.id) ?? { right: 0, written: 0 };
    const expectedFields = Object.values(doc.expected).filter((v) => v !== null && v !== undefined && v !== '').length;
    const f1 = d.written + expectedFields ? (2 * d.right) / (d.written + expectedFields) : 1;
    cost.set(doc.id, f1 / (2 - f1));
  }
  const weighted = new Map<string, number[]>();
  for (const key of tallies.keys()) weighted.set(key, THRESHOLDS.map(() => 0));
  for (const w of written) weighted.get(w.key)![w.k]! += w.ok ? 1 : -cost.get(w.doc)!;

  // Per role the penalty with the best net score over all documents; the thresholds apart for
  // text documents and recognised scans, by the F1-weighted score.
  const final: Weights = {};
  console.log('\nrole         source  fields  reachable  cv right  cv wrong  threshold  l2     rules right  rules wrong');
  for (const role of ROLES) {
    const net = (l2: number, scan: boolean) => {
      const t = tallies.get(`${role}|${l2}|${scan}`);
      return t ? Math.max(...t.net) : 0;
    };
    const scored = PENALTIES.filter((l2) => tallies.has(`${role}|${l2}|true`) || tallies.has(`${role}|${l2}|false`));
    if (!scored.length) continue;
    const l2 = scored.reduce((best, x) => (net(x, true) + net(x, false) > net(best, true) + net(best, false) ? x : best));
    const w = fit(role, () => true, l2);
    if (!w) continue;
    for (const scan of [false, true]) {
      const t = tallies.get(`${role}|${l2}|${scan}`);
      if (!t) continue;
      // The lowest threshold within one field of the best: between near-equals, writing wins.
      const scores = weighted.get(`${role}|${l2}|${scan}`)!;
      const k = scores.findIndex((n) => n >= Math.max(...scores) - 1);
      if (scan) w.scanThreshold = THRESHOLDS[k]!;
      else w.threshold = THRESHOLDS[k]!;
      console.log(`${role.padEnd(12)} ${(scan ? 'scan' : 'text').padEnd(6)} ${String(t.n).padStart(7)} ${String(t.oracle).padStart(10)} ${String(t.right[k]).padStart(9)} ${String(t.wrong[k]).padStart(9)} ${String(THRESHOLDS[k]).padStart(10)}  ${String(l2).padEnd(6)} ${String(t.rulesRight).padStart(11)} ${String(t.rulesWrong).padStart(12)}`);
    }
    // A role seen only in scans (or only in text) takes the one threshold for both.
    if (!tallies.has(`${role}|${l2}|false`)) w.threshold = w.scanThreshold ?? w.threshold;
    final[role] = w;
  }
  writeFileSync(OUT, `${JSON.stringify({ trained: 'dev split of the extraction corpus (npm run train)', roles: final }, null, 1)}\n`);
  console.log(`\ntrain: wrote ${OUT} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
await closeOcr();
