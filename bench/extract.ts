/**
 * `npm run bench -- extract`: field accuracy per format on test/fixtures/extract, through the HTTP
 * API of a rowsmith child process (a fresh data folder, one new table per document).
 */
import { evaluateCase, loadCases, scoreByFormat, TARGETS, type Send } from './extract-eval';
import { apiClient, startRowsmith } from './lib';

const ADMIN = 'bench-admin-key-0123456789abcdef';

export async function run(): Promise<void> {
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: ADMIN });
  try {
    const send: Send = apiClient(server.url, ADMIN);
    const cases = loadCases();
    const results = [];
    const started = performance.now();
    for (const c of cases) results.push(await evaluateCase(send, 'proj_default', c));
    const seconds = (performance.now() - started) / 1000;
    console.log(`\nExtraction accuracy: ${cases.length} documents, ${seconds.toFixed(1)} s (one rowsmith child process, HTTP on 127.0.0.1)\n`);
    console.log('| format | documents | expected fields | extracted | right | accuracy | precision | recall | target |');
    console.log('| --- | --: | --: | --: | --: | --: | --: | --: | --: |');
    for (const s of scoreByFormat(results)) {
      const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
      const ok = s.accuracy >= TARGETS[s.format]! ? 'met' : 'MISSED';
      console.log(`| ${s.format} | ${s.documents} | ${s.expected} | ${s.extracted} | ${s.correct} | ${pct(s.accuracy)} | ${pct(s.precision)} | ${pct(s.recall)} | ${pct(TARGETS[s.format]!)} ${ok} |`);
    }
    const misses = results.filter((r) => r.misses.length);
    if (misses.length) {
      console.log('\nFields missed:');
      for (const r of misses) console.log(`  ${r.file}: ${r.misses.slice(0, 5).join('; ')}${r.misses.length > 5 ? ` (+${r.misses.length - 5} more)` : ''}`);
    }
  } finally {
    await server.stop();
  }
}
