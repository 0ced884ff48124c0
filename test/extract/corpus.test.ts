/**
 * The ratchet on real documents: the corpus beside the repository (`../shared/extract-corpus`, or
 * CORPUS_DIR) is scored by its own scorer against a rowsmith child process, once per split, and the
 * number of passing cases of each split must not fall below the number recorded in
 * `corpus-ratchet.json` (raise it as extraction improves). The check split is read as aggregates
 * only, as the scorer prints it. The corpus is for measuring only; no rule names its documents.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRowsmith } from '../../bench/lib';
import { CORPUS_DIR } from '../../bench/corpus';

type Split = 'dev' | 'check';
const KEY = 'corpus-ratchet-key-0123456789abcdef';
/**
 * Cases scored at once, each scan read by its own OCR worker: every case has its own table, so the
 * order does not change a result, and the dev split takes about half the time on two cores.
 */
const PARALLEL = 2;
const recorded = JSON.parse(readFileSync(join(import.meta.dir, 'corpus-ratchet.json'), 'utf8')) as Record<Split, { passed: number; cases: number }>;
const scorer = join(CORPUS_DIR, 'score.ts');
if (!existsSync(scorer)) console.log(`corpus ratchet skipped: no scorer at ${scorer} (set CORPUS_DIR)`);

async function score(url: string, split: Split): Promise<{ passed: number; total: number; output: string }> {
  const proc = Bun.spawn([process.execPath, scorer], {
    env: { ...process.env, BASE_URL: url, API_KEY: KEY, CLEANUP: '1', SPLIT: split, CASES: '', VERBOSE: '', CONCURRENCY: String(PARALLEL) },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const output = await new Response(proc.stdout).text();
  await proc.exited;
  const summary = /^(\d+) passed, (\d+) failed$/m.exec(output);
  if (!summary) throw new Error(`the scorer printed no summary for the ${split} split:\n${output.slice(-2000)}`);
  return { passed: Number(summary[1]), total: Number(summary[1]) + Number(summary[2]), output };
}

for (const split of ['dev', 'check'] as const) {
  test.skipIf(!existsSync(scorer))(
    `the corpus keeps at least ${recorded[split].passed} of ${recorded[split].cases} ${split} cases passing`,
    async () => {
      const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_OCR_WORKERS: String(PARALLEL) });
      try {
        const { passed, total, output } = await score(server.url, split);
        // Only the dev split has per-case lines; the check split shows its tables by kind.
        const detail = split === 'dev' ? output.split('\n').filter((l) => /\bFAIL\b/.test(l)).join('\n') : output.slice(output.indexOf('by kind'));
        expect({ atLeastRecorded: passed >= recorded[split].passed, total, passed, detail }).toEqual({
          atLeastRecorded: true,
          total: recorded[split].cases,
          passed: expect.any(Number),
          detail: expect.any(String),
        });
      } finally {
        await server.stop();
      }
    },
    600_000,
  );
}
