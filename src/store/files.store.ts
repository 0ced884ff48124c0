/**
 * Uploaded files, content-addressed by SHA-256 (`files/ab/abcdef...`) in the files' storage (a
 * folder or a bucket, `files/storage.ts`): the same bytes are stored once.
 */
import { createHash } from 'node:crypto';
import type { FileStorage } from './files/storage';

export interface StoredFile {
  /** `files/<first two hex digits>/<sha256>`, relative to the storage (DATA_DIR, the shared folder or the bucket's prefix). */
  key: string;
  checksum: string;
  size: number;
}

/** Keys come from records: only the shape `put` makes is read, never another path. */
function fileKey(key: string): string {
  if (!/^files\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(key)) throw new Error(`not a file key: ${key}`);
  return key;
}

export class FilesStore {
  constructor(private readonly storage: FileStorage) {}

  async put(bytes: Uint8Array): Promise<StoredFile> {
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const key = `files/${checksum.slice(0, 2)}/${checksum}`;
    if (!(await this.storage.exists(key))) await this.storage.write(key, bytes);
    return { key, checksum, size: bytes.byteLength };
  }

  /** The file's bytes; null when it is missing. */
  async read(key: string): Promise<Uint8Array | null> {
    return this.storage.read(fileKey(key));
  }
}
