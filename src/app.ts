/** Builds the whole service without listening: main.ts serves it, tests call `handle`. */
import { swagger } from '@elysiajs/swagger';
import { Elysia, type AnyElysia } from 'elysia';
import type { Config } from './config';
import { authPlugin } from './http/auth';
import { jsonBody } from './http/body';
import { errorHandler } from './http/errors';
import { Gateway } from './http/gateway';
import { columnsRoutes } from './http/columns.routes';
import { consoleRoutes } from './http/console.routes';
import { docsRoutes, openApiCache } from './http/docs.routes';
import { keysRoutes } from './http/keys.routes';
import { meRoutes } from './http/me.routes';
import { rowsRoutes } from './http/rows.routes';
import { tablesRoutes } from './http/tables.routes';
import { webhooksRoutes } from './http/webhooks.routes';
import { batchesRoutes } from './http/batches.routes';
import { extractRoutes } from './http/extract.routes';
import { exportsRoutes } from './http/exports.routes';
import { templatesRoutes } from './http/templates.routes';
import { WebhookDispatcher } from './jobs/webhook-dispatcher';
import { WebhookSender } from './services/webhook-sender';
import { systemResolver, type Resolver } from './lib/address';
import { Outbound } from './lib/outbound';
import type { Clock } from './lib/clock';
import { Foreground } from './lib/foreground';
import { createLogger, type Logger } from './lib/log';
import { VERSION } from './lib/version';
import { CursorCodec } from './query/cursor';
import { AccountsService } from './services/accounts.service';
import { ColumnsService } from './services/columns.service';
import { RowIndex } from './services/row-index';
import { RowsQuery } from './services/rows.query';
import { RowsService, type RowCaches, type RowsQueryEngine } from './services/rows.service';
import { IdempotencyService } from './services/idempotency.service';
import { memoryBuckets, RateLimiter } from './services/ratelimit.service';
import type { RateBuckets } from './store/ratelimit';
import { pgRateBuckets } from './store/postgres/ratelimit';
import { TablesService } from './services/tables.service';
import { UsageService } from './services/usage.service';
import { WebhooksService } from './services/webhooks.service';
import { BatchesService } from './services/batches.service';
import { KeysService } from './services/keys.service';
import { ExtractService } from './services/extract.service';
import { EXPORT_JOB, ExportsService } from './services/exports.service';
import { SuggestService } from './services/suggest.service';
import { TemplatesService } from './services/templates.service';
import type { SQL } from 'bun';
import type { Store } from './store/db';
import type { StorePort } from './store/port';
import { PgClient } from './store/postgres/client';
import { postgresPort } from './store/postgres/port';
import { serverSecret } from './store/postgres/secret';
import { PgRowsQuery } from './services/rows.query.postgres';
import { lmdbPort } from './store/lmdb.port';
import { MetaStore } from './store/meta.store';
import { RowsStore } from './store/rows.store';
import { BuildQueue } from './search/builds';
import { IndexMerger } from './jobs/index-merge';
import { IndexTails } from './search/index-tail';
import { ColumnCache } from './search/column-cache';
import { SearchIndexes } from './search/search';
import { TablesStore } from './store/tables.store';
import { FilesStore } from './store/files.store';
import { ExportFiles } from './store/exports.store';
import { FolderStorage } from './store/files/folder';
import { S3Storage } from './store/files/s3';
import type { FileStorage } from './store/files/storage';
import { ExamplesService } from './services/examples.service';
import { EXTRACT_FILE_JOB, EXTRACT_JOB } from './services/extract.service';
import { MemoryEventLog, type EventLog } from './store/events';
import { PgEventLog } from './store/postgres/events';
import { pgJobQueue } from './store/postgres/jobs';
import { Worker } from './jobs/worker';
import type { JobQueue } from './store/queue';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { examplesRoutes } from './http/examples.routes';

export { VERSION };

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  log?: Logger;
  /** main.ts passes the gateway it is already serving with; tests get a fresh one. */
  gateway?: Gateway;
  /** Outbound DNS and jitter, replaceable in tests. */
  network?: NetworkDeps;
}

export interface NetworkDeps {
  resolver?: Resolver;
  random?: () => number;
}

/** The LMDB store's services: the port over `store`, and its list engine with its in-process caches. */
export function createServices(store: Store, config: Config, clock: Clock, log: Logger, network: NetworkDeps = {}) {
  const port = lmdbPort(store);
  const cursors = new CursorCodec(new MetaStore(store).serverSecret());
  const tablesStore = new TablesStore(store);
  const rowsStore = new RowsStore(store);
  const foreground = new Foreground(config.backgroundYieldMs);
  const builds = new BuildQueue(log, undefined, foreground);
  const current = (id: string) => tablesStore.get(id);
  const columnCache = new ColumnCache(rowsStore, builds, current);
  const search = new SearchIndexes(rowsStore, builds, current, (tableId, id) => columnCache.idString(tableId, id));
  const tails = new IndexTails(rowsStore);
  const merger = new IndexMerger(store, rowsStore, tablesStore, tails, log, config.indexMergeIdleMs, config.indexMergeRunRows, config.indexTailMaxRows, config.indexMergeSliceMs, foreground, builds);
  const rowsQuery = new RowsQuery(rowsStore, search, cursors, columnCache, new RowIndex(rowsStore, tails));
  const core = coreServices(
    { port, cursors, query: rowsQuery, caches: { search, columns: columnCache, tails, merger }, foreground, storage: new FolderStorage(store.dataDir), events: new MemoryEventLog(), jobs: null, buckets: memoryBuckets(clock) },
    config,
    clock,
    log,
    network,
  );
  return { ...core, merger, tails, tablesStore, builds, search, columnCache, rowsStore };
}

/**
 * The PostgreSQL store's services: the port over the pool (migrated already), and the list engine
 * over SQL. The database keeps its own indexes, so there are no caches, tails or index merge.
 * Extractions are jobs of the shared queue, and their events are in the database, so any node
 * can run a batch and any node can stream it; unless its role is `api`, this node's worker is
 * started here. Files are in a folder or a bucket that every node reaches, checked before anything
 * starts (`FilesUnavailable` when they cannot be written).
 */
export async function createPostgresServices(sql: SQL, config: Config, clock: Clock, log: Logger, network: NetworkDeps = {}) {
  const port = postgresPort(sql);
  const cursors = new CursorCodec(await serverSecret(port));
  const query = new PgRowsQuery(new PgClient(sql), cursors);
  const jobs = pgJobQueue(sql);
  // With a bucket, DATA_DIR keeps only what this node makes before uploading it.
  const storage = config.files.kind === 's3' ? new S3Storage(config.files, join(config.dataDir, 'tmp')) : new FolderStorage(config.files.dir);
  await storage.check();
  const parts = { port, cursors, query, caches: null, foreground: new Foreground(config.backgroundYieldMs), storage, events: new PgEventLog(sql), jobs, buckets: pgRateBuckets(sql) };
  const core = coreServices(parts, config, clock, log, network);
  const worker =
    config.role === 'api'
      ? null
      : new Worker(jobs, { [EXTRACT_JOB]: (job) => core.extract.runJob(job), [EXTRACT_FILE_JOB]: (job) => core.extract.runJob(job), [EXPORT_JOB]: (job) => core.exports.runJob(job) }, { name: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, concurrency: config.workerConcurrency, leaseMs: config.jobLeaseMs }, log);
  await worker?.start();
  return { ...core, worker };
}

/** What a store gives the services. */
interface StoreParts {
  port: StorePort;
  cursors: CursorCodec;
  query: RowsQueryEngine;
  caches: RowCaches | null;
  foreground: Foreground;
  /** Where uploaded and exported files are kept. */
  storage: FileStorage;
  /** Where batches' progress events go, for whoever follows them. */
  events: EventLog;
  /** The shared queue of extraction jobs, or null when this process runs its extractions itself. */
  jobs: JobQueue | null;
  /** The rate limit's buckets: this process's, or the database's that every node shares. */
  buckets: RateBuckets;
}

function coreServices({ port, cursors, query, caches, foreground, storage, events, jobs, buckets }: StoreParts, config: Config, clock: Clock, log: Logger, network: NetworkDeps) {
  const accounts = new AccountsService(port, clock);
  const tables = new TablesService(port, clock, cursors, caches);
  const outbound = new Outbound(config.outboundPolicy, network.resolver ?? systemResolver, config.webhookCa, `rowsmith/${VERSION}`);
  const sender = new WebhookSender(outbound, clock, config.webhookTimeoutMs);
  const webhooks = new WebhooksService(port, clock, cursors, outbound, sender, config, network.random);
  const files = new FilesStore(storage);
  const rows = new RowsService(port, tables, query, clock, caches);
  const batches = new BatchesService(port, files, tables, cursors, clock, events);
  const examples = new ExamplesService(port, files, tables, cursors, clock, config, batches);
  rows.onReview(examples);
  return {
    port,
    foreground,
    storage,
    accounts,
    tables,
    columns: new ColumnsService(tables),
    rows,
    batches,
    keys: new KeysService(accounts, cursors),
    extract: new ExtractService(port, files, tables, rows, webhooks, outbound, clock, config, log, (tableId) => examples.layoutsFor(tableId), events, jobs),
    examples,
    exports: new ExportsService(port, new ExportFiles(storage), tables, rows, clock, log, config.exportTtlMs, jobs),
    suggest: new SuggestService(config),
    templates: new TemplatesService(port, tables, cursors, clock),
    rateLimiter: new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst, buckets),
    usage: new UsageService(port.usage, clock),
    idempotency: new IdempotencyService(port.idempotency, clock),
    outbound,
    webhooks,
    dispatcher: new WebhookDispatcher(webhooks, clock, log, config.webhookConcurrency),
    events,
  };
}

export type Services = ReturnType<typeof createServices>;
/** The services both stores have. */
export type CoreServices = ReturnType<typeof coreServices>;

/** The service on LMDB. */
export function createApp(deps: AppDeps) {
  const log = deps.log ?? createLogger(deps.config.logRequests);
  return assemble(createServices(deps.store, deps.config, deps.clock, log, deps.network), deps, log);
}

/** The service on PostgreSQL: `sql` is a pool on a database that `migrate` has brought up to date. */
export async function createPostgresApp(deps: Omit<AppDeps, 'store'> & { sql: SQL }) {
  const log = deps.log ?? createLogger(deps.config.logRequests);
  return assemble(await createPostgresServices(deps.sql, deps.config, deps.clock, log, deps.network), deps, log);
}

function assemble<S extends CoreServices>(services: S, deps: Omit<AppDeps, 'store'>, log: Logger) {
  const auth = authPlugin(services);

  let elysia: AnyElysia;
  elysia = new Elysia({ encodeSchema: false })
    .use(errorHandler(log, () => elysia))
    .use(jsonBody(deps.config.maxBodyBytes, deps.config.maxUploadBytes))
    .use(openApiCache('/swagger/json'))
    .use(
      // The plugin writes the OpenAPI document; its page (which loads a CDN) is replaced by
      // docsRoutes, which serves Swagger UI from this process.
      swagger({
        path: '/swagger/cdn',
        specPath: '/swagger/json',
        exclude: ['/swagger', '/swagger/cdn', '/swagger/json', '/swagger/assets/init.js', '/swagger/assets/:file'],
        documentation: {
          info: { title: 'rowsmith', version: VERSION, description: 'Self-hosted table extraction service' },
          components: {
            securitySchemes: {
              apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'API key authentication. Format: ApiKey {your_api_key}' },
            },
          },
          security: [{ apiKey: [] }],
        },
      }),
    )
    .use(docsRoutes())
    .use(meRoutes(auth, services.accounts))
    .use(keysRoutes(auth, services.keys))
    .use(tablesRoutes(auth, services.tables))
    .use(columnsRoutes(auth, services.columns, services.rows))
    .use(rowsRoutes(auth, services.rows))
    .use(webhooksRoutes(auth, services.accounts, services.webhooks))
    .use(extractRoutes(auth, services.extract))
    .use(batchesRoutes(auth, services.batches))
    .use(examplesRoutes(auth, services.examples))
    .use(exportsRoutes(auth, services.exports, services.suggest))
    .use(templatesRoutes(auth, services.templates))
    .use(consoleRoutes());
  elysia.compile();

  const gateway = deps.gateway ?? new Gateway(deps.config, log);
  gateway.attach({ handle: (request) => elysia.handle(request) }, services.idempotency);
  services.foreground.quietFor = () => gateway.quietFor();
  return { elysia, gateway, services, handle: gateway.fetch };
}

export type App = ReturnType<typeof createApp>;
export type PostgresApp = Awaited<ReturnType<typeof createPostgresApp>>;
