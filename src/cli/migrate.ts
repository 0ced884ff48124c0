/**
 * `rowsmith migrate --from lmdb --to postgres`: copies everything a DATA_DIR's LMDB store holds
 * into a PostgreSQL database, then checks the copy.
 *
 * - **Writes.** Records go through the PostgreSQL port's repositories, a few hundred to a
 *   transaction; rows through its `rows.insert`, one statement per 1,000 rows (words for `q`
 *   included). The repositories have no write that sets a count or places a batch row at its
 *   number, so usage counts, template uses, batch rows and readings (copied as their bytes) are
 *   bulk statements of this file.
 * - **Resumable.** Every write is idempotent on the record's key (an upsert, or a count set, never
 *   added to), and after each chunk a mark in `migrate_progress` says how far its step got (the
 *   last key copied). A run killed anywhere is run again with `--resume`: done steps are skipped,
 *   the others go on after their mark, and a chunk that committed before its mark did is written
 *   once more, to the same keys.
 * - **Verified.** At the end both sides are read again: per kind and per table, the number of
 *   entries and a checksum, the sum of a SHA-256 per entry over its key and the canonical JSON of
 *   its content (sorted keys, absent and null values alike), computed the same way from both.
 *
 * The target must be empty, or hold a migration of the same store (`--resume`): the store's
 * identity is a hash of its cursor secret, which is copied, so cursors stay valid.
 */
import type { SQL } from 'bun';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, type Store, type SubDatabaseName } from '../store/db';
import type { ApiKeyRecord, OrgRecord, ProjectRecord } from '../store/accounts.store';
import type { BatchRecord, ExtractionRecord } from '../store/batches.store';
import type { ExampleRecord } from '../store/examples.store';
import type { ExportRecord } from '../store/exports.store';
import type { IdempotencyRecord } from '../store/idempotency.store';
import { HOLD_PREFIX } from '../store/meta.store';
import type { KeyValues } from '../store/overlay';
import type { Repositories, StorePort } from '../store/port';
import { openPostgres } from '../store/postgres/client';
import { migrate } from '../store/postgres/migrate';
import { postgresPort } from '../store/postgres/port';
import type { RowRecord } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';
import type { TemplateRecord } from '../store/templates.store';
import type { DeliveryRecord, WebhookRecord } from '../store/webhooks.store';

/** Rows per statement: large enough that a million rows take minutes, small enough for one JSON parameter. */
const ROWS_PER_STATEMENT = 1000;
/** Records per transaction. */
const RECORDS_PER_CHUNK = 500;
/** Readings are up to 4 MB each. */
const READINGS_PER_CHUNK = 20;
/** Rows read per query while verifying. */
const VERIFY_PAGE = 5000;
/** A progress line per table every this many rows. */
const ROWS_PROGRESS_EVERY = 10_000;
/** Held by a running migrate, so that two never write into one database at once (one-key lock, apart from the others). */
const MIGRATE_RUN_LOCK = 2_028_002;

const PROGRESS_TABLE = `
CREATE TABLE IF NOT EXISTS migrate_progress (
  step text COLLATE "C" PRIMARY KEY,
  -- The LMDB store copied (sourceId): one database holds the migration of one store.
  source text NOT NULL,
  -- The last key copied, to go on after.
  after jsonb,
  copied bigint NOT NULL DEFAULT 0,
  done boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

/** The step whose mark names the source and its folder. */
const START = 'start';

export type Progress =
  | { event: 'start'; data_dir: string; resumed: boolean; steps_done: number; steps: number }
  | { event: 'step'; step: string; copied: number; skipped: boolean }
  | { event: 'rows'; table_id: string; table: string; copied: number; total: number }
  | { event: 'verify' };

export interface Check {
  /** A kind of record, `rows` (every row of the database), or `rows of <table id>`. */
  check: string;
  source: number;
  target: number;
  source_checksum: string;
  target_checksum: string;
  ok: boolean;
}

export interface MigrateReport {
  data_dir: string;
  resumed: boolean;
  seconds: number;
  checks: Check[];
  ok: boolean;
}

export interface MigrateOptions {
  dataDir: string;
  databaseUrl: string;
  resume: boolean;
  progress: (progress: Progress) => void;
}

/** One line of progress as a person reads it. */
export function describeProgress(p: Progress): string {
  const n = (value: number) => value.toLocaleString('en-US');
  switch (p.event) {
    case 'start':
      return p.resumed
        ? `resuming the migration of ${p.data_dir} into PostgreSQL (${p.steps_done} of ${p.steps} steps done)`
        : `migrating the LMDB store of ${p.data_dir} into PostgreSQL`;
    case 'step':
      return p.skipped ? `${p.step}: done in an earlier run (${n(p.copied)})` : `${p.step}: ${n(p.copied)} copied`;
    case 'rows':
      return `rows of ${p.table} (${p.table_id}): ${n(p.copied)} of ${n(p.total)}`;
    case 'verify':
      return 'verifying: counting and checksumming both sides';
  }
}

type Entry = { key: any; value: any };
/** An entry as both sides are compared on: its identity, and its content. */
type Compared = [id: string, content: unknown];

/** How one kind of record is read from PostgreSQL for the check: in pages, by its key columns. */
interface TargetScan {
  table: string;
  keys: string[];
  columns: string;
  entry: (row: any) => Compared;
}

interface Context {
  store: Store;
  sql: SQL;
  port: StorePort;
  source: string;
  progress: (progress: Progress) => void;
}

/** A step of the copy: a kind of record of one sub-database, written in chunks. */
interface Step {
  name: string;
  db: SubDatabaseName;
  /** Which entries of the sub-database are this step's (all by default). */
  includes?: (entry: Entry) => boolean;
  chunk?: number;
  write: (ctx: Context, entries: Entry[]) => Promise<void>;
  source: (entry: Entry) => Compared;
  target: TargetScan;
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** JSON with object keys sorted at every level: the same value gives the same text on both sides. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v,
  );
}

const MASK = (1n << 128n) - 1n;

/** A count and an order-free checksum: the sum of each entry's hash, so both sides may be read in their own order. */
class Digest {
  count = 0;
  private sum = 0n;

  add([id, content]: Compared): void {
    const hash = createHash('sha256').update(id).update('\0').update(canonical(content)).digest();
    this.sum = (this.sum + ((hash.readBigUInt64BE(0) << 64n) | hash.readBigUInt64BE(8))) & MASK;
    this.count++;
  }

  /** Adds another digest's entries (a sum of sums: the digest of both sets together). */
  merge(other: Digest): void {
    this.sum = (this.sum + other.sum) & MASK;
    this.count += other.count;
  }

  get hex(): string {
    return this.sum.toString(16).padStart(32, '0');
  }
}

/** A row as the rows repository gives it back: empty values left out, no extraction as null. */
function comparedRow(row: { id: string; created_at: number; updated_at: number; batch_id: string | null; extraction_id?: string | null; confidence: number | null; values: Record<string, unknown> }): Compared {
  const values = Object.fromEntries(Object.entries(row.values).filter(([, v]) => v !== null && v !== undefined));
  return [row.id, { created_at: row.created_at, updated_at: row.updated_at, batch_id: row.batch_id, extraction_id: row.extraction_id ?? null, confidence: row.confidence, values }];
}

/** Meta values are JSON on PostgreSQL: bytes (the cursor secret) are kept as base64 text there, as `postgres/secret.ts` reads it. */
const metaValue = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value);

/** A kind kept whole in one JSONB `record` column by its id, written by a repository method in chunks of one transaction. */
function records<T>(name: string, db: SubDatabaseName, table: string, put: (tx: Repositories, record: T) => Promise<void>, includes?: Step['includes']): Step {
  return {
    name,
    db,
    includes,
    write: (ctx, entries) =>
      ctx.port.transaction(async (tx) => {
        for (const { value } of entries) await put(tx, value as T);
      }),
    source: ({ key, value }) => [String(key), value],
    target: { table, keys: ['id'], columns: 'id, record', entry: (row) => [row.id, row.record] },
  };
}

/** Runs one bulk statement whose rows come from a JSON array parameter. */
async function bulk(sql: SQL, text: string, rows: unknown[]): Promise<void> {
  await sql.unsafe(text, [JSON.stringify(rows)]);
}

/**
 * What becomes of each sub-database, in the order the steps run (tables before their rows, meta
 * last, after the account writes that count their changes in it). Typed by the sub-databases, so
 * a new one does not compile until it is given steps here or a reason not to copy it: LMDB's
 * index sub-databases become indexes over the records' columns, which PostgreSQL keeps itself.
 */
const PLAN: { [D in SubDatabaseName]: Step[] | string } = {
  orgs: [records<OrgRecord>('organizations', 'orgs', 'orgs', (tx, org) => tx.accounts.putOrg(org))],
  projects: [records<ProjectRecord>('projects', 'projects', 'projects', (tx, project) => tx.accounts.putProject(project))],
  api_keys: [records<ApiKeyRecord>('api_keys', 'api_keys', 'api_keys', (tx, key) => tx.accounts.putKey(key))],
  api_key_hashes: 'index of api_keys (their hash column)',
  tables: [records<TableRecord>('tables', 'tables', 'tables', (tx, table) => tx.tables.put(table))],
  project_tables: 'index of tables',
  table_slugs: 'index of tables',
  deleted_tables: 'index of tables',
  rows: 'copied table by table after the tables step (copyRows)',
  row_index: 'index of rows',
  index_marks: "LMDB's bulk-load merge state: PostgreSQL indexes every row as it is written",
  batches: [records<BatchRecord>('batches', 'batches', 'batches', (tx, batch) => tx.batches.put(batch))],
  project_batches: 'index of batches',
  extractions: [records<ExtractionRecord>('extractions', 'extractions', 'extractions', (tx, extraction) => tx.batches.putExtraction(extraction))],
  batch_rows: [
    {
      name: 'batch_rows',
      db: 'batch_rows',
      // At their numbers, so a chunk written twice lands on the same keys (`addRows` appends).
      write: (ctx, entries) =>
        bulk(
          ctx.sql,
          `INSERT INTO batch_rows (batch_id, n, record)
           SELECT e->>'batch_id', (e->>'n')::int, e->'record' FROM jsonb_array_elements($1::text::jsonb) AS e
           ON CONFLICT (batch_id, n) DO UPDATE SET record = EXCLUDED.record`,
          entries.map(({ key, value }) => ({ batch_id: key[0], n: key[1], record: value })),
        ),
      source: ({ key, value }) => [JSON.stringify(key), value],
      target: { table: 'batch_rows', keys: ['batch_id', 'n'], columns: 'batch_id, n, record', entry: (row) => [JSON.stringify([row.batch_id, row.n]), row.record] },
    },
  ],
  webhooks: [records<WebhookRecord>('webhooks', 'webhooks', 'webhooks', (tx, webhook) => tx.webhooks.put(webhook))],
  org_webhooks: 'index of webhooks',
  deliveries: [records<DeliveryRecord>('deliveries', 'deliveries', 'deliveries', (tx, delivery) => tx.webhooks.putDelivery(delivery))],
  webhook_deliveries: 'index of deliveries',
  delivery_queue: 'index of deliveries (their queued_at column)',
  examples: [records<ExampleRecord>('examples', 'examples', 'examples', (tx, example) => tx.examples.put(example))],
  table_examples: 'index of examples',
  row_examples: 'index of examples',
  readings: [
    {
      name: 'readings',
      db: 'readings',
      chunk: READINGS_PER_CHUNK,
      // As their bytes and version: unpacked and packed again they could differ, and an old version must stay old.
      write: async (ctx, entries) => {
        for (const { key, value } of entries) {
          await ctx.sql.unsafe(
            'INSERT INTO readings (checksum, version, packed) VALUES ($1, $2, $3) ON CONFLICT (checksum) DO UPDATE SET version = EXCLUDED.version, packed = EXCLUDED.packed',
            [key, value.version, value.packed],
          );
        }
      },
      source: ({ key, value }) => [key, { version: value.version, packed: sha256(value.packed) }],
      target: { table: 'readings', keys: ['checksum'], columns: 'checksum, version, packed', entry: (row) => [row.checksum, { version: row.version, packed: sha256(row.packed) }] },
    },
  ],
  exports: [records<ExportRecord>('exports', 'exports', 'exports', (tx, exported) => tx.exports.put(exported))],
  templates: [
    // One sub-database holds the templates (by id) and the uses of every template (by ['usage', id]).
    records<TemplateRecord>('templates', 'templates', 'templates', (tx, template) => tx.templates.put(template), ({ key }) => typeof key === 'string'),
    {
      name: 'template_usage',
      db: 'templates',
      includes: ({ key }: Entry) => Array.isArray(key),
      // Set, not counted up (`countUse` adds one).
      write: (ctx, entries) =>
        bulk(
          ctx.sql,
          `INSERT INTO template_usage (id, count) SELECT e->>'id', (e->>'count')::bigint FROM jsonb_array_elements($1::text::jsonb) AS e
           ON CONFLICT (id) DO UPDATE SET count = EXCLUDED.count`,
          entries.map(({ key, value }) => ({ id: key[1], count: value })),
        ),
      source: ({ key, value }) => [key[1], value],
      target: { table: 'template_usage', keys: ['id'], columns: 'id, count::float8 AS count', entry: (row) => [row.id, row.count] },
    },
  ],
  usage: [
    {
      name: 'usage',
      db: 'usage',
      // Set, not added to (`usage.add` adds).
      write: (ctx, entries) =>
        bulk(
          ctx.sql,
          `INSERT INTO usage (organization_id, month, count) SELECT e->>'org', e->>'month', (e->>'count')::bigint FROM jsonb_array_elements($1::text::jsonb) AS e
           ON CONFLICT (organization_id, month) DO UPDATE SET count = EXCLUDED.count`,
          entries.map(({ key, value }) => ({ org: key[0], month: key[1], count: value })),
        ),
      source: ({ key, value }) => [JSON.stringify(key), value],
      target: {
        table: 'usage',
        keys: ['organization_id', 'month'],
        columns: 'organization_id, month, count::float8 AS count',
        entry: (row) => [JSON.stringify([row.organization_id, row.month]), row.count],
      },
    },
  ],
  idempotency: [
    {
      name: 'idempotency',
      db: 'idempotency',
      write: (ctx, entries) =>
        ctx.port.transaction(async (tx) => {
          for (const { key, value } of entries) await tx.idempotency.put(key[0], key[1], value as IdempotencyRecord);
        }),
      source: ({ key, value }) => [JSON.stringify(key), idempotencyContent(value)],
      target: {
        table: 'idempotency',
        keys: ['scope', 'key'],
        columns: 'scope, key, created_at, fingerprint, status, headers, body',
        entry: (row) => [JSON.stringify([row.scope, row.key]), idempotencyContent(row)],
      },
    },
  ],
  meta: [
    {
      name: 'meta',
      db: 'meta',
      // A backup's hold on the files is about this DATA_DIR's backups, not a record.
      includes: ({ key }: Entry) => !String(key).startsWith(HOLD_PREFIX),
      write: (ctx, entries) =>
        ctx.port.transaction(async (tx) => {
          for (const { key, value } of entries) await tx.meta.put(key, metaValue(value));
        }),
      source: ({ key, value }) => [key, metaValue(value)],
      target: { table: 'meta', keys: ['name'], columns: 'name, value', entry: (row) => [row.name, row.value] },
    },
  ],
};

function idempotencyContent(record: IdempotencyRecord): unknown {
  return { fingerprint: record.fingerprint, status: record.status, headers: record.headers, created_at: record.created_at, body: sha256(record.body) };
}

const STEPS: Step[] = Object.values(PLAN).flatMap((plan) => (Array.isArray(plan) ? plan : []));

// ---------------------------------------------------------------------------------------------
// Reading the source in chunks

const sameKey = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The next chunk of a range after `after` (the range's start when undefined): read whole before
 * any write, so no LMDB read transaction is held across an await. `last` is the last key read,
 * whether or not `includes` kept its entry; undefined when the range is done.
 */
function readChunk(db: KeyValues, range: { start?: unknown; end?: unknown }, after: unknown, size: number, includes?: (entry: Entry) => boolean) {
  const entries: Entry[] = [];
  let last: unknown;
  const start = after === undefined ? range.start : after;
  for (const entry of db.getRange({ start, end: range.end, limit: size + 1 })) {
    if (after !== undefined && sameKey(entry.key, after)) continue;
    last = entry.key;
    if (!includes || includes(entry)) entries.push(entry);
    if (entries.length >= size) break;
  }
  return { entries, last };
}

/** Every entry of a range, chunk by chunk. */
function* entriesOf(db: KeyValues, range: { start?: unknown; end?: unknown }, includes?: (entry: Entry) => boolean): Generator<Entry> {
  let after: unknown;
  for (;;) {
    const { entries, last } = readChunk(db, range, after, VERIFY_PAGE, includes);
    yield* entries;
    if (last === undefined) return;
    after = last;
  }
}

// ---------------------------------------------------------------------------------------------
// Progress marks

interface Mark {
  after: unknown;
  copied: number;
  done: boolean;
}

async function readMarks(sql: SQL): Promise<Map<string, Mark & { source: string }>> {
  const rows = await sql.unsafe('SELECT step, source, after, copied::float8 AS copied, done FROM migrate_progress');
  return new Map([...rows].map((row: any) => [row.step, { source: row.source, after: row.after ?? undefined, copied: row.copied, done: row.done }]));
}

async function setMark(ctx: Context, step: string, mark: Mark): Promise<void> {
  await ctx.sql.unsafe(
    `INSERT INTO migrate_progress (step, source, after, copied, done) VALUES ($1, $2, $3::text::jsonb, $4, $5)
     ON CONFLICT (step) DO UPDATE SET after = EXCLUDED.after, copied = EXCLUDED.copied, done = EXCLUDED.done, updated_at = now()`,
    [step, ctx.source, mark.after === undefined ? null : JSON.stringify(mark.after), mark.copied, mark.done],
  );
}

/**
 * Copies a range of the source chunk by chunk from the step's mark, marking after each chunk;
 * `written` hears of each chunk done (for progress). Returns the entries copied, earlier runs' included.
 */
async function copyRange(
  ctx: Context,
  marks: Map<string, Mark>,
  step: string,
  db: KeyValues,
  range: { start?: unknown; end?: unknown },
  size: number,
  includes: ((entry: Entry) => boolean) | undefined,
  write: (entries: Entry[]) => Promise<void>,
  written?: (copied: number) => void,
): Promise<number> {
  const mark = marks.get(step) ?? { after: undefined, copied: 0, done: false };
  let { after, copied } = mark;
  for (;;) {
    const { entries, last } = readChunk(db, range, after, size, includes);
    if (last === undefined) break;
    if (entries.length) {
      try {
        await write(entries);
      } catch (error) {
        throw new Error(`${step}: writing the entries from ${JSON.stringify(entries[0]!.key)} failed: ${(error as Error).message}`);
      }
      copied += entries.length;
    }
    after = last;
    await setMark(ctx, step, { after, copied, done: false });
    if (entries.length) written?.(copied);
  }
  await setMark(ctx, step, { after, copied, done: true });
  return copied;
}

/** The steps of a run: each record kind, and the rows of each table. */
function stepNames(store: Store): string[] {
  const tables = [...store.db<TableRecord, string>('tables').getKeys()].map((id) => `rows:${id}`);
  return STEPS.flatMap((step) => (step.name === 'tables' ? [step.name, ...tables] : [step.name]));
}

async function copyRows(ctx: Context, marks: Map<string, Mark>, table: TableRecord): Promise<void> {
  const step = `rows:${table.id}`;
  const range = { start: [table.seq], end: [table.seq, '\uffff'] };
  const rows = ctx.store.db('rows');
  const mark = marks.get(step);
  if (mark?.done) {
    ctx.progress({ event: 'step', step, copied: mark.copied, skipped: true });
    return;
  }
  const total = rows.getKeysCount(range);
  let shown = mark?.copied ?? 0;
  const copied = await copyRange(
    ctx,
    marks,
    step,
    rows,
    range,
    ROWS_PER_STATEMENT,
    undefined,
    (entries) => ctx.port.rows.insert(table.seq, entries.map(({ value }) => ({ row: value as RowRecord, indexed: true })), []),
    (copied) => {
      if (copied - shown < ROWS_PROGRESS_EVERY) return;
      shown = copied;
      ctx.progress({ event: 'rows', table_id: table.id, table: table.name, copied, total });
    },
  );
  if (copied !== shown || copied === 0) ctx.progress({ event: 'rows', table_id: table.id, table: table.name, copied, total });
}

async function copyStep(ctx: Context, marks: Map<string, Mark>, step: Step): Promise<void> {
  const mark = marks.get(step.name);
  if (mark?.done) {
    ctx.progress({ event: 'step', step: step.name, copied: mark.copied, skipped: true });
  } else {
    const copied = await copyRange(ctx, marks, step.name, ctx.store.db(step.db), {}, step.chunk ?? RECORDS_PER_CHUNK, step.includes, (entries) => step.write(ctx, entries));
    ctx.progress({ event: 'step', step: step.name, copied, skipped: false });
  }
  if (step.name === 'tables') {
    for (const { value } of entriesOf(ctx.store.db<TableRecord, string>('tables'), {})) await copyRows(ctx, marks, value as TableRecord);
  }
}

// ---------------------------------------------------------------------------------------------
// Verification

/** Every row of a PostgreSQL table by its key columns, a page per query. */
async function* scanTarget(sql: SQL, scan: TargetScan): AsyncGenerator<any> {
  let after: unknown[] | undefined;
  const order = scan.keys.join(', ');
  for (;;) {
    const where = after ? `WHERE (${order}) > (${scan.keys.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const page = [...(await sql.unsafe(`SELECT ${scan.columns} FROM ${scan.table} ${where} ORDER BY ${order} LIMIT ${VERIFY_PAGE}`, after ?? []))];
    yield* page;
    if (page.length < VERIFY_PAGE) return;
    after = scan.keys.map((k) => page[page.length - 1][k]);
  }
}

function check(name: string, source: Digest, target: Digest): Check {
  return {
    check: name,
    source: source.count,
    target: target.count,
    source_checksum: source.hex,
    target_checksum: target.hex,
    ok: source.count === target.count && source.hex === target.hex,
  };
}

const TARGET_ROW_COLUMNS = 'id, created_at::float8 AS created_at, updated_at::float8 AS updated_at, batch_id, extraction_id, confidence, "values"';

async function verify(ctx: Context): Promise<Check[]> {
  const checks: Check[] = [];
  for (const step of STEPS) {
    const source = new Digest();
    for (const entry of entriesOf(ctx.store.db(step.db), {}, step.includes)) source.add(step.source(entry));
    const target = new Digest();
    for await (const row of scanTarget(ctx.sql, step.target)) target.add(step.target.entry(row));
    checks.push(check(step.name, source, target));
  }
  const allSource = new Digest();
  const allTarget = new Digest();
  const tableChecks: Check[] = [];
  for (const { value } of entriesOf(ctx.store.db<TableRecord, string>('tables'), {})) {
    const table = value as TableRecord;
    const source = new Digest();
    for (const { value: row } of entriesOf(ctx.store.db('rows'), { start: [table.seq], end: [table.seq, '\uffff'] })) source.add(comparedRow(row));
    const target = new Digest();
    let after = '';
    for (;;) {
      const page = [
        ...(await ctx.sql.unsafe(`SELECT ${TARGET_ROW_COLUMNS} FROM rows WHERE table_id = $1 AND id > $2 ORDER BY id LIMIT ${VERIFY_PAGE}`, [table.id, after])),
      ];
      for (const row of page) target.add(comparedRow(row));
      if (page.length < VERIFY_PAGE) break;
      after = page[page.length - 1].id;
    }
    tableChecks.push(check(`rows of ${table.id}`, source, target));
    allSource.merge(source);
    allTarget.merge(target);
  }
  // Every row of the database is counted, so rows of a table the source lacks show too.
  const [{ n }] = await ctx.sql.unsafe('SELECT count(*)::float8 AS n FROM rows');
  const all = check('rows', allSource, allTarget);
  return [...checks, { ...all, target: n, ok: all.ok && n === allSource.count }, ...tableChecks];
}

// ---------------------------------------------------------------------------------------------
// The run

/** The source's identity: a hash of its cursor secret (one per store), else its folder. */
function sourceId(store: Store, dataDir: string): string {
  const secret = store.db<Uint8Array, string>('meta').get('server_secret');
  return secret ? `secret:${sha256(secret).slice(0, 32)}` : `folder:${dataDir}`;
}

/** The target's tables that hold data, with the name of their kind. */
const DATA_TABLES = [...STEPS.map((step): [string, string] => [step.name, step.target.table]), ['rows', 'rows'] as [string, string]];

/** The target's state: refuses (one line) unless it is empty or holds a migration of this source and `resume` is given. */
async function admit(sql: SQL, source: string, dataDir: string, resume: boolean): Promise<Map<string, Mark>> {
  const marks = await readMarks(sql);
  const sources = new Set([...marks.values()].map((m) => m.source));
  if (sources.size > 0 && !sources.has(source)) {
    const start = marks.get(START);
    const folder = (start?.after as { data_dir?: string } | undefined)?.data_dir ?? 'another folder';
    throw new Error(`the database holds a migration of another LMDB store (${folder}): migrate into a new, empty database`);
  }
  if (sources.size > 0) {
    if (!resume) {
      const finished = marks.get('meta')?.done === true;
      throw new Error(
        finished
          ? 'the database holds a finished migration of this DATA_DIR: --resume checks it again'
          : 'the database holds an unfinished migration of this DATA_DIR: run the same command with --resume to continue it',
      );
    }
    return marks;
  }
  const [held] = await sql.unsafe(`SELECT ${DATA_TABLES.map(([name, table]) => `(SELECT count(*) FROM ${table})::float8 AS ${name}`).join(', ')}`);
  const found = DATA_TABLES.filter(([name]) => held[name] > 0);
  if (found.length) {
    const counts = found
      .slice(0, 4)
      .map(([name]) => `${name}: ${held[name]}`)
      .join(', ');
    throw new Error(`the database already holds rowsmith data that no migration of this DATA_DIR put there (${counts}${found.length > 4 ? ', …' : ''}): migrate into a new, empty database`);
  }
  await sql.unsafe('INSERT INTO migrate_progress (step, source, after, done) VALUES ($1, $2, $3::text::jsonb, true)', [START, source, JSON.stringify({ data_dir: dataDir, started_at: new Date().toISOString() })]);
  return new Map();
}

export async function migrateLmdbToPostgres(options: MigrateOptions): Promise<MigrateReport> {
  const started = Date.now();
  if (!existsSync(join(options.dataDir, 'db', 'data.mdb'))) throw new Error(`${options.dataDir} holds no LMDB store (no db/data.mdb): set DATA_DIR to the folder the server ran with`);
  const dataDir = realpathSync(options.dataDir);
  const sql = openPostgres(options.databaseUrl);
  let store: Store | undefined;
  let lock: Awaited<ReturnType<SQL['reserve']>> | undefined;
  try {
    try {
      await migrate(sql);
      lock = await sql.reserve();
    } catch (error) {
      // The URL may hold a password: the message names the failure, not the URL.
      throw new Error(`the database of ROWSMITH_DATABASE_URL cannot be used: ${(error as Error).message}`);
    }
    const [{ locked }] = await lock.unsafe('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATE_RUN_LOCK]);
    if (!locked) throw new Error('another rowsmith migrate is writing into this database');
    await sql.unsafe(PROGRESS_TABLE);
    store = openStore(dataDir);
    const source = sourceId(store, dataDir);
    const marks = await admit(sql, source, dataDir, options.resume);
    const ctx: Context = { store, sql, port: postgresPort(sql), source, progress: options.progress };
    const steps = stepNames(store);
    const done = steps.filter((s) => marks.get(s)?.done).length;
    options.progress({ event: 'start', data_dir: dataDir, resumed: marks.size > 0, steps_done: done, steps: steps.length });
    for (const step of STEPS) await copyStep(ctx, marks, step);
    options.progress({ event: 'verify' });
    const checks = await verify(ctx);
    return { data_dir: dataDir, resumed: marks.size > 0, seconds: Math.round((Date.now() - started) / 100) / 10, checks, ok: checks.every((c) => c.ok) };
  } finally {
    // Closing the pool ends the session, and the lock with it.
    lock?.release();
    await store?.close();
    await sql.close();
  }
}
