/**
 * Uploaded files under DATA_DIR/files, content-addressed by SHA-256 (`files/ab/abcdef...`): the same
 * bytes are stored once, and a file is written to a temporary name and renamed, so a crash never
 * leaves half a file under its real name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { storageFull } from './db';

/** Errors of a filesystem with no room left (or no quota). */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

export interface StoredFile {
  /** `files/<first two hex digits>/<sha256>`, relative to DATA_DIR. */
  key: string;
  checksum: string;
  size: number;
}

export class FilesStore {
  constructor(private readonly dataDir: string) {}

  private path(key: string): string {
    if (!/^files\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(key)) throw new Error(`not a file key: ${key}`);
    return join(this.dataDir, key);
  }

  put(bytes: Uint8Array): StoredFile {
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const key = `files/${checksum.slice(0, 2)}/${checksum}`;
    const path = this.path(key);
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        writeFileSync(temp, bytes, { flush: true });
      } catch (error) {
        rmSync(temp, { force: true });
        throw NO_SPACE.has((error as NodeJS.ErrnoException).code ?? '') ? storageFull() : error;
      }
      renameSync(temp, path);
    }
    return { key, checksum, size: bytes.byteLength };
  }

  read(key: string): Uint8Array | null {
    try {
      return readFileSync(this.path(key));
    } catch {
      return null;
    }
  }
}
