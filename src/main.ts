/** Boots rowsmith: config, listen (503 until ready), store (LMDB or PostgreSQL, migrated), bootstrap, app, jobs, graceful shutdown. */
import { createApp, createPostgresApp } from './app';
import { ConfigError, loadConfig, type Config } from './config';
import { closeOcr, configureOcr } from './extract/ocr';
import { Gateway } from './http/gateway';
import { scheduleMaintenance } from './jobs/maintenance';
import { Scheduler } from './jobs/scheduler';
import { systemClock } from './lib/clock';
import { createLogger } from './lib/log';
import { EVENTS_RETENTION_MS } from './store/events';
import { bootstrap } from './services/bootstrap.service';
import { openStore } from './store/db';
import { FilesUnavailable } from './store/files/storage';
import { openPostgres } from './store/postgres/client';
import { migrate } from './store/postgres/migrate';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`rowsmith: ${error.message}`);
  process.exit(1);
}

const log = createLogger(config.logRequests);
const clock = systemClock;
const gateway = new Gateway(config, log);
const server = Bun.serve({
  port: config.port,
  hostname: config.host,
  // Our own checks answer first with the error envelope; this is only Bun's backstop.
  maxRequestBodySize: Math.max(config.maxBodyBytes, config.maxUploadBytes) + 1024 * 1024,
  // Bun closes a connection idle for 10 s by default, cutting off a request that waits longer (a
  // first search of a large table waits for its index); the gateway's own timeout answers 408 first.
  idleTimeout: Math.min(255, Math.ceil(config.requestTimeoutMs / 1000) + 5),
  fetch: gateway.fetch,
});

/** The store the configuration names, its app, and what stops it. */
async function open() {
  if (config.store.kind === 'lmdb') {
    const store = openStore(config.dataDir);
    const app = createApp({ config, store, clock, log, gateway });
    return { app, merger: app.services.merger, builds: app.services.builds, worker: null, close: () => store.close(), where: `data in ${config.dataDir}` };
  }
  const sql = openPostgres(config.store.databaseUrl);
  try {
    await migrate(sql);
  } catch (error) {
    // The URL may hold a password: the message names the failure, not the URL.
    console.error(`rowsmith: the database of ROWSMITH_DATABASE_URL cannot be used: ${(error as Error).message}`);
    process.exit(1);
  }
  let app: Awaited<ReturnType<typeof createPostgresApp>>;
  try {
    app = await createPostgresApp({ config, sql, clock, log, gateway });
  } catch (error) {
    if (!(error instanceof FilesUnavailable)) throw error;
    console.error(`rowsmith: ${error.message}`);
    process.exit(1);
  }
  const role = config.role === 'all' ? '' : `, role ${config.role}`;
  return { app, merger: null, builds: null, worker: app.services.worker, close: () => sql.close(), where: `data in PostgreSQL, files in ${app.services.storage.where}${role}` };
}

const { app, merger, builds, worker, close, where } = await open();
const port = app.services.port;
const boot = await bootstrap(port, app.services.accounts, clock, config.bootstrapKey);
if (boot.created) {
  console.log(
    boot.keyFromEnv
      ? 'rowsmith: first start: created org_default, proj_default and an admin key (the value of ROWSMITH_BOOTSTRAP_KEY)'
      : `rowsmith: first start: created org_default, proj_default and this admin API key (shown once, keep it):\n\n    ${boot.key}\n`,
  );
}

configureOcr(config.ocr);
const scheduler = new Scheduler(log);
scheduleMaintenance(scheduler, app.services, config);
app.services.dispatcher.start();
scheduler.every('events-purge', config.purgeIntervalMs, () => app.services.events.purge(EVENTS_RETENTION_MS));
if (config.store.kind === 'lmdb') {
  // One process: whatever is unfinished was this process's, and stopped with it.
  const interrupted = await app.services.batches.recoverInterrupted();
  const interruptedExports = await app.services.exports.recoverInterrupted();
  if (interrupted + interruptedExports) {
    console.log(`rowsmith: marked ${interrupted} batch(es) and ${interruptedExports} export(s) left unfinished by the last run as failed`);
  }
} else {
  // Shared work: a job whose worker died goes to another worker; only work no worker will finish is ended.
  const sweep = async () => {
    await app.services.extract.sweep(2 * config.jobLeaseMs);
    await app.services.exports.sweep(2 * config.jobLeaseMs);
  };
  await sweep();
  scheduler.every('jobs-sweep', config.jobLeaseMs, sweep);
}
// Signals are handled before the server says it listens: a stop right after that line is graceful.
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`rowsmith: ${signal}: finishing in-flight requests`);
  void server.stop(false);
  await gateway.drain(config.shutdownGraceMs);
  await scheduler.stop();
  await worker?.stop(config.shutdownGraceMs);
  await app.services.dispatcher.stop();
  await app.services.exports.settle();
  builds?.close();
  await merger?.close();
  await closeOcr();
  await app.services.usage.flush();
  await app.services.events.close();
  await close();
  console.log('rowsmith: stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// Tails a crash or stop left unmerged are merged in the background (LMDB's bulk loads).
merger?.resume();
console.log(`rowsmith: listening on http://${config.host}:${server.port} (${where})`);
if (config.prebuild) {
  const large = await app.services.rows.prebuild();
  if (large) console.log(`rowsmith: building the column cache and search index of ${large} large table(s) in the background`);
}
