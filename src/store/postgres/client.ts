/**
 * Statements and transactions of the PostgreSQL port. A transaction is `sql.begin` at SERIALIZABLE:
 * PostgreSQL then aborts one of two transactions whose reads and writes could not have run one
 * after the other (SQLSTATE 40001; a deadlock is 40P01), and the body runs again from the start,
 * a few times, after a short random wait. This is the LMDB write lock's meaning (all or nothing,
 * no lost update) without the lock.
 *
 * The open transaction is found through `AsyncLocalStorage`, as `Store.db` finds LMDB's, so one
 * repository object serves inside and outside a transaction, and a transaction started inside
 * another joins it. Outside a transaction a read is one statement on the pool, and a write is a
 * SERIALIZABLE transaction of its own (serializability holds only among serializable
 * transactions, so a write in autocommit could slip past one).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SQL } from 'bun';
import { isSearchable } from '../../domain/columns';
import { ApiError } from '../../lib/errors';
import type { TransactionOptions } from '../port';
import type { TableRecord } from '../tables.store';

/**
 * A pool of connections to rowsmith's database, each planning every statement with its values.
 * The best plan of a list depends on them: a word of `q` on a few rows is found through the words'
 * index, a common one by walking the order; a rare status through its column's index, a common one
 * in the order. The driver prepares every statement, and a prepared statement switches after five
 * runs to a generic plan, made without the values, when that looks no dearer: at a million rows
 * the generic plan of `q` walked every row for a rare word (1.7-2.3 s, against 5-13 ms planned with
 * the word). Planning each run costs 1-3 ms. A setting of the connection, not of the database or
 * its role: it holds for whichever role connects, and a database restored elsewhere keeps it.
 */
export function openPostgres(url: string, options: { max?: number } = {}): SQL {
  return new SQL(url, { ...options, connection: { plan_cache_mode: 'force_custom_plan' } });
}

/** A table's searched slots, in column order: what a row's words for `q` are made of. */
export function searchedSlots(table: Pick<TableRecord, 'columns_json' | 'slots'>): number[] {
  return table.columns_json.filter(isSearchable).map((c) => table.slots[c.id]!);
}

/** A table as the rows repository needs it: where its rows are, and which slots are searched. */
export interface TableOfSeq {
  id: string;
  projectId: string;
  searched: number[];
}

interface Context {
  sql: SQL;
  /** False once the body has returned: work it left running no longer joins the transaction. */
  open: boolean;
  /** A statement of this try failed on a conflict; the body may have caught it, the try is lost anyway. */
  conflict: boolean;
  /** Tables by seq read in this transaction, dropped on every table write. */
  tables: Map<number, TableOfSeq | undefined>;
}

/** Tries of a transaction that conflicts before it gives up with a 503. */
export const ATTEMPTS = 8;
const RETRY_CODES = new Set(['40001', '40P01']);
/** Server states that mean the database cannot serve now: connection, resources, shutdown. */
const UNAVAILABLE_CLASSES = ['08', '53', '57P'];
/** Bun's own codes for a connection that could not be made or was lost. */
const UNAVAILABLE_CODES = new Set(['ERR_POSTGRES_CONNECTION_CLOSED', 'ERR_POSTGRES_CONNECTION_REFUSED', 'ERR_POSTGRES_CONNECTION_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT']);

const sqlState = (error: unknown): string | undefined => {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === 'string' ? errno : undefined;
};

const isConflict = (error: unknown): boolean => RETRY_CODES.has(sqlState(error) ?? '');

function isUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined) return UNAVAILABLE_CLASSES.some((c) => state.startsWith(c));
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code);
}

/**
 * The answer when the database cannot be reached: a passing condition, as a full disk is on LMDB.
 * The driver's error stays on `cause`, for the log; its text may name hosts the client has no
 * business knowing.
 */
function databaseUnavailable(cause?: unknown): ApiError {
  const error = new ApiError(503, 'service_unavailable', 'The server could not reach its database; nothing of this request was kept, retry later', {}, { 'Retry-After': '5' });
  return Object.assign(error, { cause });
}

/** The answer when a transaction conflicted with others on every try. */
function databaseBusy(): ApiError {
  return new ApiError(503, 'service_unavailable', 'Other requests kept changing the same records at once; nothing of this request was kept, retry', {}, { 'Retry-After': '1' });
}

/**
 * The first key of rowsmith's named advisory locks (the second is the name's hash): the two-key
 * locks are apart from the one-key lock of the migrations. Two names of one hash share a lock,
 * which costs some waiting, never correctness.
 */
const LOCK_SPACE = 2028;

/** Turns on names within this process: each `take` waits for the earlier takers of its names. */
class Turns {
  private readonly last = new Map<string, Promise<void>>();

  /** Waits for the turn on every key (in the order given), and returns what ends it. */
  async take(keys: string[]): Promise<() => void> {
    const ends: Array<() => void> = [];
    for (const key of keys) {
      const before = this.last.get(key);
      let end!: () => void;
      const mine = new Promise<void>((resolve) => (end = resolve));
      this.last.set(key, mine);
      ends.push(() => {
        end();
        if (this.last.get(key) === mine) this.last.delete(key);
      });
      await before;
    }
    return () => ends.forEach((end) => end());
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A random wait before try `attempt + 1`, longer each time, so that conflicting transactions spread out. */
const backoff = (attempt: number) => Math.random() * Math.min(250, 5 * 2 ** attempt);

export class PgClient {
  private readonly current = new AsyncLocalStorage<Context>();

  /** This process's queue on each lock name. */
  private readonly turns = new Turns();

  constructor(readonly sql: SQL) {}

  private get context(): Context | undefined {
    const context = this.current.getStore();
    return context?.open ? context : undefined;
  }

  /** One statement: in the open transaction, else on the pool. Values travel as `$n` parameters only. */
  async query<T = Record<string, any>>(text: string, params: unknown[] = []): Promise<T[]> {
    const context = this.context;
    if (context) {
      try {
        return [...(await context.sql.unsafe(text, params))] as T[];
      } catch (error) {
        if (isConflict(error)) context.conflict = true;
        throw error;
      }
    }
    try {
      return [...(await this.sql.unsafe(text, params))] as T[];
    } catch (error) {
      if (isUnavailable(error)) throw databaseUnavailable(error);
      throw error;
    }
  }

  /** Runs a repository method's writes: in the open transaction, else as a transaction of their own. */
  write<T>(fn: () => Promise<T>): Promise<T> {
    return this.context ? fn() : this.transaction(fn);
  }

  /**
   * Runs `fn` as one SERIALIZABLE transaction, tried again on conflicts; inside a transaction it
   * joins it. With `lock`, it first takes its turn on each name (`locked`), and keeps it over its
   * tries.
   */
  async transaction<T>(fn: () => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.context) return fn();
    // One order for everyone, so two transactions naming the same locks never wait on each other.
    const keys = [...new Set(options.lock ?? [])].sort();
    if (!keys.length) return this.tries(this.sql, fn);
    return this.locked(keys, (connection) => this.tries(connection, fn));
  }

  /**
   * Runs `work` holding the locks of `keys`: first this process's turn (so a node spends one pooled
   * connection per lock on waiting, not one per writer), then PostgreSQL's session advisory lock on
   * a connection reserved for it, which other nodes wait on. The lock is taken before `BEGIN`: a
   * serializable transaction's snapshot is taken at its first statement, so one that waited on a
   * lock inside itself would still read what the holder changed and fail. Session locks are
   * released by `pg_advisory_unlock_all`, or, when the connection is lost, with the session: the
   * connection is then closed, not given back to the pool.
   */
  private async locked<T>(keys: string[], work: (connection: SQL) => Promise<T>): Promise<T> {
    const leave = await this.turns.take(keys);
    try {
      const reserved = await this.sql.reserve().catch((error: unknown) => {
        throw isUnavailable(error) ? databaseUnavailable(error) : error;
      });
      try {
        try {
          for (const key of keys) await reserved.unsafe('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_SPACE, key]);
        } catch (error) {
          throw isUnavailable(error) ? databaseUnavailable(error) : error;
        }
        return await work(reserved);
      } finally {
        await reserved
          .unsafe('SELECT pg_advisory_unlock_all()')
          .then(() => reserved.release())
          .catch(() => reserved.close().catch(() => undefined));
      }
    } finally {
      leave();
    }
  }

  /** Runs `fn` as one SERIALIZABLE transaction on `connection`, tried again on conflicts. */
  private async tries<T>(connection: SQL, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let context: Context | undefined;
      try {
        return (await connection.begin('isolation level serializable', (tx) => {
          context = { sql: tx, open: true, conflict: false, tables: new Map() };
          return this.current.run(context, async () => {
            try {
              const result = await fn();
              // PostgreSQL has aborted this try, whatever the body made of the failure it caught.
              if (context!.conflict) throw new Error('the transaction body went on after a serialization failure');
              return result;
            } finally {
              context!.open = false;
            }
          });
        })) as T;
      } catch (error) {
        // A conflict the body caught dooms the try too: what failed after it says nothing new.
        const conflict = isConflict(error) || context?.conflict === true;
        if (conflict && attempt < ATTEMPTS) {
          await sleep(backoff(attempt));
          continue;
        }
        if (conflict) throw databaseBusy();
        if (isUnavailable(error)) throw databaseUnavailable(error);
        throw error;
      }
    }
  }

  /** The table with this seq, read once per transaction (outside one, every time). */
  async tableOfSeq(seq: number): Promise<TableOfSeq | undefined> {
    const context = this.context;
    if (context?.tables.has(seq)) return context.tables.get(seq);
    const [row] = await this.query<{ record: TableRecord }>('SELECT record FROM tables WHERE seq = $1', [seq]);
    const table = row && { id: row.record.id, projectId: row.record.project_id, searched: searchedSlots(row.record) };
    context?.tables.set(seq, table);
    return table;
  }

  /** Called by every table write: the rows repository must not go on with a table's old columns. */
  tablesChanged(): void {
    this.context?.tables.clear();
  }
}
