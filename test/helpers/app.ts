/** An in-process rowsmith on a real LMDB in a temp folder (or on a PostgreSQL database), and a small client for it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { createApp, createPostgresApp, type NetworkDeps } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { systemClock, type Clock } from '../../src/lib/clock';
import { bootstrap } from '../../src/services/bootstrap.service';
import { openStore, type Store } from '../../src/store/db';
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
 * `ROWSMITH_TEST_STORE=postgres` runs the tests that start their app with `startApp` on PostgreSQL:
 * each app on a fresh database of one cluster, started at the first app and stopped once the
 * process has ended (docs/scale-out.md lists the files that pass).
 */
const TEST_STORE = process.env.ROWSMITH_TEST_STORE === 'postgres' ? 'postgres' : 'lmdb';

let sharedCluster: Promise<PgCluster> | undefined;

function testCluster(): Promise<PgCluster> {
  sharedCluster ??= startPostgres().then((cluster) => {
    cluster.stopAfter(process.pid);
    return cluster;
  });
  return sharedCluster;
}

/** `startApp` on PostgreSQL, in `startApp`'s shape. LMDB's own parts (`store`, the index merge and caches) are not there. */
async function startAppOnPostgres(options: AppOptions) {
  const started = await startPostgresApp(await testCluster(), options);
  const store = new Proxy({} as Store, {
    get: () => {
      throw new Error('this test reaches the LMDB store, which a PostgreSQL app has not');
    },
  });
  const app = started.app as unknown as ReturnType<typeof createApp>;
  return { ...started, store, app, services: app.services };
}

export async function startApp(options: AppOptions = {}) {
  if (TEST_STORE === 'postgres') return startAppOnPostgres(options);
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

  return { app, store, config, clock, dataDir, request, close, services: app.services };
}

let databases = 0;
/** Databases of data folders kept by `close(true)`. */
const databaseOfDir = new Map<string, string>();

/**
 * An in-process rowsmith on a fresh database of a throwaway PostgreSQL cluster (test/helpers/postgres.ts),
 * started as main.ts starts it: the configuration read from ROWSMITH_STORE and ROWSMITH_DATABASE_URL, then
 * the migrations, then the app.
 */
export async function startPostgresApp(cluster: PgCluster, options: AppOptions & { database?: string } = {}) {
  // `database` names another app's database: this one is then a second node, and leaves the database to it.
  const joined = options.database !== undefined;
  const dataDir = options.dataDir ?? tempDir();
  // A data folder kept by `close(true)` comes back with its database, as an LMDB app's store does.
  const kept = databaseOfDir.get(dataDir);
  const database = options.database ?? kept ?? `rowsmith_test_${process.pid}_${++databases}`;
  if (!joined && !kept) await cluster.sql.unsafe(`CREATE DATABASE ${database}`);
  const { port, username } = cluster.options;
  const env = { DATA_DIR: dataDir, ROWSMITH_LOG_REQUESTS: 'false', ROWSMITH_STORE: 'postgres', ROWSMITH_DATABASE_URL: `postgres://${username}@127.0.0.1:${port}/${database}` };
  const config = { ...loadConfig(env), ...options.config };
  if (config.store.kind !== 'postgres') throw new Error('the configuration does not name PostgreSQL');
  const clock = options.clock ?? systemClock;
  const sql = new SQL(config.store.databaseUrl);
  await migrate(sql);
  const app = await createPostgresApp({ config, sql, clock, network: options.network });
  await bootstrap(app.services.port, app.services.accounts, clock, ADMIN_KEY);
  const request = requester(app.handle);

  /** Closes the pool; the database and the data folder go too unless `keepData` (a later app opens them). */
  const close = async (keepData = false) => {
    await app.services.dispatcher.stop();
    await app.services.exports.settle();
    await sql.close();
    if (keepData) {
      databaseOfDir.set(dataDir, database);
      return;
    }
    databaseOfDir.delete(dataDir);
    if (!joined) await cluster.sql.unsafe(`DROP DATABASE ${database}`);
    rmSync(dataDir, { recursive: true, force: true });
  };

  return { app, sql, database, config, clock, dataDir, request, close, services: app.services };
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

export type TestApp = Awaited<ReturnType<typeof startApp>>;

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
