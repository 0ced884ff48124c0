/**
 * The store port on PostgreSQL, over the tables of `migrate.ts` (run the migrations first). The
 * repositories find the open transaction themselves (`client.ts`), so the ones given to a
 * transaction's body are the port's own, as on LMDB. test/store/port-contract.ts holds both
 * adapters to the same meaning.
 */
import type { SQL } from 'bun';
import type { Repositories, StorePort } from '../port';
import { PgClient } from './client';
import { PgAccounts, PgBatches, PgExamples, PgExports, PgIdempotency, PgMeta, PgReadings, PgTables, PgTemplates, PgUsage, PgWebhooks } from './records';
import { PgRows } from './rows';

export function postgresPort(sql: SQL): StorePort {
  const db = new PgClient(sql);
  const repositories: Repositories = {
    tables: new PgTables(db),
    rows: new PgRows(db),
    meta: new PgMeta(db),
    accounts: new PgAccounts(db),
    usage: new PgUsage(db),
    idempotency: new PgIdempotency(db),
    batches: new PgBatches(db),
    webhooks: new PgWebhooks(db),
    examples: new PgExamples(db),
    readings: new PgReadings(db),
    exports: new PgExports(db),
    templates: new PgTemplates(db),
  };
  return { ...repositories, transaction: (fn, options) => db.transaction(() => fn(repositories), options) };
}
