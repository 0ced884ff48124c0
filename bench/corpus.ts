/**
 * `npm run bench -- corpus`: scores extraction on the real-document corpus (`../shared/extract-corpus`,
 * or CORPUS_DIR) with its own scorer, against a rowsmith child process on a fresh data folder.
 * CASES (a regex on case ids) and VERBOSE=1 pass through to the scorer.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startRowsmith } from './lib';

const ADMIN = 'bench-admin-key-0123456789abcdef';
export const CORPUS_DIR = process.env.CORPUS_DIR ?? join(import.meta.dir, '..', '..', 'shared', 'extract-corpus');

export async function run(): Promise<void> {
  const scorer = join(CORPUS_DIR, 'score.ts');
  if (!existsSync(scorer)) {
    console.log(`corpus: no scorer at ${scorer} (set CORPUS_DIR); skipped`);
    return;
  }
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: ADMIN });
  try {
    const started = performance.now();
    const proc = Bun.spawn([process.execPath, scorer], {
      env: { ...process.env, BASE_URL: server.url, API_KEY: ADMIN, CLEANUP: '1' },
      stdout: 'inherit',
      stderr: 'inherit',
    });
    await proc.exited;
    console.log(`\ncorpus: scored in ${((performance.now() - started) / 1000).toFixed(1)} s against one rowsmith child process (HTTP on 127.0.0.1)`);
  } finally {
    await server.stop();
  }
}
