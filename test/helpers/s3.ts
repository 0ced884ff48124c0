/**
 * A throwaway S3-compatible server for tests: s3rver (from npm, pure JavaScript) on a free port of
 * this process, keeping its objects in a temp folder, with one bucket. Its one account is s3rver's
 * own (`S3RVER`/`S3RVER`), whose signatures it checks.
 */
import { S3Client } from 'bun';
import type { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import S3rver from 's3rver';
import { tempDir } from './app';

export const S3_ACCESS_KEY_ID = 'S3RVER';
export const S3_SECRET_ACCESS_KEY = 'S3RVER';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** The ROWSMITH_FILES_S3_* settings of the bucket. */
  env: Record<string, string>;
  /** A client of the bucket of its own, to look at what rowsmith stored. */
  client: S3Client;
  /** Keys written by a PUT or a completed multipart upload, in order. */
  writes: string[];
  stop: () => Promise<void>;
}

export async function startS3(bucket = 'rowsmith-test'): Promise<S3Server> {
  const directory = tempDir('rowsmith-s3-');
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const writes: string[] = [];
  // s3rver is a Koa app, so an emitter, which its types leave out.
  (server as unknown as EventEmitter).on('event', (event: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => {
    for (const record of event.Records) if (record.eventName.startsWith('ObjectCreated:')) writes.push(decodeURIComponent(record.s3.object.key));
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { ROWSMITH_FILES_S3_BUCKET: bucket, ROWSMITH_FILES_S3_ENDPOINT: endpoint, ROWSMITH_FILES_S3_ACCESS_KEY_ID: S3_ACCESS_KEY_ID, ROWSMITH_FILES_S3_SECRET_ACCESS_KEY: S3_SECRET_ACCESS_KEY };
  const client = new S3Client({ endpoint, bucket, accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY });
  const stop = async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  };
  return { endpoint, bucket, env, client, writes, stop };
}

/** Every key in the bucket under `prefix`. */
export async function keysIn(s3: S3Server, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await s3.client.list({ prefix, startAfter: after, maxKeys: 1000 });
    keys.push(...(page.contents ?? []).map((object) => object.key));
    if (!page.isTruncated || !page.contents?.length) return keys.sort();
    after = page.contents.at(-1)!.key;
  }
}
