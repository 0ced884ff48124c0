#!/usr/bin/env bun
/**
 * The admin CLI: organizations, projects, API keys and backups, straight on the store (safe while
 * the server runs: LMDB serialises writers across processes, PostgreSQL's transactions are
 * serializable). Restore never opens DATA_DIR's store: it writes a new one in its place. Backups
 * are LMDB's; `migrate` moves an LMDB store into PostgreSQL (migrate.ts).
 */
import type { SQL } from 'bun';
import { parseArgs } from 'node:util';
import { KEY_ROLES, type KeyRole } from '../domain/keys';
import { loadConfig, type Config } from '../config';
import { systemClock } from '../lib/clock';
import { AccountsService } from '../services/accounts.service';
import { monthOf } from '../services/usage.service';
import { VERSION } from '../lib/version';
import { backup, restore, type BackupManifest } from '../store/backup';
import { openStore, type Store } from '../store/db';
import { lmdbPort } from '../store/lmdb.port';
import type { StorePort } from '../store/port';
import { openPostgres } from '../store/postgres/client';
import { migrate } from '../store/postgres/migrate';
import { postgresPort } from '../store/postgres/port';
import { describeProgress, migrateLmdbToPostgres, type Check, type Progress } from './migrate';

const USAGE = `Usage: rowsmith <command> [options]

  org create <name> [--id ID] [--quota N]     create an organization (quota: requests per month)
  org list                                    list organizations with this month's usage
  org suspend <org_id>                        suspend: its keys get 403 org_suspended
  org unsuspend <org_id>                      lift a suspension
  org quota <org_id> <N|none>                 set or clear the monthly request quota
  project create <org_id> <name> [--id ID]    create a project
  project list [--org ORG_ID]                 list projects
  key create --org ORG_ID [--name NAME] [--role admin|write|read]
             [--projects P1,P2] [--expires-in 30d|12h|90m | --expires-at ISO]
                                              create an API key (printed once)
  key list [--org ORG_ID]                     list API keys (never their values)
  key revoke <key_id>                         revoke an API key
  backup <dir>                                copy the store and every file it refers to into <dir>,
                                              while the server runs (<dir>: new, empty, or an
                                              earlier backup, which is replaced)
  restore <dir> --data DATA_DIR [--force]     verify the backup in <dir> against its manifest and
                                              restore it into DATA_DIR (new or empty; --force
                                              moves what is there to DATA_DIR.replaced-<time>)
  migrate --from lmdb --to postgres [--database-url URL] [--resume]
                                              copy DATA_DIR's LMDB store into the PostgreSQL database
                                              of ROWSMITH_DATABASE_URL (new and empty, or holding an
                                              interrupted migration of the same store: --resume),
                                              then compare counts and checksums of both sides

Options: --json prints machine-readable output. The store is DATA_DIR (default ./data), or
PostgreSQL with ROWSMITH_STORE=postgres and ROWSMITH_DATABASE_URL (backup and restore are LMDB's).
Exit codes: 0 done, 1 failed, 2 bad usage.`;

class UsageError extends Error {
  /** Whether the usage text follows the message (not when the command is right but not for this store). */
  constructor(
    message: string,
    readonly showUsage = true,
  ) {
    super(message);
  }
}

/** The store of the configuration, opened on first use. */
class Stores {
  private lmdb: Store | null = null;
  private pool: SQL | null = null;
  private opened: Promise<StorePort> | null = null;

  constructor(private readonly config: Config) {}

  /** Refuses a command that is LMDB's own (backup, restore) when the store is PostgreSQL. */
  lmdbOnly(command: 'backup' | 'restore'): void {
    if (this.config.store.kind !== 'postgres') return;
    const instead = command === 'backup' ? 'back the database up with pg_dump' : 'restore a pg_dump of the database with pg_restore or psql';
    throw new UsageError(`${command} works on the LMDB store; with ROWSMITH_STORE=postgres the records are in PostgreSQL: ${instead}, and copy DATA_DIR's files/ and exports/ with it`, false);
  }

  /** DATA_DIR's LMDB store. */
  store(): Store {
    return (this.lmdb ??= openStore(this.config.dataDir));
  }

  port(): Promise<StorePort> {
    this.opened ??= this.openPort();
    return this.opened;
  }

  private async openPort(): Promise<StorePort> {
    const { store } = this.config;
    if (store.kind === 'lmdb') return lmdbPort(this.store());
    this.pool = openPostgres(store.databaseUrl);
    try {
      await migrate(this.pool);
    } catch (error) {
      // The URL may hold a password: the message names the failure, not the URL.
      throw new Error(`the database of ROWSMITH_DATABASE_URL cannot be used: ${(error as Error).message}`);
    }
    return postgresPort(this.pool);
  }

  async close(): Promise<void> {
    await this.lmdb?.close();
    await this.pool?.close();
  }
}

/** The checks of a migration as a table: a checksum is shown once when both sides agree. */
function checksTable(checks: Check[]): string {
  return table(
    checks.map((c) => ({
      check: c.check,
      lmdb: c.source,
      postgres: c.target,
      checksum: c.source_checksum === c.target_checksum ? c.source_checksum.slice(0, 16) : `${c.source_checksum.slice(0, 16)} != ${c.target_checksum.slice(0, 16)}`,
      result: c.ok ? 'ok' : 'MISMATCH',
    })),
  );
}

function parseDuration(text: string): number {
  const match = text.match(/^(\d+)(m|h|d)$/);
  if (!match) throw new UsageError(`--expires-in takes a number with m, h or d (for example 30d), got "${text}"`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

function parseQuota(text: string | undefined): number | null {
  if (text === undefined || text === 'none') return null;
  if (!/^\d+$/.test(text)) throw new UsageError(`quota must be a whole number or "none", got "${text}"`);
  return Number(text);
}

function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cols), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function describeCounts(manifest: BackupManifest): string {
  const { files, bytes, ...records } = manifest.counts;
  const listed = Object.entries(records).map(([name, n]) => `${n} ${name.replace('_', ' ')}`);
  return `${listed.join(', ')}; ${files} files (${(bytes! / 1_048_576).toFixed(1)} MB with the store)`;
}

async function run(argv: string[], config: Config, stores: Stores): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      id: { type: 'string' },
      quota: { type: 'string' },
      org: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      projects: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      data: { type: 'string' },
      force: { type: 'boolean', default: false },
      from: { type: 'string' },
      to: { type: 'string' },
      'database-url': { type: 'string' },
      resume: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, action, ...rest] = positionals;
  if (values.help || !group) {
    console.log(USAGE);
    if (!values.help) throw new UsageError('no command given');
    return;
  }
  const out = (human: string, data: unknown) => console.log(values.json ? JSON.stringify(data, null, 2) : human);
  const accounts = async () => new AccountsService(await stores.port(), systemClock);
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`missing ${what}`);
    return value;
  };

  switch (`${group} ${['backup', 'restore', 'migrate'].includes(group) ? '' : (action ?? '')}`.trim()) {
    case 'org create': {
      const org = await (await accounts()).createOrg({ name: need(action && rest[0], '<name>'), id: values.id, monthlyRequestQuota: parseQuota(values.quota) });
      return out(`created organization ${org.id}`, org);
    }
    case 'org list': {
      const { usage } = await stores.port();
      const month = monthOf(Date.now());
      const orgs = [];
      for (const o of await (await accounts()).listOrgs()) {
        orgs.push({ id: o.id, name: o.name, suspended: o.suspended_at !== null, quota: o.monthly_request_quota, [`requests_${month}`]: await usage.get(o.id, month) });
      }
      return out(table(orgs), orgs);
    }
    case 'org suspend':
    case 'org unsuspend': {
      const org = await (await accounts()).setSuspended(need(rest[0], '<org_id>'), action === 'suspend');
      return out(`${org.id} ${action === 'suspend' ? 'suspended' : 'reinstated'}`, org);
    }
    case 'org quota': {
      const org = await (await accounts()).setQuota(need(rest[0], '<org_id>'), parseQuota(need(rest[1], '<N|none>')));
      return out(`${org.id} monthly quota: ${org.monthly_request_quota ?? 'none'}`, org);
    }
    case 'project create': {
      const project = await (await accounts()).createProject({ organizationId: need(rest[0], '<org_id>'), name: need(rest[1], '<name>'), id: values.id });
      return out(`created project ${project.id}`, project);
    }
    case 'project list': {
      const projects = (await (await accounts()).listProjects(values.org)).map((p) => ({ id: p.id, organization_id: p.organization_id, name: p.name, created_at: iso(p.created_at) }));
      return out(table(projects), projects);
    }
    case 'key create': {
      const role = (values.role ?? 'write') as KeyRole;
      if (!KEY_ROLES.includes(role)) throw new UsageError(`--role must be one of ${KEY_ROLES.join(', ')}`);
      if (values['expires-in'] && values['expires-at']) throw new UsageError('give --expires-in or --expires-at, not both');
      let expiresAt: number | null = null;
      if (values['expires-in']) expiresAt = Date.now() + parseDuration(values['expires-in']);
      if (values['expires-at']) {
        expiresAt = Date.parse(values['expires-at']);
        if (Number.isNaN(expiresAt)) throw new UsageError(`--expires-at must be an ISO date, got "${values['expires-at']}"`);
      }
      const created = await (await accounts()).createKey({
        organizationId: need(values.org, '--org'),
        name: values.name,
        role,
        projectIds: values.projects ? values.projects.split(',').map((s) => s.trim()).filter(Boolean) : null,
        expiresAt,
      });
      const { hash: _hash, ...shown } = created.record;
      return out(`created ${created.record.role} key ${created.record.id}; its value is shown only now:\n\n    ${created.secret}\n`, { ...shown, key: created.secret });
    }
    case 'key list': {
      const keys = (await (await accounts()).listKeys(values.org)).map((k) => ({
        id: k.id,
        organization_id: k.organization_id,
        name: k.name,
        role: k.role,
        prefix: k.prefix,
        projects: k.project_ids?.join(',') ?? '*',
        expires_at: iso(k.expires_at),
        revoked_at: iso(k.revoked_at),
      }));
      return out(table(keys), keys);
    }
    case 'key revoke': {
      const key = await (await accounts()).revokeKey(need(rest[0], '<key_id>'));
      return out(`revoked ${key.id}`, { id: key.id, revoked_at: key.revoked_at });
    }
    case 'backup': {
      stores.lmdbOnly('backup');
      const result = await backup(stores.store(), need(action, '<dir>'), VERSION);
      const { manifest } = result;
      out(
        `backup ${result.replaced ? 'replaced' : 'written'} in ${result.dir}\n  ${describeCounts(manifest)}\n  manifest.json lists the SHA-256 of each of its ${manifest.files.length} files`,
        { dir: result.dir, replaced: result.replaced, created_at: manifest.created_at, counts: manifest.counts, missing: manifest.missing },
      );
      if (manifest.missing.length) {
        throw new Error(
          `the backup is complete but for ${manifest.missing.length} files the store refers to that DATA_DIR has lost or damaged (listed under "missing" in manifest.json):\n  ${manifest.missing.slice(0, 10).map((m) => `${m.path}: ${m.problem}`).join('\n  ')}`,
        );
      }
      return;
    }
    case 'restore': {
      stores.lmdbOnly('restore');
      const result = await restore(need(action, '<dir>'), need(values.data, '--data DATA_DIR'), { force: values.force });
      const { manifest } = result;
      return out(
        [
          `restored the backup of ${manifest.created_at} (rowsmith ${manifest.rowsmith_version}) into ${result.dataDir}`,
          `  ${describeCounts(manifest)}; every file matched its SHA-256`,
          ...(result.previous ? [`  what was in ${result.dataDir} is kept in ${result.previous}; delete it once the restored store is checked`] : []),
          `  start the server with DATA_DIR=${result.dataDir}`,
        ].join('\n'),
        { data_dir: result.dataDir, previous: result.previous, created_at: manifest.created_at, rowsmith_version: manifest.rowsmith_version, counts: manifest.counts },
      );
    }
    case 'migrate': {
      if (action !== undefined) throw new UsageError(`migrate takes options only, got "${action}"`);
      if (values.from !== 'lmdb' || values.to !== 'postgres') throw new UsageError('migrate copies an LMDB store into PostgreSQL: give --from lmdb --to postgres');
      const databaseUrl = (values['database-url'] ?? process.env.ROWSMITH_DATABASE_URL)?.trim();
      if (!databaseUrl) throw new UsageError('migrate needs the target database: --database-url or ROWSMITH_DATABASE_URL (postgres://user:password@host:5432/rowsmith)');
      if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('the target database must be a postgres:// URL');
      // Progress goes to stderr, so that stdout holds the result alone (one JSON document with --json).
      const progress = (p: Progress) => console.error(values.json ? JSON.stringify(p) : describeProgress(p));
      const report = await migrateLmdbToPostgres({ dataDir: config.dataDir, databaseUrl, resume: values.resume, progress });
      const failed = report.checks.filter((c) => !c.ok);
      out(
        `${checksTable(report.checks)}\n\n${
          failed.length
            ? `${failed.length} of ${report.checks.length} checks do not match`
            : `verified in ${report.seconds} s: every count and checksum matches; start rowsmith with ROWSMITH_STORE=postgres, this ROWSMITH_DATABASE_URL and this DATA_DIR`
        }`,
        report,
      );
      if (failed.length) throw new Error(`the copy differs from the LMDB store in ${failed.map((c) => c.check).join(', ')}`);
      return;
    }
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
}

async function main(): Promise<number> {
  let stores: Stores | null = null;
  try {
    const config = loadConfig();
    stores = new Stores(config);
    await run(process.argv.slice(2), config, stores);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`rowsmith: ${error.message}${error instanceof UsageError && !error.showUsage ? '' : `\n\n${USAGE}`}`);
      return 2;
    }
    console.error(`rowsmith: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await stores?.close();
  }
}

process.exit(await main());
