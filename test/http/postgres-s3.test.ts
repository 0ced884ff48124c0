/**
 * Files in an S3-compatible bucket (s3rver, a real server on a local port) with two nodes that
 * share only PostgreSQL and the bucket: each has its own DATA_DIR and no files folder in common.
 * An upload to the API node goes to the bucket, the worker node reads it from there to extract
 * it, an export is written by the worker into the bucket and downloads from the API node, and an
 * expired export's file leaves the bucket. The server itself refuses to start on a bucket it
 * cannot use.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { ADMIN_KEY, form, startPostgresApp, tempDir, type PostgresTestApp } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';
import { startServer } from '../helpers/process';
import { keysIn, startS3, type S3Server } from '../helpers/s3';

const P = '/v1/projects/proj_default';
const PREFIX = 'nodes/';

describe.skipIf(!POSTGRES_BIN)('files in an S3-compatible bucket', () => {
  let cluster: PgCluster;
  let s3: S3Server;
  let api: PostgresTestApp;
  let worker: PostgresTestApp;
  beforeAll(async () => {
    [cluster, s3] = await Promise.all([startPostgres(), startS3()]);
    // The bucket's settings as a node reads them from its environment.
    const { files } = loadConfig({ ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: 'postgres://u@db/rowsmith', ...s3.env, ROWSMITH_FILES_S3_PREFIX: PREFIX });
    api = await startPostgresApp(cluster, { config: { role: 'api', files } });
    worker = await startPostgresApp(cluster, { config: { role: 'worker', files }, database: api.database });
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await s3?.stop();
    await cluster?.stop();
  });

  const get = (path: string) => api.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `ApiKey ${ADMIN_KEY}` } }));
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  /** The files a node's DATA_DIR holds. */
  const local = (app: PostgresTestApp) => readdirSync(app.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));

  test('an upload goes to the bucket, the worker extracts it from there, and its export is written to the bucket and downloaded', async () => {
    const csv = new TextEncoder().encode('Description,Qty\nPaper A4,2\nStapler,1\n');
    const table = (await api.request('POST', `${P}/tables`, { body: { name: 'Orders', columns_json: [{ id: 'item', name: 'Item' }, { id: 'qty', name: 'Quantity', type: 'number' }] } })).body.id;
    const extracted = await api.request('POST', `${P}/tables/${table}/extract`, { raw: form([['orders.csv', csv, 'text/csv']]) });
    // The API node runs no jobs: the worker read the file.
    expect(extracted.status).toBe(200);
    expect(extracted.body).toMatchObject({ status: 'complete', total_rows: 2 });

    // The upload, stored once under its checksum in the bucket, and in neither node's folder.
    const key = `files/${sha256(csv).slice(0, 2)}/${sha256(csv)}`;
    expect(await keysIn(s3, `${PREFIX}files/`)).toEqual([`${PREFIX}${key}`]);
    expect(s3.writes.filter((k) => k === `${PREFIX}${key}`)).toHaveLength(1);
    expect([...local(api), ...local(worker)]).toEqual([]);
    const rows = (await api.request('GET', `${P}/tables/${table}/rows?order=qty.asc`)).body.rows;
    expect(rows.map((r: { item: string; qty: number }) => [r.item, r.qty])).toEqual([
      ['Stapler', 1],
      ['Paper A4', 2],
    ]);
    const source = await get(`${P}/tables/${table}/rows/${rows[0].id}/source`);
    expect(source.status).toBe(200);
    expect(new Uint8Array(await source.arrayBuffer())).toEqual(csv);

    // The same bytes again: nothing new is written to the bucket.
    expect((await api.request('POST', `${P}/tables/${table}/extract`, { raw: form([['again.csv', csv, 'text/csv']]) })).status).toBe(200);
    expect(s3.writes.filter((k) => k === `${PREFIX}${key}`)).toHaveLength(1);

    const started = (await api.request('GET', `${P}/tables/${table}/export?format=csv&order=qty.asc`)).body;
    let record = started;
    for (const deadline = Date.now() + 20_000; record.status === 'processing' && Date.now() < deadline; await Bun.sleep(50)) {
      record = (await api.request('GET', `${P}/exports/${started.id}`)).body;
    }
    expect(record.status).toBe('complete');
    expect(await keysIn(s3, `${PREFIX}exports/`)).toEqual([`${PREFIX}exports/${started.id}.csv`]);
    // The worker wrote it in its temporary folder, which it emptied.
    expect([...local(api), ...local(worker)]).toEqual([]);
    const download = await get(`${P}/exports/${started.id}/download`);
    expect(download.status).toBe(200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(Number(download.headers.get('content-length'))).toBe(bytes.byteLength);
    expect(sha256(bytes)).toBe(record.checksum);
    const lines = new TextDecoder().decode(bytes).trim().split(/\r?\n/);
    expect(lines).toHaveLength(5);
    expect(lines.slice(1).map((line) => line.split(',').slice(1, 3).join(','))).toEqual(['Stapler,1', 'Stapler,1', 'Paper A4,2', 'Paper A4,2']);

    // Expired: the record goes, and its file leaves the bucket.
    const stored = (await api.services.port.exports.get(started.id))!;
    await api.services.port.exports.put({ ...stored, expires_at: Date.now() - 1 });
    expect(await api.services.exports.purgeExpired()).toBe(1);
    expect(await keysIn(s3, `${PREFIX}exports/`)).toEqual([]);
    expect((await get(`${P}/exports/${started.id}/download`)).status).toBe(404);
  }, 60_000);

  test('the server starts on the bucket and says so; on a bucket it cannot use it stops with one line naming it', async () => {
    await cluster.sql.unsafe('CREATE DATABASE rowsmith_s3_process');
    const { port, username } = cluster.options;
    const dataDir = tempDir('rowsmith-s3-process-');
    const env = { DATA_DIR: dataDir, ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/rowsmith_s3_process`, ROWSMITH_BOOTSTRAP_KEY: ADMIN_KEY, ...s3.env };
    try {
      const server = await startServer(env);
      try {
        expect(server.output()).toContain(`(data in PostgreSQL, files in bucket ${s3.bucket} at ${s3.endpoint})`);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const refused = (await startServer({ ...env, ROWSMITH_FILES_S3_BUCKET: 'no-such-bucket', ROWSMITH_FILES_S3_ACCESS_KEY_ID: 'unknown-key-id', ROWSMITH_FILES_S3_SECRET_ACCESS_KEY: 'secret-never-printed' }).catch((error: Error) => error)) as Error;
      expect(refused.message).toContain('server exited with 1');
      expect(refused.message).toContain(`rowsmith: the bucket no-such-bucket at ${s3.endpoint} (ROWSMITH_FILES_S3_BUCKET) cannot be used: `);
      expect(refused.message).not.toContain('secret-never-printed');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
