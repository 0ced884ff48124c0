/**
 * What reading a file gave (tables, lines, page words), keyed by the file's checksum:
 * provenance, examples and evaluation look at a document again without reading it again (a scan
 * takes seconds). A reading too large to keep is not kept; its file is read again when needed.
 */
import type { Reading } from '../extract';
import { pack, unpack } from 'msgpackr';
import type { Store } from './db';

/** Readings are kept up to this size (encoded). */
export const MAX_READING_BYTES = 4 * 1024 * 1024;
/** Changes when readers change what a reading holds: older ones are read again. */
export const READING_VERSION = 1;

/** The reading packed on its own, so that its size is known without encoding it twice, and its version read without unpacking it. */
interface Stored {
  version: number;
  packed: Uint8Array;
}

export class ReadingsStore {
  constructor(private readonly store: Store) {}

  private get readings() {
    return this.store.db<Stored, string>('readings');
  }

  private current(checksum: string): Stored | undefined {
    const stored = this.readings.get(checksum);
    return stored?.version === READING_VERSION ? stored : undefined;
  }

  get(checksum: string): Reading | undefined {
    const stored = this.current(checksum);
    return stored ? (unpack(stored.packed) as Reading) : undefined;
  }

  has(checksum: string): boolean {
    return this.current(checksum) !== undefined;
  }

  /** Keeps a reading unless it is too large; returns whether it was kept. Call inside a transaction. */
  put(checksum: string, reading: Reading): boolean {
    const packed = pack(reading);
    if (packed.byteLength > MAX_READING_BYTES) return false;
    this.readings.putSync(checksum, { version: READING_VERSION, packed });
    return true;
  }
}
