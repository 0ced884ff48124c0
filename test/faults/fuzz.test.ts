/**
 * The short, fixed-seed run of the API fuzzer (the long one is `npm run bench -- fuzz`): no 5xx, no
 * hang, the error envelope on every 4xx, and a table the fuzzer never names is unchanged at the end.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ADMIN_KEY, startApp, type TestApp } from '../helpers/app';
import { formatFailure, runFuzz, seedFixtures } from './fuzzer';

const SEED = 16;
const REQUESTS = 1500;
const resolver = async () => ['93.184.216.34'];
const WEBHOOK_URL = 'https://public.test/hook';

let app: TestApp;
beforeAll(async () => {
  app = await startApp({ network: { resolver }, config: { extractMaxFileBytes: 2 * 1024 * 1024, rateLimitPerSecond: 0 } });
});
afterAll(() => app.close());

test(`${REQUESTS} fuzzed requests (seed ${SEED}): no 5xx, no hang, the envelope on every 4xx, untouched data intact`, async () => {
  const sentinelProject = await app.services.accounts.createProject({ organizationId: 'org_default', name: 'Sentinel' });
  const S = `/v1/projects/${sentinelProject.id}`;
  const table = await app.request('POST', `${S}/tables`, { body: { name: 'Sentinel', columns_json: [{ id: 'title', name: 'Title' }, { id: 'amount', name: 'Amount', type: 'number' }] } });
  await app.request('POST', `${S}/tables/${table.body.id}/rows/bulk`, { body: { creates: [{ title: 'kept', amount: 1 }, { title: 'also kept', amount: 2 }] } });
  const before = await app.request('GET', `${S}/tables/${table.body.id}/rows?order=created_at.asc`);

  const send = (request: Request) => app.app.handle(request);
  const document = await (await send(new Request('http://localhost/swagger/json'))).json();
  const ids = await seedFixtures(send, 'http://localhost', ADMIN_KEY, 'proj_default', 'org_default', WEBHOOK_URL);
  const report = await runFuzz(send, document, ids, {
    seed: SEED,
    requests: REQUESTS,
    concurrency: 4,
    // A hang is minutes; a PDF page of a few words goes to OCR, which takes up to 13 s on a slow
    // two-core machine with three other requests running.
    deadlineMs: 30_000,
    baseUrl: 'http://localhost',
    key: ADMIN_KEY,
    bombBytes: 1024 * 1024,
    // Deeply nested HTML holds the event loop for minutes in the HTML parser (src/extract, reported, not yet fixed).
    skipDocuments: ['deep.html'],
  }, async () => {
    await seedFixtures(send, 'http://localhost', ADMIN_KEY, 'proj_default', 'org_default', WEBHOOK_URL, ids);
  });

  if (report.failures.length) console.error(report.failures.slice(0, 20).map(formatFailure).join('\n'));
  expect(report.failures.map((f) => `seed ${f.seed} #${f.index} ${f.label}: ${f.problem}`)).toEqual([]);
  expect(report.requests).toBe(REQUESTS);
  expect((await send(new Request('http://localhost/healthz'))).status).toBe(200);
  // The fixture batch came from a CSV of formula payloads: its download must not start a cell with one.
  const csv = await app.request('GET', `/v1/projects/proj_default/batches/${ids.batches.at(-1)}/download/csv`);
  expect(csv.status).toBe(200);
  const cells = String(csv.body).split(/\r?\n/).flatMap((line) => line.split(',')).map((cell) => cell.replace(/^"/, ''));
  expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
  const after = await app.request('GET', `${S}/tables/${table.body.id}/rows?order=created_at.asc`);
  expect(after.body).toEqual(before.body);
}, 120_000);
