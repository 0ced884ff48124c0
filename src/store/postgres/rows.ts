/**
 * The rows repository on the rows table of `schema.ts`. The port knows a table's rows by the
 * table's internal number (`seq`), the rows table by the table's id: each statement finds the id
 * through `tables.seq`. A row's `values` are stored as the port gives them, keyed by slot, so a
 * removed column's values never return under a re-added column of the same id (it gets a new
 * slot), as in LMDB; the list engine reads a column through its slot (`rowsFieldSql`).
 *
 * An empty value is an absent key (the rows table refuses JSON nulls), and a row without an
 * extraction comes back without `extraction_id`: the services read null and absent alike.
 *
 * The index entries, the merge mark and the unmerged tail are LMDB's: PostgreSQL keeps its own
 * indexes in step with every write, so the writes need no `slots`, `previous` or `indexed`, and
 * there is no mark (`markRecord` is undefined).
 *
 * Each table's rows are a partition of the rows table (`ROWS_BY_TABLE`), made at the table's first
 * write, with indexes and statistics for each column that sorts (`columnIndexesSql`: all but
 * list-valued ones). A column's are made where LMDB builds a slot's entries (`indexSlot`: at once,
 * on the table's rows only) and dropped where LMDB drops them (`dropSlotEntries`); a purged
 * table's partition is dropped once its rows are gone. `reconcileRowIndexes` makes what is missing
 * at start-up (tables from before partitions, or a changed definition).
 */
import type { SQL } from 'bun';
import { fieldTypeOf } from '../../domain/columns';
import type { RowsRepository } from '../port';
import type { MarkRecord, RowRecord, SlotSpec } from '../rows.store';
import type { TableRecord } from '../tables.store';
import { searchedSlots, type PgClient } from './client';
import { columnIndexesSql, rowFieldSql, searchWords, type FieldSqlOf } from './sql';

/** A table's id by its seq, as a subquery (the planner reads it once, then uses the rows' primary key). */
const TABLE = '(SELECT id FROM tables WHERE seq = $1)';

const ROW_COLUMNS = 'id, created_at::float8 AS created_at, updated_at::float8 AS updated_at, batch_id, extraction_id, confidence, "values"';

interface StoredRow {
  id: string;
  created_at: number;
  updated_at: number;
  batch_id: string | null;
  extraction_id: string | null;
  confidence: number | null;
  values: Record<number, unknown>;
}

function rowRecord({ extraction_id, ...row }: StoredRow): RowRecord {
  return extraction_id === null ? row : { ...row, extraction_id };
}

/** The values as stored: empty ones left out. */
function storedValues(values: Record<number, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * Writes rows, replacing any of the same id, with their words for `q` (the tsvector as
 * `searchVectorSql` makes it, from the words of the table's searched columns).
 */
const UPSERT = `
INSERT INTO rows (project_id, table_id, id, created_at, updated_at, batch_id, extraction_id, confidence, "values", search)
SELECT $1, $2, r->>'id', (r->>'created_at')::bigint, (r->>'updated_at')::bigint, r->>'batch_id', r->>'extraction_id',
  (r->>'confidence')::float8, r->'values', array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r->'words')))
FROM jsonb_array_elements($3::text::jsonb) AS r
ON CONFLICT (table_id, id) DO UPDATE SET created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, batch_id = EXCLUDED.batch_id,
  extraction_id = EXCLUDED.extraction_id, confidence = EXCLUDED.confidence, "values" = EXCLUDED."values", search = EXCLUDED.search,
  version = rows.version + 1`;

/** How the list engine reads a table's fields from the rows table: a column through its slot. */
export function rowsFieldSql(table: Pick<TableRecord, 'columns_json' | 'slots'>): FieldSqlOf {
  const byId = rowFieldSql(table.columns_json);
  return (field) => {
    const sql = byId(field);
    // Slots are numbers of the table record, never client text.
    return sql.kind === 'json' ? { ...sql, sql: `"values"->'${Number(table.slots[field])}'` } : sql;
  };
}

/** A table's partition of the rows table: named by the table's seq, a number of its record. */
export function partitionOf(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`not a table seq: ${seq}`);
  return `rows_${seq}`;
}

/** One thing a column has in a table's partition: an index, or the statistics of its value. */
interface ColumnObject {
  name: string;
  create: string;
  drop: string;
}

/** The version of their definition (`columnIndexesSql`) in the objects' names: a new definition is built beside the old, which then goes. */
const OBJECT_VERSION = 1;
const COLUMN_OBJECT = /^rows_\d+_(sort|long|stat)\d+_v\d+$/;
const dropOf = (name: string) => (/_stat\d+_v\d+$/.test(name) ? `DROP STATISTICS IF EXISTS ${name}` : `DROP INDEX IF EXISTS ${name}`);

/** What one column (by slot) has in a table's partition: its sort index, its long-string index and its statistics. */
export function columnObjects(seq: number, slot: number): ColumnObject[] {
  if (!Number.isSafeInteger(slot)) throw new Error(`not a slot: ${slot}`);
  const partition = partitionOf(seq);
  const { sort, long, statistics } = columnIndexesSql(`"values"->'${slot}'`);
  const name = (kind: string) => `${partition}_${kind}${slot}_v${OBJECT_VERSION}`;
  return [
    { name: name('sort'), create: `CREATE INDEX IF NOT EXISTS ${name('sort')} ON ${partition} ${sort}` },
    { name: name('long'), create: `CREATE INDEX IF NOT EXISTS ${name('long')} ON ${partition} ${long}` },
    { name: name('stat'), create: `CREATE STATISTICS IF NOT EXISTS ${name('stat')} ON ${statistics} FROM ${partition}` },
  ].map((o) => ({ ...o, drop: dropOf(o.name) }));
}

/** What a table's partition has for its columns: for each column that sorts (all but list-valued ones). */
function tableObjects(table: Pick<TableRecord, 'seq' | 'columns_json' | 'slots'>): ColumnObject[] {
  return table.columns_json.filter((c) => fieldTypeOf(c.type) !== 'array').flatMap((c) => columnObjects(table.seq, table.slots[c.id]!));
}

/** A table id as a string literal of a partition's bound (DDL takes no parameters): ids are checked to hold no quote. */
function idLiteral(id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`not a table id: ${id}`);
  return `'${id}'`;
}

/** The second key of the advisory lock under which a table's partition is made (the first is the table's seq). */
const PARTITION_LOCK = 2_028_002;

/** The SQLSTATE of a failed statement. */
const sqlState = (error: unknown) => (error as { errno?: unknown } | null)?.errno;

/**
 * Drops a partition if its lock comes within `wait`, inside the open transaction (`run` runs one
 * of its statements). Dropping a partition takes the strongest lock on the rows table, which waits
 * for every query on it and holds up those that come after: a drop that would wait longer is left
 * for later.
 */
async function dropPartitionSoon(run: (text: string) => Promise<unknown>, partition: string, wait: string): Promise<void> {
  await run('SAVEPOINT drop_partition');
  try {
    await run(`SET LOCAL lock_timeout = '${wait}'`);
    await run(`DROP TABLE ${partition}`);
    await run('RELEASE SAVEPOINT drop_partition');
    await run('SET LOCAL lock_timeout TO DEFAULT');
  } catch (error) {
    if (sqlState(error) !== '55P03') throw error;
    await run('ROLLBACK TO SAVEPOINT drop_partition');
  }
}

/**
 * Makes a table's partition with its column indexes (empty, so at once), then attaches it. Attaching
 * takes a lock on the rows table that lets its reads and writes go on; making it `PARTITION OF`
 * would stop them all until the first write commits.
 */
/**
 * The statistics target of a partition's words. The planner takes a `q` term that starts none of
 * the words it keeps statistics of as matching half as many rows as the rarest of those; at the
 * default target (100) that is 0.5% of the rows, and a list walked its order testing every row for
 * a term of one row in a million (0.9-1.1 s). At 1,000 it keeps ten times the words, from a
 * sample of 300,000 rows, and finds such a term through the words' index (0.2 ms).
 */
const SEARCH_STATISTICS = 1000;

async function makePartition(db: PgClient, table: Pick<TableRecord, 'id' | 'seq' | 'columns_json' | 'slots'>): Promise<void> {
  const partition = partitionOf(table.seq);
  await db.query(`CREATE TABLE ${partition} (LIKE rows INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED)`);
  await db.query(`ALTER TABLE ${partition} ALTER COLUMN search SET STATISTICS ${SEARCH_STATISTICS}`);
  for (const object of tableObjects(table)) await db.query(object.create);
  await db.query(`ALTER TABLE rows ATTACH PARTITION ${partition} FOR VALUES IN (${idLiteral(table.id)})`);
}

async function hasPartition(db: PgClient, seq: number): Promise<boolean> {
  const [row] = await db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [partitionOf(seq)]);
  return row!.found;
}

/**
 * Brings the partitions' column indexes and statistics in line with their tables' columns, and
 * drops partitions whose table is gone (a purge that could not take the lock in time): run at
 * start-up, under the migrations' lock, once the rows table is partitioned.
 */
export async function reconcileRowIndexes(sql: SQL): Promise<void> {
  const partitions = (await sql.unsafe(
    `SELECT c.relname AS name, (SELECT t.record FROM tables t WHERE 'rows_' || t.seq = c.relname) AS record
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'rows'::regclass`,
  )) as Array<{ name: string; record: TableRecord | null }>;
  const existing = (await sql.unsafe(
    `SELECT c.relname AS partition, i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
     UNION ALL SELECT c.relname, s.stxname FROM pg_statistic_ext s JOIN pg_class c ON c.oid = s.stxrelid`,
  )) as Array<{ partition: string; name: string }>;
  for (const { name, record } of partitions) {
    if (!record) {
      // Left for the next start when the rows table is busy.
      await dropPartitionSoon((text) => sql.unsafe(text), partitionOf(Number(name.slice('rows_'.length))), '1s');
      continue;
    }
    const wanted = tableObjects(record);
    const have = new Set(existing.filter((e) => e.partition === name && COLUMN_OBJECT.test(e.name)).map((e) => e.name));
    const missing = wanted.filter((w) => !have.has(w.name));
    for (const object of missing) await sql.unsafe(object.create);
    for (const stale of have) if (!wanted.some((w) => w.name === stale)) await sql.unsafe(dropOf(stale));
    // Statistics, and those of the indexes' expressions, are gathered by ANALYZE only.
    if (missing.length) await sql.unsafe(`ANALYZE ${name}`);
  }
}

/** Rows whose words are rewritten per statement when a table's searched columns change. */
const REWRITE_BATCH = 1000;

/**
 * Rewrites the words for `q` of every row of a table from its searched slots (call in the
 * transaction that changes them). Slots, not column ids, decide: a column removed and added again
 * has a new slot, and the removed one's words must go with its values.
 */
export async function rewriteSearchWords(db: PgClient, table: Pick<TableRecord, 'id' | 'columns_json' | 'slots'>): Promise<void> {
  const searched = searchedSlots(table);
  let after = '';
  for (;;) {
    const batch = await db.query<{ id: string; values: Record<string, unknown> }>(
      'SELECT id, "values" FROM rows WHERE table_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [table.id, after, REWRITE_BATCH],
    );
    if (batch.length === 0) return;
    const words = batch.map((row) => ({ id: row.id, words: searchWords(searched.map((slot) => row.values[slot])) }));
    await db.query(
      `UPDATE rows SET search = array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r->'words')))
       FROM jsonb_array_elements($2::text::jsonb) AS r WHERE table_id = $1 AND id = r->>'id'`,
      [table.id, JSON.stringify(words)],
    );
    after = batch[batch.length - 1]!.id;
  }
}

export class PgRows implements RowsRepository {
  constructor(private readonly db: PgClient) {}

  private async upsert(seq: number, rows: RowRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.write(async () => {
      const table = await this.db.tableOfSeq(seq);
      if (!table) throw new Error(`no table has seq ${seq}`);
      await this.ensurePartition(seq);
      const stored = rows.map((row) => ({
        id: row.id,
        created_at: row.created_at,
        updated_at: row.updated_at,
        batch_id: row.batch_id,
        extraction_id: row.extraction_id ?? null,
        confidence: row.confidence,
        values: storedValues(row.values),
        words: searchWords(table.searched.map((slot) => row.values[slot])),
      }));
      await this.db.query(UPSERT, [table.projectId, table.id, JSON.stringify(stored)]);
    });
  }

  async get(seq: number, rowId: string) {
    const [row] = await this.db.query<StoredRow>(`SELECT ${ROW_COLUMNS} FROM rows WHERE table_id = ${TABLE} AND id = $2`, [seq, rowId]);
    return row && rowRecord(row);
  }

  insert(seq: number, rows: Array<{ row: RowRecord; indexed: boolean }>) {
    return this.upsert(seq, rows.map(({ row }) => row));
  }

  put(seq: number, row: RowRecord) {
    return this.upsert(seq, [row]);
  }

  async remove(seq: number, row: RowRecord) {
    await this.db.write(() => this.db.query(`DELETE FROM rows WHERE table_id = ${TABLE} AND id = $2`, [seq, row.id]));
  }

  async all(seq: number) {
    return (await this.db.query<StoredRow>(`SELECT ${ROW_COLUMNS} FROM rows WHERE table_id = ${TABLE} ORDER BY id`, [seq])).map(rowRecord);
  }

  /** The first row by id whose value on every slot is the given one (an absent value matching null). */
  async findEqual(seq: number, slots: number[], values: Record<number, unknown>) {
    const params: unknown[] = [seq];
    const conditions = slots.map((slot) => {
      if (!Number.isInteger(slot)) throw new Error(`not a slot: ${slot}`);
      params.push(String(slot));
      const key = `$${params.length}::text`;
      const value = values[slot];
      if (value === null || value === undefined) return `NOT ("values" ? ${key})`;
      params.push(JSON.stringify(value));
      return `"values"->${key} = $${params.length}::text::jsonb`;
    });
    const [row] = await this.db.query<StoredRow>(`SELECT ${ROW_COLUMNS} FROM rows WHERE table_id = ${TABLE} AND ${conditions.join(' AND ') || 'true'} ORDER BY id LIMIT 1`, params);
    return row && rowRecord(row);
  }

  async lastRowId(seq: number) {
    const [row] = await this.db.query<{ id: string }>(`SELECT id FROM rows WHERE table_id = ${TABLE} ORDER BY id DESC LIMIT 1`, [seq]);
    return row?.id ?? '';
  }

  async markRecord(): Promise<MarkRecord | undefined> {
    return undefined;
  }

  async setMark() {}

  async mergeAll() {}

  /**
   * Makes the table's partition at its first write. Writes to one table take turns (the table's
   * lock); the advisory lock keeps out anything else that would make the same partition at once.
   */
  private async ensurePartition(seq: number): Promise<void> {
    if (await hasPartition(this.db, seq)) return;
    await this.db.query('SELECT pg_advisory_xact_lock($1, $2)', [PARTITION_LOCK, seq]);
    if (await hasPartition(this.db, seq)) return;
    const [row] = await this.db.query<{ record: TableRecord }>('SELECT record FROM tables WHERE seq = $1', [seq]);
    await makePartition(this.db, row!.record);
  }

  /**
   * Builds a column's indexes and statistics on the table's rows, in one go (a table without rows
   * has no partition yet: it gets them with it). Statistics, and those of the indexes' expressions,
   * are gathered by ANALYZE only: without them the planner would guess at the column's conditions.
   */
  async indexSlot(seq: number, spec: SlotSpec): Promise<string | undefined> {
    await this.db.write(async () => {
      if (spec.multi || !(await hasPartition(this.db, seq))) return;
      for (const object of columnObjects(seq, spec.slot)) await this.db.query(object.create);
      await this.db.query(`ANALYZE ${partitionOf(seq)}`);
    });
    return undefined;
  }

  /** Drops a column's indexes and statistics (a removed column, or one about to be indexed again). */
  async dropSlotEntries(seq: number, slot: number) {
    await this.db.write(async () => {
      for (const object of columnObjects(seq, slot)) await this.db.query(object.drop);
    });
    return 0;
  }

  /**
   * Deletes up to `batch` rows of a table (the purge of a deleted table); returns how many went.
   * The batch that leaves the partition empty drops it too, when the lock comes within 200 ms
   * (`dropPartitionSoon`); a partition left behind goes at a later start (`reconcileRowIndexes`).
   */
  async dropTableEntries(seq: number, batch: number) {
    return this.db.write(async () => {
      if (!(await hasPartition(this.db, seq))) return 0;
      const [row] = await this.db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM rows WHERE table_id = ${TABLE} AND id IN (SELECT id FROM rows WHERE table_id = ${TABLE} ORDER BY id LIMIT $2) RETURNING 1
         ) SELECT count(*)::int AS n FROM gone`,
        [seq, batch],
      );
      if (row!.n < batch) await dropPartitionSoon((text) => this.db.query(text), partitionOf(seq), '200ms');
      return row!.n;
    });
  }
}
