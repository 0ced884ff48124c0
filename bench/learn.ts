/**
 * `npm run bench -- learn`: does one correction teach rowsmith an issuer's documents (issue 27)?
 * The corpus' invoice PDFs (read by layout: the `_xml` twins, which carry their data as XML, are
 * left out) and receipts of one split (SPLIT, default dev) are grouped by issuer: the normalised
 * expected value of the column that names it. Per group of two or more documents, against one
 * rowsmith child process:
 * - after: a table from the first document's table.json; the first document is extracted and its
 *   row PATCHed (If-Match) to the expected values, which records it as an example; the group's
 *   other documents are then extracted into that table and scored;
 * - baseline: the same other documents extracted into a fresh table of the same definition;
 * - isolation: a few documents of other issuers extracted into both tables must score the same.
 * Then the time `POST .../evaluate` takes on a table of 20 corrected receipts.
 * LEARN_ROTATE=1 lets every document of a group be the corrected one in turn; LEARN_KINDS=invoice
 * runs one kind.
 * Values are compared the way the corpus' scorer (score.ts) compares them. SPLIT=check prints
 * aggregates only; VERBOSE=1 prints per-document lines and diffs on the dev split only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR } from '../src/extract/model/corpus';
import { editDistance } from '../src/lib/strings';
import { machine, printTable, startRowsmith } from './lib';

const ADMIN = 'bench-admin-key-0123456789abcdef';
const SPLIT = (process.env.SPLIT ?? 'dev').trim().toLowerCase();
/** Per-document output shows a case's document and values: never for the check split. */
const VERBOSE = process.env.VERBOSE === '1' && SPLIT === 'dev';
/** Documents of other issuers extracted into each group's tables: enough to see a leak, few enough for OCR time. */
const ISOLATION_PER_GROUP = Number(process.env.LEARN_ISOLATION ?? 2);
/** LEARN_ROTATE=1: every document of a group takes its turn as the corrected one (more pairs to learn from, n times the time). */
const ROTATE = process.env.LEARN_ROTATE === '1';
/** LEARN_KINDS=invoice: only these kinds (comma-separated). */
const KINDS = (process.env.LEARN_KINDS ?? 'invoice,receipt').split(',').map((k) => k.trim());
/** The issue's evaluate target: this many corrected documents, under this many seconds. */
const EVALUATE_DOCUMENTS = 20;
const EVALUATE_TARGET_S = 10;
const GOAL_F1 = 0.97;

type Kind = 'invoice' | 'receipt';
interface Column {
  id: string;
  name: string;
  type: string;
}
interface TableJson {
  name: string;
  columns_json: Column[];
  strictness?: string;
}
type Row = Record<string, unknown>;
interface Case {
  id: string;
  kind: Kind;
  path: string;
  table: TableJson;
  expected: Row[];
  issuer: string;
}

// ---------------------------------------------------------------------------------------------
// The corpus scorer's comparison (score.ts runs on import, so its functions are repeated here as
// they are there): numbers in any plausible reading, dates in unambiguous forms, text after NFKC,
// case, quotes and spacing.

const EMPTY_RE = /^\s*(?:|-|--|\u2013|\u2014|\u2212|n\/a|null|none)\s*$/i;
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return EMPTY_RE.test(v);
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'number') return !Number.isFinite(v);
  return false;
}

function numberReadings(v: unknown): number[] {
  if (typeof v === 'number') return Number.isFinite(v) ? [v] : [];
  if (typeof v !== 'string') return [];
  let t = v.normalize('NFKC').replace(/[\u00a0\u2009\u202f]/g, ' ').trim();
  let neg = false;
  const paren = /^\((.*)\)$/.exec(t);
  if (paren) {
    neg = true;
    t = paren[1]!.trim();
  }
  t = t.replace(/^(?:US\$|\$|€|£|¥|₹|Rs\.?|zł|USD|EUR|GBP|INR|PLN|JPY|CHF)\s*/i, '').replace(/\s*(?:US\$|\$|€|£|¥|₹|zł|USD|EUR|GBP|INR|PLN|JPY|CHF)$/i, '');
  t = t.replace(/%$/, '').trim().replace(/\u2212/g, '-');
  if (t.startsWith('-')) {
    neg = !neg;
    t = t.slice(1).trim();
  } else if (t.startsWith('+')) t = t.slice(1).trim();
  t = t.replace(/(?<=[\d.,])\s+(?=[\d.,])/g, '');
  const out: number[] = [];
  if (/^(\d+(\.\d+)?|\.\d+)(e[+-]?\d+)?$/i.test(t)) out.push(Number(t));
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) out.push(Number(t.replace(/,/g, '')));
  if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(t)) out.push(Number(t.replace(/\./g, '').replace(',', '.')));
  if (/^\d+,\d+$/.test(t)) out.push(Number(t.replace(',', '.')));
  return out.filter(Number.isFinite).map((n) => (neg ? -n : n));
}

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6, jul: 7, july: 7,
  aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};
function iso(y: number, m: number, d: number): string | null {
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return dt.toISOString().slice(0, 10);
}
function toDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(t);
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(t);
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!);
  m = /^([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  if (m && MONTHS[m[1]!.toLowerCase()]) return iso(+m[3]!, MONTHS[m[1]!.toLowerCase()]!, +m[2]!);
  m = /^(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?\s+(\d{4})$/.exec(t);
  if (m && MONTHS[m[2]!.toLowerCase()]) return iso(+m[3]!, MONTHS[m[2]!.toLowerCase()]!, +m[1]!);
  return null;
}

function normText(v: unknown): string {
  const s = Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u201c\u201d\u201e\u00ab\u00bb]/g, '"')
    .replace(/[\u2018\u2019\u201a`\u00b4]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'.,;:#*\s]+|["'.,;:#*\s]+$/g, '');
}

export function same(expected: unknown, got: unknown, col: Column): boolean {
  if (col.type === 'number' || col.type === 'currency') {
    const es = numberReadings(expected);
    const gs = numberReadings(got);
    if (!es.length || !gs.length) return normText(expected) === normText(got);
    return es.some((e) => gs.some((g) => Math.abs(e - g) <= (col.type === 'currency' ? 0.005 : Math.max(1e-9, Math.abs(e) * 1e-9))));
  }
  if (col.type === 'date') {
    const e = toDate(expected);
    const g = toDate(got);
    if (e && g) return e === g;
    return normText(expected) === normText(got);
  }
  if (col.type === 'boolean') return normText(expected) === normText(got);
  const e = normText(expected);
  const g = normText(got);
  return e === g || e.replace(/\s+/g, '') === g.replace(/\s+/g, '');
}

/** The group key of an issuer's name: what the scorer would count as the same text. */
const issuerKey = (v: unknown) => (isEmpty(v) ? '' : normText(v).replace(/\s+/g, ''));

// ---------------------------------------------------------------------------------------------
// Cases

/** The column that names the document's issuer, by its id or name. */
const ISSUER_COLUMN = /^(vendor|seller|company|issuer|supplier|merchant)$/i;
const issuerColumn = (columns: Column[]) => columns.find((c) => ISSUER_COLUMN.test(c.id) || ISSUER_COLUMN.test(c.name));

/** The split's invoice PDFs read by layout and its receipts, each with its issuer. */
function loadCases(split: string): Case[] {
  const lines = readFileSync(join(CORPUS_DIR, 'cases.tsv'), 'utf8').split('\n').filter(Boolean);
  const header = lines[0]!.split('\t');
  const at = (name: string) => header.indexOf(name);
  const out: Case[] = [];
  for (const line of lines.slice(1)) {
    const cells = line.split('\t');
    const id = cells[at('case_id')]!;
    const kind = cells[at('kind')]!;
    if ((cells[at('split')] || 'dev') !== split) continue;
    // The README's naming: an `_xml` case keeps the e-invoice's embedded XML, which is not layout.
    const layoutInvoice = kind === 'invoice' && cells[at('format')] === 'pdf' && !id.endsWith('_xml');
    if (!layoutInvoice && kind !== 'receipt') continue;
    const dir = join(CORPUS_DIR, 'cases', id);
    const table = JSON.parse(readFileSync(join(dir, 'table.json'), 'utf8')) as TableJson;
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Row[];
    const column = issuerColumn(table.columns_json);
    const issuer = column ? issuerKey(expected[0]?.[column.id]) : '';
    if (!issuer) continue;
    const document = readdirSync(dir).find((f) => f.startsWith('document.'))!;
    out.push({ id, kind: kind as Kind, path: join(dir, document), table, expected, issuer });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

// ---------------------------------------------------------------------------------------------
// Scoring one document's rows against its expected rows, as score.ts does

interface Score {
  correct: number;
  extracted: number;
  expected: number;
  /** Per column: whether the expected value was found, and whether a wrong non-empty value was given. */
  columns: Map<string, { hit: boolean; wrong: boolean; want: boolean; got: unknown }>;
  diffs: string[];
}

const f1Of = (s: { correct: number; extracted: number; expected: number }) => {
  const p = s.extracted ? s.correct / s.extracted : s.expected ? 0 : 1;
  const r = s.expected ? s.correct / s.expected : 1;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
};
const exact = (s: Score) => s.correct === s.expected && s.correct === s.extracted;

/** Field counts over the columns both the table and the document's own table.json define. */
function score(c: Case, tableColumns: Column[], got: Row[]): Score {
  const own = new Set(c.table.columns_json.map((x) => x.id));
  const cols = tableColumns.filter((x) => own.has(x.id));
  const exp = c.expected;
  const w = exp.map((e) => got.map((g) => cols.reduce((n, col) => n + (!isEmpty(e[col.id]) && !isEmpty(g[col.id]) && same(e[col.id], g[col.id], col) ? 1 : 0), 0)));
  // Expected rows to extracted rows, most agreement first (the scorer's greedy assignment; these documents have one row).
  const pairs: Array<[number, number, number]> = [];
  w.forEach((r, i) => r.forEach((x, j) => pairs.push([x, i, j])));
  pairs.sort((a, b) => b[0] - a[0]);
  const match = new Array<number>(exp.length).fill(-1);
  const taken = new Set<number>();
  for (const [, i, j] of pairs) {
    if (match[i] !== -1 || taken.has(j)) continue;
    match[i] = j;
    taken.add(j);
  }
  const nonEmpty = (r: Row) => cols.reduce((n, col) => n + (isEmpty(r[col.id]) ? 0 : 1), 0);
  const result: Score = { correct: 0, extracted: got.reduce((n, r) => n + nonEmpty(r), 0), expected: exp.reduce((n, r) => n + nonEmpty(r), 0), columns: new Map(), diffs: [] };
  for (const col of cols) result.columns.set(col.id, { hit: false, wrong: false, want: false, got: null });
  exp.forEach((e, i) => {
    const g = match[i]! >= 0 ? got[match[i]!]! : {};
    for (const col of cols) {
      const tally = result.columns.get(col.id)!;
      const hit = !isEmpty(e[col.id]) && !isEmpty(g[col.id]) && same(e[col.id], g[col.id], col);
      if (hit) result.correct++;
      tally.want ||= !isEmpty(e[col.id]);
      tally.hit ||= hit;
      tally.wrong ||= !hit && !isEmpty(g[col.id]);
      if (!isEmpty(g[col.id])) tally.got = g[col.id];
      if (!hit && !(isEmpty(e[col.id]) && isEmpty(g[col.id]))) result.diffs.push(`${col.id}: expected ${JSON.stringify(e[col.id])} got ${JSON.stringify(g[col.id] ?? null)}`);
    }
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// HTTP

interface Api {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  P: string;
}

async function connect(url: string): Promise<Api> {
  const call: Api['call'] = async (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { authorization: `ApiKey ${ADMIN}`, ...headers } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${url}${path}`, init);
    return { status: response.status, body: await response.json().catch(() => null), headers: response.headers };
  };
  const me = await call('GET', '/v1/me');
  return { call, P: `/v1/projects/${me.body.projects[0].id}` };
}

async function createTable(api: Api, table: TableJson): Promise<string> {
  const created = await api.call('POST', `${api.P}/tables`, { name: table.name, columns_json: table.columns_json, strictness: table.strictness ?? 'flexible' });
  if (created.status !== 201) throw new Error(`create table: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
  return created.body.id;
}

/** The rows one document wrote into a table (none when its extraction failed). */
async function extract(api: Api, tableId: string, c: Case, name: string): Promise<Row[]> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(c.path)]), name);
  const reply = await api.call('POST', `${api.P}/tables/${tableId}/extract`, form);
  if (reply.status !== 200) throw new Error(`extract: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
  return (reply.body?.result?.rows ?? []) as Row[];
}

/** A value as the column's type takes it: the expected files hold numbers and ISO dates, strings elsewhere. */
function coerce(value: unknown, column: Column): unknown {
  if (isEmpty(value)) return null;
  if (column.type === 'number' || column.type === 'currency') return typeof value === 'number' ? value : (numberReadings(value)[0] ?? null);
  if (column.type === 'date') return toDate(value) ?? String(value);
  if (column.type === 'boolean') return typeof value === 'boolean' ? value : normText(value) === 'true';
  return String(value);
}

/**
 * A person's review of the document's row: PATCHed (with its ETag) to every expected value.
 * Returns whether the table then holds one more example (an unchanged row records none).
 */
async function correct(api: Api, tableId: string, c: Case, columns: Column[], rows: Row[]): Promise<{ patched: boolean; example: boolean }> {
  const before = await exampleCount(api, tableId);
  const scored = rows.map((r) => score(c, columns, [r]).correct);
  const row = rows[scored.indexOf(Math.max(...scored))];
  if (!row) return { patched: false, example: false };
  const path = `${api.P}/tables/${tableId}/rows/${row.id}`;
  const got = await api.call('GET', path);
  const body = Object.fromEntries(columns.map((col) => [col.id, coerce(c.expected[0]?.[col.id], col)]));
  const patched = await api.call('PATCH', path, body, { 'if-match': got.headers.get('etag') ?? '' });
  if (patched.status !== 200) throw new Error(`PATCH row: ${patched.status} ${JSON.stringify(patched.body).slice(0, 200)}`);
  return { patched: true, example: (await exampleCount(api, tableId)) > before };
}

async function exampleCount(api: Api, tableId: string): Promise<number> {
  const list = await api.call('GET', `${api.P}/tables/${tableId}/examples?limit=100`);
  return list.body?.examples?.length ?? 0;
}

// ---------------------------------------------------------------------------------------------
// The run

interface Scored {
  c: Case;
  before: Score;
  after: Score;
  /** The corrected document's expected row: what the example teaches. */
  example: Row;
}
interface Tally {
  groups: number;
  documents: number;
  examples: number;
  scored: Scored[];
  isolation: { documents: number; better: number; worse: number; valuesChanged: number };
}

const fmt = (x: number) => x.toFixed(3);
const pct = (n: number, of: number) => (of ? `${n}/${of} (${Math.round((n / of) * 100)}%)` : '-');
const sum = (scores: Score[]) => scores.reduce((t, s) => ({ correct: t.correct + s.correct, extracted: t.extracted + s.extracted, expected: t.expected + s.expected }), { correct: 0, extracted: 0, expected: 0 });
const prf = (scores: Score[]) => {
  const { p, r, f1 } = f1Of(sum(scores));
  return `${fmt(p)} / ${fmt(r)} / ${fmt(f1)}`;
};
const macro = (scores: Score[]) => (scores.length ? scores.reduce((t, s) => t + f1Of(s).f1, 0) / scores.length : NaN);

export async function run(): Promise<void> {
  if (!existsSync(join(CORPUS_DIR, 'cases.tsv'))) {
    console.log(`learn: no corpus at ${CORPUS_DIR} (set CORPUS_DIR); skipped`);
    return;
  }
  if (SPLIT !== 'dev' && SPLIT !== 'check') throw new Error(`SPLIT must be dev or check, not ${SPLIT}`);
  const cases = loadCases(SPLIT);
  const started = performance.now();
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: ADMIN });
  try {
    const api = await connect(server.url);
    const tallies = new Map<Kind, Tally>();
    let uploads = 0;
    // File names say nothing of the case: the server sees a document as a person would send it.
    const name = (c: Case) => `document-${++uploads}.${c.path.split('.').pop()}`;
    for (const kind of (['invoice', 'receipt'] as const).filter((k) => KINDS.includes(k))) {
      const ofKind = cases.filter((c) => c.kind === kind);
      const byIssuer = new Map<string, Case[]>();
      for (const c of ofKind) byIssuer.set(c.issuer, [...(byIssuer.get(c.issuer) ?? []), c]);
      const groups = [...byIssuer.values()].filter((g) => g.length >= 2);
      const tally: Tally = { groups: groups.length, documents: groups.reduce((n, g) => n + g.length, 0), examples: 0, scored: [], isolation: { documents: 0, better: 0, worse: 0, valuesChanged: 0 } };
      tallies.set(kind, tally);
      const rounds = groups.flatMap((group) => (ROTATE ? group.map((c, k) => [c, ...group.filter((_, j) => j !== k)]) : [group]));
      if (ROTATE) tally.groups = rounds.length;
      const baselines = new Map<string, Score>();
      for (const [g, [first, ...others]] of rounds.entries()) {
        const columns = first!.table.columns_json;
        const taught = await createTable(api, first!.table);
        const fresh = await createTable(api, first!.table);
        const review = await correct(api, taught, first!, columns, await extract(api, taught, first!, name(first!)));
        if (review.example) tally.examples++;
        if (VERBOSE) console.log(`${kind} group ${g + 1} (${first!.issuer}): ${first!.id} corrected, ${review.example ? 'example recorded' : review.patched ? 'no example (nothing changed)' : 'no row to correct'}`);
        for (const c of others) {
          const after = score(c, columns, await extract(api, taught, c, name(c)));
          const before = baselines.get(c.id) ?? score(c, columns, await extract(api, fresh, c, name(c)));
          baselines.set(c.id, before);
          tally.scored.push({ c, before, after, example: first!.expected[0] ?? {} });
          if (VERBOSE) {
            console.log(`  ${c.id.padEnd(36)} F1 ${fmt(f1Of(before).f1)} -> ${fmt(f1Of(after).f1)}`);
            for (const d of before.diffs) console.log(`      before: ${d}`);
            for (const d of after.diffs) console.log(`      after:  ${d}`);
          }
        }
        // A fixed spread over the other issuers of the kind, so every run checks the same documents.
        const strangers = ofKind.filter((c) => c.issuer !== first!.issuer);
        for (let k = 0; k < ISOLATION_PER_GROUP && strangers.length; k++) {
          const c = strangers[(g * 7 + k * 13) % strangers.length]!;
          const withExample = await extract(api, taught, c, name(c));
          const without = await extract(api, fresh, c, name(c));
          const [a, b] = [f1Of(score(c, columns, withExample)).f1, f1Of(score(c, columns, without)).f1];
          tally.isolation.documents++;
          if (a > b + 1e-9) tally.isolation.better++;
          if (a < b - 1e-9) tally.isolation.worse++;
          const values = (rows: Row[]) => JSON.stringify(rows.map((r) => columns.map((col) => r[col.id] ?? null)));
          if (values(withExample) !== values(without)) {
            tally.isolation.valuesChanged++;
            if (VERBOSE) console.log(`  isolation: ${c.id} reads differently in the table of group ${g + 1} (F1 ${fmt(b)} -> ${fmt(a)})`);
          }
        }
      }
    }

    const evaluation = KINDS.includes('receipt') ? await evaluateTiming(api, cases.filter((c) => c.kind === 'receipt'), name) : null;

    const env = `split ${SPLIT}, ${cases.length} documents (${cases.filter((c) => c.kind === 'invoice').length} invoice PDFs, ${cases.filter((c) => c.kind === 'receipt').length} receipts); ${machine()}; one rowsmith child process, HTTP on 127.0.0.1`;
    printTable(`Learn by issuer: one corrected document per issuer, the issuer's other documents scored (${env})`, [
      ...[...tallies].map(([kind, t]) => {
        const before = t.scored.map((s) => s.before);
        const after = t.scored.map((s) => s.after);
        return {
          kind,
          'issuers (2+ docs)': t.groups,
          'docs in groups': t.documents,
          'examples recorded': `${t.examples}/${t.groups}`,
          'docs scored': t.scored.length,
          'field P / R / F1 baseline': prf(before),
          'field P / R / F1 after': prf(after),
          'mean doc F1 before -> after': `${fmt(macro(before))} -> ${fmt(macro(after))}`,
          'exact rows before -> after': `${pct(before.filter(exact).length, before.length)} -> ${pct(after.filter(exact).length, after.length)}`,
          goal: `F1 >= ${GOAL_F1}: ${f1Of(sum(after)).f1 >= GOAL_F1 ? 'met' : 'not met'}`,
        };
      }),
    ]);
    printTable('Per column: field F1 baseline -> after one correction (documents whose expected value is non-empty; wrong = a wrong non-empty value)', [
      ...[...tallies].flatMap(([kind, t]) => {
        const ids = [...new Set(t.scored.flatMap((s) => [...s.after.columns.keys()]))];
        return ids.map((id) => {
          const of = (pick: 'before' | 'after') => {
            const cells = t.scored.map((s) => s[pick].columns.get(id)).filter((x) => x !== undefined);
            const hits = cells.filter((x) => x.hit).length;
            return { hits, wrong: cells.filter((x) => x.wrong).length, want: cells.filter((x) => x.want).length, f1: f1Of({ correct: hits, extracted: hits + cells.filter((x) => x.wrong).length, expected: cells.filter((x) => x.want).length }).f1 };
          };
          const [b, a] = [of('before'), of('after')];
          return { kind, column: id, 'with value': a.want, 'right before -> after': `${b.hits} -> ${a.hits}`, 'wrong before -> after': `${b.wrong} -> ${a.wrong}`, 'F1 before -> after': `${fmt(b.f1)} -> ${fmt(a.f1)}` };
        });
      }),
    ]);
    printTable('Wrong or missing after one correction, by how the value relates to the corrected example (counts only: what a correction can and cannot teach)', [
      ...[...tallies].flatMap(([kind, t]) => {
        const columnsOf = new Map(t.scored.flatMap((s) => s.c.table.columns_json.map((col) => [col.id, col] as const)));
        const counts = { copied: 0, variant: 0, missed: 0, own: 0 };
        for (const s of t.scored) {
          for (const [id, cell] of s.after.columns) {
            const col = columnsOf.get(id)!;
            const [want, taught] = [s.c.expected[0]?.[id], s.example[id]];
            if (!cell.want || cell.hit) continue;
            const teaches = !isEmpty(taught) && same(want, taught, col);
            if (!teaches && !isEmpty(cell.got) && !isEmpty(taught) && same(taught, cell.got, col)) {
              counts.copied++;
              // Two readings of one printed text, told apart by a glyph or two: the values' own spellings differ.
              if (editDistance(normText(want), normText(taught)) <= 2) counts.variant++;
            } else if (teaches) counts.missed++;
            else counts.own++;
          }
        }
        return [{ kind, "the example's value, where this document's differs": counts.copied, '... of which by at most two glyphs': counts.variant, "this document's value is the example's, not taken": counts.missed, 'a value of its own, not the example\'s': counts.own }];
      }),
    ]);
    printTable("Isolation: documents of other issuers, extracted into a table holding one issuer's example and into a fresh one", [
      ...[...tallies].map(([kind, t]) => ({ kind, documents: t.isolation.documents, 'F1 better': t.isolation.better, 'F1 worse': t.isolation.worse, 'values changed': t.isolation.valuesChanged, verdict: t.isolation.valuesChanged ? 'LEAKS' : 'isolated' })),
    ]);
    if (evaluation) {
      printTable(`POST .../evaluate on a table of corrected receipts (${machine()})`, [
        {
          'corrected documents': evaluation.documents,
          'wall s': evaluation.wallMs / 1000,
          'duration_ms': evaluation.durationMs,
          'evaluate F1': evaluation.f1 === null ? '-' : fmt(evaluation.f1),
          target: `< ${EVALUATE_TARGET_S} s with ${EVALUATE_DOCUMENTS}: ${evaluation.documents >= EVALUATE_DOCUMENTS && evaluation.wallMs < EVALUATE_TARGET_S * 1000 ? 'met' : evaluation.documents < EVALUATE_DOCUMENTS ? `only ${evaluation.documents} documents` : 'not met'}`,
        },
      ]);
    }
    console.log(`\nlearn: ${env}; ${((performance.now() - started) / 1000).toFixed(0)} s; ${ISOLATION_PER_GROUP} isolation documents per issuer (LEARN_ISOLATION)${SPLIT === 'check' ? '; aggregates only' : ''}`);
  } finally {
    await server.stop();
  }
}

/**
 * A table of receipts each extracted and corrected through PATCH until it holds
 * EVALUATE_DOCUMENTS examples (a receipt read exactly right records none), then one evaluate.
 */
async function evaluateTiming(api: Api, receipts: Case[], name: (c: Case) => string): Promise<{ documents: number; wallMs: number; durationMs: number; f1: number | null } | null> {
  if (!receipts.length) return null;
  const table = receipts[0]!.table;
  const tableId = await createTable(api, table);
  let documents = 0;
  for (const c of receipts) {
    if (documents >= EVALUATE_DOCUMENTS) break;
    const review = await correct(api, tableId, c, table.columns_json, await extract(api, tableId, c, name(c)));
    if (review.example) documents++;
  }
  const t0 = performance.now();
  const evaluated = await api.call('POST', `${api.P}/tables/${tableId}/evaluate`);
  const wallMs = performance.now() - t0;
  if (evaluated.status !== 200) throw new Error(`evaluate: ${evaluated.status} ${JSON.stringify(evaluated.body).slice(0, 200)}`);
  return { documents: evaluated.body.documents, wallMs, durationMs: evaluated.body.duration_ms, f1: evaluated.body.f1 };
}

if (import.meta.main) await run();
