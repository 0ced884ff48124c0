/**
 * The LMDB environment under DATA_DIR/db: one environment, named sub-databases, ordered-binary keys
 * and msgpackr values. Every multi-key change goes through `transaction`, so a crash never leaves
 * one half of a change on disk.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { ApiError } from '../lib/errors';
import { TransactionBuffer, WriteProbe, type KeyValues } from './overlay';

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
  /** The async transaction the current code runs in, if any (see `transactionAsync`). */
  private readonly current = new AsyncLocalStorage<TransactionBuffer>();
  /** Every transaction holds it from its first read to its commit (LMDB has one writer anyway). */
  private writeLock: Promise<unknown> = Promise.resolve();

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

  /** A sub-database; inside an async transaction, seen through the transaction's own writes. */
  db<V = any, K extends Key = Key>(name: SubDatabaseName): KeyValues<V, K> {
    const base = this.dbs.get(name) as Database<V, K>;
    if (this.probing) return this.probe(name, base);
    // Most reads run outside any transaction; they skip the context lookup.
    if (this.open === 0) return base;
    const buffer = this.current.getStore();
    return buffer?.open ? buffer.view(name, base) : base;
  }

  private inWrite = false;
  /** How many async transactions are running (holding or done with their body, not committed). */
  private open = 0;
  /** Set during `call`'s first run, which is synchronous; `wrote` says whether it tried to write. */
  private probing = false;
  private wrote = false;
  private readonly probes = new Map<string, KeyValues>();

  private probe<V, K extends Key>(name: string, base: Database<V, K>): KeyValues<V, K> {
    let probe = this.probes.get(name);
    if (!probe) this.probes.set(name, (probe = new WriteProbe(base, () => (this.wrote = true))));
    return probe as KeyValues<V, K>;
  }

  /** Whether the caller runs inside a transaction, which a nested one joins. */
  private get joined(): boolean {
    return this.inWrite || this.probing || (this.open > 0 && this.current.getStore()?.open === true);
  }

  /**
   * Runs a synchronous store method for the port. Inside a transaction it is part of it. Outside,
   * it runs straight on the store if it only reads; one that writes is run again as a
   * transaction of its own (its first run's writes are not made), so its writes are atomic and
   * wait for the write lock.
   */
  call<T>(fn: () => T): Promise<Awaited<T>> {
    // Not an async function: reads, the most frequent calls, pay for one promise only.
    try {
      if (this.joined) return Promise.resolve(fn()) as Promise<Awaited<T>>;
      this.probing = true;
      this.wrote = false;
      let result: T;
      try {
        result = fn();
      } catch (error) {
        // The probe's first write ends its run (see WriteProbe).
        if (!this.wrote) throw error;
      } finally {
        this.probing = false;
      }
      if (!this.wrote) return Promise.resolve(result!) as Promise<Awaited<T>>;
      return this.transactionAsync(async (): Promise<Awaited<T>> => await fn());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Runs a synchronous read-modify-write in one write transaction; resolves once it is committed.
   * Called from inside another transaction it joins that one, so services can compose their
   * writes atomically.
   */
  transaction<T>(fn: () => T): Promise<T> {
    if (this.joined) return Promise.resolve(synchronous(fn()));
    return this.locked(() => this.commit(() => synchronous(this.inside(fn))));
  }

  /**
   * Runs an async read-modify-write as one transaction. lmdb-js cannot hold a write transaction
   * across an await, so the body runs under the process-wide write lock, its reads see the
   * committed store through its own buffered writes, and one synchronous lmdb transaction applies
   * them when it returns; a throw discards them. Called from inside a transaction it joins it.
   */
  transactionAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.joined) return fn();
    return this.locked(async () => {
      const buffer = new TransactionBuffer();
      this.open++;
      try {
        const result = await this.current.run(buffer, fn);
        buffer.open = false;
        if (!buffer.empty) await this.commit(() => buffer.apply());
        return result;
      } finally {
        // Work the body left running sees the store directly from now on.
        buffer.open = false;
        this.open--;
      }
    });
  }

  /** Blocking variant for the rare callers (start-up, CLI) that must not yield. */
  transactionSync<T>(fn: () => T): T {
    if (this.joined) return fn();
    return this.env.transactionSync(() => this.inside(fn));
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.writeLock.then(fn);
    this.writeLock = result.then(noop, noop);
    return result;
  }

  /** One lmdb write transaction; a commit the disk refuses becomes `storageFull`. */
  private commit<T>(fn: () => T): Promise<T> {
    return this.env
      .transaction(() => {
        const result = fn();
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

const noop = () => undefined;

/** A synchronous body's result; a promise would mean awaits that run after the commit, outside it. */
function synchronous<T>(result: T): T {
  if (typeof (result as { then?: unknown } | null)?.then === 'function') throw new Error('a synchronous transaction returned a promise: use transactionAsync');
  return result;
}

/** The records an index keyed `[parent, id]` lists under `parent`, in id order. */
export function recordsUnder<V>(index: KeyValues<unknown, [string, string]>, records: KeyValues<V, string>, parent: string): V[] {
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
