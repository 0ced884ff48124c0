/**
 * The rows table the SQL of `sql.ts` runs on, for the migration runner. Column values live in one
 * JSONB object keyed by the column's slot, as on LMDB (a re-added column gets a new slot, so a
 * removed column's values never come back; the list SQL reads a column through its slot,
 * `rowsFieldSql`); `search` is the row's words as the in-memory search index tokenizes them (see
 * `searchVectorSql`).
 *
 * A migration's SQL never changes once applied (migrate.ts checks its checksum), so the review
 * threshold is written out here rather than taken from REVIEW_BELOW: a later change of that constant
 * is a new migration. test/store/postgres-sql.test.ts compares this column with needsReview().
 */
export const ROWS_SCHEMA = `
CREATE TABLE IF NOT EXISTS rows (
  project_id text NOT NULL,
  table_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  version integer NOT NULL DEFAULT 1,
  batch_id text COLLATE "C",
  extraction_id text,
  confidence double precision,
  needs_review boolean GENERATED ALWAYS AS (confidence IS NOT NULL AND confidence < 0.6) STORED NOT NULL,
  "values" jsonb NOT NULL DEFAULT '{}',
  search tsvector NOT NULL DEFAULT ''::tsvector,
  PRIMARY KEY (table_id, id),
  -- An empty value is an absent key, never a JSON null: the filters read SQL NULL as empty.
  CONSTRAINT rows_values_object CHECK (jsonb_typeof("values") = 'object' AND NOT jsonb_path_exists("values", '$.* ? (@ == null)'))
);
CREATE INDEX IF NOT EXISTS rows_search ON rows USING gin (search);
CREATE INDEX IF NOT EXISTS rows_created ON rows (table_id, created_at, id);
CREATE INDEX IF NOT EXISTS rows_values ON rows USING gin ("values" jsonb_path_ops);
`;

/**
 * The rows table's check of its values, mended: in lax mode (the default) a path unwraps arrays,
 * so a list value holding a null (`["a", null]`, which a list column accepts) was refused as if it
 * were an empty value. Strict mode looks at the top-level values only.
 */
export const ROWS_VALUES_CHECK = `
ALTER TABLE rows DROP CONSTRAINT rows_values_object;
ALTER TABLE rows ADD CONSTRAINT rows_values_object
  CHECK (jsonb_typeof("values") = 'object' AND NOT jsonb_path_exists("values", 'strict $.* ? (@ == null)'));
`;

/**
 * The rows table partitioned by table, a partition (`rows_<seq>`) per table that has rows, so that
 * each table's columns have indexes and statistics of their own, built from that table's rows only
 * (`rows.ts` makes them, and the partitions of new tables at their first write). Rows move to their
 * table's partition; rows of no table (none should exist: a table's rows go before its record) are
 * left out. The index of the values (`jsonb_path_ops`) is not made again: no query used it, and
 * every write paid for it. The order of creation needs no `table_id` in its index: a partition
 * holds one table. Each partition keeps finer statistics of its words (`SEARCH_STATISTICS` in
 * `rows.ts` says why).
 */
export const ROWS_BY_TABLE = `
ALTER TABLE rows RENAME TO rows_unpartitioned;
ALTER INDEX rows_pkey RENAME TO rows_unpartitioned_pkey;
ALTER INDEX rows_search RENAME TO rows_unpartitioned_search;
ALTER INDEX rows_created RENAME TO rows_unpartitioned_created;
ALTER INDEX rows_values RENAME TO rows_unpartitioned_values;
CREATE TABLE rows (
  LIKE rows_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED,
  PRIMARY KEY (table_id, id)
) PARTITION BY LIST (table_id);
CREATE INDEX rows_search ON rows USING gin (search);
CREATE INDEX rows_created ON rows (created_at, id);
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT id, seq FROM tables WHERE EXISTS (SELECT FROM rows_unpartitioned r WHERE r.table_id = tables.id) LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF rows FOR VALUES IN (%L)', 'rows_' || t.seq, t.id);
    EXECUTE format('ALTER TABLE %I ALTER COLUMN search SET STATISTICS 1000', 'rows_' || t.seq);
  END LOOP;
END $$;
INSERT INTO rows (project_id, table_id, id, created_at, updated_at, version, batch_id, extraction_id, confidence, "values", search)
  SELECT project_id, table_id, id, created_at, updated_at, version, batch_id, extraction_id, confidence, "values", search
  FROM rows_unpartitioned r WHERE EXISTS (SELECT FROM tables t WHERE t.id = r.table_id);
DROP TABLE rows_unpartitioned;
`;
