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
import { RowsService } from './services/rows.service';
import { IdempotencyService } from './services/idempotency.service';
import { RateLimiter } from './services/ratelimit.service';
import { TablesService } from './services/tables.service';
import { UsageService } from './services/usage.service';
import { WebhooksService } from './services/webhooks.service';
import { BatchesService } from './services/batches.service';
import { KeysService } from './services/keys.service';
import { ExtractService } from './services/extract.service';
import { ExportsService } from './services/exports.service';
import { SuggestService } from './services/suggest.service';
import { TemplatesService } from './services/templates.service';
import type { Store } from './store/db';
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
import { ExamplesService } from './services/examples.service';
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

export function createServices(store: Store, config: Config, clock: Clock, log: Logger, network: NetworkDeps = {}) {
  const port = lmdbPort(store);
  const meta = new MetaStore(store);
  const accounts = new AccountsService(port, clock);
  const cursors = new CursorCodec(meta.serverSecret());
  const tablesStore = new TablesStore(store);
  const rowsStore = new RowsStore(store);
  const foreground = new Foreground(config.backgroundYieldMs);
  const builds = new BuildQueue(log, undefined, foreground);
  const current = (id: string) => tablesStore.get(id);
  const columnCache = new ColumnCache(rowsStore, builds, current);
  const search = new SearchIndexes(rowsStore, builds, current, (tableId, id) => columnCache.idString(tableId, id));
  const tables = new TablesService(port, clock, cursors, search, columnCache);
  const tails = new IndexTails(rowsStore);
  const merger = new IndexMerger(store, rowsStore, tablesStore, tails, log, config.indexMergeIdleMs, config.indexMergeRunRows, config.indexTailMaxRows, config.indexMergeSliceMs, foreground, builds);
  const rowsQuery = new RowsQuery(rowsStore, search, cursors, columnCache, new RowIndex(rowsStore, tails));
  const outbound = new Outbound(config.outboundPolicy, network.resolver ?? systemResolver, config.webhookCa, `rowsmith/${VERSION}`);
  const sender = new WebhookSender(outbound, clock, config.webhookTimeoutMs);
  const webhooks = new WebhooksService(port, clock, cursors, outbound, sender, config, network.random);
  const files = new FilesStore(store.dataDir);
  const rows = new RowsService(port, tables, rowsQuery, search, columnCache, clock, tails, merger);
  const batches = new BatchesService(port, files, tables, cursors, clock);
  const examples = new ExamplesService(port, files, tables, cursors, clock, config, batches);
  rows.onReview(examples);
  return {
    port,
    foreground,
    merger,
    tails,
    tablesStore,
    accounts,
    tables,
    builds,
    search,
    columnCache,
    rowsStore,
    columns: new ColumnsService(tables),
    rows,
    batches,
    keys: new KeysService(accounts, cursors),
    extract: new ExtractService(port, files, tables, rows, webhooks, outbound, clock, config, log, (tableId) => examples.layoutsFor(tableId)),
    examples,
    exports: new ExportsService(port, new ExportFiles(store.dataDir), tables, rows, clock, log, config.exportTtlMs),
    suggest: new SuggestService(config),
    templates: new TemplatesService(port, tables, cursors, clock),
    rateLimiter: new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst, clock),
    usage: new UsageService(port.usage, clock),
    idempotency: new IdempotencyService(port.idempotency, clock),
    outbound,
    webhooks,
    dispatcher: new WebhookDispatcher(webhooks, clock, log, config.webhookConcurrency),
  };
}

export type Services = ReturnType<typeof createServices>;

export function createApp(deps: AppDeps) {
  const log = deps.log ?? createLogger(deps.config.logRequests);
  const services = createServices(deps.store, deps.config, deps.clock, log, deps.network);
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
