/**
 * Every repository of the store port but rows, on the tables of `records.schema.ts`. Each method
 * means what the LMDB store module of the same name means (src/store/*.store.ts): lists come in
 * the order of that module's keys (by id, or by the index key it ranges over), and a `previous`
 * record needs no handling here, since the indexes are the database's own over the record's columns.
 */
import { pack, unpack } from 'msgpackr';
import { BATCH_STATUSES, batchUnderWay } from '../../domain/batches';
import type { Reading } from '../../extract';
import { idTimeBound } from '../../lib/ids';
import type { ApiKeyRecord, OrgRecord, ProjectRecord } from '../accounts.store';
import type { BatchRecord, BatchRow, ExtractionRecord } from '../batches.store';
import type { ExampleRecord } from '../examples.store';
import type { ExportRecord } from '../exports.store';
import type { IdempotencyRecord } from '../idempotency.store';
import { HOLD_PREFIX } from '../meta.store';
import type {
  AccountsRepository,
  BatchesRepository,
  ExamplesRepository,
  ExportsRepository,
  IdempotencyRepository,
  MetaRepository,
  ReadingsRepository,
  TablesRepository,
  TemplatesRepository,
  UsageRepository,
  WebhooksRepository,
} from '../port';
import { MAX_READING_BYTES, READING_VERSION } from '../readings.store';
import type { TableRecord } from '../tables.store';
import type { TemplateRecord } from '../templates.store';
import type { DeliveryRecord, WebhookRecord } from '../webhooks.store';
import { searchedSlots, type PgClient } from './client';
import { rewriteSearchWords } from './rows';

/** A record as a JSONB parameter: sent as text and cast on the server, as `jobs.ts` does. */
const json = (value: unknown): string => JSON.stringify(value);

async function records<T>(db: PgClient, text: string, params: unknown[]): Promise<T[]> {
  return (await db.query<{ record: T }>(text, params)).map((row) => row.record);
}

async function record<T>(db: PgClient, text: string, params: unknown[]): Promise<T | undefined> {
  return (await records<T>(db, text, params))[0];
}

/**
 * One record written by its id, with the key columns queries find it by beside it (`keys`, by
 * column name): the statement and its parameters. Table and column names are this module's
 * constants; values travel as `$n` only.
 */
function upsert(table: string, id: string, keys: Record<string, unknown>, value: unknown): [string, unknown[]] {
  const names = Object.keys(keys);
  const columns = ['id', ...names, 'record'];
  const placeholders = columns.map((_, i) => (i === columns.length - 1 ? `$${i + 1}::text::jsonb` : `$${i + 1}`));
  const set = [...names, 'record'].map((c) => `${c} = EXCLUDED.${c}`).join(', ');
  return [`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders.join(', ')}) ON CONFLICT (id) DO UPDATE SET ${set}`, [id, ...Object.values(keys), json(value)]];
}

/** Adds one to a numeric meta value (1 when it has none) in one statement, so no count is lost; gives the new value. */
const COUNT_UP = `INSERT INTO meta (name, value) VALUES ($1, '1')
  ON CONFLICT (name) DO UPDATE SET value = to_jsonb((meta.value #>> '{}')::numeric + 1) RETURNING value`;

export class PgTables implements TablesRepository {
  constructor(private readonly db: PgClient) {}

  get(id: string) {
    return record<TableRecord>(this.db, 'SELECT record FROM tables WHERE id = $1', [id]);
  }

  async slugOwner(projectId: string, slug: string) {
    const [row] = await this.db.query<{ id: string }>('SELECT id FROM tables WHERE project_id = $1 AND slug = $2 AND deleted_at IS NULL ORDER BY id LIMIT 1', [projectId, slug]);
    return row?.id;
  }

  listProject(projectId: string) {
    return records<TableRecord>(this.db, 'SELECT record FROM tables WHERE project_id = $1 ORDER BY id', [projectId]);
  }

  /** Writes a table; when its searched columns change, the words for `q` of its rows change with it. */
  async put(table: TableRecord, previous?: TableRecord) {
    await this.db.write(async () => {
      await this.db.query(...upsert('tables', table.id, { seq: table.seq, project_id: table.project_id, slug: table.slug, deleted_at: table.deleted_at }, table));
      this.db.tablesChanged();
      if (previous && searchedSlots(previous).join() !== searchedSlots(table).join()) await rewriteSearchWords(this.db, table);
    });
  }

  putRecord(table: TableRecord) {
    return this.put(table);
  }

  activeLargerThan(rows: number) {
    return records<TableRecord>(this.db, `SELECT record FROM tables WHERE deleted_at IS NULL AND (record->>'row_count')::float8 > $1 ORDER BY id`, [rows]);
  }

  withSlotWork() {
    return records<TableRecord>(
      this.db,
      `SELECT record FROM tables WHERE jsonb_array_length(record->'dropped_slots') > 0 OR jsonb_array_length(record->'pending_slots') > 0 ORDER BY id`,
      [],
    );
  }

  async deletedBefore(cutoff: number) {
    return (await this.db.query<{ id: string }>('SELECT id FROM tables WHERE deleted_at <= $1 ORDER BY deleted_at, id', [cutoff])).map((row) => row.id);
  }

  async remove(table: TableRecord) {
    await this.db.write(() => this.db.query('DELETE FROM tables WHERE id = $1', [table.id]));
    this.db.tablesChanged();
  }
}

export class PgMeta implements MetaRepository {
  constructor(private readonly db: PgClient) {}

  async get<T>(name: string) {
    const [row] = await this.db.query<{ value: T }>('SELECT value FROM meta WHERE name = $1', [name]);
    return row?.value;
  }

  async put(name: string, value: unknown) {
    await this.db.write(() => this.db.query('INSERT INTO meta (name, value) VALUES ($1, $2::text::jsonb) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value', [name, json(value)]));
  }

  async nextSeq(name: string) {
    const [row] = await this.db.write(() => this.db.query<{ value: number }>(COUNT_UP, [name]));
    return row!.value;
  }

  async filesHeld() {
    const [row] = await this.db.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM meta WHERE starts_with(name, $1) AND (value->>'until')::float8 > $2) AS held`, [
      HOLD_PREFIX,
      Date.now(),
    ]);
    return row!.held;
  }
}

/** Where the accounts' change count lives, as in LMDB (`AccountsStore.version`). */
const ACCOUNTS_VERSION = 'accounts_version';

export class PgAccounts implements AccountsRepository {
  constructor(private readonly db: PgClient) {}

  /** Writes a record and counts the change, in one transaction. */
  private changed(text: string, params: unknown[]): Promise<void> {
    return this.db.write(async () => {
      await this.db.query(COUNT_UP, [ACCOUNTS_VERSION]);
      await this.db.query(text, params);
    });
  }

  getOrg(id: string) {
    return record<OrgRecord>(this.db, 'SELECT record FROM orgs WHERE id = $1', [id]);
  }

  async version() {
    const [row] = await this.db.query<{ value: number }>('SELECT value FROM meta WHERE name = $1', [ACCOUNTS_VERSION]);
    return row?.value ?? 0;
  }

  putOrg(org: OrgRecord) {
    return this.changed(...upsert('orgs', org.id, {}, org));
  }

  listOrgs() {
    return records<OrgRecord>(this.db, 'SELECT record FROM orgs ORDER BY id', []);
  }

  getProject(id: string) {
    return record<ProjectRecord>(this.db, 'SELECT record FROM projects WHERE id = $1', [id]);
  }

  putProject(project: ProjectRecord) {
    return this.changed(...upsert('projects', project.id, { organization_id: project.organization_id }, project));
  }

  listProjects(organizationId?: string) {
    return records<ProjectRecord>(this.db, 'SELECT record FROM projects WHERE $1::text IS NULL OR organization_id = $1 ORDER BY id', [organizationId ?? null]);
  }

  getKey(id: string) {
    return record<ApiKeyRecord>(this.db, 'SELECT record FROM api_keys WHERE id = $1', [id]);
  }

  getKeyByHash(hash: string) {
    return record<ApiKeyRecord>(this.db, 'SELECT record FROM api_keys WHERE hash = $1 ORDER BY id LIMIT 1', [hash]);
  }

  putKey(key: ApiKeyRecord) {
    return this.changed(...upsert('api_keys', key.id, { organization_id: key.organization_id, hash: key.hash }, key));
  }

  listKeys(organizationId?: string) {
    return records<ApiKeyRecord>(this.db, 'SELECT record FROM api_keys WHERE $1::text IS NULL OR organization_id = $1 ORDER BY id', [organizationId ?? null]);
  }
}

export class PgUsage implements UsageRepository {
  constructor(private readonly db: PgClient) {}

  async get(organizationId: string, month: string) {
    const [row] = await this.db.query<{ count: number }>('SELECT count::float8 AS count FROM usage WHERE organization_id = $1 AND month = $2', [organizationId, month]);
    return row?.count ?? 0;
  }

  async add(counts: Map<string, number>, month: string) {
    if (counts.size === 0) return;
    // Added by the statement itself, so writers on other nodes lose no count.
    await this.db.write(() =>
      this.db.query(
        `INSERT INTO usage (organization_id, month, count) SELECT key, $2, value::bigint FROM jsonb_each_text($1::text::jsonb)
         ON CONFLICT (organization_id, month) DO UPDATE SET count = usage.count + EXCLUDED.count`,
        [json(Object.fromEntries(counts)), month],
      ),
    );
  }
}

export class PgIdempotency implements IdempotencyRepository {
  constructor(private readonly db: PgClient) {}

  async get(scope: string, key: string) {
    const [row] = await this.db.query<IdempotencyRecord>(
      'SELECT fingerprint, status, headers, body, created_at FROM idempotency WHERE scope = $1 AND key = $2',
      [scope, key],
    );
    return row && { ...row, body: new Uint8Array(row.body) };
  }

  async put(scope: string, key: string, record: IdempotencyRecord) {
    await this.db.write(() =>
      this.db.query(
        `INSERT INTO idempotency (scope, key, created_at, fingerprint, status, headers, body) VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7)
         ON CONFLICT (scope, key) DO UPDATE SET created_at = EXCLUDED.created_at, fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status,
           headers = EXCLUDED.headers, body = EXCLUDED.body`,
        [scope, key, record.created_at, record.fingerprint, record.status, json(record.headers), Buffer.from(record.body)],
      ),
    );
  }

  async purgeBefore(cutoff: number) {
    const [row] = await this.db.write(() =>
      this.db.query<{ n: number }>('WITH gone AS (DELETE FROM idempotency WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [cutoff]),
    );
    return row!.n;
  }
}

const UNDER_WAY = BATCH_STATUSES.filter(batchUnderWay);

export class PgBatches implements BatchesRepository {
  constructor(private readonly db: PgClient) {}

  get(id: string) {
    return record<BatchRecord>(this.db, 'SELECT record FROM batches WHERE id = $1', [id]);
  }

  listProject(projectId: string) {
    return records<BatchRecord>(this.db, 'SELECT record FROM batches WHERE project_id = $1 ORDER BY id', [projectId]);
  }

  unfinished() {
    return records<BatchRecord>(this.db, 'SELECT record FROM batches WHERE status IN (SELECT jsonb_array_elements_text($1::text::jsonb)) ORDER BY id', [json(UNDER_WAY)]);
  }

  async put(batch: BatchRecord) {
    await this.db.write(() => this.db.query(...upsert('batches', batch.id, { project_id: batch.project_id, status: batch.status }, batch)));
  }

  getExtraction(id: string) {
    return record<ExtractionRecord>(this.db, 'SELECT record FROM extractions WHERE id = $1', [id]);
  }

  async putExtraction(extraction: ExtractionRecord) {
    await this.db.write(() => this.db.query(...upsert('extractions', extraction.id, {}, extraction)));
  }

  async addRows(batchId: string, rows: BatchRow[]) {
    if (rows.length === 0) return;
    await this.db.write(() =>
      this.db.query(
        `INSERT INTO batch_rows (batch_id, n, record)
         SELECT $1, last.next + e.ord - 1, e.value
         FROM (SELECT COALESCE(max(n) + 1, 0) AS next FROM batch_rows WHERE batch_id = $1) AS last,
              jsonb_array_elements($2::text::jsonb) WITH ORDINALITY AS e(value, ord)`,
        [batchId, json(rows)],
      ),
    );
  }

  batchRows(batchId: string) {
    return records<BatchRow>(this.db, 'SELECT record FROM batch_rows WHERE batch_id = $1 ORDER BY n', [batchId]);
  }
}

export class PgWebhooks implements WebhooksRepository {
  constructor(private readonly db: PgClient) {}

  get(id: string) {
    return record<WebhookRecord>(this.db, 'SELECT record FROM webhooks WHERE id = $1', [id]);
  }

  listOrg(organizationId: string) {
    return records<WebhookRecord>(this.db, 'SELECT record FROM webhooks WHERE organization_id = $1 ORDER BY id', [organizationId]);
  }

  async put(webhook: WebhookRecord) {
    await this.db.write(() => this.db.query(...upsert('webhooks', webhook.id, { organization_id: webhook.organization_id }, webhook)));
  }

  /** Removes a webhook with all its deliveries (and so their places in the queue). */
  async remove(webhook: WebhookRecord) {
    await this.db.write(async () => {
      await this.db.query('DELETE FROM deliveries WHERE webhook_id = $1', [webhook.id]);
      await this.db.query('DELETE FROM webhooks WHERE id = $1', [webhook.id]);
    });
  }

  getDelivery(id: string) {
    return record<DeliveryRecord>(this.db, 'SELECT record FROM deliveries WHERE id = $1', [id]);
  }

  async deliveryIds(webhookId: string) {
    return (await this.db.query<{ id: string }>('SELECT id FROM deliveries WHERE webhook_id = $1 ORDER BY id', [webhookId])).map((row) => row.id);
  }

  listDeliveries(webhookId: string) {
    return records<DeliveryRecord>(this.db, 'SELECT record FROM deliveries WHERE webhook_id = $1 ORDER BY id', [webhookId]);
  }

  async putDelivery(delivery: DeliveryRecord) {
    await this.db.write(() =>
      this.db.query(...upsert('deliveries', delivery.id, { webhook_id: delivery.webhook_id, status: delivery.status, queued_at: delivery.queued_at }, delivery)),
    );
  }

  async removeDelivery(delivery: DeliveryRecord) {
    await this.db.write(() => this.db.query('DELETE FROM deliveries WHERE id = $1', [delivery.id]));
  }

  async nextQueued() {
    const [row] = await this.db.query<{ at: number | null }>('SELECT min(queued_at) AS at FROM deliveries', []);
    return row?.at ?? null;
  }

  async queuedUntil(time: number, limit: number) {
    return (await this.db.query<{ id: string }>('SELECT id FROM deliveries WHERE queued_at <= $1 ORDER BY queued_at, id LIMIT $2', [time, limit])).map((row) => row.id);
  }

  async queuedFor(webhookId: string) {
    return (await this.db.query<{ id: string }>('SELECT id FROM deliveries WHERE webhook_id = $1 AND queued_at IS NOT NULL ORDER BY queued_at, id', [webhookId])).map(
      (row) => row.id,
    );
  }

  /** Finished deliveries made before `cutoff`, oldest first (ids sort by creation time). */
  finishedBefore(cutoff: number, limit: number) {
    return records<DeliveryRecord>(this.db, `SELECT record FROM deliveries WHERE id < $1 AND status <> 'pending' ORDER BY id LIMIT $2`, [idTimeBound('whdlv', cutoff), limit]);
  }
}

export class PgExamples implements ExamplesRepository {
  constructor(private readonly db: PgClient) {}

  ofRow(tableId: string, rowId: string) {
    return record<ExampleRecord>(this.db, 'SELECT record FROM examples WHERE table_id = $1 AND row_id = $2 ORDER BY id LIMIT 1', [tableId, rowId]);
  }

  get(id: string) {
    return record<ExampleRecord>(this.db, 'SELECT record FROM examples WHERE id = $1', [id]);
  }

  listTable(tableId: string) {
    return records<ExampleRecord>(this.db, 'SELECT record FROM examples WHERE table_id = $1 ORDER BY id', [tableId]);
  }

  async put(example: ExampleRecord) {
    await this.db.write(() => this.db.query(...upsert('examples', example.id, { table_id: example.table_id, row_id: example.row_id }, example)));
  }

  async remove(example: ExampleRecord) {
    await this.db.write(() => this.db.query('DELETE FROM examples WHERE id = $1', [example.id]));
  }
}

export class PgReadings implements ReadingsRepository {
  constructor(private readonly db: PgClient) {}

  async get(checksum: string) {
    const [row] = await this.db.query<{ packed: Uint8Array }>('SELECT packed FROM readings WHERE checksum = $1 AND version = $2', [checksum, READING_VERSION]);
    return row && (unpack(row.packed) as Reading);
  }

  async has(checksum: string) {
    const [row] = await this.db.query<{ kept: boolean }>('SELECT EXISTS (SELECT 1 FROM readings WHERE checksum = $1 AND version = $2) AS kept', [checksum, READING_VERSION]);
    return row!.kept;
  }

  async put(checksum: string, reading: Reading) {
    const packed = pack(reading);
    if (packed.byteLength > MAX_READING_BYTES) return false;
    await this.db.write(() =>
      this.db.query('INSERT INTO readings (checksum, version, packed) VALUES ($1, $2, $3) ON CONFLICT (checksum) DO UPDATE SET version = EXCLUDED.version, packed = EXCLUDED.packed', [
        checksum,
        READING_VERSION,
        packed,
      ]),
    );
    return true;
  }
}

export class PgExports implements ExportsRepository {
  constructor(private readonly db: PgClient) {}

  get(id: string) {
    return record<ExportRecord>(this.db, 'SELECT record FROM exports WHERE id = $1', [id]);
  }

  async put(exported: ExportRecord) {
    await this.db.write(() => this.db.query(...upsert('exports', exported.id, {}, exported)));
  }

  all() {
    return records<ExportRecord>(this.db, 'SELECT record FROM exports ORDER BY id', []);
  }

  async remove(exported: ExportRecord) {
    await this.db.write(() => this.db.query('DELETE FROM exports WHERE id = $1', [exported.id]));
  }
}

/** Organizations' templates have ids of this prefix; `TemplatesStore.listOrg` lists only those. */
const TEMPLATE_PREFIX = 'ttmpl_';

export class PgTemplates implements TemplatesRepository {
  constructor(private readonly db: PgClient) {}

  get(id: string) {
    return record<TemplateRecord>(this.db, 'SELECT record FROM templates WHERE id = $1', [id]);
  }

  listOrg(organizationId: string) {
    return records<TemplateRecord>(this.db, 'SELECT record FROM templates WHERE organization_id = $1 AND starts_with(id, $2) ORDER BY id', [organizationId, TEMPLATE_PREFIX]);
  }

  async put(template: TemplateRecord) {
    await this.db.write(() => this.db.query(...upsert('templates', template.id, { organization_id: template.organization_id }, template)));
  }

  async remove(id: string) {
    await this.db.write(async () => {
      await this.db.query('DELETE FROM templates WHERE id = $1', [id]);
      await this.db.query('DELETE FROM template_usage WHERE id = $1', [id]);
    });
  }

  async usage(id: string) {
    const [row] = await this.db.query<{ count: number }>('SELECT count::float8 AS count FROM template_usage WHERE id = $1', [id]);
    return row?.count ?? 0;
  }

  async countUse(id: string) {
    await this.db.write(() =>
      this.db.query('INSERT INTO template_usage (id, count) VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET count = template_usage.count + 1', [id]),
    );
  }
}
