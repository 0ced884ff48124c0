/**
 * The cost of the HTTP path itself (gateway, auth, routing, validation, LMDB reads) against Bun's
 * plain hello-world server, both as child processes on loopback, driven from this process.
 */
import { latency, machine, printTable, startHelloWorld, startRowsmith, throughput } from './lib';

export async function run(): Promise<void> {
  const key = 'bench-admin-key-0123456789abcdef';
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: key });
  const hello = await startHelloWorld();
  try {
    const headers = { authorization: `ApiKey ${key}`, 'content-type': 'application/json' };
    const base = `${server.url}/v1/projects/proj_default/tables`;
    let tableId = '';
    for (let i = 0; i < 50; i++) {
      const reply = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ name: `Table ${i}`, columns_json: [{ id: 'a', name: 'A' }] }) });
      tableId = ((await reply.json()) as { id: string }).id;
    }
    const get = (path: string) => () => new Request(`${server.url}${path}`, { headers });
    const cases: Array<[string, () => Request]> = [
      ['GET /healthz (no auth)', get('/healthz')],
      ['GET /v1/me', get('/v1/me')],
      ['GET table by id', get(`/v1/projects/proj_default/tables/${tableId}`)],
      ['GET tables list (50 tables, limit 20)', get('/v1/projects/proj_default/tables')],
      ['GET tables list filter+order', get('/v1/projects/proj_default/tables?filter=name.ilike.*1*&order=name.desc')],
    ];
    const helloRate = await throughput(3, 32, () => new Request(hello.url));
    const rows: Array<Record<string, string | number>> = [{ case: 'Bun hello world', 'p50 ms': '-', 'p95 ms': '-', 'req/s (32 clients)': Math.round(helloRate), 'vs hello': '100%' }];
    for (const [name, make] of cases) {
      await latency(200, make);
      const lat = await latency(2000, make, (r) => {
        if (!r.ok) throw new Error(`${name}: ${r.status}`);
      });
      const rate = await throughput(3, 32, make);
      rows.push({ case: name, 'p50 ms': lat.p50, 'p95 ms': lat.p95, 'req/s (32 clients)': Math.round(rate), 'vs hello': `${Math.round((rate / helloRate) * 100)}%` });
    }
    printTable(`HTTP path (${machine()}); latency: 2000 sequential requests after 200 warm-up; rate: 3 s, 32 concurrent clients, keep-alive`, rows);
  } finally {
    await server.stop();
    await hello.stop();
  }
}
