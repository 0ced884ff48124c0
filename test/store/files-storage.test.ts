/**
 * The files' storage port on both adapters, the same tests: a folder, and an S3-compatible bucket
 * (s3rver, a real server on a local port, reached by Bun's S3 client). Uploads are stored once by
 * content, read back, and a missing one is null; an export file is written locally then stored
 * whole, streamed back, and removed; a writer that fails leaves nothing under the key or on disk.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type S3FilesConfig } from '../../src/config';
import { ExportFiles } from '../../src/store/exports.store';
import { FilesStore } from '../../src/store/files.store';
import { FolderStorage } from '../../src/store/files/folder';
import { S3Storage } from '../../src/store/files/s3';
import { FilesUnavailable, type FileStorage } from '../../src/store/files/storage';
import { ApiError } from '../../src/lib/errors';
import { tempDir } from '../helpers/app';
import { keysIn, startS3, type S3Server } from '../helpers/s3';

const PG = { ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: 'postgres://u@db/rowsmith' };

let s3: S3Server;
const root = tempDir('rowsmith-files-');
beforeAll(async () => {
  s3 = await startS3();
}, 30_000);
afterAll(async () => {
  await s3?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** The bucket's settings as the configuration reads them, under a prefix of the test's own. */
const bucketSettings = (prefix: string) => loadConfig({ ...PG, ...s3.env, ROWSMITH_FILES_S3_PREFIX: prefix }).files as S3FilesConfig;

interface Adapter {
  storage: FileStorage;
  /** Where the local temporary files are made. */
  temporaryDir: string;
  /** The keys stored, relative to the storage. */
  keys: () => Promise<string[]>;
  /** How many times `key` was written, where the server tells. */
  writesOf: ((key: string) => number) | null;
}

let made = 0;
const adapters: Record<string, () => Adapter> = {
  folder: () => {
    const dir = join(root, `folder-${++made}`);
    const list = (at: string): string[] => (existsSync(at) ? readdirSync(at, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)) : []);
    return { storage: new FolderStorage(dir), temporaryDir: join(dir, 'exports'), keys: async () => list(dir).sort(), writesOf: null };
  },
  bucket: () => {
    const prefix = `adapter-${++made}/`;
    const temporaryDir = join(root, `tmp-${made}`);
    return {
      storage: new S3Storage(bucketSettings(prefix), temporaryDir),
      temporaryDir,
      keys: async () => (await keysIn(s3, prefix)).map((key) => key.slice(prefix.length)),
      writesOf: (key) => s3.writes.filter((k) => k === `${prefix}${key}`).length,
    };
  },
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function bytesOf(body: Blob | ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

for (const [kind, make] of Object.entries(adapters)) {
  describe(`files in a ${kind}`, () => {
    test('an upload is stored once by its content, read back whole; a missing one reads as null', async () => {
      const { storage, keys, writesOf } = make();
      await storage.check();
      const files = new FilesStore(storage);
      const bytes = new TextEncoder().encode('Description,Qty\nPaper,2\n');
      const first = await files.put(bytes);
      const second = await files.put(bytes.slice());
      expect(second).toEqual(first);
      expect(first).toEqual({ key: `files/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`, checksum: sha256(bytes), size: bytes.byteLength });
      if (writesOf) expect(writesOf(first.key)).toBe(1);
      expect(await keys()).toEqual([first.key]);
      expect(await files.read(first.key)).toEqual(bytes);
      const absent = `files/00/${'0'.repeat(64)}`;
      expect(await files.read(absent)).toBeNull();
      await expect(files.read('../db/data.mdb')).rejects.toThrow(/not a file key/);
    });

    test('an export file is written locally, stored whole, streamed back with its size, and removed', async () => {
      const { storage, temporaryDir, keys } = make();
      const exportsFiles = new ExportFiles(storage);
      const record = { id: 'exprt_0001', format: 'csv' as const };
      // 12 MiB: more than two parts of a multipart upload.
      const line = 'row,"some text to fill the line",12345.67\n';
      const lines = Math.ceil((12 * 1024 * 1024) / line.length);
      const seen: string[] = [];
      const checksum = await exportsFiles.writeFrom(record, async (path) => {
        seen.push(path);
        const sink = Bun.file(path).writer();
        for (let i = 0; i < lines; i++) sink.write(line);
        await sink.end();
        const hash = createHash('sha256');
        for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
        return hash.digest('hex');
      });
      expect(seen[0]!.startsWith(temporaryDir)).toBe(true);
      expect(existsSync(seen[0]!)).toBe(false);
      expect(await keys()).toEqual(['exports/exprt_0001.csv']);
      const file = await exportsFiles.open(record);
      expect(file!.size).toBe(lines * line.length);
      const bytes = await bytesOf(file!.body);
      expect(bytes.byteLength).toBe(lines * line.length);
      expect(sha256(bytes)).toBe(checksum);
      await exportsFiles.remove(record);
      await exportsFiles.remove(record);
      expect(await exportsFiles.open(record)).toBeNull();
      expect(await keys()).toEqual([]);
    });

    test('a writer that fails leaves nothing under the key and no temporary file; leftovers of a stopped one are removed', async () => {
      const { storage, temporaryDir, keys } = make();
      const exportsFiles = new ExportFiles(storage);
      const record = { id: 'exprt_0002', format: 'json' as const };
      let temp = '';
      const failed = exportsFiles.writeFrom(record, async (path) => {
        temp = path;
        writeFileSync(path, '[{"a":');
        throw new Error('the rows could not be listed');
      });
      await expect(failed).rejects.toThrow('the rows could not be listed');
      expect(existsSync(temp)).toBe(false);
      expect(await keys()).toEqual([]);
      expect(await exportsFiles.open(record)).toBeNull();

      // What a process killed while writing leaves: temporary files named after the key.
      mkdirSync(temporaryDir, { recursive: true });
      const left = [temp.replace(/\.[0-9a-f]{12}\.tmp$/, '.0a1b2c3d4e5f.tmp'), temp.replace(/\.[0-9a-f]{12}\.tmp$/, '.abcdefabcdef.tmp')];
      for (const path of left) writeFileSync(path, '[{"a":');
      const other = join(temporaryDir, 'unrelated.tmp');
      writeFileSync(other, 'kept');
      await exportsFiles.removeLeftovers(record);
      expect(left.filter((path) => existsSync(path))).toEqual([]);
      expect(existsSync(other)).toBe(true);

      // The sweep's pass: any export's temporary file unwritten for the time given goes, a fresh one stays.
      const [idle, fresh] = left;
      for (const path of left) writeFileSync(path.replace('exprt_0002', 'exprt_0003'), '[');
      const longAgo = new Date(Date.now() - 60_000);
      utimesSync(idle!.replace('exprt_0002', 'exprt_0003'), longAgo, longAgo);
      await exportsFiles.removeIdleLeftovers(30_000);
      expect(existsSync(idle!.replace('exprt_0002', 'exprt_0003'))).toBe(false);
      expect(existsSync(fresh!.replace('exprt_0002', 'exprt_0003'))).toBe(true);
    });
  });
}

describe('a full disk where a file is written', () => {
  // A 1 MiB tmpfs made for the test, so it needs root, as test/faults/full-disk.test.ts does.
  const small = tempDir('rowsmith-files-full-');
  const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', [small]);
    rmSync(small, { recursive: true, force: true });
  });
  const twoMiB = new Uint8Array(2 * 1024 * 1024).fill(7);
  const full = async (write: Promise<unknown>) => {
    const error = await write.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, errorKey: 'service_unavailable' });
  };

  test.skipIf(!mounted)('is the storage-full answer (503), and leaves nothing, in a folder and in a bucket\'s temporary folder', async () => {
    const folder = new FolderStorage(join(small, 'files'));
    await full(folder.write('files/07/x', twoMiB));
    expect(await folder.exists('files/07/x')).toBe(false);
    const bucket = new S3Storage(bucketSettings('full/'), join(small, 'tmp'));
    await full(bucket.writeFrom('exports/exprt_full.csv', async (path) => writeFileSync(path, twoMiB)));
    expect(await keysIn(s3, 'full/')).toEqual([]);
    expect(readdirSync(join(small, 'tmp'))).toEqual([]);
  });
});

describe('the bucket in the configuration', () => {
  const bucket = { ...PG, ROWSMITH_FILES_S3_BUCKET: 'rowsmith-files' };

  test('on PostgreSQL only, and never with a files folder', () => {
    expect(loadConfig({ ...PG, DATA_DIR: '/srv/data' }).files).toEqual({ kind: 'folder', dir: '/srv/data' });
    expect(() => loadConfig({ ROWSMITH_FILES_S3_BUCKET: 'rowsmith-files' })).toThrow('ROWSMITH_FILES_S3_BUCKET needs ROWSMITH_STORE=postgres: on LMDB files stay in DATA_DIR, where backups find them');
    expect(() => loadConfig({ ...bucket, ROWSMITH_FILES_DIR: '/mnt/shared' })).toThrow('ROWSMITH_FILES_DIR and ROWSMITH_FILES_S3_BUCKET name two places for the same files: set one of them');
    expect(() => loadConfig({ ...PG, ROWSMITH_FILES_S3_ENDPOINT: 'http://minio:9000' })).toThrow('ROWSMITH_FILES_S3_ENDPOINT needs ROWSMITH_FILES_S3_BUCKET, the bucket it is for');
  });

  test('its settings, checked; credentials from ROWSMITH_FILES_S3_* or else the usual AWS ones', () => {
    expect(loadConfig({ ...bucket, ROWSMITH_FILES_S3_ENDPOINT: 'http://minio:9000/', ROWSMITH_FILES_S3_PREFIX: '/rowsmith/prod/', ROWSMITH_FILES_S3_ACCESS_KEY_ID: 'id', ROWSMITH_FILES_S3_SECRET_ACCESS_KEY: 'secret', AWS_ACCESS_KEY_ID: 'aws-id', AWS_SESSION_TOKEN: 'token' }).files).toEqual({
      kind: 's3',
      bucket: 'rowsmith-files',
      endpoint: 'http://minio:9000',
      region: null,
      prefix: 'rowsmith/prod/',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      sessionToken: null,
    });
    expect(loadConfig({ ...bucket, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'aws-id', AWS_SECRET_ACCESS_KEY: 'aws-secret', AWS_SESSION_TOKEN: 'token' }).files).toMatchObject({
      endpoint: null,
      region: 'eu-west-1',
      prefix: '',
      accessKeyId: 'aws-id',
      secretAccessKey: 'aws-secret',
      sessionToken: 'token',
    });
    expect(loadConfig({ ...bucket, ROWSMITH_FILES_S3_REGION: 'us-east-2', AWS_REGION: 'eu-west-1' }).files).toMatchObject({ region: 'us-east-2' });
    expect(() => loadConfig({ ...PG, ROWSMITH_FILES_S3_BUCKET: 'Rowsmith_Files' })).toThrow(/ROWSMITH_FILES_S3_BUCKET must be a bucket name/);
    expect(() => loadConfig({ ...bucket, ROWSMITH_FILES_S3_ENDPOINT: 'minio:9000' })).toThrow(/ROWSMITH_FILES_S3_ENDPOINT must be an http\(s\) URL/);
    expect(() => loadConfig({ ...bucket, ROWSMITH_FILES_S3_PREFIX: 'a/../b' })).toThrow(/ROWSMITH_FILES_S3_PREFIX must be a key prefix/);
    expect(() => loadConfig({ ...bucket, ROWSMITH_FILES_S3_ACCESS_KEY_ID: 'id' })).toThrow('ROWSMITH_FILES_S3_ACCESS_KEY_ID and ROWSMITH_FILES_S3_SECRET_ACCESS_KEY go together: set both or neither');
  });
});

describe('the bucket checked at start', () => {
  const refusal = async (settings: S3FilesConfig) => {
    const error = await new S3Storage(settings, join(root, 'tmp-check')).check().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FilesUnavailable);
    return (error as Error).message;
  };

  test('a bucket that does not exist is refused, named', async () => {
    expect(await refusal({ ...bucketSettings(''), bucket: 'no-such-bucket' })).toBe(
      `the bucket no-such-bucket at ${s3.endpoint} (ROWSMITH_FILES_S3_BUCKET) cannot be used: NoSuchBucket: The specified bucket does not exist`,
    );
  });

  test('credentials the server does not know are refused, without the secret', async () => {
    const message = await refusal({ ...bucketSettings('rowsmith/'), accessKeyId: 'unknown-key-id', secretAccessKey: 'secret-never-printed' });
    expect(message).toStartWith(`the bucket ${s3.bucket} at ${s3.endpoint} under rowsmith/ (ROWSMITH_FILES_S3_BUCKET) cannot be used: InvalidAccessKeyId`);
    expect(message).not.toContain('secret-never-printed');
  });

  test('an endpoint no server answers is refused, naming the bucket', async () => {
    expect(await refusal({ ...bucketSettings(''), endpoint: 'http://127.0.0.1:1' })).toStartWith(`the bucket ${s3.bucket} at http://127.0.0.1:1 (ROWSMITH_FILES_S3_BUCKET) cannot be used: ConnectionRefused`);
  });

  test('a bucket that can be written passes, and keeps nothing of the check', async () => {
    await new S3Storage(bucketSettings('checked/'), join(root, 'tmp-check')).check();
    expect(await keysIn(s3, 'checked/')).toEqual([]);
  });
});
