/**
 * The compiled executable on its own: copied alone into an empty folder (no node_modules, no
 * sources), it serves, extracts a PDF and a scanned image (OCR) into its embedded native store,
 * stops on SIGTERM, and runs the admin CLI. Builds dist/rowsmith first when it is missing or older
 * than a source file.
 */
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BINARY, build } from '../src/cli/build';
import { tempDir } from './helpers/app';

const ROOT = join(import.meta.dir, '..');
const KEY = 'binary-test-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const headers = { authorization: `ApiKey ${KEY}` };

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function binaryIsCurrent(): boolean {
  if (!existsSync(BINARY)) return false;
  const sources = Math.max(newestSource(join(ROOT, 'src')), statSync(join(ROOT, 'package-lock.json')).mtimeMs);
  return statSync(BINARY).mtimeMs >= sources;
}

/** Only the environment a user sets; nothing that points back at this checkout. */
function runEnv(dir: string): Record<string, string> {
  return { PATH: '/usr/bin:/bin', HOME: dir, DATA_DIR: join(dir, 'data'), ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_LOG_REQUESTS: 'false' };
}

let dir: string;
let binary: string;

beforeAll(async () => {
  if (!binaryIsCurrent()) await build();
  dir = tempDir('rowsmith-binary-');
  binary = join(dir, 'rowsmith');
  copyFileSync(BINARY, binary);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A white page with a table of dark text, as a PNG (the OCR input). */
async function tableImage(rows: string[][]): Promise<Uint8Array> {
  const canvas = createCanvas(1400, 600);
  const context = canvas.getContext('2d');
  context.fillStyle = 'white';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = 'black';
  context.font = '36px sans-serif';
  rows.forEach((row, i) => row.forEach((cell, j) => context.fillText(cell, 80 + j * 420, 100 + i * 90)));
  return new Uint8Array(await canvas.encode('png'));
}

async function runCli(args: string[]) {
  const proc = Bun.spawn([binary, ...args], { cwd: dir, env: runEnv(dir), stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test('the binary alone serves: a table, a PDF and a scan extracted into it, its rows read back, a clean SIGTERM stop', async () => {
  expect(readdirSync(dir)).toEqual(['rowsmith']);
  const proc = Bun.spawn([binary, 'serve'], { cwd: dir, env: { ...runEnv(dir), PORT: '0', HOST: '127.0.0.1' }, stdout: 'pipe', stderr: 'pipe' });
  const output: string[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output.push(new TextDecoder().decode(chunk));
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  try {
    let port = 0;
    for (const deadline = Date.now() + 20_000; !port && Date.now() < deadline; await Bun.sleep(25)) {
      port = Number(output.join('').match(/listening on http:\/\/[^:]+:(\d+)/)?.[1] ?? 0);
      if (proc.exitCode !== null) throw new Error(`the binary exited with ${proc.exitCode}:\n${output.join('')}`);
    }
    expect(port).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${port}${P}`;

    const table = await fetch(`${url}/tables`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Orders',
        columns_json: [
          { id: 'order_id', name: 'Order ID', type: 'string', required: true },
          { id: 'customer', name: 'Customer', type: 'string' },
          { id: 'total', name: 'Total', type: 'currency', currency_code: 'USD' },
        ],
      }),
    });
    expect(table.status).toBe(201);
    const tableId = ((await table.json()) as { id: string }).id;

    const form = new FormData();
    const pdf = readFileSync(join(ROOT, 'test', 'fixtures', 'extract', 'files', 'orders.pdf'));
    form.append('file', new File([pdf], 'orders.pdf', { type: 'application/pdf' }));
    const extract = await fetch(`${url}/tables/${tableId}/extract`, { method: 'POST', headers, body: form });
    const extracted = (await extract.json()) as { status: string; total_rows: number; files: Array<{ status: string }> };
    expect({ status: extract.status, batch: extracted.status, file: extracted.files[0]?.status }).toEqual({ status: 200, batch: 'complete', file: 'complete' });
    expect(extracted.total_rows).toBeGreaterThan(0);

    const rows = await fetch(`${url}/tables/${tableId}/rows?limit=100`, { headers });
    const listed = (await rows.json()) as { rows: Array<{ order_id: string; total: number }> };
    expect(listed.rows.length).toBe(extracted.total_rows);
    expect(listed.rows.every((r) => typeof r.order_id === 'string' && r.order_id.length > 0 && typeof r.total === 'number')).toBe(true);

    // The web console is inside the binary too.
    const consolePage = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    const asset = consolePage.match(/\/assets\/[\w.-]+\.js/)?.[0];
    expect(asset).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${port}${asset}`)).status).toBe(200);

    // The OpenAPI UI's files are inside the binary too.
    const ui = await fetch(`http://127.0.0.1:${port}/swagger/assets/swagger-ui-bundle.js`);
    expect({ status: ui.status, large: (await ui.arrayBuffer()).byteLength > 100_000 }).toEqual({ status: 200, large: true });

    // A scan: OCR runs in the binary's own worker threads, on its embedded recogniser and language data.
    const customers = ['Acme Corp', 'Globex', 'Initech'];
    const scan = new FormData();
    const lines = [['Order ID', 'Customer', 'Total'], ['A-17', customers[0]!, '1234.50'], ['B-22', customers[1]!, '99.00'], ['C-35', customers[2]!, '410.25']];
    scan.append('file', new File([await tableImage(lines)], 'scan.png', { type: 'image/png' }));
    const ocr = await fetch(`${url}/tables/${tableId}/extract`, { method: 'POST', headers, body: scan });
    const scanned = (await ocr.json()) as { status: string; result: { rows: Array<{ customer: string }> } };
    expect({ status: ocr.status, batch: scanned.status }).toEqual({ status: 200, batch: 'complete' });
    expect(scanned.result.rows.length).toBeGreaterThan(0);
    expect(scanned.result.rows.every((r) => customers.includes(r.customer))).toBe(true);

    proc.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(output.join('')).toContain('rowsmith: stopped');
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
}, 60_000);

test('the same binary is the admin CLI: keys and a backup of the store the server wrote', async () => {
  const created = await runCli(['key', 'create', '--org', 'org_default', '--name', 'from the binary', '--json']);
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ organization_id: 'org_default', name: 'from the binary', key: expect.stringMatching(/^rsk_/) });

  const listed = await runCli(['keys', 'list', '--json']);
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((k) => k.name).sort()).toEqual(['Bootstrap admin key', 'from the binary']);

  const backup = await runCli(['backup', join(dir, 'backup')]);
  expect(backup.code).toBe(0);
  expect(statSync(join(dir, 'backup', 'db', 'data.mdb')).size).toBeGreaterThan(0);
  expect(JSON.parse(readFileSync(join(dir, 'backup', 'manifest.json'), 'utf8'))).toMatchObject({ format: 'rowsmith-backup' });

  const unknown = await runCli(['no-such-command']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command');
}, 30_000);
