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
 * indexes in step with every write, so the writes need no `slots`, `previous` or `indexed`, there
 * is no mark (`markRecord` is undefined), no slot to build (`indexSlot` is undefined) and no entry
 * to drop (`dropSlotEntries` is 0).
 */
import type { RowsRepository } from '../port';
import type { MarkRecord, RowRecord } from '../rows.store';
import type { TableRecord } from '../tables.store';
import { searchedSlots, type PgClient } from './client';
import { rowFieldSql, searchWords, type FieldSqlOf } from './sql';

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

  async indexSlot(): Promise<string | undefined> {
    return undefined;
  }

  async dropSlotEntries() {
    return 0;
  }

  /** Deletes up to `batch` rows of a table (the purge of a deleted table); returns how many went. */
  async dropTableEntries(seq: number, batch: number) {
    const [row] = await this.db.write(() =>
      this.db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM rows WHERE table_id = ${TABLE} AND id IN (SELECT id FROM rows WHERE table_id = ${TABLE} ORDER BY id LIMIT $2) RETURNING 1
         ) SELECT count(*)::int AS n FROM gone`,
        [seq, batch],
      ),
    );
    return row!.n;
  }
}
