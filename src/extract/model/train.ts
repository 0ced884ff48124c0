/**
 * `npm run train`: trains the document-field model on the dev split of the extraction corpus and
 * writes src/extract/model/fields.weights.json. Every dev invoice and receipt is read in-process
 * (readings cached, see corpus.ts), its candidates labelled by comparing their values with the
 * expected row, a conditional logit trained per role, and cross-validated by issuer (5 folds,
 * a fixed assignment). By default the weights are refitted under the penalties, writing thresholds
 * and joint decoding the weights file records; `npm run train -- --search` chooses them afresh by
 * the cross-validation (written beside the weights). Deterministic: two runs on
 * the same readings give the same weights. The check split is never read.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Column } from '../../domain/columns';
import { coerce } from '../coerce';
import { dayFirstOf, localeDayOrder } from '../dates';
import { documentLanguage } from '../language';
import { ruleFields } from '../fields';
import { tableLines } from '../fields/text';
import type { Want } from '../fields/wants';
import type { Reading } from '../document';
import { closeOcr, configureOcr } from '../ocr';
import { ocrChoice } from '../ocr/languages';
import { cachedReading, devCases, serverEngine, type CorpusCase } from './corpus';
import { decode, roleOptions, type DecodeParams, type Weights } from './index';
import { train, type Group, type RoleWeights } from './logit';
import { PRIORS, ROLES, SCAN_LEAVES_OUT, type ModelCandidate, type Role } from './features';
import { lettersAndFigures } from '../../lib/strings';

const FOLDS = 5;
const ALL_FOLDS = -1;
/**
 * Writing thresholds to choose from: never above seven in ten (the corpus's scans would otherwise
 * teach a field to stay empty on every clean document too); never below one chance in ten for
 * text, whose candidates are exact and many (a column of amounts, every block of a letter), and
 * one in twenty for recognised scans, whose right value competes with misread copies of itself.
 */
const THRESHOLDS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
const TEXT_FLOOR = 0.1;
/**
 * L2 penalties to choose from by cross-validation. Text documents keep a firm one: weaker ones fit
 * the corpus's invoices better and the small layouts made in the unit tests worse.
 */
const PENALTIES = [0.1, 0.3, 1, 3];
const TEXT_PENALTIES = [1, 3];
/** The decoding as it was set by hand, under which penalties and thresholds are chosen first. */
const HAND_SET: DecodeParams = { arithmetic: 1, empty: 1 };
/**
 * The joint decoding's parameters to choose from: the reward (in log-probability) for amounts that
 * add up, and the weight of an empty field's chance.
 */
const DECODINGS: DecodeParams[] = [1, 0.5, 0.25, 0.1].flatMap((empty) => [0, 1, 2, 3, 4, 6].map((arithmetic) => ({ arithmetic, empty })));
const OUT = join(import.meta.dir, 'fields.weights.json');
/**
 * Whether to choose penalties, thresholds and decoding afresh. They are kept otherwise: their
 * cross-validated scores are near-ties (within a field or two of the dev split's), which a small
 * change of the readings or candidates reorders, and a refit under kept choices changes only what
 * the change itself changes.
 */
const SEARCH = process.argv.includes('--search');

type Pick = { l2: number; threshold: number };

/** The penalties, thresholds and decoding the weights file was trained with, by `role|scan`; null when it records none. */
function storedChoices(): { picks: Map<string, Pick>; decode: DecodeParams } | null {
  if (!existsSync(OUT)) return null;
  const file = JSON.parse(readFileSync(OUT, 'utf8')) as { decode?: DecodeParams; roles?: Weights };
  if (!file.decode || !file.roles) return null;
  const picks = new Map<string, Pick>();
  for (const [role, model] of Object.entries(file.roles) as Array<[Role, RoleWeights]>) {
    // A role with one model has it for scans when its threshold is a scan's (see `combined`).
    const models: Array<[boolean, RoleWeights]> = model.scan ? [[false, model], [true, model.scan]] : [[model.scanThreshold !== undefined, model]];
    for (const [scan, m] of models) {
      if (m.l2 === undefined) return null;
      picks.set(`${role}|${scan}`, { l2: m.l2, threshold: scan ? (m.scanThreshold ?? m.threshold) : m.threshold });
    }
  }
  return { picks, decode: file.decode };
}

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
  issuer: string;
  fold: number;
  role: Role;
  group: Group;
  /** The document's inputs, for decoding held-out folds. */
  expected: unknown;
  /**
   * `text` for a text document; `scan` for a scan as the server's recogniser reads it; `teacher`
   * for a scan as Tesseract reads it, taught to the text model only (see below).
   */
  source: 'text' | 'scan' | 'teacher';
}

async function main(): Promise<void> {
  const started = performance.now();
  const cases = devCases(new Set(['invoice', 'receipt']));
  const samples: Sample[] = [];
  const docs: Array<{ id: string; fold: number; inputs: ReturnType<typeof ruleFields>; candidates: Map<Want, ModelCandidate[]>; expected: Record<string, unknown>; dayFirst: boolean }> = [];
  let unread = 0;
  // The text model learns shop names and totals from the receipts too, as Tesseract reads them:
  // the layouts its unit tests pin down (letterheads, columns of amounts, parties side by side)
  // came out of that training, and PP-OCR's readings, whose spacing and confidences differ, taught
  // them less well. The scan model learns from the readings of the server's recogniser.
  const engine = serverEngine();
  const passes: Array<'teacher' | 'main'> = engine === 'tesseract' ? ['main'] : ['teacher', 'main'];
  // Documents are read on every core at once; their readings are then taken in the corpus's order,
  // so the weights do not depend on which reading finished first.
  const workers = Math.max(1, Math.min(4, availableParallelism()));
  const readAll = async (pass: 'teacher' | 'main', wanted: (c: CorpusCase, i: number) => boolean): Promise<Array<Reading | null>> => {
    const passStarted = performance.now();
    const recogniser = pass === 'teacher' ? 'tesseract' : engine;
    configureOcr({ languages: ocrChoice().languages, workers, pageTimeoutMs: 120_000, engine: recogniser });
    const readings = new Array<Reading | null>(cases.length).fill(null);
    const todo = cases.flatMap((c, i) => (wanted(c, i) ? [i] : []));
    let next = 0;
    const reader = async () => {
      for (let k = next++; k < todo.length; k = next++) readings[todo[k]!] = await cachedReading(cases[todo[k]!]!, recogniser);
    };
    await Promise.all(Array.from({ length: workers }, reader));
    console.log(`train: ${pass} pass read ${todo.length} documents in ${((performance.now() - passStarted) / 1000).toFixed(1)} s`);
    return readings;
  };
  const mainReadings = await readAll('main', () => true);
  // The teacher reads only documents it labels (one expected row) that a recogniser reads (images,
  // scans, and what the main pass could not read): a document read without OCR reads the same with
  // either recogniser, so its main reading stands in for the teacher's.
  const recognised = (r: Reading | null) => !r || r.fileType === 'image' || r.fileType === 'scanned';
  const teaches = (c: CorpusCase, i: number) => c.expected.length === 1 && recognised(mainReadings[i]!);
  const teacherReadings = passes.includes('teacher') ? await readAll('teacher', teaches) : [];
  for (const pass of passes) {
    const readings = pass === 'main' ? mainReadings : teacherReadings.map((r, i) => (teaches(cases[i]!, i) ? r : mainReadings[i]!));
    for (const [i, c] of cases.entries()) {
      const reading = readings[i]!;
      if (!reading || c.expected.length !== 1) {
        if (pass === 'main') unread++;
        continue;
      }
      const scanned = reading.lines.some((l) => l.confidence !== undefined);
      if (pass === 'teacher' && !scanned) continue;
      read(c, reading, pass === 'teacher' ? 'teacher' : scanned ? 'scan' : 'text');
    }
  }
  function read(c: CorpusCase, reading: Reading, source: Sample['source']): void {
    const keyValueTables = reading.tables.filter((t) => t.grid.length <= 40);
    const lines = [...reading.lines, ...tableLines(keyValueTables)];
    if (!lines.length) return;
    const inputs = ruleFields(lines, c.columns);
    const expected = c.expected[0]!;
    // Features only: the weights do not matter for candidate generation.
    const empty = Object.fromEntries(ROLES.map((r) => [r, { names: [], mean: [], scale: [], weights: [], none: 0, threshold: 0, presence: 0 }])) as Weights;
    const options = roleOptions(inputs.layout, inputs.wants, inputs.result, empty);
    // Folds by a hash of the issuer (else the document's id): fixed, independent of the corpus's
    // order, and one issuer's documents all held out together, so cross-validation measures
    // documents of issuers the model has not seen, as the check split and users' documents are.
    const seller = options.find((r) => r.role === 'seller');
    const issuer = seller ? lettersAndFigures(String(expected[seller.want.column.id] ?? '')) : '';
    const fold = parseInt(createHash('sha256').update(issuer || c.id).digest('hex').slice(0, 8), 16) % FOLDS;
    const dayFirst = dayFirstOf(documentLanguage(reading.text)) ?? localeDayOrder(reading.text) === 'dmy';
    if (source !== 'teacher') docs.push({ id: c.id, fold, inputs, candidates: new Map(options.map((r) => [r.want, r.candidates])), expected, dayFirst });
    for (const r of options) {
      const column = r.want.column;
      const right = r.candidates.flatMap((cand, i) => (same(expected[column.id], cand.value, column, dayFirst) ? [i] : []));
      samples.push({ doc: c.id, fold, role: r.role, group: { x: r.candidates.map((cand) => cand.features), right }, expected: expected[column.id], source, issuer: issuer || c.id });
    }
  }
  console.log(`train: ${docs.length} documents (${unread} unread or not one row), ${samples.length} fields, read in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // Two models per role, each with the penalty and threshold cross-validation picks for its own
  // documents: one for text, one for recognised scans. Both learn from text documents (a scanned
  // invoice still reads like an invoice).
  const fit = (role: Role, folds: (f: number) => boolean, l2: number, scan: boolean): RoleWeights | null => {
    const taught = scan ? 'scan' : passes.length > 1 ? 'teacher' : 'scan';
    const chosen = samples.filter((s) => s.role === role && folds(s.fold) && (s.source === 'text' || s.source === taught));
    if (!chosen.some((s) => s.source === (scan ? 'scan' : 'text'))) return null;
    // An issuer's documents count as the square root of how many there are: one shop's dozen
    // receipts would otherwise teach its layout as the rule, while users' documents come from
    // issuers the model has not seen.
    const perIssuer = new Map<string, number>();
    for (const s of chosen) perIssuer.set(s.issuer, (perIssuer.get(s.issuer) ?? 0) + 1);
    const groups = chosen.map((s) => ({ ...s.group, weight: 1 / Math.sqrt(perIssuer.get(s.issuer)!) }));
    const present = chosen.filter((s) => s.expected !== null && s.expected !== undefined).length;
    return { ...train(groups, { l2, prior: PRIORS[role], leaveOut: scan ? SCAN_LEAVES_OUT[role] : undefined }), threshold: 0, presence: Math.round((present / groups.length) * 1000) / 1000 };
  };

  // Each model fitted once: the cross-validation below runs more than once. `fold` is held out (ALL_FOLDS: none is).
  const fits = new Map<string, RoleWeights | null>();
  const fitted = (role: Role, fold: number, l2: number, scan: boolean): RoleWeights | null => {
    const key = `${role}|${fold}|${l2}|${scan}`;
    if (!fits.has(key)) fits.set(key, fit(role, (f) => f !== fold, l2, scan));
    const w = fits.get(key)!;
    return w && { ...w };
  };
  /** A role's model: the text documents' one, with the recognised scans' one beside it when both exist. */
  const combined = (text: RoleWeights | null | undefined, scan: RoleWeights | null | undefined): RoleWeights | null => (text && scan ? { ...text, scan } : (text ?? scan ?? null));
  /** Weights fitted without `fold`, each role at the penalty (and threshold, once chosen) `choice` gives per source. */
  const foldWeights = (fold: number, choice: (role: Role, scan: boolean) => { l2: number; threshold?: number } | undefined): Weights => {
    const weights: Weights = {};
    for (const role of ROLES) {
      const model = (scan: boolean): RoleWeights | null => {
        const pick = choice(role, scan);
        const w = pick ? fitted(role, fold, pick.l2, scan) : null;
        if (!w || pick!.threshold === undefined) return w;
        return { ...w, threshold: pick!.threshold, ...(scan ? { scanThreshold: pick!.threshold } : {}) };
      };
      const w = combined(model(false), model(true));
      if (w) weights[role] = w;
    }
    return weights;
  };

  // Per role, the penalty and threshold cross-validation picks when decoding with `params`.
  const chooseRoles = (params: DecodeParams, print: boolean, kept?: Map<string, Pick>): { final: Weights; picked: Map<string, Pick> } => {
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
        const weights = foldWeights(fold, () => ({ l2 }));
        for (const doc of docs.filter((d) => d.fold === fold)) {
          const all = roleOptions(doc.inputs.layout, doc.inputs.wants, doc.inputs.result, weights, doc.candidates);
          for (const [k, threshold] of THRESHOLDS.entries()) {
            const chosen = decode(all.map((r) => ({ ...r, model: { ...r.model, threshold, scanThreshold: threshold } })), params);
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

    // A document is scored by its fields' F1 = 2R / (W + E): R right of W written, E expected. Given
    // the document's other fields (R right of W written), writing one more expected field raises it
    // by 2(S - R) / (S(S + 1)) when right and lowers it by 2R / (S(S + 1)) when wrong, S = W + E. So
    // a wrong field costs R / (S - R) right ones: nearly as much as a right one gains where the rest
    // is read well, little where it is read badly (a receipt whose recognised text holds half its
    // fields). The other fields are taken at the penalty and threshold the plain net score chooses.
    // The lowest allowed threshold within one field of the best: between near-equals, writing wins.
    const choose = (scores: number[], scan: boolean) => {
      const allowed = scores.map((n, k) => (scan || THRESHOLDS[k]! >= TEXT_FLOOR ? n : -Infinity));
      return allowed.findIndex((n) => n >= Math.max(...allowed) - 1);
    };
    const first = new Map<string, number>();
    for (const [key, t] of tallies) first.set(key, choose(t.net, key.endsWith('|true')));
    const fieldOf = (key: string) => key.replace(/\|[^|]*\|/, '|');
    const firstKey = new Map<string, string>();
    for (const [key, t] of tallies) {
      const best = firstKey.get(fieldOf(key));
      if (!best || t.net[first.get(key)!]! > tallies.get(best)!.net[first.get(best)!]!) firstKey.set(fieldOf(key), key);
    }
    // Per document and field (role and source), whether it was written, and rightly.
    const outcome = new Map<string, Map<string, { right: number; written: number }>>();
    for (const w of written) {
      if (firstKey.get(fieldOf(w.key)) !== w.key || first.get(w.key) !== w.k) continue;
      const fields = outcome.get(w.doc) ?? new Map<string, { right: number; written: number }>();
      const o = fields.get(fieldOf(w.key)) ?? { right: 0, written: 0 };
      o.written++;
      if (w.ok) o.right++;
      fields.set(fieldOf(w.key), o);
      outcome.set(w.doc, fields);
    }
    const expectedCount = new Map(docs.map((doc) => [doc.id, Object.values(doc.expected).filter((v) => v !== null && v !== undefined && v !== '').length]));
    const costOf = (doc: string, field: string) => {
      let right = 0;
      let writtenOthers = 0;
      for (const [f, o] of outcome.get(doc) ?? []) {
        if (f === field) continue;
        right += o.right;
        writtenOthers += o.written;
      }
      const rest = writtenOthers + expectedCount.get(doc)! - right;
      return rest > 0 ? right / rest : 1;
    };
    const weighted = new Map<string, number[]>();
    for (const key of tallies.keys()) weighted.set(key, THRESHOLDS.map(() => 0));
    for (const w of written) weighted.get(w.key)![w.k]! += w.ok ? 1 : -costOf(w.doc, fieldOf(w.key));

    // Per role, apart for text documents and recognised scans, the penalty and threshold with the
    // best F1-weighted score: the plain net score would prefer a penalty that writes a field seldom
    // and rightly to one that writes it on most documents, rightly twice as often as not.
    const final: Weights = {};
    const picked = new Map<string, { l2: number; threshold: number }>();
    if (print) console.log('\nrole         source  fields  reachable  cv right  cv wrong  threshold  l2     rules right  rules wrong');
    for (const role of ROLES) {
      const models: Partial<Record<'text' | 'scan', RoleWeights>> = {};
      for (const scan of [false, true]) {
        const gain = (l2: number) => {
          const scores = weighted.get(`${role}|${l2}|${scan}`);
          return scores ? scores[choose(scores, scan)]! : -Infinity;
        };
        const scored = (scan ? PENALTIES : TEXT_PENALTIES).filter((l2) => tallies.has(`${role}|${l2}|${scan}`));
        if (!scored.length) continue;
        const keep = kept?.get(`${role}|${scan}`);
        const l2 = keep?.l2 ?? scored.reduce((best, x) => (gain(x) > gain(best) ? x : best));
        const w = fitted(role, ALL_FOLDS, l2, scan);
        if (!w) continue;
        const t = tallies.get(`${role}|${l2}|${scan}`);
        const k = keep ? THRESHOLDS.indexOf(keep.threshold) : choose(weighted.get(`${role}|${l2}|${scan}`)!, scan);
        if (k < 0 || !t) throw new Error(`train: the kept choice for ${role} (${scan ? 'scan' : 'text'}) is not among the penalties and thresholds; run npm run train -- --search`);
        w.l2 = l2;
        w.threshold = THRESHOLDS[k]!;
        if (scan) w.scanThreshold = THRESHOLDS[k]!;
        picked.set(`${role}|${scan}`, { l2, threshold: w.threshold });
        models[scan ? 'scan' : 'text'] = w;
        if (print) console.log(`${role.padEnd(12)} ${(scan ? 'scan' : 'text').padEnd(6)} ${String(t.n).padStart(7)} ${String(t.oracle).padStart(10)} ${String(t.right[k]).padStart(9)} ${String(t.wrong[k]).padStart(9)} ${String(THRESHOLDS[k]).padStart(10)}  ${String(l2).padEnd(6)} ${String(t.rulesRight).padStart(11)} ${String(t.rulesWrong).padStart(12)}`);
      }
      // A role seen only in scans (or only in text) has the one model for both.
      const model = combined(models.text, models.scan);
      if (model) final[role] = model;
    }
    return { final, picked };
  };
  // Kept choices, unless asked to search: then coordinate ascent, deterministic: penalties and
  // thresholds under the hand-set decoding, the decoding's parameters under those, then penalties
  // and thresholds again under the chosen ones.
  const stored = SEARCH ? null : storedChoices();
  if (!SEARCH && !stored) throw new Error(`train: ${OUT} records no penalties, thresholds and decoding to keep; run npm run train -- --search`);
  const picked = stored?.picks ?? chooseRoles(HAND_SET, false).picked;

  // The joint decoding's parameters, by the same cross-validation: each fold decoded with the
  // roles' chosen penalties and thresholds and weights fitted on the other folds; the pair whose
  // documents' field F1 sums highest wins, the first in DECODINGS among equals.
  const docF1 = DECODINGS.map(() => 0);
  // Per decoding, per document, its fields that came out wrong or empty, kept for TRAIN_VERBOSE only.
  const verbose = process.env.TRAIN_VERBOSE === '1';
  const misses = DECODINGS.map(() => new Map<string, string[]>());
  for (let fold = 0; fold < FOLDS; fold++) {
    const weights = foldWeights(fold, (role, scan) => picked.get(`${role}|${scan}`));
    for (const doc of docs.filter((d) => d.fold === fold)) {
      const all = roleOptions(doc.inputs.layout, doc.inputs.wants, doc.inputs.result, weights, doc.candidates);
      DECODINGS.forEach((params, k) => {
        const chosen = decode(all, params);
        let [right, written, expected] = [0, 0, 0];
        const missed: string[] = [];
        for (const r of all) {
          const column = r.want.column;
          const value = doc.expected[column.id];
          const wanted = value !== null && value !== undefined && value !== '';
          if (wanted) expected++;
          const o = chosen.get(column.id);
          const ok = !!o && same(value, o.value, column, doc.dayFirst);
          if (o) written++;
          if (ok) right++;
          if (verbose && !ok && (o || wanted)) {
            const reachable = r.candidates.some((c) => same(value, c.value, column, doc.dayFirst));
            missed.push(`${column.id}: expected ${JSON.stringify(value ?? null)} got ${JSON.stringify(o?.value ?? null)}${wanted && !reachable ? ' (no candidate)' : ''}`);
          }
        }
        if (missed.length) misses[k]!.set(doc.id, missed);
        docF1[k]! += written + expected ? (2 * right) / (written + expected) : 1;
      });
    }
  }
  const best = stored
    ? DECODINGS.findIndex((d) => d.arithmetic === stored.decode.arithmetic && d.empty === stored.decode.empty)
    : docF1.findIndex((f) => f >= Math.max(...docF1) - 1e-9);
  if (best < 0) throw new Error('train: the kept decoding is not among DECODINGS; run npm run train -- --search');
  if (verbose) {
    console.log('\ncross-validated mistakes under the chosen decoding (each document decoded by weights fitted without its fold)');
    for (const [doc, missed] of misses[best]!) console.log(`${doc}\n  ${missed.join('\n  ')}`);
  }
  console.log('\narithmetic  empty  mean doc F1 (cv)');
  DECODINGS.forEach((d, k) => console.log(`${String(d.arithmetic).padStart(10)} ${String(d.empty).padStart(6)}  ${(docF1[k]! / docs.length).toFixed(4)}${k === best ? (stored ? '  <- kept' : '  <-') : ''}`));
  const decodeParams = DECODINGS[best]!;
  const { final } = chooseRoles(decodeParams, true, stored?.picks);

  writeFileSync(OUT, `${JSON.stringify({ trained: 'dev split of the extraction corpus (npm run train)', decode: decodeParams, roles: final }, null, 1)}\n`);
  console.log(`\ntrain: wrote ${OUT} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// A missing corpus or a weights file without its choices is a one-line error, not a stack.
try {
  await main();
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await closeOcr();
}
