/**
 * The store port's contract (port-contract.ts) on PostgreSQL: each test on a database of its own,
 * migrated as a node would at start. Then what only this adapter has: conflicts retried and, past
 * the tries, a 503; a database out of reach is a 503; rows written through the port are found by
 * the list SQL of `sql.ts`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../src/lib/errors';
import { CursorCodec } from '../../src/query/cursor';
import { parseListQuery } from '../../src/query/list';
import { rowListSpec } from '../../src/services/row-fields';
import { ATTEMPTS, PgClient } from '../../src/store/postgres/client';
import { migrate } from '../../src/store/postgres/migrate';
import { postgresPort } from '../../src/store/postgres/port';
import { rowsFieldSql } from '../../src/store/postgres/rows';
import { listSql } from '../../src/store/postgres/sql';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';
import { portContract, rowRecord, SLOTS, tableRecord } from './port-contract';

let pg: PgCluster;
const clients: SQL[] = [];
let databases = 0;

/** A client of a database (several connections, as a node has); it is closed after the test. */
function connect(database: string, max = 5): SQL {
  const sql = new SQL({ ...pg.options, database, max });
  clients.push(sql);
  return sql;
}

/** A fresh, migrated database; returns its name. */
async function newDatabase(): Promise<string> {
  const name = `port${++databases}`;
  await pg.sql.unsafe(`CREATE DATABASE ${name}`);
  await migrate(connect(name, 1));
  return name;
}

/** A fresh, migrated database, with a client of its own. */
async function freshDatabase(): Promise<SQL> {
  return connect(await newDatabase());
}

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  pg = await startPostgres();
}, 120_000);

// Each test's connections go with it: the cluster allows a hundred.
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await pg?.stop();
});

if (POSTGRES_BIN) portContract('PostgreSQL', async () => postgresPort(await freshDatabase()), { tail: false });

describe.skipIf(!POSTGRES_BIN)('PostgreSQL: what only this adapter has', () => {
  test('two transactions that conflict both commit: the one PostgreSQL aborts runs again', async () => {
    const port = postgresPort(await freshDatabase());
    await port.meta.put('n', 0);
    let runs = 0;
    let arrived = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    // Both read before either writes, so one must be aborted and run again.
    const bump = () =>
      port.transaction(async (tx) => {
        runs++;
        const n = (await tx.meta.get<number>('n'))!;
        if (++arrived === 2) bothRead();
        await barrier;
        await tx.meta.put('n', n + 1);
      });
    await Promise.all([bump(), bump()]);
    expect(await port.meta.get('n')).toBe(2);
    expect(runs).toBe(3);
  });

  test('a transaction that keeps conflicting gives up after its tries with a 503, keeping nothing', async () => {
    const sql = await freshDatabase();
    const client = new PgClient(sql);
    let runs = 0;
    const failed = client.transaction(async () => {
      runs++;
      await client.query(`INSERT INTO meta (name, value) VALUES ('tried', '1') ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`);
      // PostgreSQL's own serialization failure, as a conflicting transaction would cause it.
      await client.query(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`);
    });
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).headers['Retry-After']).toBeDefined();
    expect(runs).toBe(ATTEMPTS);
    expect(await client.query('SELECT 1 FROM meta')).toEqual([]);
  });

  test('a conflict the body catches still makes the try run again', async () => {
    const sql = await freshDatabase();
    const client = new PgClient(sql);
    let runs = 0;
    await client.transaction(async () => {
      runs++;
      if (runs > 1) return;
      await client.query(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`).catch(() => undefined);
    });
    expect(runs).toBe(2);
  });

  test('other errors are not retried and reach the caller as they are', async () => {
    const sql = await freshDatabase();
    const client = new PgClient(sql);
    let runs = 0;
    const error = await client
      .transaction(async () => {
        runs++;
        await client.query('SELECT 1/0');
      })
      .catch((e: unknown) => e);
    expect(runs).toBe(1);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as { errno?: string }).errno).toBe('22012');
  });

  test('a database out of reach is a 503, for reads, writes and transactions', async () => {
    const sql = new SQL({ ...pg.options, port: 1, max: 1, connectionTimeout: 2 });
    clients.push(sql);
    const port = postgresPort(sql);
    for (const attempt of [() => port.meta.get('x'), () => port.meta.put('x', 1), () => port.transaction((tx) => tx.tables.get('tbl_a'))]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(503);
    }
  });

  test('a transaction naming a lock another node holds waits before its snapshot: it runs once and reads what the holder wrote', async () => {
    const name = await newDatabase();
    const [a, b] = [postgresPort(connect(name)), postgresPort(connect(name))];
    await a.meta.put('n', 0);
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const first = a.transaction(
      async (tx) => {
        const n = (await tx.meta.get<number>('n'))!;
        holding();
        await finishing;
        await tx.meta.put('n', n + 1);
      },
      { lock: ['table:t1'] },
    );
    await held;
    let runs = 0;
    const second = b.transaction(
      async (tx) => {
        runs++;
        const n = (await tx.meta.get<number>('n'))!;
        await tx.meta.put('n', n + 1);
      },
      { lock: ['table:t1', 'table:t0'] },
    );
    // Another name does not wait.
    await b.transaction((tx) => tx.meta.put('other', 1), { lock: ['table:t2'] });
    await Bun.sleep(300);
    expect(runs).toBe(0);
    finish();
    await Promise.all([first, second]);
    // Had it begun before taking the lock, its read would be older than the holder's commit, and the try lost.
    expect(runs).toBe(1);
    expect(await b.meta.get('n')).toBe(2);
  });

  test('a lock is held over every try and released after a throw, after conflicts and when its connection is lost', async () => {
    const name = await newDatabase();
    // One connection: a reserved connection not given back would leave the client stuck.
    const client = new PgClient(connect(name, 1));
    const observer = connect(name, 1);
    const locks = async () => (await observer.unsafe(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`))[0].n as number;
    const lock = { lock: ['table:t1'] };
    const conflict = () => client.query(`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$`);

    const seen: number[] = [];
    const thrown = await client
      .transaction(async () => {
        seen.push(await locks());
        throw new Error('boom');
      }, lock)
      .catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('boom');
    expect(await locks()).toBe(0);

    let runs = 0;
    await client.transaction(async () => {
      seen.push(await locks());
      if (++runs === 1) await conflict();
    }, lock);
    expect(runs).toBe(2);
    expect(await locks()).toBe(0);

    const busy = await client
      .transaction(async () => {
        await conflict();
      }, lock)
      .catch((e: unknown) => e);
    expect((busy as ApiError).status).toBe(503);
    expect(await locks()).toBe(0);
    expect(seen).toEqual([1, 1, 1]);

    const lost = await client
      .transaction(async () => {
        await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
      }, lock)
      .catch((e: unknown) => e);
    expect((lost as ApiError).status).toBe(503);
    expect(await locks()).toBe(0);
    expect(await client.transaction(async () => (await client.query('SELECT 1 AS one'))[0]!.one, lock)).toBe(1);
    expect(await locks()).toBe(0);
  });

  test('rows written through the port are what the list SQL of sql.ts finds, by slot, with their words for q', async () => {
    const sql = await freshDatabase();
    const port = postgresPort(sql);
    // `amount` lives in slot 2; slot 9 holds a removed column's value, never read again.
    const table = tableRecord('tbl_a', 'a', 1);
    await port.tables.put(table);
    await port.rows.insert(
      1,
      [
        { row: rowRecord(1, { 1: 'Acme Corporation', 2: 30, 9: 'zebra' }), indexed: true },
        { row: rowRecord(2, { 1: 'Beta Widgets', 2: 10 }), indexed: true },
        { row: rowRecord(3, { 1: 'Acme Limited', 2: 20, 3: ['widgets'] }), indexed: true },
      ],
      SLOTS,
    );
    const codec = new CursorCodec(randomBytes(32));
    const ids = async (params: { filter?: string; order?: string; q?: string }) => {
      const statement = listSql(table.id, parseListQuery(rowListSpec(table.columns_json), params, codec), rowsFieldSql(table));
      return (await sql.unsafe(statement.text, statement.params)).map((row: { id: string }) => row.id);
    };
    expect(await ids({ order: 'amount' })).toEqual(['row_0002', 'row_0003', 'row_0001']);
    expect(await ids({ filter: 'amount.gte.20', order: 'amount.desc' })).toEqual(['row_0001', 'row_0003']);
    expect(await ids({ q: 'acme', order: 'amount' })).toEqual(['row_0003', 'row_0001']);
    // Only searched columns give words: `tags` is a list, `zebra` a removed column's.
    expect(await ids({ q: 'widgets' })).toEqual(['row_0002']);
    expect(await ids({ q: 'zebra' })).toEqual([]);
    // A rewrite changes the words.
    const row = (await port.rows.get(1, 'row_0002'))!;
    await port.rows.put(1, { ...row, values: { 1: 'Gamma', 2: 10 } }, SLOTS, row);
    expect(await ids({ q: 'widgets' })).toEqual([]);
    expect(await ids({ q: 'gam' })).toEqual(['row_0002']);
  });
});
