/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, any other), through Bun's own S3 client. A PUT
 * (or a multipart upload, completed at its end) makes an object appear whole, so nothing half
 * written is ever under a key. A file made on this machine (an export) is written to a local
 * temporary folder first, then uploaded from there.
 */
import { S3Client } from 'bun';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { S3FilesConfig } from '../../config';
import { storageFull } from '../db';
import { FilesUnavailable, refusedWrite, removeTemporaries, removeTemporariesOf, temporaryName, type FileContent, type FileStorage } from './storage';

/** 5 MiB parts (S3's least), two in flight: an upload holds a few parts in memory, not the file. */
const UPLOAD = { partSize: 5 * 1024 * 1024, queueSize: 2 };

/** The S3 error code of a failure, or its filesystem code (a local temporary file). */
const codeOf = (error: unknown) => String((error as { code?: unknown })?.code ?? '');

/** MinIO's answer when its drives are full: the storage-full answer, as a full disk is. */
function refusedUpload(error: unknown): unknown {
  return codeOf(error) === 'XMinioStorageFull' ? storageFull() : refusedWrite(error);
}

/** A key as the name of a local file. */
const flat = (key: string) => key.replaceAll('/', '_');

export class S3Storage implements FileStorage {
  readonly where: string;
  private readonly client: S3Client;

  /** `temporaryDir`: a local folder of this node's own, for the files made here before they are uploaded. */
  constructor(
    private readonly settings: S3FilesConfig,
    private readonly temporaryDir: string,
  ) {
    const { bucket, endpoint, region, accessKeyId, secretAccessKey, sessionToken } = settings;
    this.client = new S3Client({ bucket, endpoint: endpoint ?? undefined, region: region ?? undefined, accessKeyId: accessKeyId ?? undefined, secretAccessKey: secretAccessKey ?? undefined, sessionToken: sessionToken ?? undefined });
    // An endpoint's origin drops any user and password written into it.
    this.where = `bucket ${bucket}${endpoint ? ` at ${new URL(endpoint).origin}` : ''}${settings.prefix ? ` under ${settings.prefix}` : ''}`;
  }

  private object(key: string): string {
    return `${this.settings.prefix}${key}`;
  }

  /** The local temporary file of `key` is named after the whole key, so two keys never share one. */
  private local(key: string): string {
    return join(this.temporaryDir, flat(key));
  }

  /** Writes and removes an object of its own: what rowsmith does with the bucket, with its credentials. */
  async check(): Promise<void> {
    const probe = this.object(`.rowsmith-check/${randomUUID()}`);
    try {
      await this.client.write(probe, 'rowsmith start-up check');
      await this.client.delete(probe);
    } catch (error) {
      const code = codeOf(error);
      throw new FilesUnavailable(`the ${this.where} (ROWSMITH_FILES_S3_BUCKET) cannot be used: ${code ? `${code}: ` : ''}${(error as Error).message}`);
    }
    try {
      mkdirSync(this.temporaryDir, { recursive: true });
    } catch (error) {
      throw new FilesUnavailable(`the temporary folder ${this.temporaryDir} cannot be made: ${codeOf(error) || (error as Error).message}`);
    }
  }

  exists(key: string): Promise<boolean> {
    return this.client.exists(this.object(key));
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    try {
      await this.client.write(this.object(key), bytes);
    } catch (error) {
      throw refusedUpload(error);
    }
  }

  async writeFrom<T>(key: string, fill: (path: string) => Promise<T>): Promise<T> {
    const temp = temporaryName(this.local(key));
    try {
      mkdirSync(this.temporaryDir, { recursive: true });
      const result = await fill(temp);
      await this.client.write(this.object(key), Bun.file(temp), UPLOAD);
      return result;
    } catch (error) {
      throw refusedUpload(error);
    } finally {
      rmSync(temp, { force: true });
    }
  }

  async read(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await this.client.file(this.object(key)).arrayBuffer());
    } catch (error) {
      if (codeOf(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  async open(key: string): Promise<FileContent | null> {
    const file = this.client.file(this.object(key));
    try {
      // A stream, not the S3File itself: a Response of an S3File redirects the client to the bucket.
      return { size: (await file.stat()).size, body: file.stream() };
    } catch (error) {
      if (codeOf(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.delete(this.object(key));
  }

  async removeLeftovers(key: string): Promise<void> {
    removeTemporariesOf(this.local(key));
  }

  async removeIdleLeftovers(folder: string, idleMs: number): Promise<void> {
    removeTemporaries(this.temporaryDir, flat(`${folder}/`), idleMs);
  }
}
