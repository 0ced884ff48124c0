/**
 * Versioned schema migrations, run at start by every node. Each migration runs in a transaction of
 * its own that first takes one advisory lock, so nodes starting together apply each migration once
 * (the others wait, then find it applied). An applied migration is recorded with a checksum of its
 * SQL: one whose SQL has changed since stops start-up, because the database no longer has the
 * schema the code describes. Migrations are append-only; a fix is a new migration.
 */
import type { SQL } from 'bun';
import { createHash } from 'node:crypto';
import { BATCH_EVENTS_TABLE } from './events';
import { RATE_BUCKETS_TABLE } from './ratelimit';
import { RECORDS_SCHEMA } from './records.schema';
import { reconcileRowIndexes } from './rows';
import { ROWS_BY_TABLE, ROWS_SCHEMA, ROWS_VALUES_CHECK } from './schema';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/**
 * The work queue of `jobs.ts`. A job is `queued` (due at run_at), `running` (leased to lease_owner
 * until lease_until; claimable again once that passes), `done`, or `dead` (out of attempts, kept
 * with its last error). Finished jobs stay, so enqueueing a done job's key again adds nothing.
 */
const JOBS_TABLE = `
CREATE TABLE jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  key text NOT NULL,
  payload jsonb NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'dead')),
  run_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts >= 1),
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  UNIQUE (kind, key),
  CONSTRAINT jobs_lease CHECK ((state = 'running') = (lease_owner IS NOT NULL AND lease_until IS NOT NULL))
);
-- What a claim scans: unfinished jobs by due time (running ones are few, one lease per worker slot).
CREATE INDEX jobs_due ON jobs (run_at) WHERE state IN ('queued', 'running');
`;

export const MIGRATIONS: Migration[] = [
  { id: 1, name: 'rows and jobs', sql: ROWS_SCHEMA + JOBS_TABLE },
  { id: 2, name: 'records of the store port', sql: RECORDS_SCHEMA },
  { id: 3, name: 'list values may hold nulls', sql: ROWS_VALUES_CHECK },
  { id: 4, name: 'batch events', sql: BATCH_EVENTS_TABLE },
  { id: 5, name: 'rate-limit buckets', sql: RATE_BUCKETS_TABLE },
  { id: 6, name: 'rows partitioned by table', sql: ROWS_BY_TABLE },
];

/** Any constant shared by all nodes; it only has to differ from other advisory locks of the database. */
const MIGRATE_LOCK = 2_028_001;

export const checksumOf = (sql: string): string => createHash('sha256').update(sql).digest('hex');

const HISTORY = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Every applied migration must be one of the code's, with the SQL it was applied with. */
function check(applied: Array<{ id: number; name: string; checksum: string }>, migrations: Migration[]): void {
  const byId = new Map(migrations.map((m) => [m.id, m]));
  for (const row of applied) {
    const migration = byId.get(row.id);
    const which = `schema migration ${row.id} (${row.name})`;
    if (!migration) throw new Error(`${which} is applied to the database but unknown to this version of rowsmith: the database is newer than the code`);
    const checksum = checksumOf(migration.sql);
    if (checksum !== row.checksum) {
      throw new Error(
        `${which} was applied with other SQL than this version of rowsmith has (checksum ${row.checksum}, code ${checksum}): ` +
          'migrations are append-only, so restore its SQL and put the change in a new migration',
      );
    }
  }
}

/**
 * Applies the migrations the database lacks, in id order, and returns them (none when it is up to
 * date). Then, once the rows table is partitioned, makes the column indexes its partitions lack
 * (`reconcileRowIndexes`): they follow each table's columns, so no migration can list them.
 */
export async function migrate(sql: SQL, migrations: Migration[] = MIGRATIONS): Promise<Migration[]> {
  const applied = await applyMigrations(sql, migrations);
  await sql.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
    const [partitioned] = await tx.unsafe(`SELECT FROM pg_partitioned_table WHERE partrelid = to_regclass('rows')`);
    if (partitioned) await reconcileRowIndexes(tx);
  });
  return applied;
}

async function applyMigrations(sql: SQL, migrations: Migration[]): Promise<Migration[]> {
  const ordered = [...migrations].sort((a, b) => a.id - b.id);
  if (new Set(ordered.map((m) => m.id)).size !== ordered.length) throw new Error('two schema migrations share an id');
  const applied: Migration[] = [];
  for (;;) {
    const next = await sql.begin(async (tx) => {
      // Held to the end of this transaction, so the history read below is final until it commits.
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
      await tx.unsafe(HISTORY);
      const history = [...(await tx.unsafe('SELECT id, name, checksum FROM schema_migrations ORDER BY id'))] as Array<{ id: number; name: string; checksum: string }>;
      check(history, ordered);
      const done = new Set(history.map((row) => row.id));
      const migration = ordered.find((m) => !done.has(m.id));
      if (!migration) return null;
      await tx.unsafe(migration.sql);
      await tx.unsafe('INSERT INTO schema_migrations (id, name, checksum) VALUES ($1, $2, $3)', [migration.id, migration.name, checksumOf(migration.sql)]);
      return migration;
    });
    if (!next) return applied;
    applied.push(next);
  }
}
