/**
 * Backup and restore as an operator runs them: `rowsmith backup` against a running server that
 * keeps writing (rows, and extractions that store new files), `rowsmith restore` into an empty
 * folder, and a server started on the restored folder that must answer as the original did for
 * everything the backup holds: tables, rows, row sources, batch downloads and exports, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/app';
import { runCli, startServer, type ServerProcess } from '../helpers/process';

const KEY = 'backup-test-admin-key-0123456789';
const P = '/v1/projects/proj_default';
const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'extract');
const CASES = JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as Array<{ file: string; table: { name: string; columns_json: unknown[] } }>;

const dirs: string[] = [];
let work: string;
let original: ServerProcess | null = null;
let restored: ServerProcess | null = null;

beforeAll(() => {
  work = tempDir('rowsmith-backup-');
  dirs.push(work);
});
afterAll(async () => {
  await original?.stop();
  await restored?.stop();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function client(server: ServerProcess) {
  const call = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method, headers: { authorization: `ApiKey ${KEY}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { ...init.headers, 'content-type': 'application/json' };
    }
    return fetch(`${server.url}${path}`, init);
  };
  const json = async (method: string, path: string, body?: unknown) => {
    const reply = await call(method, path, body);
    const parsed = (await reply.json()) as any;
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const bytes = async (path: string): Promise<{ status: number; bytes: Uint8Array }> => {
    const reply = await call('GET', path);
    return { status: reply.status, bytes: new Uint8Array(await reply.arrayBuffer()) };
  };
  /** Every item of a list, page after page. */
  const all = async (path: string, field: string, order = 'created_at.asc') => {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json('GET', `${path}?limit=100&order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      items.push(...page[field]);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  };
  return { call, json, bytes, all };
}

async function extract(api: ReturnType<typeof client>, tableId: string, name: string, content: Uint8Array | string, type: string) {
  const form = new FormData();
  form.append('file', new File([content], name, { type }));
  return api.json('POST', `${P}/tables/${tableId}/extract`, form);
}

async function createTable(api: ReturnType<typeof client>, name: string, columns: unknown[]): Promise<string> {
  return (await api.json('POST', `${P}/tables`, { name, columns_json: columns })).id;
}

/** What a client can read of the store: each table with its rows, each row's source, each batch's downloads, each export's file. */
async function readEverything(api: ReturnType<typeof client>) {
  const tables = new Map<string, { table: any; rows: Map<string, any>; sources: Map<string, { status: number; bytes: Uint8Array }> }>();
  for (const table of await api.all(`${P}/tables`, 'tables')) {
    const rows = new Map<string, any>();
    const sources = new Map<string, { status: number; bytes: Uint8Array }>();
    for (const row of await api.all(`${P}/tables/${table.id}/rows`, 'rows')) {
      rows.set(row.id, row);
      if (row.batch_id) sources.set(row.id, await api.bytes(`${P}/tables/${table.id}/rows/${row.id}/source`));
    }
    const { row_count: _count, updated_at: _updated, ...definition } = table;
    tables.set(table.id, { table: definition, rows, sources });
  }
  const batches = new Map<string, { batch: any; downloads: Record<string, Uint8Array> }>();
  for (const batch of await api.all(`${P}/batches`, 'batches')) {
    const downloads: Record<string, Uint8Array> = {};
    if (!['uploading', 'processing', 'merging'].includes(batch.status)) {
      for (const format of ['csv', 'json']) {
        const download = await api.bytes(`${P}/batches/${batch.id}/download/${format}`);
        expect(download.status).toBe(200);
        downloads[format] = download.bytes;
      }
    }
    batches.set(batch.id, { batch, downloads });
  }
  return { tables, batches };
}

describe('backup and restore', () => {
  let backupDir: string;
  let before: Awaited<ReturnType<typeof readEverything>>;
  const exports = new Map<string, { record: any; bytes: Uint8Array }>();
  let liveTable: string;
  let logTable: string;

  test('a backup taken while the server writes holds the store and every file it names', async () => {
    const dataDir = join(work, 'data');
    original = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY });
    const api = client(original);

    // Rows with sources: a PDF and a CSV, each into a table of its own columns.
    const extracted: string[] = [];
    for (const file of ['orders.pdf', 'contacts.csv']) {
      const fixture = CASES.find((c) => c.file === file)!;
      const table = await createTable(api, `${fixture.table.name} from ${file}`, fixture.table.columns_json);
      const type = file.endsWith('.pdf') ? 'application/pdf' : 'text/csv';
      const reply = await extract(api, table, file, readFileSync(join(FIXTURES, 'files', file)), type);
      expect(reply.status).toBe('complete');
      extracted.push(table);
    }
    liveTable = await createTable(api, 'Live', [{ id: 'ref', name: 'Ref', required: true }, { id: 'amount', name: 'Amount', type: 'number' }]);
    logTable = await createTable(api, 'Log', [{ id: 'n', name: 'N', type: 'number' }, { id: 'note', name: 'Note' }]);
    for (let n = 0; n < 20; n++) await api.json('POST', `${P}/tables/${logTable}/rows`, { n, note: `before ${n}` });

    // Finished exports of a table with sources, as CSV and XLSX.
    for (const format of ['csv', 'xlsx']) {
      const started = await api.json('GET', `${P}/tables/${extracted[0]}/export?format=${format}`);
      let record = started;
      for (let i = 0; record.status === 'processing' && i < 200; i++) {
        await Bun.sleep(25);
        record = await api.json('GET', `${P}/exports/${started.id}`);
      }
      expect(record.status).toBe('complete');
      const download = await api.bytes(`${P}/exports/${record.id}/download`);
      expect(download.status).toBe(200);
      exports.set(record.id, { record, bytes: download.bytes });
    }

    // A writer keeps adding rows, and extracting new small files (new uploads), through the backup.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        written++;
        if (written % 4 === 0) {
          const reply = await extract(api, liveTable, `live-${written}.csv`, `Ref,Amount\nL-${written},${written}\n`, 'text/csv');
          expect(reply.status).toBe('complete');
        } else await api.json('POST', `${P}/tables/${logTable}/rows`, { n: 1000 + written, note: `during ${written}` });
      }
    })();
    while (written < 12) await Bun.sleep(10);
    backupDir = join(work, 'backups', 'nightly');
    const writtenAtStart = written;
    const backup = await runCli(['backup', backupDir, '--json'], { DATA_DIR: dataDir });
    await Bun.sleep(200);
    writing = false;
    await writer;
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    expect(written - writtenAtStart).toBeGreaterThan(0);
    const reported = JSON.parse(backup.stdout);
    expect(reported).toMatchObject({ dir: backupDir, replaced: false, missing: [] });

    before = await readEverything(api);
    await original.stop();
    original = null;

    // The backup is a DATA_DIR layout with a manifest naming each file's size and SHA-256.
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'rowsmith-backup', format_version: 1, rowsmith_version: expect.any(String), source: dataDir });
    const paths = manifest.files.map((f: { path: string }) => f.path);
    expect(paths[0]).toBe('db/data.mdb');
    expect(paths.filter((p: string) => p.startsWith('exports/')).sort()).toEqual([...exports.keys()].map((id) => `exports/${id}.${exports.get(id)!.record.csv_key ? 'csv' : 'xlsx'}`).sort());
    expect(paths.filter((p: string) => p.startsWith('files/')).length).toBeGreaterThanOrEqual(3);
    expect(manifest.counts).toMatchObject({ tables: 4, exports: 2, files: paths.length - 1 });
    expect(manifest.counts.rows).toBeGreaterThanOrEqual(20 + 6 + 5);
    expect(readdirSync(join(work, 'backups'))).toEqual(['nightly']);
  }, 120_000);

  test('restore into an empty folder gives a server that answers as the original did', async () => {
    const target = join(work, 'restored');
    mkdirSync(target);
    const result = await runCli(['restore', backupDir, '--data', target], {});
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`into ${target}`);
    expect(result.stdout).toContain('every file matched its SHA-256');
    expect(readdirSync(target).sort()).toEqual(['db', 'exports', 'files']);

    restored = await startServer({ DATA_DIR: target });
    const api = client(restored);
    const after = await readEverything(api);

    // The tables were all made before the backup; rows written during it may be missing, never changed.
    expect([...after.tables.keys()].sort()).toEqual([...before.tables.keys()].sort());
    let sources = 0;
    for (const [id, then] of before.tables) {
      const now = after.tables.get(id)!;
      if (id === logTable || id === liveTable) {
        // Written during the backup: their counters moved on after the snapshot.
        const stable = ({ data_version: _v, last_used_at: _l, usage_count: _u, ...rest }: any) => rest;
        expect(stable(now.table)).toEqual(stable(then.table));
      } else {
        expect(now.table).toEqual(then.table);
        expect([...now.rows.keys()]).toEqual([...then.rows.keys()]);
      }
      expect(now.rows.size).toBeGreaterThan(0);
      for (const [rowId, row] of now.rows) {
        expect(row).toEqual(then.rows.get(rowId));
        if (!row.batch_id) continue;
        // A row from a file always has its file: the source answers, with the same bytes.
        const source = now.sources.get(rowId)!;
        expect(source.status).toBe(200);
        expect(source.bytes).toEqual(then.sources.get(rowId)!.bytes);
        sources++;
      }
    }
    expect(sources).toBeGreaterThanOrEqual(11);
    expect(after.tables.get(logTable)!.rows.size).toBeGreaterThan(20);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.counts.rows).toBe([...after.tables.values()].reduce((sum, t) => sum + t.rows.size, 0));

    // Batches: those the backup holds are as they were, downloads byte for byte.
    for (const [id, { batch, downloads }] of after.batches) {
      const then = before.batches.get(id)!;
      if (then.batch.status !== batch.status) {
        // Caught mid-way by the snapshot: a restart fails what was interrupted.
        expect(batch.status).toBe('failed');
        continue;
      }
      expect(batch).toEqual(then.batch);
      expect(downloads).toEqual(then.downloads);
    }
    expect(after.batches.size).toBeGreaterThanOrEqual(3);

    // Exports: the records and the files, byte for byte.
    for (const [id, { record, bytes }] of exports) {
      expect(await api.json('GET', `${P}/exports/${id}`)).toEqual(record);
      const download = await api.bytes(`${P}/exports/${id}/download`);
      expect(download.status).toBe(200);
      expect(download.bytes).toEqual(bytes);
    }
  }, 120_000);

  test('restore refuses a folder in use, a store without --force, and replaces it with --force', async () => {
    const target = join(work, 'restored');
    const inUse = await runCli(['restore', backupDir, '--data', target, '--force'], {});
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/is in use by process \d+/);
    await restored!.stop();
    restored = null;

    const refused = await runCli(['restore', backupDir, '--data', target], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds a store');
    expect(refused.stderr).toContain('--force');

    const forced = await runCli(['restore', backupDir, '--data', target, '--force', '--json'], {});
    expect(forced.code).toBe(0);
    const { previous } = JSON.parse(forced.stdout);
    expect(previous).toStartWith(`${target}.replaced-`);
    expect(readdirSync(previous).sort()).toEqual(['db', 'exports', 'files']);
    expect(readdirSync(target).sort()).toEqual(['db', 'exports', 'files']);
  }, 60_000);

  test('a damaged or incomplete backup is refused, and nothing is written', async () => {
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    const upload = manifest.files.find((f: { path: string }) => f.path.startsWith('files/')).path as string;
    const exported = manifest.files.find((f: { path: string }) => f.path.startsWith('exports/')).path as string;

    const damaged = join(work, 'damaged');
    cpSync(backupDir, damaged, { recursive: true });
    const bytes = readFileSync(join(damaged, upload));
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(join(damaged, upload), bytes);
    rmSync(join(damaged, exported));
    const target = join(work, 'from-damaged');
    const result = await runCli(['restore', damaged, '--data', target], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not match its manifest; nothing was restored');
    expect(result.stderr).toContain(`${upload}: its content is not the one recorded`);
    expect(result.stderr).toContain(`${exported}: missing`);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(work).filter((name) => name.includes('from-damaged'))).toEqual([]);

    // A store that was damaged is refused just the same.
    cpSync(backupDir, damaged, { recursive: true, force: true });
    const store = readFileSync(join(damaged, 'db/data.mdb'));
    store[100]! ^= 0x01;
    writeFileSync(join(damaged, 'db/data.mdb'), store);
    const again = await runCli(['restore', damaged, '--data', target], {});
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('db/data.mdb: its content is not the one recorded');

    const notBackup = await runCli(['restore', join(work, 'restored', 'files'), '--data', target], {});
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain('is not a rowsmith backup');
  }, 60_000);

  test('backup refuses a folder that holds something else, and replaces an earlier backup', async () => {
    const dataDir = join(work, 'restored');
    const busy = join(work, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'keep me');
    const refused = await runCli(['backup', busy], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not empty and holds no rowsmith backup');
    expect(readdirSync(busy)).toEqual(['notes.txt']);

    const earlier = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    const replaced = await runCli(['backup', backupDir, '--json'], { DATA_DIR: dataDir });
    expect(replaced.code).toBe(0);
    expect(JSON.parse(replaced.stdout)).toMatchObject({ replaced: true });
    const now = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(now.created_at > earlier.created_at).toBe(true);
    const { bytes: _now, ...records } = now.counts;
    const { bytes: _earlier, ...recordsEarlier } = earlier.counts;
    expect(records).toEqual(recordsEarlier);
    expect(readdirSync(join(work, 'backups'))).toEqual(['nightly']);
  }, 60_000);
});
