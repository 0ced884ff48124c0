/**
 * `npm run bench -- corpus`: scores extraction on the real-document corpus (`../shared/extract-corpus`,
 * or CORPUS_DIR) with its own scorer, against a rowsmith child process on a fresh data folder.
 * CASES (a regex on case ids) and VERBOSE=1 pass through to the scorer. After the scorer's tables
 * comes a reliability table of row confidence (from the scorer's REPORT; the check split's report
 * holds aggregates only, so there only the scorer's mean confidence of right and wrong rows shows).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS_DIR } from '../src/extract/model/corpus';
import { startRowsmith } from './lib';

const ADMIN = 'bench-admin-key-0123456789abcdef';
export { CORPUS_DIR };

export async function run(): Promise<void> {
  const scorer = join(CORPUS_DIR, 'score.ts');
  if (!existsSync(scorer)) {
    console.log(`corpus: no scorer at ${scorer} (set CORPUS_DIR); skipped`);
    return;
  }
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: ADMIN });
  const scratch = mkdtempSync(join(tmpdir(), 'rowsmith-corpus-'));
  const report = process.env.REPORT ?? join(scratch, 'report.json');
  try {
    const started = performance.now();
    const proc = Bun.spawn([process.execPath, scorer], {
      env: { ...process.env, BASE_URL: server.url, API_KEY: ADMIN, CLEANUP: '1', REPORT: report },
      stdout: 'inherit',
      stderr: 'inherit',
    });
    await proc.exited;
    if (existsSync(report)) printReliability(JSON.parse(readFileSync(report, 'utf8')));
    console.log(`\ncorpus: scored in ${((performance.now() - started) / 1000).toFixed(1)} s against one rowsmith child process (HTTP on 127.0.0.1)`);
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface CaseResult {
  gotRows: number;
  correct: number;
  extractedFields: number;
  rowConf: { correct: number[]; wrong: number[] };
}

const BINS = [0, 0.2, 0.4, 0.6, 0.8, 1.0001];

/**
 * Row confidence in bins against how often such rows are right (the scorer's verdict: a row agrees
 * with its expected row at its pass F1) and, for documents of one row, the share of its written
 * fields that are right. A well-calibrated confidence rises with both.
 */
export function printReliability(report: { cases?: CaseResult[] }): void {
  const cases = report.cases;
  if (!cases?.length) return;
  const rows = BINS.slice(0, -1).map(() => ({ right: 0, wrong: 0, fields: 0, fieldsRight: 0 }));
  const bin = (c: number) => Math.max(0, BINS.findIndex((b, i) => c >= b && c < BINS[i + 1]!));
  for (const c of cases) {
    for (const conf of c.rowConf.correct) rows[bin(conf)]!.right++;
    for (const conf of c.rowConf.wrong) rows[bin(conf)]!.wrong++;
    const only = [...c.rowConf.correct, ...c.rowConf.wrong];
    if (c.gotRows === 1 && only.length === 1) {
      rows[bin(only[0]!)]!.fields += c.extractedFields;
      rows[bin(only[0]!)]!.fieldsRight += c.correct;
    }
  }
  const share = (a: number, n: number) => (n ? (a / n).toFixed(3) : '-').padStart(8);
  console.log('\nreliability   (row confidence against right rows; fields of one-row documents)');
  console.log('confidence      rows  right rows   fields  right fields');
  rows.forEach((r, i) => {
    const label = `${BINS[i]!.toFixed(1)}-${Math.min(1, BINS[i + 1]!).toFixed(1)}`;
    console.log(`${label.padEnd(12)} ${String(r.right + r.wrong).padStart(7)} ${share(r.right, r.right + r.wrong).padStart(11)} ${String(r.fields).padStart(8)} ${share(r.fieldsRight, r.fields).padStart(13)}`);
  });
}
