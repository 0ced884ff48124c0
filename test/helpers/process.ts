/** Runs rowsmith (server or CLI) as a child process, the way a user does. */
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');

export interface ServerProcess {
  url: string;
  port: number;
  proc: ReturnType<typeof Bun.spawn>;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number>;
}

async function collect(stream: ReadableStream<Uint8Array>, sink: string[]): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) sink.push(decoder.decode(chunk, { stream: true }));
}

export async function startServer(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  const chunks: string[] = [];
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ROWSMITH_LOG_REQUESTS: 'false', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  void collect(proc.stdout as ReadableStream<Uint8Array>, chunks);
  void collect(proc.stderr as ReadableStream<Uint8Array>, chunks);
  const output = () => chunks.join('');
  const deadline = Date.now() + timeoutMs;
  let port = 0;
  while (Date.now() < deadline) {
    const match = output().match(/listening on http:\/\/[^:]+:(\d+)/);
    if (match) {
      port = Number(match[1]);
      break;
    }
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${output()}`);
    await Bun.sleep(25);
  }
  if (!port) {
    proc.kill('SIGKILL');
    throw new Error(`server did not start:\n${output()}`);
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode === null) proc.kill(signal);
    return await proc.exited;
  };
  return { url: `http://127.0.0.1:${port}`, port, proc, output, stop };
}

/** Runs the admin CLI to completion. */
export async function runCli(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}
