/** Shared benchmark helpers: child servers on free ports, latency percentiles, throughput. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');

export interface Child {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  stop(): Promise<void>;
  output(): string;
}

async function waitForPort(proc: ReturnType<typeof Bun.spawn>, pattern: RegExp): Promise<{ port: number; output: () => string }> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) chunks.push(decoder.decode(chunk));
  })();
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) chunks.push(decoder.decode(chunk));
  })();
  const output = () => chunks.join('');
  for (let i = 0; i < 2400; i++) {
    const match = output().match(pattern);
    if (match) return { port: Number(match[1]), output };
    if (proc.exitCode !== null) break;
    await Bun.sleep(25);
  }
  throw new Error(`child did not start:\n${output()}`);
}

/** Starts rowsmith with logging and rate limiting off, on a data folder (new unless given). */
export async function startRowsmith(env: Record<string, string> = {}, dataDir?: string): Promise<Child & { dataDir: string; startedInMs: number }> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'rowsmith-bench-'));
  const started = performance.now();
  // BENCH_SERVER_CPUS pins the server to those cores (`taskset -c`), so a client on the same
  // machine does not take the server's core.
  const pin = process.env.BENCH_SERVER_CPUS ? ['taskset', '-c', process.env.BENCH_SERVER_CPUS] : [];
  const proc = Bun.spawn([...pin, process.execPath, join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, ROWSMITH_LOG_REQUESTS: 'false', ROWSMITH_RATE_LIMIT_PER_SECOND: '0', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const { port, output } = await waitForPort(proc, /listening on http:\/\/[^:]+:(\d+)/);
  const url = `http://127.0.0.1:${port}`;
  // Ready means /readyz answers 200 (the store is open and the app attached).
  for (;;) {
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    await Bun.sleep(10);
  }
  const startedInMs = performance.now() - started;
  return {
    url,
    proc,
    dataDir: dir,
    startedInMs,
    output,
    stop: async () => {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/** Bun's plain hello-world server, the yardstick for request rates. */
export async function startHelloWorld(): Promise<Child> {
  const proc = Bun.spawn(
    [process.execPath, '-e', "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('hello') }); console.log('port ' + s.port)"],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  const { port, output } = await waitForPort(proc, /port (\d+)/);
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    output,
    stop: async () => {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/**
 * A memory figure of a process in MiB, from /proc/<pid>/status: VmRSS (all it has resident),
 * RssAnon (its own: heap, stacks, worker threads) or RssFile (mapped files: the LMDB store); 0 once it has exited.
 */
export function memoryMiB(pid: number, field: 'VmRSS' | 'RssAnon' | 'RssFile'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** CPU seconds a process has used, from /proc/<pid>/stat (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until a process has finished its background work: under 5% of a core over a whole second
 * (at most `maxSeconds`). Returns the seconds waited.
 */
export async function waitIdle(pid: number, maxSeconds = 600): Promise<number> {
  const start = performance.now();
  let before = cpuSeconds(pid);
  while ((performance.now() - start) / 1000 < maxSeconds) {
    await Bun.sleep(1000);
    const now = cpuSeconds(pid);
    if (now - before < 0.05) break;
    before = now;
  }
  return (performance.now() - start) / 1000;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sequential requests: the latency one client sees. `make(i)` builds the i-th request. */
export async function latency(count: number, make: (i: number) => Request, check?: (r: Response) => void) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const response = await fetch(make(i));
    await response.arrayBuffer();
    times.push(performance.now() - t0);
    check?.(response);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: count };
}

/** Requests per second with `concurrency` clients looping for `seconds`. */
export async function throughput(seconds: number, concurrency: number, make: () => Request): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const response = await fetch(make());
        await response.arrayBuffer();
        done++;
      }
    }),
  );
  return done / seconds;
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  const cols = Object.keys(rows[0] ?? {});
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]!).length)));
  const line = (vals: string[]) => '| ' + vals.map((v, i) => v.padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(line(cols));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]!))));
}

export function machine(): string {
  const os = require('node:os') as typeof import('node:os');
  return `Bun ${Bun.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`;
}

/** A JSON client of a child server's API with one key: FormData bodies as multipart, anything else as JSON. */
export function apiClient(url: string, key: string): (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }> {
  return async (method, path, body) => {
    const init: RequestInit = { method, headers: { authorization: `ApiKey ${key}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${url}${path}`, init);
    return { status: response.status, body: await response.json().catch(() => null) };
  };
}
