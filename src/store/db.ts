/**
 * The LMDB environment under DATA_DIR/db: one environment, named sub-databases, ordered-binary keys
 * and msgpackr values. Every multi-key change goes through `transaction`, so a crash never leaves
 * one half of a change on disk.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { ApiError } from '../lib/errors';

/** Every sub-database the service uses; adding one here is all a new store module needs. */
const SUB_DATABASES = [
  'meta',
  'orgs',
  'projects',
  'api_keys',
  'api_key_hashes',
  'usage',
  'idempotency',
  'tables',
  'project_tables',
  'table_slugs',
  'deleted_tables',
  'rows',
  'row_index',
  'index_marks',
  'webhooks',
  'org_webhooks',
  'deliveries',
  'webhook_deliveries',
  'delivery_queue',
  'batches',
  'project_batches',
  'extractions',
  'batch_rows',
  'exports',
  'templates',
  'examples',
  'table_examples',
  'row_examples',
  'readings',
] as const;

const CACHED = new Set<string>(['tables']);
/** Databases whose values carry nothing (the key is the entry): stored raw, skipping msgpack. */
const KEY_ONLY = new Set<string>(['row_index']);
/**
 * Databases of many records of one shape: msgpackr keeps their field layouts once, under this key
 * (hidden from reads and ranges), instead of in every value, so a row is about a third smaller and
 * decodes in half the time. Values written before it was set (layouts inline) still read.
 */
const SHARED_STRUCTURES = new Set<string>(['rows']);
const STRUCTURES_KEY = Symbol.for('structures');

export type SubDatabaseName = (typeof SUB_DATABASES)[number];

export class Store {
  readonly env: RootDatabase;
  private readonly dbs = new Map<SubDatabaseName, Database<any, Key>>();

  constructor(readonly dataDir: string) {
    const path = join(dataDir, 'db');
    mkdirSync(path, { recursive: true });
    this.env = open({ path, maxDbs: 64, encoding: 'msgpack' });
    for (const name of SUB_DATABASES) {
      // Tables are read on every request and written only by this process, so their decoded
      // records are cached (lmdb replaces an entry when this process writes it). Writers put a
      // table last in their transaction, after every check that could abort it, and never mutate
      // a record they read.
      this.dbs.set(
        name,
        this.env.openDB({
          name,
          encoding: KEY_ONLY.has(name) ? 'binary' : 'msgpack',
          cache: CACHED.has(name),
          ...(SHARED_STRUCTURES.has(name) ? { sharedStructuresKey: STRUCTURES_KEY } : {}),
        }),
      );
    }
  }

  db<V = any, K extends Key = Key>(name: SubDatabaseName): Database<V, K> {
    return this.dbs.get(name) as Database<V, K>;
  }

  private inWrite = false;

  /**
   * Runs a synchronous read-modify-write in one write transaction; resolves once it is committed.
   * Called from inside another transaction it joins that one (lmdb-js would otherwise queue a
   * separate one), so services can compose their writes atomically.
   */
  transaction<T>(fn: () => T): Promise<T> {
    if (this.inWrite) return Promise.resolve(fn());
    return this.env
      .transaction(() => {
        const result = this.inside(fn);
        // The puts inside return lmdb's shared commit promise, which no one awaits; a failed commit
        // (a full disk) would reject it unhandled and end the process. The failure reaches the
        // caller through this transaction's own promise.
        this.env.committed.then(undefined, () => undefined);
        return result;
      })
      .catch((error: unknown) => {
        const failure = storageFailure(error);
        if (!failure) throw error;
        // lmdb's read cache keeps the records of the commit that failed; reads must see the store.
        for (const name of CACHED) (this.dbs.get(name as SubDatabaseName) as unknown as { cache?: { clear(): void } }).cache?.clear();
        throw failure;
      });
  }

  /** Blocking variant for the rare callers (start-up, CLI) that must not yield. */
  transactionSync<T>(fn: () => T): T {
    if (this.inWrite) return fn();
    return this.env.transactionSync(() => this.inside(fn));
  }

  private inside<T>(fn: () => T): T {
    this.inWrite = true;
    try {
      return fn();
    } finally {
      this.inWrite = false;
    }
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}

/** The records an index keyed `[parent, id]` lists under `parent`, in id order. */
export function recordsUnder<V>(index: Database<unknown, [string, string]>, records: Database<V, string>, parent: string): V[] {
  const out: V[] = [];
  for (const { key } of index.getRange({ start: [parent], end: [parent, '\uffff'] })) {
    const record = records.get(key[1]);
    if (record !== undefined) out.push(record);
  }
  return out;
}

/**
 * A commit the disk refused (full, or failing): nothing of it was kept, so the client may retry
 * once space returns. lmdb rejects one shared `commitError` promise besides the transaction's own;
 * left unhandled, that rejection would end the process, so it is marked handled here.
 */
function storageFailure(error: unknown): ApiError | null {
  const commitError = (error as { commitError?: Promise<unknown> } | null)?.commitError;
  if (!(commitError instanceof Promise)) return null;
  commitError.catch(() => undefined);
  return storageFull();
}

/** The answer to a write the disk refused: a passing condition, so 503 with a time to retry. */
export function storageFull(): ApiError {
  return new ApiError(503, 'service_unavailable', 'The server could not write to its storage (the disk may be full); nothing of this request was kept, retry later', {}, { 'Retry-After': '30' });
}

export function openStore(dataDir: string): Store {
  return new Store(dataDir);
}
