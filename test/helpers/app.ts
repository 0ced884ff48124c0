/** An in-process rowsmith on a real LMDB in a temp folder (or on a PostgreSQL database), and a small client for it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createPostgresApp, type CoreServices, type NetworkDeps, type Services } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { systemClock, type Clock } from '../../src/lib/clock';
import { bootstrap } from '../../src/services/bootstrap.service';
import { openStore, type Store } from '../../src/store/db';
import { openPostgres } from '../../src/store/postgres/client';
import { migrate } from '../../src/store/postgres/migrate';
import { startPostgres, type PgCluster } from './postgres';
import { referenceShapes } from './reference-shapes';

export const ADMIN_KEY = 'rsk_test_admin_key_0123456789';

type RawBody = string | Uint8Array | ReadableStream | FormData | Blob;

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** One uploaded file: its name, its bytes, and its type (none: the server decides). */
export type Part = [name: string, content: string | Uint8Array, type?: string];

/** A multipart upload body: one `file` part per file. */
export function form(parts: Part[]): FormData {
  const data = new FormData();
  for (const [name, content, type] of parts) data.append('file', new File([content], name, { type: type ?? '' }));
  return data;
}

/** A row's source file, as GET .../rows/{id}/source serves it (in the default project). */
export async function rowSource(app: TestApp, tableId: string, rowId: string): Promise<{ bytes: Uint8Array; disposition: string }> {
  const response = await app.app.handle(
    new Request(`http://localhost/v1/projects/proj_default/tables/${tableId}/rows/${rowId}/source`, { headers: { authorization: `ApiKey ${ADMIN_KEY}` } }),
  );
  if (response.status !== 200) throw new Error(`row source answered ${response.status}: ${await response.text()}`);
  return { bytes: new Uint8Array(await response.arrayBuffer()), disposition: response.headers.get('content-disposition') ?? '' };
}

export function tempDir(prefix = 'rowsmith-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATA_DIR: dataDir, ROWSMITH_LOG_REQUESTS: 'false' }), ...overrides };
}

type AppOptions = { config?: Partial<Config>; clock?: Clock; dataDir?: string; network?: NetworkDeps };

/**
 * The store `startApp` starts its apps on. `ROWSMITH_TEST_STORE=postgres` (`npm run test:postgres`)
 * runs test/http on PostgreSQL: each app on a fresh database of one cluster, which starts with the
 * first app and stops once the process has ended (docs/testing.md).
 */
export const TEST_STORE: 'lmdb' | 'postgres' = process.env.ROWSMITH_TEST_STORE === 'postgres' ? 'postgres' : 'lmdb';

/** An app on the store of this run (`TEST_STORE`). */
export async function startApp(options: AppOptions = {}): Promise<TestApp> {
  return TEST_STORE === 'postgres' ? startAppOnPostgres(options) : startLmdbApp(options);
}

/** An app on LMDB whatever the run's store: for the tests of LMDB's own parts (`*.lmdb.test.ts`). */
export async function startLmdbApp(options: AppOptions = {}) {
  const dataDir = options.dataDir ?? tempDir();
  const config = testConfig(dataDir, options.config);
  const clock = options.clock ?? systemClock;
  const store = openStore(dataDir);
  const app = createApp({ config, store, clock, network: options.network });
  await bootstrap(app.services.port, app.services.accounts, clock, ADMIN_KEY);
  const request = requester(app.handle);

  /** Closes the store; the data folder goes too unless `keepData` (a child process opens it next). */
  const close = async (keepData = false) => {
    await app.services.dispatcher.stop();
    await app.services.exports.settle();
    app.services.builds.close();
    await app.services.merger.close();
    await store.close();
    if (!keepData) rmSync(dataDir, { recursive: true, force: true });
  };

  /** Makes every later read fail deep inside the store, as an unexpected failure (not an outage, a 503) does. */
  const breakStore = async () => {
    await store.close();
  };

  return { app, store, config, clock, dataDir, request, close, breakStore, services: app.services };
}

export type TestApp = Awaited<ReturnType<typeof startLmdbApp>>;

/** The services only an LMDB app has: the index merge, its tails and the caches. */
const LMDB_SERVICES = ['merger', 'tails', 'tablesStore', 'builds', 'search', 'columnCache', 'rowsStore'] as const satisfies ReadonlyArray<Exclude<keyof Services, keyof CoreServices>>;

/** `startApp` on PostgreSQL, in `startApp`'s shape; reaching LMDB's own parts throws, naming them. */
async function startAppOnPostgres(options: AppOptions): Promise<TestApp> {
  const started = await startPostgresApp(runCluster!, options);
  const lmdbOnly = (what: string) => {
    throw new Error(`this test reaches ${what}, which only an LMDB app has: it belongs in a *.lmdb.test.ts file`);
  };
  const store = new Proxy({} as Store, { get: () => lmdbOnly('the LMDB store') });
  const services = new Proxy(started.services, {
    get: (target, key, receiver) => ((LMDB_SERVICES as readonly PropertyKey[]).includes(key) ? lmdbOnly(`services.${String(key)}`) : Reflect.get(target, key, receiver)),
  }) as unknown as Services;
  const app = started.app as unknown as TestApp['app'];
  const { config, clock, dataDir, request, close, breakStore } = started;
  return { app, store, config, clock, dataDir, request, close, breakStore, services };
}

/** A migrated database that each app's database is copied from (`startPostgresApp`). */
const templates = new WeakMap<PgCluster, Promise<string>>();

function migratedTemplate(cluster: PgCluster): Promise<string> {
  let template = templates.get(cluster);
  if (!template) {
    template = (async () => {
      const name = `rowsmith_template_${process.pid}`;
      await cluster.sql.unsafe(`CREATE DATABASE ${name}`);
      const sql = openPostgres(databaseUrl(cluster, name));
      try {
        await migrate(sql);
      } finally {
        // A database is copied only while no one is connected to it.
        await sql.close();
      }
      return name;
    })();
    templates.set(cluster, template);
  }
  return template;
}

const databaseUrl = (cluster: PgCluster, database: string) => `postgres://${cluster.options.username}@127.0.0.1:${cluster.options.port}/${database}`;

/**
 * The cluster of a PostgreSQL run, with its template database, started while the test files load:
 * in a test's hook, initdb would not always finish within the hook's 5 s on a busy machine.
 */
const runCluster = TEST_STORE === 'postgres' ? await startRunCluster() : null;

async function startRunCluster(): Promise<PgCluster> {
  const cluster = await startPostgres();
  cluster.stopAfter(process.pid);
  await migratedTemplate(cluster);
  return cluster;
}

let databases = 0;
/** The database of each data folder in use or kept by `close(true)`, and how many apps have it open. */
const databaseOfDir = new Map<string, { name: string; open: number }>();

/**
 * An in-process rowsmith on a fresh database of a throwaway PostgreSQL cluster (test/helpers/postgres.ts),
 * started as main.ts starts it: the configuration read from ROWSMITH_STORE and ROWSMITH_DATABASE_URL, then
 * the migrations, then the app. An app started on the data folder of another, open or kept, gets its
 * database too, as an LMDB app gets the store of its folder.
 */
export async function startPostgresApp(cluster: PgCluster, options: AppOptions & { database?: string } = {}) {
  // `database` names another app's database: this one is then a second node, and leaves the database to it.
  const joined = options.database !== undefined;
  const dataDir = options.dataDir ?? tempDir();
  let shared = joined ? undefined : databaseOfDir.get(dataDir);
  const database = options.database ?? shared?.name ?? `rowsmith_test_${process.pid}_${++databases}`;
  if (!joined && !shared) {
    // A copy of a migrated template is several times quicker than migrating each new database.
    await cluster.sql.unsafe(`CREATE DATABASE ${database} TEMPLATE ${await migratedTemplate(cluster)} STRATEGY FILE_COPY`);
    shared = { name: database, open: 0 };
    databaseOfDir.set(dataDir, shared);
  }
  if (shared) shared.open++;
  const { port, username } = cluster.options;
  const env = { DATA_DIR: dataDir, ROWSMITH_LOG_REQUESTS: 'false', ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/${database}` };
  const config = { ...loadConfig(env), ...options.config };
  if (config.store.kind !== 'postgres') throw new Error('the configuration does not name PostgreSQL');
  const clock = options.clock ?? systemClock;
  const sql = openPostgres(config.store.databaseUrl);
  await migrate(sql);
  const app = await createPostgresApp({ config, sql, clock, network: options.network });
  await bootstrap(app.services.port, app.services.accounts, clock, ADMIN_KEY);
  const request = requester(app.handle);

  /** Closes the pool; the database and the data folder go too unless `keepData` (a later app opens them) or another app has them open. */
  const close = async (keepData = false) => {
    await app.services.dispatcher.stop();
    await app.services.worker?.stop();
    await app.services.exports.settle();
    await app.services.events.close();
    await sql.close();
    const stillOpen = shared ? --shared.open : 0;
    if (keepData || stillOpen > 0) return;
    if (shared) {
      databaseOfDir.delete(dataDir);
      await cluster.sql.unsafe(`DROP DATABASE ${database}`);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  /** Makes every later read of the tables fail, as an unexpected failure (not an outage, a 503) does. */
  const breakStore = async () => {
    await sql.unsafe('DROP TABLE tables CASCADE');
  };

  return { app, sql, database, config, clock, dataDir, request, close, breakStore, services: app.services };
}

export type PostgresTestApp = Awaited<ReturnType<typeof startPostgresApp>>;

/** A client of an app's `handle` that checks every answer against the reference OpenAPI. */
function requester(handle: (request: Request) => Response | Promise<Response>) {
  return async (
    method: string,
    path: string,
    init: { body?: unknown; key?: string | null; headers?: Record<string, string>; raw?: RawBody } = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = { ...init.headers };
    const key = init.key === undefined ? ADMIN_KEY : init.key;
    if (key !== null) headers.authorization ??= `ApiKey ${key}`;
    let body: RawBody | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    // Every answer a test gets must fit the reference OpenAPI's response schemas, but for the known differences listed there.
    const shape = referenceShapes()?.check(method, path, response.status, response.headers.get('content-type') ?? '', parsed);
    if (shape?.problems.length) throw new Error(`the answer does not fit the reference OpenAPI:\n${shape.problems.join('\n')}`);
    return { status: response.status, headers: response.headers, body: parsed };
  };
}


/** Asserts the error envelope of DESIGN.md and returns it. */
export function expectError(reply: Reply, status: number, errorKey: string) {
  const { expect } = require('bun:test') as typeof import('bun:test');
  expect({ status: reply.status, error_key: reply.body?.error_key }).toEqual({ status, error_key: errorKey });
  expect(reply.body).toMatchObject({ success: false, status, error_key: errorKey });
  expect(typeof reply.body.status_key).toBe('string');
  expect(typeof reply.body.message).toBe('string');
  expect(typeof reply.body.fields).toBe('object');
  return reply.body;
}
