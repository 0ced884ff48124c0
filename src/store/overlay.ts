/**
 * The writes of one store transaction, held in memory until it commits (see `Store.transactionAsync`):
 * lmdb-js cannot keep a write transaction open across an `await`, so an async transaction reads
 * the committed store through these buffers, which put its own writes on top, and hands them to
 * one synchronous lmdb transaction at the end.
 */
import * as lmdb from 'lmdb';
import type { Database, Key } from 'lmdb';

/** The range options the store modules use, with lmdb's meaning (`end` excluded; `reverse` runs from `start` down). */
export interface RangeOptions {
  start?: unknown;
  end?: unknown;
  reverse?: boolean;
  limit?: number;
  offset?: number;
}

/** An iterable with the `map` and `filter` of lmdb's range results. */
export interface Range<T> extends Iterable<T> {
  map<U>(callback: (entry: T) => U): Range<U>;
  filter(callback: (entry: T) => unknown): Range<T>;
}

/**
 * What the store modules use of a sub-database: lmdb's `Database` is one, and so is a transaction's
 * buffer over it.
 */
export interface KeyValues<V = any, K extends Key = Key> {
  get(key: K): V | undefined;
  getRange(options?: RangeOptions): Range<{ key: K; value: V }>;
  getKeys(options?: RangeOptions): Range<K>;
  getKeysCount(options?: RangeOptions): number;
  putSync(key: K, value: V): void;
  removeSync(key: K): void;
}

const REMOVED = Symbol('removed');

interface Entry {
  key: unknown;
  value: unknown;
}

// lmdb exports its key encoder without declaring it.
const keyValueToBuffer = (lmdb as unknown as { keyValueToBuffer(key: unknown): Uint8Array }).keyValueToBuffer;

/**
 * A key's ordered-binary bytes as a latin1 string: one char per byte, so strings compare as LMDB
 * orders the keys (and the string is a copy of lmdb's reused buffer).
 */
function encodeKey(key: unknown): string {
  const bytes = keyValueToBuffer(key);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

class Chain<T> implements Range<T> {
  constructor(private readonly source: () => Iterator<T>) {}
  [Symbol.iterator](): Iterator<T> {
    return this.source();
  }
  map<U>(callback: (entry: T) => U): Range<U> {
    const from = this;
    return new Chain(function* () {
      for (const entry of from) yield callback(entry);
    });
  }
  filter(callback: (entry: T) => unknown): Range<T> {
    const from = this;
    return new Chain(function* () {
      for (const entry of from) if (callback(entry)) yield entry;
    });
  }
}

/** First position in `sorted` whose string is >= `value` (or > with `after`). */
function bound(sorted: string[], value: string, after: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value || (after && sorted[mid] === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function mergeSorted(a: string[], b: string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/**
 * One sub-database's writes in a transaction. Writes are only appended to a log (a bulk load
 * writes many entries it never reads back); keys are encoded and sorted when a read first needs
 * them, and then only those written since.
 */
export class BufferedWrites<V = any, K extends Key = Key> implements KeyValues<V, K> {
  private readonly keys: unknown[] = [];
  private readonly values: unknown[] = [];
  private seen = 0;
  /** Made on the first read after a write. */
  private latest: Map<string, Entry> | null = null;
  private sorted: string[] = [];
  private unsorted: string[] = [];

  constructor(private readonly base: Database<V, K>) {}

  putSync(key: K, value: V): void {
    this.keys.push(key);
    this.values.push(value);
  }

  removeSync(key: K): void {
    this.keys.push(key);
    this.values.push(REMOVED);
  }

  get(key: K): V | undefined {
    if (this.keys.length === 0) return this.base.get(key);
    const entry = this.catchUp().get(encodeKey(key));
    if (!entry) return this.base.get(key);
    return entry.value === REMOVED ? undefined : (entry.value as V);
  }

  getRange(options: RangeOptions = {}): Range<{ key: K; value: V }> {
    return new Chain(() => this.entries(options, true) as Iterator<{ key: K; value: V }>);
  }

  getKeys(options: RangeOptions = {}): Range<K> {
    return new Chain(() => this.entries(options, false)).map((entry) => entry.key as K);
  }

  /** How many writes the buffer holds. */
  get size(): number {
    return this.keys.length;
  }

  /** As lmdb counts: the range's keys after `offset`, whatever the limit. */
  getKeysCount(options: RangeOptions = {}): number {
    if (this.ownInRange(options).length === 0) return this.base.getKeysCount(options as never);
    let n = 0;
    for (const _ of this.entries({ start: options.start, end: options.end, reverse: options.reverse }, false)) n++;
    return Math.max(0, n - (options.offset ?? 0));
  }

  /** Writes the buffer into lmdb; call inside a synchronous lmdb write transaction. */
  apply(): void {
    const { keys, values, base } = this;
    for (let i = 0; i < keys.length; i++) {
      if (values[i] === REMOVED) base.removeSync(keys[i] as K);
      else base.putSync(keys[i] as K, values[i] as V);
    }
  }

  /** This transaction's latest write of each key, with the writes since the last read added. */
  private catchUp(): Map<string, Entry> {
    const latest = (this.latest ??= new Map());
    for (; this.seen < this.keys.length; this.seen++) {
      const encoded = encodeKey(this.keys[this.seen]);
      if (!latest.has(encoded)) this.unsorted.push(encoded);
      latest.set(encoded, { key: this.keys[this.seen], value: this.values[this.seen] });
    }
    return latest;
  }

  /** This transaction's own keys inside the range, in the range's order. */
  private ownInRange({ start, end, reverse }: RangeOptions): string[] {
    if (this.keys.length === 0) return [];
    this.catchUp();
    if (this.unsorted.length) {
      this.sorted = mergeSorted(this.sorted, this.unsorted.sort());
      this.unsorted = [];
    }
    const { sorted } = this;
    if (!reverse) {
      const lo = start === undefined ? 0 : bound(sorted, encodeKey(start), false);
      const hi = end === undefined ? sorted.length : bound(sorted, encodeKey(end), false);
      return sorted.slice(lo, Math.max(lo, hi));
    }
    const hi = start === undefined ? sorted.length : bound(sorted, encodeKey(start), true);
    const lo = end === undefined ? 0 : bound(sorted, encodeKey(end), true);
    return sorted.slice(lo, Math.max(lo, hi)).reverse();
  }

  /** The committed entries of the range with this transaction's writes merged in, then offset and limit. */
  private *entries(options: RangeOptions, withValues: boolean): Generator<Entry> {
    const own = this.ownInRange(options);
    if (own.length === 0) {
      if (withValues) yield* this.base.getRange(options as never) as Iterable<Entry>;
      else for (const key of this.base.getKeys(options as never)) yield { key, value: undefined };
      return;
    }
    const latest = this.catchUp();
    const { start, end, reverse } = options;
    let skip = options.offset ?? 0;
    let left = options.limit ?? Infinity;
    if (left <= 0) return;
    const committed: Iterable<Entry> = withValues
      ? (this.base.getRange({ start, end, reverse } as never) as Iterable<Entry>)
      : this.base.getKeys({ start, end, reverse } as never).map((key) => ({ key, value: undefined }));
    const before = (a: string, b: string) => (reverse ? a > b : a < b);
    let i = 0;
    // Offset and limit count the merged entries; `take` says whether one is passed on.
    const take = () => {
      if (skip > 0) {
        skip--;
        return false;
      }
      left--;
      return true;
    };
    for (const entry of committed) {
      const encoded = encodeKey(entry.key);
      while (i < own.length && before(own[i]!, encoded)) {
        const mine = latest.get(own[i++]!)!;
        if (mine.value !== REMOVED && take()) yield mine;
        if (left === 0) return;
      }
      if (i < own.length && own[i] === encoded) {
        const mine = latest.get(own[i++]!)!;
        if (mine.value !== REMOVED && take()) yield mine;
      } else if (take()) yield entry;
      if (left === 0) return;
    }
    for (; i < own.length; i++) {
      const mine = latest.get(own[i]!)!;
      if (mine.value !== REMOVED && take()) yield mine;
      if (left === 0) return;
    }
  }
}

/**
 * A sub-database as a first, trial run of a store method sees it (`Store.call`): reads from the
 * store; the first write ends the run (thrown), since a method that writes is run again in a
 * transaction, and the rest of a run that would read its own writes back must not go on without them.
 */
export class WriteProbe<V = any, K extends Key = Key> implements KeyValues<V, K> {
  constructor(
    private readonly base: Database<V, K>,
    private readonly wrote: () => void,
  ) {}
  get(key: K): V | undefined {
    return this.base.get(key);
  }
  getRange(options?: RangeOptions): Range<{ key: K; value: V }> {
    return this.base.getRange(options as never);
  }
  getKeys(options?: RangeOptions): Range<K> {
    return this.base.getKeys(options as never);
  }
  getKeysCount(options?: RangeOptions): number {
    return this.base.getKeysCount(options as never);
  }
  putSync(): void {
    this.wrote();
    throw new Error('the store was written during a read-only probe');
  }
  removeSync(): void {
    this.wrote();
    throw new Error('the store was written during a read-only probe');
  }
}

/** Every sub-database's buffer of one transaction; it closes when the transaction ends. */
export class TransactionBuffer {
  private readonly buffers = new Map<string, BufferedWrites>();
  open = true;

  view<V, K extends Key>(name: string, base: Database<V, K>): BufferedWrites<V, K> {
    let buffer = this.buffers.get(name);
    if (!buffer) this.buffers.set(name, (buffer = new BufferedWrites(base)));
    return buffer as unknown as BufferedWrites<V, K>;
  }

  /** Whether the transaction wrote anything (an empty one needs no commit). */
  get empty(): boolean {
    for (const buffer of this.buffers.values()) if (buffer.size) return false;
    return true;
  }

  apply(): void {
    for (const buffer of this.buffers.values()) buffer.apply();
  }
}
