/**
 * The rows table by table on PostgreSQL (migration 6, `rows.ts`): a table's partition comes with
 * its first write, with a sort index per column that sorts; the indexes follow the columns and go
 * with the table; the list SQL sorts and filters through them, and stays exact when a column holds
 * strings longer than the indexes keep. Also the migration itself, on rows written before it, and
 * the connections' plans made with each statement's values.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ManualClock } from '../../src/lib/clock';
import { CursorCodec } from '../../src/query/cursor';
import { parseListQuery, type ListParams } from '../../src/query/list';
import { rowListSpec } from '../../src/services/row-fields';
import { openPostgres } from '../../src/store/postgres/client';
import { migrate, MIGRATIONS } from '../../src/store/postgres/migrate';
import { rowsFieldSql } from '../../src/store/postgres/rows';
import { listSql, SORT_PREFIX } from '../../src/store/postgres/sql';
import type { TableRecord } from '../../src/store/tables.store';
import { startPostgresApp, type PostgresTestApp } from '../helpers/app';
import { POSTGRES_BIN, startPostgres, type PgCluster } from '../helpers/postgres';

const TABLES = '/v1/projects/proj_default/tables';
const COLUMNS = [
  { id: 'n', name: 'N', type: 'number' },
  { id: 'name', name: 'Name', type: 'string' },
  { id: 'tags', name: 'Tags', type: 'multi_select', options: ['red', 'blue'] },
];

const describePg = POSTGRES_BIN ? describe : describe.skip;

let cluster: PgCluster;

beforeAll(async () => {
  if (POSTGRES_BIN) cluster = await startPostgres();
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** A table's record as the store keeps it. */
async function recordOf(app: PostgresTestApp, id: string): Promise<TableRecord> {
  return (await app.sql.unsafe('SELECT record FROM tables WHERE id = $1', [id]))[0].record;
}

/** The column indexes and statistics of a table's partition (null when it has no partition). */
async function indexesOf(app: PostgresTestApp, seq: number): Promise<string[] | null> {
  const [found] = await app.sql.unsafe('SELECT to_regclass($1) IS NOT NULL AS found', [`rows_${seq}`]);
  if (!found.found) return null;
  const rows = await app.sql.unsafe(
    `SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 AND indexname ~ '_(sort|long)[0-9]+_v[0-9]+$'
     UNION ALL SELECT stxname FROM pg_statistic_ext WHERE stxrelid = $1::regclass ORDER BY 1`,
    [`rows_${seq}`],
  );
  return rows.map((r: { name: string }) => r.name);
}

/** The statistics target of a partition's words (a rare `q` term is estimated from it). */
async function searchStatisticsOf(sql: PostgresTestApp['sql'], seq: number): Promise<number> {
  const [row] = await sql.unsafe(`SELECT attstattarget AS n FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'search'`, [`rows_${seq}`]);
  return Number(row.n);
}

const pair = (seq: number, slot: number) => [`rows_${seq}_long${slot}_v1`, `rows_${seq}_sort${slot}_v1`, `rows_${seq}_stat${slot}_v1`];

/** A list's statement as the list engine makes it, run on the app's database; returns its plan or its rows' `n`. */
async function list(app: PostgresTestApp, table: TableRecord, params: ListParams, explain = false) {
  const query = parseListQuery(rowListSpec(table.columns_json), params, new CursorCodec(new Uint8Array(32)));
  const statement = listSql(table.id, query, rowsFieldSql(table), { idsInCreationOrder: true });
  if (explain) {
    await app.sql.unsafe('ANALYZE rows');
    const plan = await app.sql.unsafe(`EXPLAIN (COSTS OFF) ${statement.text}`, statement.params);
    return plan.map((line: Record<string, string>) => Object.values(line)[0]).join('\n');
  }
  const rows = await app.sql.unsafe(statement.text, statement.params);
  return rows.slice(0, query.limit).map((r: { values: Record<string, unknown> }) => r.values[String(table.slots.n)]);
}

describePg('rows by table on PostgreSQL', () => {
  test('a partition at the first write, indexes that follow the columns, and a purge that drops it', async () => {
    const clock = new ManualClock();
    const app = await startPostgresApp(cluster, { clock });
    try {
      const created = await app.request('POST', TABLES, { body: { name: 'T', columns_json: COLUMNS } });
      const t = `${TABLES}/${created.body.id}`;
      const { seq } = await recordOf(app, created.body.id);
      expect(await indexesOf(app, seq)).toBeNull();
      expect((await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ n: 1, name: 'a', tags: ['red'] }] } })).status).toBe(200);
      // Indexes and statistics for each column that sorts: not for the list-valued one (slot 3).
      expect(await indexesOf(app, seq)).toEqual([...pair(seq, 1), ...pair(seq, 2)].sort());
      expect(await searchStatisticsOf(app.sql, seq)).toBe(1000);

      expect((await app.request('POST', `${t}/columns`, { body: { name: 'Due', type: 'date' } })).status).toBe(200);
      expect(await indexesOf(app, seq)).toEqual([...pair(seq, 1), ...pair(seq, 2), ...pair(seq, 4)].sort());
      // A column that becomes list-valued loses its sort index; a removed one loses its indexes once the upkeep runs.
      expect((await app.request('PATCH', `${t}/columns/name`, { body: { type: 'array' } })).status).toBe(200);
      expect((await app.request('DELETE', `${t}/columns/due`)).status).toBe(200);
      await app.services.tables.cleanDroppedSlots();
      expect(await indexesOf(app, seq)).toEqual(pair(seq, 1));

      // Start-up makes what is missing and drops what no column has.
      await app.sql.unsafe(`DROP INDEX rows_${seq}_sort1_v1`);
      await app.sql.unsafe(`CREATE INDEX rows_${seq}_sort9_v1 ON rows_${seq} (id)`);
      await app.sql.unsafe(`DROP STATISTICS rows_${seq}_stat1_v1`);
      await migrate(app.sql);
      expect(await indexesOf(app, seq)).toEqual(pair(seq, 1));

      expect((await app.request('DELETE', t)).status).toBe(200);
      clock.advance(73 * 3600 * 1000);
      expect(await app.services.tables.purgeDeleted()).toEqual([created.body.id]);
      expect(await indexesOf(app, seq)).toBeNull();
    } finally {
      await app.close();
    }
  });

  test('lists sort and filter through the sort indexes, and stay exact with strings longer than they keep', async () => {
    const app = await startPostgresApp(cluster);
    try {
      const created = await app.request('POST', TABLES, { body: { name: 'T', columns_json: COLUMNS } });
      const t = `${TABLES}/${created.body.id}`;
      const rows = Array.from({ length: 3000 }, (_, n) => ({ n, name: `name ${n % 50}` }));
      for (let i = 0; i < rows.length; i += 1000) expect((await app.request('POST', `${t}/rows/bulk`, { body: { creates: rows.slice(i, i + 1000) } })).status).toBe(200);
      const table = await recordOf(app, created.body.id);
      await app.sql.unsafe('SET enable_seqscan = off');

      expect(await list(app, table, { order: 'name.desc', limit: 5 }, true)).toContain(`Index Scan Backward using rows_${table.seq}_sort2_v1`);
      expect(await list(app, table, { filter: 'name.eq."name 7"', limit: 5 }, true)).toContain(`using rows_${table.seq}_sort2_v1`);
      expect(await list(app, table, { filter: 'n.eq.2990', order: 'created_at', limit: 5 }, true)).toContain(`rows_${table.seq}_sort1_v1`);
      expect(await list(app, table, { limit: 5 }, true)).toContain(`Index Scan Backward using rows_${table.seq}_pkey`);
      expect(await list(app, table, { filter: 'name.eq."name 7"', limit: 3 })).toEqual([2957, 2907, 2857]);

      // Two strings alike in their first SORT_PREFIX characters: the later one sorts first by its whole text.
      const long = 'L'.repeat(SORT_PREFIX);
      expect((await app.request('POST', `${t}/rows/bulk`, { body: { creates: [{ n: -1, name: `${long}b` }, { n: -2, name: `${long}a` }] } })).status).toBe(200);
      expect(await list(app, table, { order: 'name', filter: 'n.lt.0', limit: 5 })).toEqual([-2, -1]);
      expect(await list(app, table, { order: 'name.desc', limit: 3 })).toEqual([2959, 2909, 2859]);
      // Without them the sort index's order is exact again, and taken.
      await app.sql.unsafe(`DELETE FROM rows WHERE table_id = $1 AND "values"->'1' < '0'`, [table.id]);
      expect(await list(app, table, { order: 'name.desc', limit: 3 })).toEqual([2959, 2909, 2859]);
    } finally {
      await app.sql.unsafe('RESET enable_seqscan').catch(() => {});
      await app.close();
    }
  });

  test('migration 6 moves the rows written before it to their tables’ partitions, and start-up indexes them; connections plan with the values', async () => {
    const database = `rowsmith_partitions_${process.pid}`;
    await cluster.sql.unsafe(`CREATE DATABASE ${database}`);
    const sql = openPostgres(`postgres://${cluster.options.username}@127.0.0.1:${cluster.options.port}/${database}`, { max: 1 });
    try {
      expect((await sql.unsafe('SHOW plan_cache_mode'))[0].plan_cache_mode).toBe('force_custom_plan');
      await migrate(
        sql,
        MIGRATIONS.filter((m) => m.id < 6),
      );
      const record = { id: 'tbl_a', seq: 7, project_id: 'proj_default', slug: 't', deleted_at: null, columns_json: COLUMNS.map((c) => ({ ...c, required: false })), slots: { n: 1, name: 2, tags: 3 } };
      await sql.unsafe(`INSERT INTO tables (id, seq, project_id, slug, deleted_at, record) VALUES ('tbl_a', 7, 'proj_default', 't', NULL, $1::text::jsonb)`, [JSON.stringify(record)]);
      for (const [table, id, n] of [['tbl_a', 'row_1', 1], ['tbl_a', 'row_2', 2], ['tbl_gone', 'row_3', 3]] as const) {
        await sql.unsafe(`INSERT INTO rows (project_id, table_id, id, created_at, updated_at, "values") VALUES ('proj_default', $1, $2, 1, 1, $3::text::jsonb)`, [table, id, JSON.stringify({ 1: n })]);
      }
      expect((await migrate(sql)).map((m) => m.id)).toEqual([6]);
      const rows = await sql.unsafe(`SELECT tableoid::regclass::text AS partition, id FROM rows ORDER BY id`);
      expect([...rows]).toEqual([
        { partition: 'rows_7', id: 'row_1' },
        { partition: 'rows_7', id: 'row_2' },
      ]);
      const made = await sql.unsafe(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'rows_7' AND indexname LIKE '%\\_v1' UNION ALL SELECT stxname FROM pg_statistic_ext ORDER BY 1`);
      expect(made.map((r: { name: string }) => r.name)).toEqual(['rows_7_long1_v1', 'rows_7_long2_v1', 'rows_7_sort1_v1', 'rows_7_sort2_v1', 'rows_7_stat1_v1', 'rows_7_stat2_v1']);
      expect(await searchStatisticsOf(sql, 7)).toBe(1000);
    } finally {
      await sql.close();
      await cluster.sql.unsafe(`DROP DATABASE ${database}`);
    }
  });
});
