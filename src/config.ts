/** Reads and validates the environment once; a bad value stops start-up with one line naming it. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AddressPolicy } from './lib/address';
import { ocrChoice, type OcrEngine } from './extract/ocr/languages';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Where records and rows live: LMDB under `dataDir`, or a PostgreSQL database that several nodes share. */
  store: StoreConfig;
  bootstrapKey: string | null;
  /** Largest JSON request body, in bytes. */
  maxBodyBytes: number;
  /** Largest multipart (upload) request body, in bytes. */
  maxUploadBytes: number;
  /** Sustained requests per second per API key; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  /** Requests a key may make at once above the sustained rate. */
  rateLimitBurst: number;
  /** A request running longer than this gets 408 request_timeout. */
  requestTimeoutMs: number;
  /** How long shutdown waits for in-flight requests before closing the store. */
  shutdownGraceMs: number;
  /** One JSON line per request on stdout. */
  logRequests: boolean;
  /** How often deleted tables past their grace period and other expired data are purged. */
  purgeIntervalMs: number;
  /** Addresses outbound requests (webhooks, extraction URLs) may reach beyond the public internet. */
  outboundPolicy: AddressPolicy;
  /** Extra trusted CA certificates (PEM) for webhook receivers, from ROWSMITH_WEBHOOK_CA_FILE. */
  webhookCa: string | null;
  webhookTimeoutMs: number;
  /** Sends in flight at once. */
  webhookConcurrency: number;
  /** Delay before each retry, in order; one attempt more than there are delays. */
  webhookRetryDelaysMs: number[];
  /** Least delay after a timeout or a 429. */
  webhookMinBackoffMs: number;
  /** A webhook failing without a success for this long is deactivated. */
  webhookDeactivateAfterMs: number;
  /** Finished deliveries older than this are purged. */
  webhookDeliveryRetentionMs: number;
  /** Largest single file an extraction takes (the whole upload is capped by maxUploadBytes). */
  extractMaxFileBytes: number;
  /** Most files one extract request may carry. */
  extractMaxFiles: number;
  /** How long an export's file can be downloaded before it is purged. */
  exportTtlMs: number;
  /** How a date like 03/04/2024 reads when neither its column nor its document's language decides. */
  dateOrder: 'mdy' | 'dmy';
  /** Build the column cache and search index of every large table in the background at start. */
  prebuild: boolean;
  /** How long a table goes without writes before the index entries of its bulk-loaded rows are merged. */
  indexMergeIdleMs: number;
  /** Rows per merge run (their sorted entries are held in memory while it runs). */
  indexMergeRunRows: number;
  /** Main-thread time one step of a merge run takes before queued requests go (their wait during a merge). */
  indexMergeSliceMs: number;
  /** Longest background work (index merge, builds) waits between steps for a moment without requests: requests go first, the work keeps a share. */
  backgroundYieldMs: number;
  /** Most rows a table's unmerged tail holds: a load past it waits for the merge. */
  indexTailMaxRows: number;
  /** An OpenAI-compatible chat-completions server for prose; extraction works without it. */
  llm: { baseUrl: string; model: string; apiKey: string | null; timeoutMs: number } | null;
  /** OCR languages (installed `@tesseract.js-data/*` packages), worker threads and time per page. */
  ocr: { languages: string[]; workers: number; pageTimeoutMs: number; engine: OcrEngine };
  /** Where uploaded and exported files are kept: DATA_DIR, or on PostgreSQL a folder or an S3-compatible bucket every node reaches. */
  files: FilesConfig;
  /** What this node does: serve the API, run extraction jobs, or both (several roles need PostgreSQL). */
  role: NodeRole;
  /** Extraction jobs a worker runs at once. */
  workerConcurrency: number;
  /** How long a worker holds a job without renewing its lease: a node that dies gives its jobs up after this. */
  jobLeaseMs: number;
}

export type StoreConfig = { kind: 'lmdb' } | { kind: 'postgres'; databaseUrl: string };

export type FilesConfig = { kind: 'folder'; dir: string } | S3FilesConfig;

/** A bucket and how to reach it; null fields are left to Bun's S3 client and its defaults. */
export interface S3FilesConfig {
  kind: 's3';
  bucket: string;
  endpoint: string | null;
  region: string | null;
  /** Put before every key: empty, or ending in `/`. */
  prefix: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
}

export const NODE_ROLES = ['all', 'api', 'worker'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function intList(env: Env, name: string, fallback: number[], min: number, max: number): number[] {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < min || Number(p) > max)) {
    throw new ConfigError(`${name} must be comma-separated whole numbers from ${min} to ${max}, got "${raw}"`);
  }
  return parts.map(Number);
}

function caFile(env: Env, name: string): string | null {
  const path = env[name]?.trim();
  if (!path) return null;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${name} names a file that cannot be read: ${path} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`${name} names a file without a PEM certificate: ${path}`);
  return pem;
}

function policy(env: Env, name: string): AddressPolicy {
  try {
    return AddressPolicy.parse(env[name] ?? '');
  } catch (error) {
    throw new ConfigError(`${name} is invalid: ${(error as Error).message}`);
  }
}

function llm(env: Env): Config['llm'] {
  const baseUrl = env.ROWSMITH_LLM_BASE_URL?.trim();
  if (!baseUrl) return null;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ConfigError(`ROWSMITH_LLM_BASE_URL must be an http(s) URL such as http://localhost:8080/v1, got "${baseUrl}"`);
  }
  const model = env.ROWSMITH_LLM_MODEL?.trim();
  if (!model) throw new ConfigError('ROWSMITH_LLM_MODEL must name the model when ROWSMITH_LLM_BASE_URL is set');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, apiKey: env.ROWSMITH_LLM_API_KEY?.trim() || null, timeoutMs: int(env, 'ROWSMITH_LLM_TIMEOUT_MS', 120_000, 100, 3_600_000) };
}

function ocrSettings(env: Env): Config['ocr'] {
  let choice: ReturnType<typeof ocrChoice>;
  try {
    choice = ocrChoice(env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return {
    ...choice,
    workers: int(env, 'ROWSMITH_OCR_WORKERS', 1, 1, 64),
    pageTimeoutMs: int(env, 'ROWSMITH_OCR_PAGE_TIMEOUT_MS', 120_000, 1000, 3_600_000),
  };
}

const MiB = 1024 * 1024;
const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 28 hours. */
const RETRY_DELAYS = [5 * SECOND, 5 * 60 * SECOND, 30 * 60 * SECOND, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

function dateOrder(env: Env): Config['dateOrder'] {
  const value = (env.ROWSMITH_DATE_ORDER ?? 'mdy').trim().toLowerCase();
  if (value !== 'mdy' && value !== 'dmy') throw new ConfigError(`ROWSMITH_DATE_ORDER must be mdy or dmy, got "${env.ROWSMITH_DATE_ORDER}"`);
  return value;
}

function storeConfig(env: Env): StoreConfig {
  const kind = (env.ROWSMITH_STORE ?? '').trim().toLowerCase() || 'lmdb';
  const databaseUrl = env.ROWSMITH_DATABASE_URL?.trim();
  if (kind === 'lmdb') return { kind };
  if (kind !== 'postgres') throw new ConfigError(`ROWSMITH_STORE must be lmdb or postgres, got "${env.ROWSMITH_STORE}"`);
  if (!databaseUrl) throw new ConfigError('ROWSMITH_DATABASE_URL must name the database when ROWSMITH_STORE is postgres (postgres://user:password@host:5432/rowsmith)');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('ROWSMITH_DATABASE_URL must be a postgres:// URL');
  return { kind, databaseUrl };
}

/** The S3 settings other than the bucket, each meaningless without one. */
const S3_SETTINGS = ['ROWSMITH_FILES_S3_ENDPOINT', 'ROWSMITH_FILES_S3_REGION', 'ROWSMITH_FILES_S3_PREFIX', 'ROWSMITH_FILES_S3_ACCESS_KEY_ID', 'ROWSMITH_FILES_S3_SECRET_ACCESS_KEY'];

/**
 * Files in DATA_DIR, or with PostgreSQL in a folder every node mounts or an S3-compatible bucket.
 * Credentials not given in the bucket's own settings are the usual AWS ones, read here once too.
 */
function filesSettings(env: Env, store: StoreConfig, dataDir: string): FilesConfig {
  const dir = env.ROWSMITH_FILES_DIR?.trim();
  const bucket = env.ROWSMITH_FILES_S3_BUCKET?.trim();
  for (const [name, value] of [['ROWSMITH_FILES_DIR', dir], ['ROWSMITH_FILES_S3_BUCKET', bucket]] as const) {
    if (store.kind === 'lmdb' && value) throw new ConfigError(`${name} needs ROWSMITH_STORE=postgres: on LMDB files stay in DATA_DIR, where backups find them`);
  }
  if (dir && bucket) throw new ConfigError('ROWSMITH_FILES_DIR and ROWSMITH_FILES_S3_BUCKET name two places for the same files: set one of them');
  if (!bucket) {
    const stray = S3_SETTINGS.find((name) => env[name]?.trim());
    if (stray) throw new ConfigError(`${stray} needs ROWSMITH_FILES_S3_BUCKET, the bucket it is for`);
    return { kind: 'folder', dir: dir ? resolve(dir) : dataDir };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`ROWSMITH_FILES_S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens), got "${bucket}"`);
  const endpoint = env.ROWSMITH_FILES_S3_ENDPOINT?.trim() || null;
  if (endpoint !== null && !/^https?:\/\/[^/]/.test(endpoint)) throw new ConfigError('ROWSMITH_FILES_S3_ENDPOINT must be an http(s) URL such as http://minio:9000 or https://s3.eu-west-1.amazonaws.com');
  const prefix = (env.ROWSMITH_FILES_S3_PREFIX ?? '').trim().replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..') || prefix.includes('//')) throw new ConfigError(`ROWSMITH_FILES_S3_PREFIX must be a key prefix such as rowsmith/prod, got "${env.ROWSMITH_FILES_S3_PREFIX}"`);
  const accessKeyId = env.ROWSMITH_FILES_S3_ACCESS_KEY_ID?.trim() || null;
  const secretAccessKey = env.ROWSMITH_FILES_S3_SECRET_ACCESS_KEY?.trim() || null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) throw new ConfigError('ROWSMITH_FILES_S3_ACCESS_KEY_ID and ROWSMITH_FILES_S3_SECRET_ACCESS_KEY go together: set both or neither');
  const aws = accessKeyId === null;
  return {
    kind: 's3',
    bucket,
    endpoint: endpoint?.replace(/\/+$/, '') ?? null,
    region: env.ROWSMITH_FILES_S3_REGION?.trim() || env.AWS_REGION?.trim() || null,
    prefix: prefix ? `${prefix}/` : '',
    accessKeyId: accessKeyId ?? (env.AWS_ACCESS_KEY_ID?.trim() || null),
    secretAccessKey: secretAccessKey ?? (env.AWS_SECRET_ACCESS_KEY?.trim() || null),
    // A session token belongs to the AWS credentials it came with.
    sessionToken: aws ? env.AWS_SESSION_TOKEN?.trim() || null : null,
  };
}

/** Roles are for nodes sharing a PostgreSQL database; LMDB is one process. */
function nodeSettings(env: Env, store: StoreConfig): Pick<Config, 'role' | 'workerConcurrency' | 'jobLeaseMs'> {
  const role = (env.ROWSMITH_ROLE ?? '').trim().toLowerCase() || 'all';
  if (!(NODE_ROLES as readonly string[]).includes(role)) throw new ConfigError(`ROWSMITH_ROLE must be all, api or worker, got "${env.ROWSMITH_ROLE}"`);
  if (store.kind === 'lmdb' && role !== 'all') throw new ConfigError(`ROWSMITH_ROLE=${role} needs ROWSMITH_STORE=postgres: on LMDB one process does everything`);
  return {
    role: role as NodeRole,
    workerConcurrency: int(env, 'ROWSMITH_WORKER_CONCURRENCY', 2, 1, 64),
    jobLeaseMs: int(env, 'ROWSMITH_JOB_LEASE_MS', 60_000, 500, 3_600_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const bootstrapKey = env.ROWSMITH_BOOTSTRAP_KEY?.trim() || null;
  if (bootstrapKey !== null && !/^[\x21-\x7e]{16,256}$/.test(bootstrapKey)) {
    throw new ConfigError('ROWSMITH_BOOTSTRAP_KEY must be 16 to 256 printable characters without spaces');
  }
  const host = env.HOST?.trim() || '0.0.0.0';
  const dataDir = resolve(env.DATA_DIR?.trim() || './data');
  const store = storeConfig(env);
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host,
    dataDir,
    store,
    bootstrapKey,
    maxBodyBytes: int(env, 'ROWSMITH_MAX_BODY_BYTES', 10 * MiB, 1024, 1024 * MiB),
    maxUploadBytes: int(env, 'ROWSMITH_MAX_UPLOAD_BYTES', 100 * MiB, 1024, 4096 * MiB),
    rateLimitPerSecond: int(env, 'ROWSMITH_RATE_LIMIT_PER_SECOND', 200, 0, 1_000_000),
    rateLimitBurst: int(env, 'ROWSMITH_RATE_LIMIT_BURST', 1000, 1, 10_000_000),
    requestTimeoutMs: int(env, 'ROWSMITH_REQUEST_TIMEOUT_MS', 30_000, 10, 3_600_000),
    shutdownGraceMs: int(env, 'ROWSMITH_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    logRequests: bool(env, 'ROWSMITH_LOG_REQUESTS', true),
    purgeIntervalMs: int(env, 'ROWSMITH_PURGE_INTERVAL_MS', 10 * 60 * 1000, 100, 24 * 3_600_000),
    outboundPolicy: policy(env, 'ROWSMITH_WEBHOOK_ALLOWED_HOSTS'),
    webhookCa: caFile(env, 'ROWSMITH_WEBHOOK_CA_FILE'),
    webhookTimeoutMs: int(env, 'ROWSMITH_WEBHOOK_TIMEOUT_MS', 15 * SECOND, 100, 120 * SECOND),
    webhookConcurrency: int(env, 'ROWSMITH_WEBHOOK_CONCURRENCY', 8, 1, 256),
    webhookRetryDelaysMs: intList(env, 'ROWSMITH_WEBHOOK_RETRY_DELAYS_MS', RETRY_DELAYS, 1, 7 * DAY),
    webhookMinBackoffMs: int(env, 'ROWSMITH_WEBHOOK_MIN_BACKOFF_MS', 60 * SECOND, 0, DAY),
    webhookDeactivateAfterMs: int(env, 'ROWSMITH_WEBHOOK_DEACTIVATE_AFTER_MS', 5 * DAY, 1, 365 * DAY),
    webhookDeliveryRetentionMs: int(env, 'ROWSMITH_WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650) * DAY,
    extractMaxFileBytes: int(env, 'ROWSMITH_EXTRACT_MAX_FILE_BYTES', 25 * MiB, 1, 4096 * MiB),
    extractMaxFiles: int(env, 'ROWSMITH_EXTRACT_MAX_FILES', 20, 1, 1000),
    dateOrder: dateOrder(env),
    exportTtlMs: int(env, 'ROWSMITH_EXPORT_TTL_HOURS', 24, 1, 24 * 365) * HOUR,
    prebuild: bool(env, 'ROWSMITH_PREBUILD', true),
    indexMergeIdleMs: int(env, 'ROWSMITH_INDEX_MERGE_IDLE_MS', 300, 0, DAY),
    indexMergeRunRows: int(env, 'ROWSMITH_INDEX_MERGE_RUN_ROWS', 250_000, 100, 10_000_000),
    indexMergeSliceMs: int(env, 'ROWSMITH_INDEX_MERGE_SLICE_MS', 4, 1, 1000),
    backgroundYieldMs: int(env, 'ROWSMITH_BACKGROUND_YIELD_MS', 8, 0, 10_000),
    indexTailMaxRows: int(env, 'ROWSMITH_INDEX_TAIL_MAX_ROWS', 3_000_000, 1000, 100_000_000),
    llm: llm(env),
    ocr: ocrSettings(env),
    files: filesSettings(env, store, dataDir),
    ...nodeSettings(env, store),
  };
}
