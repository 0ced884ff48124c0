/**
 * A full disk under a child server: the store on a small tmpfs made for the test (so it needs
 * root, and is skipped without it). Bulk writes and an extraction past the last free byte get 503
 * with Retry-After, the process stays up, everything acknowledged before is still there, and
 * writes work again once the filesystem has room.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDir } from '../helpers/app';
import { storeIndexProblems } from '../helpers/index-check';
import { startServer, type ServerProcess } from '../helpers/process';
import { Store } from '../../src/store/db';
import { RowsStore } from '../../src/store/rows.store';
import { TablesStore } from '../../src/store/tables.store';

const KEY = 'full-disk-admin-key-0123456789';
const mountPoint = tempDir('rowsmith-full-disk-');
const mount = (options: string) => spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mountPoint]).status === 0;
const canMount = process.getuid?.() === 0 && mount('size=4m');

let server: ServerProcess;
beforeAll(async () => {
  if (canMount) server = await startServer({ DATA_DIR: mountPoint, ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_RATE_LIMIT_PER_SECOND: '0' });
});
afterAll(async () => {
  if (canMount) {
    await server.stop('SIGKILL');
    spawnSync('umount', [mountPoint]);
  }
  rmSync(mountPoint, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown, form?: FormData) =>
  fetch(server.url + path, {
    method,
    headers: { authorization: `ApiKey ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
  });

test.skipIf(!canMount)('a full disk is 503 with Retry-After, loses nothing acknowledged, and writing resumes with room', async () => {
  const P = '/v1/projects/proj_default';
  const table = (await (await call('POST', `${P}/tables`, { name: 'T', columns_json: [{ id: 'a', name: 'A' }] })).json()) as { id: string };
  let acknowledged = 0;
  let refused: Response | undefined;
  for (let i = 0; i < 60 && !refused; i++) {
    const reply = await call('POST', `${P}/tables/${table.id}/rows/bulk`, { creates: Array.from({ length: 500 }, (_, j) => ({ a: `row ${i}-${j} ${'x'.repeat(100)}` })) });
    if (reply.status === 200) acknowledged += 500;
    else refused = reply;
  }
  expect(refused?.status).toBe(503);
  expect(refused!.headers.get('retry-after')).toBe('30');
  expect(((await refused!.json()) as { error_key: string }).error_key).toBe('service_unavailable');

  const form = new FormData();
  form.append('file', new File([`A\n${'value\n'.repeat(20_000)}`], 'big.csv', { type: 'text/csv' }));
  expect((await call('POST', `${P}/tables/${table.id}/extract`, undefined, form)).status).toBe(503);

  const batches = (await (await call('GET', `${P}/batches`)).json()) as { batches: Array<{ status: string }> };
  expect(batches.batches.filter((b) => b.status === 'processing')).toEqual([]);

  expect((await call('GET', '/healthz')).status).toBe(200);
  const after = (await (await call('GET', `${P}/tables/${table.id}`)).json()) as { row_count: number };
  expect(after.row_count).toBe(acknowledged);
  const counted = (await (await call('GET', `${P}/tables/${table.id}/rows/aggregate?aggs=count`)).json()) as { count: number };
  expect(counted.count).toBe(acknowledged);

  expect(mount('remount,size=64m')).toBe(true);
  expect((await call('POST', `${P}/tables/${table.id}/rows`, { a: 'after the disk had room again' })).status).toBe(201);
  expect(((await (await call('GET', `${P}/tables/${table.id}`)).json()) as { row_count: number }).row_count).toBe(acknowledged + 1);

  // The loads left their index entries to the background merge, whose transactions fail while the
  // disk is full (it tries again): with room it finishes, exactly (read from the store beside the
  // server).
  const store = new Store(mountPoint);
  try {
    const record = new TablesStore(store).get(table.id)!;
    const rows = new RowsStore(store);
    for (let i = 0; i < 200 && rows.markRecord(record.seq) !== undefined; i++) {
      await Bun.sleep(50);
      store.env.resetReadTxn();
    }
    expect(rows.markRecord(record.seq)).toBeUndefined();
    expect(storeIndexProblems(rows, new TablesStore(store).get(table.id)!)).toEqual([]);
  } finally {
    await store.close();
  }
}, 60_000);
