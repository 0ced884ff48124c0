/**
 * Where uploaded and exported files are kept, behind one port with two adapters: a folder
 * (`folder.ts`: DATA_DIR, or one that every node mounts) and an S3-compatible bucket (`s3.ts`).
 * Keys are the same relative paths on both (`files/ab/<sha256>`, `exports/<id>.<format>`), and a
 * file appears under its key whole or not at all, so a crash never leaves half a file there.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { storageFull } from '../db';

/** A stored file to send: a file on disk (Bun sends it from there) or a stream, and its size. */
export interface FileContent {
  body: Blob | ReadableStream<Uint8Array>;
  size: number;
}

export interface FileStorage {
  /** Where the files are, for the start-up line: a folder, or the bucket and its endpoint (never a secret). */
  readonly where: string;
  /** Checks at start that files can be written and removed; throws `FilesUnavailable` naming the place. */
  check(): Promise<void>;
  exists(key: string): Promise<boolean>;
  write(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * Writes a file made on this machine: `fill` writes a local temporary file (its path given),
   * which then goes under `key`. The temporary file is removed whatever happens.
   */
  writeFrom<T>(key: string, fill: (path: string) => Promise<T>): Promise<T>;
  /** The file's bytes; null when there is none. */
  read(key: string): Promise<Uint8Array | null>;
  /** The file to stream, without reading it into memory; null when there is none. */
  open(key: string): Promise<FileContent | null>;
  /** Removes the file; one already gone is no error. */
  remove(key: string): Promise<void>;
  /** Removes the temporary files that writers of `key` stopped mid-way left on this machine. */
  removeLeftovers(key: string): Promise<void>;
  /** Removes the temporary files of any key in `folder` (`exports`) that have not been written for `idleMs`. */
  removeIdleLeftovers(folder: string, idleMs: number): Promise<void>;
}

/** The files' storage cannot be used at start: the message names it and why, never a secret. */
export class FilesUnavailable extends Error {}

/** Errors of a filesystem with no room left (or no quota). */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** A write refused for want of room is the storage-full answer (503); other errors stay as they are. */
export function refusedWrite(error: unknown): unknown {
  return NO_SPACE.has((error as NodeJS.ErrnoException)?.code ?? '') ? storageFull() : error;
}

/** A temporary name beside `path`, its own for each writer: two writers of one file never share one. */
export function temporaryName(path: string): string {
  return `${path}.${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Removes the temporary files in `folder` whose names start with `prefix`: all of them, or with
 * `idleMs` only those unwritten for that long (a writer still at work keeps writing its file).
 */
export function removeTemporaries(folder: string, prefix: string, idleMs?: number): void {
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const file = join(folder, name);
    try {
      if (idleMs === undefined || Date.now() - statSync(file).mtimeMs >= idleMs) rmSync(file, { force: true });
    } catch (error) {
      // Its writer finished (renamed it) or another node removed it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Removes the temporary files `temporaryName` made for `path`. */
export function removeTemporariesOf(path: string): void {
  removeTemporaries(dirname(path), `${basename(path)}.`);
}
