/** The training scripts without the corpus beside the repository: one line saying what is missing, and a failing exit. */
import { expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../helpers/app';

const ROOT = join(import.meta.dir, '..', '..');

for (const script of ['src/extract/model/train.ts', 'src/extract/model/headers.train.ts']) {
  test(`${script} without the corpus names the folder it looked in`, () => {
    const missing = join(tempDir('rowsmith-no-corpus-'), 'extract-corpus');
    const run = Bun.spawnSync([process.execPath, join(ROOT, script)], { cwd: ROOT, env: { ...process.env, CORPUS_DIR: missing }, stdout: 'pipe', stderr: 'pipe' });
    rmSync(dirname(missing), { recursive: true, force: true });
    const stderr = run.stderr.toString().trim();
    expect(run.exitCode).toBe(1);
    expect(stderr).toBe(`training needs the extraction corpus: no cases.tsv in ${missing} (set CORPUS_DIR)`);
  }, 60_000);
}
