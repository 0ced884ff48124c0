/** extract-stream as a client sees it: a real SSE parser reading a child server's stream, and a client that leaves early. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { tempDir } from '../helpers/app';
import { startServer, type ServerProcess } from '../helpers/process';

const KEY = 'stream-test-admin-key-0123456789';
const P = '/v1/projects/proj_default';
let server: ServerProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDir();
  server = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY });
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const headers = { authorization: `ApiKey ${KEY}` };

async function createTable(): Promise<string> {
  const reply = await fetch(`${server.url}${P}/tables`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `Orders ${Math.random()}`, columns_json: [{ id: 'order_id', name: 'Order ID', required: true }, { id: 'total', name: 'Total', type: 'number' }] }),
  });
  return ((await reply.json()) as { id: string }).id;
}

test('events arrive in order with ids, one file after another, ending with the body of the JSON endpoint', async () => {
  const table = await createTable();
  const form = new FormData();
  form.append('file', new File(['Order ID,Total\nA-1,10\nA-2,20\n'], 'a.csv', { type: 'text/csv' }));
  form.append('file', new File(['{broken'], 'b.json', { type: 'application/json' }));
  form.append('text', 'Order ID: C-1\nTotal: 5');
  const response = await fetch(`${server.url}${P}/tables/${table}/extract-stream`, { method: 'POST', headers, body: form });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');

  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) parser.feed(decoder.decode(chunk, { stream: true }));

  expect(events.map((e) => e.event)).toEqual([
    'batch',
    'file', 'rows', 'progress',
    'file', 'file_error', 'progress',
    'file', 'rows', 'progress',
    'done',
  ]);
  expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
  const data = events.map((e) => JSON.parse(e.data));
  expect(data[0]).toMatchObject({ status: 'uploading', file_count: 3, table_id: table });
  expect(data[1]).toMatchObject({ file_name: 'a.csv', index: 0 });
  expect(data[2].rows.map((r: any) => [r.order_id, r.total])).toEqual([['A-1', 10], ['A-2', 20]]);
  expect(data[3]).toEqual({ files_done: 1, file_count: 3, total_rows: 2 });
  expect(data[5]).toMatchObject({ file_name: 'b.json', error: expect.stringContaining('not valid JSON') });
  expect(data[9]).toEqual({ files_done: 3, file_count: 3, total_rows: 3 });
  const done = data[10];
  expect(done).toMatchObject({ batch_id: data[0].id, status: 'partial', success_count: 2, fail_count: 1, total_rows: 3 });
  expect(done.files.map((f: any) => f.file_name)).toEqual(['a.csv', 'b.json', 'text.txt']);
});

test('errors before the batch starts are ordinary JSON errors', async () => {
  const response = await fetch(`${server.url}${P}/tables/tbl_missing/extract-stream`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'a: b' }) });
  expect(response.status).toBe(404);
  expect(((await response.json()) as any).error_key).toBe('table_not_found');
});

test('a client that disconnects mid-stream does not stop the batch', async () => {
  const table = await createTable();
  const csv = `Order ID,Total\n${Array.from({ length: 20_000 }, (_, i) => `X-${i},${i}`).join('\n')}\n`;
  const form = new FormData();
  form.append('file', new File([csv], 'big.csv', { type: 'text/csv' }));
  const controller = new AbortController();
  const response = await fetch(`${server.url}${P}/tables/${table}/extract-stream`, { method: 'POST', headers, body: form, signal: controller.signal });
  let batchId = '';
  const parser = createParser({ onEvent: (event) => {
    if (event.event === 'batch') batchId = JSON.parse(event.data).id;
  } });
  const reader = response.body!.getReader();
  while (!batchId) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(new TextDecoder().decode(value));
  }
  controller.abort();
  expect(batchId).toStartWith('batch_');

  const deadline = Date.now() + 30_000;
  let batch: any;
  for (;;) {
    batch = await (await fetch(`${server.url}${P}/batches/${batchId}`, { headers })).json();
    if (!['uploading', 'processing', 'merging'].includes(batch.status) || Date.now() > deadline) break;
    await Bun.sleep(50);
  }
  expect(batch).toMatchObject({ status: 'complete', total_rows: 20_000 });
  const table_ = (await (await fetch(`${server.url}${P}/tables/${table}`, { headers })).json()) as any;
  expect(table_.row_count).toBe(20_000);
}, 60_000);
