/**
 * The ratchet on real documents: the corpus beside the repository (`../shared/extract-corpus`, or
 * CORPUS_DIR) is scored by its own scorer against a rowsmith child process, and the number of
 * passing cases must not fall below the number recorded in `corpus-ratchet.json` (raise it as
 * extraction improves). The corpus is for measuring only; no rule names its documents.
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRowsmith } from '../../bench/lib';
import { CORPUS_DIR } from '../../bench/corpus';

const KEY = 'corpus-ratchet-key-0123456789abcdef';
const recorded = JSON.parse(readFileSync(join(import.meta.dir, 'corpus-ratchet.json'), 'utf8')) as { passed: number; cases: number };
const scorer = join(CORPUS_DIR, 'score.ts');

test.skipIf(!existsSync(scorer))(
  `the corpus keeps at least ${recorded.passed} of ${recorded.cases} cases passing`,
  async () => {
    const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: KEY });
    try {
      const proc = Bun.spawn([process.execPath, scorer], {
        env: { ...process.env, BASE_URL: server.url, API_KEY: KEY, CLEANUP: '1' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const output = await new Response(proc.stdout).text();
      await proc.exited;
      const summary = /^(\d+) passed, (\d+) failed$/m.exec(output);
      expect(summary, output.slice(-2000)).not.toBeNull();
      const passed = Number(summary![1]);
      const failing = output.split('\n').filter((l) => /\bFAIL\b/.test(l)).join('\n');
      expect({ passed: passed >= recorded.passed, total: passed + Number(summary![2]), failing }).toEqual({ passed: true, total: recorded.cases, failing: expect.any(String) });
    } finally {
      await server.stop();
    }
  },
  240_000,
);
