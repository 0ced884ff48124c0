/**
 * `npm run bench -- workers`: extraction throughput with 1, 2 and 3 worker nodes on one PostgreSQL.
 * A throwaway cluster (test/helpers/postgres.ts), one API node (ROWSMITH_ROLE=api) and N worker
 * nodes (ROWSMITH_ROLE=worker, one job at a time each, sharing one files folder) run as child
 * processes, as a user runs them. One batch of WORKERS_PAGES scanned pages (12 by default: PNG
 * invoices drawn as the OCR tests draw them, each read by OCR) is sent to the API node; the time
 * is from the request to its answer. Every node's OCR model is warmed by one page first.
 */
import { SQL } from 'bun';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { drawInvoice, INVOICE_ROWS } from '../test/extract/ocr/draw';
import { tempDir } from '../test/helpers/app';
import { POSTGRES_BIN, startPostgres } from '../test/helpers/postgres';
import { startServer, type ServerProcess } from '../test/helpers/process';
import { machine, printTable } from './lib';

const KEY = 'bench-workers-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const headers = { authorization: `ApiKey ${KEY}` };

async function extract(api: ServerProcess, pages: number): Promise<{ ms: number; rows: number; status: string }> {
  const table = await fetch(`${api.url}${P}/tables`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Scans ${Math.random()}`, columns_json: [{ id: 'item', name: 'Item' }, { id: 'qty', name: 'Quantity', type: 'number' }] }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  const form = new FormData();
  // Pages that differ (turned by a quarter or not), so the files are not all one stored file.
  for (let i = 0; i < pages; i++) form.append('file', new File([drawInvoice(i % 2 ? 2 : 0).png], `page-${i}.png`, { type: 'image/png' }));
  const started = performance.now();
  const reply = (await (await fetch(`${api.url}${P}/tables/${table.id}/extract`, { method: 'POST', headers, body: form })).json()) as { status: string; total_rows: number };
  return { ms: performance.now() - started, rows: reply.total_rows, status: reply.status };
}

export async function run(): Promise<void> {
  if (!POSTGRES_BIN) {
    console.log('workers: skipped, no PostgreSQL (apt-get install -y postgresql)');
    return;
  }
  const pages = Number(process.env.WORKERS_PAGES ?? 12);
  const cluster = await startPostgres();
  const root = tempDir('rowsmith-bench-workers-');
  const nodes: ServerProcess[] = [];
  try {
    await cluster.sql.unsafe('CREATE DATABASE bench_workers');
    mkdirSync(join(root, 'files'));
    const { port, username } = cluster.options;
    const env = {
      ROWSMITH_STORE: 'postgres',
      ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/bench_workers`,
      ROWSMITH_BOOTSTRAP_KEY: KEY,
      ROWSMITH_FILES_DIR: join(root, 'files'),
      ROWSMITH_WORKER_CONCURRENCY: '1',
      ROWSMITH_REQUEST_TIMEOUT_MS: '3600000',
    };
    const node = async (name: string, role: string) => {
      mkdirSync(join(root, name));
      const started = await startServer({ ...env, DATA_DIR: join(root, name), ROWSMITH_ROLE: role }, 60_000);
      nodes.push(started);
      return started;
    };
    const api = await node('api', 'api');
    const table: Array<Record<string, string | number>> = [];
    let one = 0;
    for (let workers = 1; workers <= 3; workers++) {
      await node(`worker-${workers}`, 'worker');
      // One page per worker first, so that every worker has loaded its OCR model before the clock runs.
      await extract(api, workers);
      const { ms, rows, status } = await extract(api, pages);
      if (workers === 1) one = ms;
      table.push({
        workers,
        pages,
        status,
        rows: `${rows} of ${pages * INVOICE_ROWS.length}`,
        'seconds': (ms / 1000).toFixed(1),
        'pages/min': ((pages / ms) * 60_000).toFixed(1),
        'vs 1 worker': `${(one / ms).toFixed(2)}x`,
      });
    }
    printTable(`Extraction throughput by worker nodes (one batch of ${pages} scanned pages, one job at a time per worker; ${machine()})`, table);
  } finally {
    for (const n of nodes) await n.stop('SIGKILL');
    await cluster.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
