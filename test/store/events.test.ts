/**
 * The batch event log on both stores: in memory (LMDB, one process) and in PostgreSQL, where a
 * follower on one node hears what another node appends. Each log is given as a writer and a
 * reader, which on PostgreSQL have clients of their own.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SQL } from 'bun';
import { MemoryEventLog, type BatchEvent, type EventLog } from '../../src/store/events';
import { PgEventLog } from '../../src/store/postgres/events';
import { migrate } from '../../src/store/postgres/migrate';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  for (const deadline = Date.now() + ms; !done(); await Bun.sleep(5)) if (Date.now() > deadline) throw new Error('timed out');
}

function contract(name: string, logs: () => { writer: EventLog; reader: EventLog; age: (ms: number) => Promise<void> }) {
  describe(name, () => {
    test('a follower gets what was logged after its mark, then each event as it comes, in order', async () => {
      const { writer, reader } = logs();
      const batch = `batch_${name}_${Math.random()}`;
      for (const n of [1, 2, 3]) await writer.append(batch, 'progress', { n });
      const seen: BatchEvent[] = [];
      const stop = await reader.follow(batch, 1, (e) => seen.push(e));
      expect(seen.map((e) => e.seq)).toEqual([2, 3]);
      await Promise.all([writer.append(batch, 'rows', { rows: [{ a: 'ü' }] }), writer.append(`${batch}-other`, 'progress', {})]);
      await writer.append(batch, 'done', { status: 'complete' });
      await until(() => seen.length === 4);
      expect(seen).toEqual([
        { seq: 2, event: 'progress', data: { n: 2 } },
        { seq: 3, event: 'progress', data: { n: 3 } },
        { seq: 4, event: 'rows', data: { rows: [{ a: 'ü' }] } },
        { seq: 5, event: 'done', data: { status: 'complete' } },
      ]);
      await stop();
      await writer.append(batch, 'late', {});
      await Bun.sleep(100);
      expect(seen).toHaveLength(4);
    });

    test('purge forgets batches whose last event is older than the retention, and keeps the others', async () => {
      const { writer, reader, age } = logs();
      const old = `old_${Math.random()}`;
      const fresh = `fresh_${Math.random()}`;
      await writer.append(old, 'done', {});
      await age(1_000);
      await writer.append(fresh, 'batch', {});
      expect(await writer.purge(500)).toBeGreaterThanOrEqual(1);
      const seen: string[] = [];
      await (await reader.follow(old, 0, (e) => seen.push(`${old}:${e.event}`)))();
      await (await reader.follow(fresh, 0, (e) => seen.push(`${fresh}:${e.event}`)))();
      expect(seen).toEqual([`${fresh}:batch`]);
    });
  });
}

let now = 1_000_000;
const memory = new MemoryEventLog(() => now);
contract('in memory', () => ({
  writer: memory,
  reader: memory,
  age: async (ms) => {
    now += ms;
  },
}));

let pg: PgCluster | undefined;
const clients: SQL[] = [];
let writer: PgEventLog;
let reader: PgEventLog;

describe.skipIf(!POSTGRES_BIN)('PostgreSQL', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    await pg.sql.unsafe('CREATE DATABASE events');
    const client = () => {
      const sql = new SQL({ ...pg!.options, database: 'events', max: 2 });
      clients.push(sql);
      return sql;
    };
    await migrate(client());
    writer = new PgEventLog(client());
    reader = new PgEventLog(client());
  }, 120_000);

  afterAll(async () => {
    await writer?.close();
    await reader?.close();
    await Promise.all(clients.map((c) => c.close()));
    await pg?.stop();
  });

  contract('two nodes', () => ({
    writer,
    reader,
    age: async (ms) => {
      await clients[0]!.unsafe(`UPDATE batch_events SET created_at = created_at - $1::float8 * interval '1 millisecond'`, [ms]);
    },
  }));

  test('a follower hears another node at once, by notification, not by its poll', async () => {
    const batch = `batch_${Math.random()}`;
    const at: number[] = [];
    const stop = await reader.follow(batch, 0, () => at.push(performance.now()));
    const sent = performance.now();
    await writer.append(batch, 'progress', {});
    await until(() => at.length === 1);
    // The poll is every 2 s; a notification arrives in milliseconds.
    expect(at[0]! - sent).toBeLessThan(1_000);
    await stop();
  });

  test('appends racing for one batch (a lease taken over while the old worker still runs) each get their own number', async () => {
    const batch = `batch_${Math.random()}`;
    await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 ? writer : reader).append(batch, 'progress', { n })));
    const seen: BatchEvent[] = [];
    await (await reader.follow(batch, 0, (e) => seen.push(e)))();
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => (e.data as { n: number }).n)).size).toBe(20);
  });
});
