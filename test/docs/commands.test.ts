/**
 * Every command the documentation shows works. Each command line of a `sh` block in README.md,
 * CHANGELOG.md, web/README.md and docs/ is either run here, or listed in RUN_ELSEWHERE with the
 * test, benchmark or CI step that runs it (checked to exist and to hold the command). A command in
 * neither fails the test.
 *
 * How the commands are run: the blocks of a page run in order, each block as one bash script
 * (`set -euo pipefail`) in a temp folder of that page's own, against a child server on a free port
 * with a temp DATA_DIR. The pages' placeholders are filled in this way:
 * - `rsk_...` (the admin key printed at first start) becomes the server's bootstrap key, which is
 *   also in `KEY`;
 * - `TABLE` is the id of a table made here with the columns of the README's first extraction
 *   (`item`, `qty`, `price`), as the API pages say;
 * - `localhost:3000` becomes the child server's address;
 * - `curl` fails on an HTTP error status (`--fail-with-body`), so an example answered 4xx fails;
 * - `rowsmith` is the CLI as the single binary runs it (`src/bin.ts`), on the server's DATA_DIR.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerProcess } from '../helpers/process';
import { blocks, commands, normal, pages, ROOT, SHELL, type Command } from './markdown';

interface Evidence {
  /** A test, benchmark or CI script, relative to the repository. */
  file: string;
  /** Strings the file must hold: the command as that file runs it. */
  holds: string[];
}

/** Commands too long or too global to run here (installs, the whole suite, builds, benchmarks), and what runs them. */
const RUN_ELSEWHERE: Array<{ command: string; scripts?: string[]; evidence: Evidence[] }> = [
  {
    command: 'npm install && npm start',
    scripts: ['start'],
    evidence: [
      { file: '.ci/run', holds: ['npm install'] },
      { file: 'test/helpers/process.ts', holds: ["'src/main.ts'"] },
    ],
  },
  { command: 'npm test', scripts: ['test'], evidence: [{ file: '.ci/run', holds: ['npm test'] }] },
  {
    command: 'npm run build',
    scripts: ['build'],
    evidence: [
      { file: '.ci/run', holds: ['npm run build'] },
      { file: 'test/binary.test.ts', holds: ['await build()'] },
    ],
  },
  { command: 'npm run build:web', scripts: ['build:web'], evidence: [{ file: 'test/console/console.test.ts', holds: ['await buildConsole()'] }] },
  { command: './dist/rowsmith serve', evidence: [{ file: 'test/binary.test.ts', holds: ["[binary, 'serve']"] }] },
  { command: './dist/rowsmith keys list', evidence: [{ file: 'test/binary.test.ts', holds: ["['keys', 'list'"] }] },
  { command: '.ci/run', evidence: [{ file: '.ci/run', holds: ['npm test'] }] },
  { command: 'npx bun test test/console/', evidence: [{ file: 'test/console/harness.ts', holds: ['puppeteer-core'] }] },
  { command: 'npm run bench -- receipts-ocr', scripts: ['bench'], evidence: [{ file: 'bench/run.ts', holds: ["'receipts-ocr': () => import('./ocr-receipts')"] }] },
  ...['http', 'corpus', 'fit', 'extract', 'pdf', 'ocr', 'fuzz', 'learn'].map((name) => ({
    command: `npm run bench -- ${name}`,
    scripts: ['bench'],
    evidence: [{ file: 'bench/run.ts', holds: [`${name}: () => import('./${name}')`] }],
  })),
  {
    command: 'BENCH_SERVER_CPUS=1 BENCH_ROWS=1000000 npm run bench -- rows',
    scripts: ['bench'],
    evidence: [
      { file: 'bench/run.ts', holds: ["rows: () => import('./rows')"] },
      { file: 'bench/rows.ts', holds: ['BENCH_ROWS'] },
      { file: 'bench/lib.ts', holds: ['BENCH_SERVER_CPUS'] },
    ],
  },
  {
    command: 'BENCH_STORES=lmdb,postgres BENCH_ROWS=1000000 npm run bench -- rows',
    scripts: ['bench'],
    evidence: [
      { file: 'bench/run.ts', holds: ["rows: () => import('./rows')"] },
      { file: 'bench/rows.ts', holds: ['BENCH_STORES', 'BENCH_ROWS'] },
    ],
  },
  {
    command: 'CRASH_KILLS=20 npm run bench -- crash',
    scripts: ['bench'],
    evidence: [
      { file: 'bench/run.ts', holds: ["crash: () => import('./crash')"] },
      { file: 'bench/crash.ts', holds: ['CRASH_KILLS'] },
    ],
  },
  {
    command: 'BENCH_CONSOLE_ROWS=1000000 npm run bench -- console',
    scripts: ['bench'],
    evidence: [
      { file: 'bench/run.ts', holds: ["console: () => import('./console')"] },
      { file: 'bench/console.ts', holds: ['BENCH_CONSOLE_ROWS'] },
    ],
  },
];

/** What a command run here may start with: requests, files made for them, the CLI, and shell plumbing. */
const RUNNABLE = /^(curl|printf|rowsmith|export|until|jq|echo|sleep|cat)\b|^[A-Za-z_][A-Za-z0-9_]*=(\$\(curl\b|\S+$)/;

const KEY = 'rsk_docs_commands_test_key_0123456789';
const PREAMBLE = `set -euo pipefail
curl() { command curl --fail-with-body --silent --show-error "$@"; }
rowsmith() { "$BUN" "$ROOT/src/bin.ts" "$@"; }
`;

const elsewhere = new Map(RUN_ELSEWHERE.map((entry) => [normal(entry.command), entry]));
const all: Command[] = pages().flatMap((page) => blocks(page).filter((b) => SHELL.has(b.lang)).flatMap(commands));
const where = (c: Command) => `${c.block.page}:${c.line}`;

let server: ServerProcess;
let dataDir: string;
let work: string;
let table: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'rowsmith-docs-data-'));
  work = mkdtempSync(join(tmpdir(), 'rowsmith-docs-run-'));
  server = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY });
  const created = await fetch(`${server.url}/v1/projects/proj_default/tables`, {
    method: 'POST',
    headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Orders',
      columns_json: [
        { id: 'item', name: 'Item' },
        { id: 'qty', name: 'Quantity', type: 'number' },
        { id: 'price', name: 'Unit price', type: 'currency', currency_code: 'USD' },
      ],
    }),
  });
  expect(created.status).toBe(201);
  table = ((await created.json()) as { id: string }).id;
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

test('every fenced block names its language, so no command hides in an unmarked one', () => {
  const unmarked = pages().flatMap((page) => blocks(page).filter((b) => b.lang === '').map((b) => `${b.page}:${b.line}`));
  expect(unmarked).toEqual([]);
});

test('every command is run here or listed with what runs it', () => {
  const unaccounted = all.filter((c) => !elsewhere.has(normal(c.text)) && !RUNNABLE.test(c.text)).map((c) => `${where(c)}: ${c.text}`);
  expect(unaccounted).toEqual([]);
  const shown = new Set(all.map((c) => normal(c.text)));
  expect(RUN_ELSEWHERE.map((e) => e.command).filter((command) => !shown.has(normal(command)))).toEqual([]);
});

test('the commands listed as run elsewhere are in the files named for them', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const problems: string[] = [];
  for (const entry of RUN_ELSEWHERE) {
    for (const script of entry.scripts ?? []) if (!scripts[script]) problems.push(`${entry.command}: package.json has no "${script}" script`);
    for (const { file, holds } of entry.evidence) {
      const path = join(ROOT, file);
      if (!existsSync(path)) {
        problems.push(`${entry.command}: ${file} does not exist`);
        continue;
      }
      const text = readFileSync(path, 'utf8');
      for (const piece of holds) if (!text.includes(piece)) problems.push(`${entry.command}: ${file} does not hold ${piece}`);
    }
  }
  expect(problems).toEqual([]);
});

// The examples call curl and jq, which a machine with only Node and npm may lack (CI installs both).
const missingTools = ['curl', 'jq', 'bash'].filter((tool) => !Bun.which(tool));
if (missingTools.length) console.log(`docs examples skipped: ${missingTools.join(', ')} not installed`);

test.skipIf(missingTools.length > 0)('the commands of every page run against a fresh server', async () => {
  const failures: string[] = [];
  let ran = 0;
  for (const page of pages()) {
    const cwd = join(work, page.replace(/[/.]/g, '_'));
    mkdirSync(cwd, { recursive: true });
    for (const block of blocks(page).filter((b) => SHELL.has(b.lang))) {
      const runnable = commands(block).filter((c) => !elsewhere.has(normal(c.text)));
      if (runnable.length === 0) continue;
      const script = PREAMBLE + runnable.map((c) => c.text.replaceAll('localhost:3000', `127.0.0.1:${server.port}`).replaceAll('rsk_...', KEY)).join('\n');
      const proc = Bun.spawn(['bash', '-c', script], {
        cwd,
        env: { ...process.env, KEY, TABLE: table, DATA_DIR: dataDir, BUN: process.execPath, ROOT },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      clearTimeout(timer);
      ran += runnable.length;
      if (code !== 0) failures.push(`${page}:${block.line} exited ${code}\n--- stdout\n${stdout.slice(-1500)}\n--- stderr\n${stderr.slice(-1500)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(ran).toBeGreaterThan(20);
}, 120_000);
