/**
 * A PostgreSQL cluster for the benchmarks: Debian's `postgresql` (the newest installed version),
 * initdb'd into a folder and started on a free port, as an unprivileged user when run as root
 * (PostgreSQL refuses to run as root), by the tests' helpers but with the settings of a server.
 * With a folder given (`BENCH_PG_DIR`) the cluster and its databases are kept there and reused by
 * the next run, so a loaded table need not be loaded again.
 */
import { SQL } from 'bun';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterUser, freePort, POSTGRES_BIN, run } from '../test/helpers/postgres';

/**
 * The server's settings, for a machine with a few GB of memory to spare (docs/benchmarks.md says
 * why each): the rows and their indexes stay in shared buffers, sorts and hashes of one query get
 * 64 MB, a bulk load does not checkpoint every few seconds, and the planner knows the disk is an
 * SSD.
 */
export const BENCH_SETTINGS: Record<string, string> = {
  shared_buffers: '2GB',
  effective_cache_size: '8GB',
  work_mem: '64MB',
  maintenance_work_mem: '512MB',
  max_wal_size: '8GB',
  random_page_cost: '1.1',
};

export interface BenchCluster {
  url: (database: string) => string;
  stop(): Promise<void>;
}

/** Starts the cluster in `dir` (made first when it holds none), or in a temp folder removed at stop. */
export async function startBenchCluster(dir?: string): Promise<BenchCluster> {
  const bin = POSTGRES_BIN;
  if (!bin) throw new Error('no PostgreSQL binaries in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)');
  const as = clusterUser();
  const root = dir ?? mkdtempSync(join(tmpdir(), 'rowsmith-bench-pg-'));
  mkdirSync(root, { recursive: true });
  if (as) chownSync(root, as.uid, as.gid);
  const data = join(root, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--locale-provider=icu', '--icu-locale=en-US'], as?.name ?? null);
  }
  const port = await freePort();
  const settings = Object.entries(BENCH_SETTINGS).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  run([join(bin, 'pg_ctl'), 'start', '-w', '-t', '120', '-D', data, '-l', join(root, 'server.log'), '-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 ${settings}`], as?.name ?? null);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    stop: async () => {
      run([join(bin, 'pg_ctl'), 'stop', '-w', '-D', data, '-m', 'fast'], as?.name ?? null);
      if (!dir) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Makes `database` on the cluster unless it is there. */
export async function ensureDatabase(cluster: BenchCluster, database: string): Promise<void> {
  const admin = new SQL(cluster.url('postgres'));
  try {
    const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${database}`;
    if (!found) await admin.unsafe(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.close();
  }
}
