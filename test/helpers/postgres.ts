/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp dir, started on a free port with its
 * unix socket in that dir, as an unprivileged user (PostgreSQL refuses to run as root, and tests
 * run as root in CI), stopped and removed afterwards. Uses Debian's `postgresql` package
 * (`/usr/lib/postgresql/<version>/bin`).
 */
import { SQL } from 'bun';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The user the cluster runs as when the tests run as root. */
const CLUSTER_USER = 'rowsmith-pg';

export interface PgCluster {
  sql: SQL;
  /** Connection settings of the cluster, for further clients. */
  options: { path: string; port: number; username: string; database: string };
  stop: () => Promise<void>;
  /** Stops the server and removes its files once process `pid` has ended (bun test emits no `exit` to hook). */
  stopAfter: (pid: number) => void;
}

/** Debian's PostgreSQL binaries (the newest installed version), or null when none is installed. */
function findBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

/** Where the cluster's binaries are; without them the PostgreSQL tests are skipped, said once per run. */
export const POSTGRES_BIN = findBinDir();
if (!POSTGRES_BIN) console.warn('PostgreSQL tests skipped: no /usr/lib/postgresql/*/bin/initdb (apt-get install -y postgresql)');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs a PostgreSQL program, as `asUser` when given; throws with its output when it fails. */
export function run(argv: string[], asUser: string | null): void {
  const cmd = asUser ? ['runuser', '-u', asUser, '--', ...argv] : argv;
  const proc = Bun.spawnSync(cmd, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LC_ALL: 'C' } });
  if (proc.exitCode !== 0) throw new Error(`${argv.join(' ')} failed (${proc.exitCode}):\n${proc.stdout.toString()}${proc.stderr.toString()}`);
}

/** The unprivileged user to run as (created when missing), or null when the tests do not run as root. */
export function clusterUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const lookup = () => Bun.spawnSync(['id', '-u', CLUSTER_USER], { stdout: 'pipe', stderr: 'pipe' });
  if (lookup().exitCode !== 0) run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', CLUSTER_USER], null);
  const uid = Number(lookup().stdout.toString().trim());
  const gid = Number(Bun.spawnSync(['id', '-g', CLUSTER_USER], { stdout: 'pipe' }).stdout.toString().trim());
  return { name: CLUSTER_USER, uid, gid };
}

export async function startPostgres(): Promise<PgCluster> {
  const bin = POSTGRES_BIN;
  if (!bin) throw new Error('no PostgreSQL binaries in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)');
  const user = clusterUser();
  const dir = mkdtempSync(join(tmpdir(), 'rowsmith-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (user) chownSync(dir, user.uid, user.gid);
  const as = user?.name ?? null;
  try {
    // A default collation of a language, as a real database has: SQL that needs byte order must ask for it.
    run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--locale-provider=icu', '--icu-locale=en-US', '--no-sync'], as);
    const port = await freePort();
    // Durability is not wanted from a cluster that lives for one test file.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    run([join(bin, 'pg_ctl'), 'start', '-w', '-t', '60', '-D', data, '-l', log, '-o', options], as);
    const settings = { path: dir, port, username: 'postgres', database: 'postgres' };
    const sql = new SQL({ ...settings, max: 4 });
    const stopArgv = [join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate'];
    const stop = async () => {
      await sql.close();
      run(stopArgv, as);
      rmSync(dir, { recursive: true, force: true });
    };
    const stopAfter = (pid: number) => {
      const quoted = (as ? ['runuser', '-u', as, '--', ...stopArgv] : stopArgv).map((a) => `'${a}'`).join(' ');
      const script = `while kill -0 ${pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${dir}'`;
      // In a session of its own, so that it outlives the test process it waits for.
      Bun.spawn(['setsid', 'sh', '-c', script], { stdio: ['ignore', 'ignore', 'ignore'] }).unref();
    };
    return { sql, options: settings, stop, stopAfter };
  } catch (error) {
    const serverLog = existsSync(log) ? `\n${readFileSync(log, 'utf8')}` : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}${serverLog}`);
  }
}
