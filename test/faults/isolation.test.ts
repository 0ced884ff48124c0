/**
 * The tenant isolation matrix: every operation of the served OpenAPI document, called with keys
 * that must not reach organization A's data (another organization, a key limited to another
 * project, a read-only key on writes, a revoked key, an expired key, no key), for ids that exist in
 * A. Each answer must be exactly the documented 401/403/404, must read the same as for an id that
 * does not exist at all (so it does not reveal that A's id exists), and must carry none of A's data.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_KEY, startApp, type Reply, type TestApp } from '../helpers/app';

const ORG_A = 'org_default';
const PROJ_A = 'proj_default';
/** A value stored only in organization A; no answer to another tenant may contain it. */
const MARKER = 'tenant-a-private-7c1f';

const resolver = async () => ['93.184.216.34'];

type Ids = Record<'org' | 'project' | 'table' | 'column' | 'row' | 'batch' | 'export' | 'webhook' | 'template' | 'key' | 'example', string>;

interface Operation {
  method: string;
  /** OpenAPI path template, `{param}` placeholders. */
  path: string;
}

/** A valid request body per operation, so a denial is about the key and never about the body. */
function bodyFor(op: Operation, ids: Ids): { body?: unknown; raw?: FormData } {
  const key = `${op.method} ${op.path}`;
  const columns = [{ id: 'title', name: 'Title' }];
  const extractForm = () => {
    const form = new FormData();
    form.append('text', 'Title\nhello');
    return { raw: form };
  };
  const bodies: Record<string, () => { body?: unknown; raw?: FormData }> = {
    'POST /v1/projects/{project_id}/tables': () => ({ body: { name: 'Intruder', columns_json: columns } }),
    'PATCH /v1/projects/{project_id}/tables/{table_id}': () => ({ body: { name: 'Renamed by intruder' } }),
    'POST /v1/projects/{project_id}/tables/{table_id}/duplicate': () => ({ body: { name: 'Copy', slug: 'intruder-copy' } }),
    'POST /v1/projects/{project_id}/tables/{table_id}/restore': () => ({ body: {} }),
    'POST /v1/projects/{project_id}/tables/{table_id}/columns': () => ({ body: { name: 'Extra' } }),
    'PUT /v1/projects/{project_id}/tables/{table_id}/columns/order': () => ({ body: { order: [ids.column] } }),
    'PATCH /v1/projects/{project_id}/tables/{table_id}/columns/{col_id}': () => ({ body: { description: 'changed' } }),
    'POST /v1/projects/{project_id}/tables/{table_id}/rows': () => ({ body: { title: 'injected' } }),
    'POST /v1/projects/{project_id}/tables/{table_id}/rows/bulk': () => ({ body: { creates: [{ title: 'injected' }], deletes: [ids.row] } }),
    'PATCH /v1/projects/{project_id}/tables/{table_id}/rows/{row_id}': () => ({ body: { title: 'overwritten' } }),
    'POST /v1/organizations/{organization_id}/webhooks': () => ({ body: { url: 'https://public.test/hook', events: ['ping'] } }),
    'PATCH /v1/organizations/{organization_id}/webhooks/{id}': () => ({ body: { url: 'https://public.test/stolen' } }),
    'POST /v1/projects/{project_id}/extract': extractForm,
    'POST /v1/projects/{project_id}/extract-stream': extractForm,
    'POST /v1/projects/{project_id}/tables/{table_id}/extract': extractForm,
    'POST /v1/projects/{project_id}/tables/{table_id}/extract-stream': extractForm,
    'POST /v1/projects/{project_id}/suggest-schema': () => ({ body: { text: 'Title\nhello' } }),
    'POST /v1/projects/{project_id}/table-templates/{template_id}/use': () => ({ body: { name: 'From template' } }),
    'POST /v1/table-templates': () => ({ body: { name: 'Intruder template', category: 'x', columns_json: columns } }),
    'PATCH /v1/table-templates/{template_id}': () => ({ body: { name: 'Renamed template' } }),
    'POST /v1/keys': () => ({ body: { name: 'Intruder key', role: 'admin' } }),
  };
  return bodies[key]?.() ?? {};
}

const QUERIES: Record<string, string> = {
  'GET /v1/projects/{project_id}/tables/{table_id}/rows/aggregate': '?aggs=count',
  'GET /v1/projects/{project_id}/tables/{table_id}/export': '?format=csv',
};

function fill(op: Operation, ids: Ids): string {
  const path = op.path
    .replace('{organization_id}', ids.org)
    .replace('{project_id}', ids.project)
    .replace('{table_id}', ids.table)
    .replace('{col_id}', ids.column)
    .replace('{row_id}', ids.row)
    .replace('{batch_id}', ids.batch)
    .replace('{export_id}', ids.export)
    .replace('{template_id}', ids.template)
    .replace('{key_id}', ids.key)
    .replace('{example_id}', ids.example)
    .replace('{page}', '1')
    .replace('{id}', ids.webhook);
  if (path.includes('{')) throw new Error(`no id for a parameter of ${op.path}: add it to the matrix`);
  return path + (QUERIES[`${op.method} ${op.path}`] ?? '');
}

const describeCall = (op: Operation, who: string) => `${who}: ${op.method} ${op.path}`;

let app: TestApp;
let operations: Operation[];
let a: Ids;
const keys: Record<string, string> = {};
let projectB = '';
let orgB = '';
let projectA2 = '';

async function call(op: Operation, ids: Ids, key: string | null): Promise<Reply> {
  return app.request(op.method.toUpperCase(), fill(op, ids), { key, ...bodyFor(op, ids) });
}

/** Ids shaped like A's that exist nowhere, for the "same answer as a missing id" comparison. */
function missingLike(ids: Ids): Ids {
  const out = { ...ids };
  for (const name of ['table', 'column', 'row', 'batch', 'export', 'webhook', 'template', 'key', 'example'] as const) {
    out[name] = ids[name].replace(/.$/, (c) => (c === 'z' ? 'y' : 'z')) + 'q';
  }
  return out;
}

/** The answer with every id of `ids` replaced by its name, so two answers about different ids compare. */
function normalised(reply: Reply, ids: Ids): string {
  let text = JSON.stringify({ status: reply.status, body: reply.body });
  for (const [name, value] of Object.entries(ids)) text = text.split(value).join(`<${name}>`);
  return text;
}

function expectDenied(reply: Reply, status: number, errorKey: string, what: string) {
  expect({ what, status: reply.status, error_key: reply.body?.error_key }).toEqual({ what, status, error_key: errorKey });
  expect(reply.body).toMatchObject({ success: false, status, error_key: errorKey });
  expect(JSON.stringify(reply.body)).not.toContain(MARKER);
}

beforeAll(async () => {
  app = await startApp({ network: { resolver } });
  const accounts = app.services.accounts;
  const served = await app.request('GET', '/swagger/json', { key: null });
  operations = Object.entries<Record<string, unknown>>(served.body.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );

  const P = `/v1/projects/${PROJ_A}`;
  const table = await app.request('POST', `${P}/tables`, {
    body: { name: `Table ${MARKER}`, columns_json: [{ id: 'title', name: 'Title' }, { id: 'amount', name: 'Amount', type: 'number' }] },
  });
  expect(table.status).toBe(201);
  const form = new FormData();
  form.append('file', new File([`Title,Amount\n${MARKER},12\nsecond,3\n`], `${MARKER}.csv`, { type: 'text/csv' }));
  const extracted = await app.request('POST', `${P}/tables/${table.body.id}/extract`, { raw: form });
  expect(extracted.body.status).toBe('complete');
  const rows = await app.request('GET', `${P}/tables/${table.body.id}/rows?filter=title.eq.${MARKER}`);
  expect(rows.body.rows).toHaveLength(1);
  // A person's edit of the extracted row makes the document an example of the table.
  const fetched = await app.request('GET', `${P}/tables/${table.body.id}/rows/${rows.body.rows[0].id}`);
  const edited = await app.request('PATCH', `${P}/tables/${table.body.id}/rows/${rows.body.rows[0].id}`, { body: { amount: 13 }, headers: { 'if-match': fetched.headers.get('etag')! } });
  expect(edited.status).toBe(200);
  const examples = await app.request('GET', `${P}/tables/${table.body.id}/examples`);
  expect(examples.body.examples).toHaveLength(1);
  const exported = await app.request('GET', `${P}/tables/${table.body.id}/export?format=csv`);
  expect(exported.status).toBe(200);
  for (let i = 0; i < 100 && (await app.request('GET', `${P}/exports/${exported.body.id}`)).body.status === 'processing'; i++) await Bun.sleep(20);
  const webhook = await app.request('POST', `/v1/organizations/${ORG_A}/webhooks`, { body: { url: `https://public.test/${MARKER}`, events: ['ping'], name: MARKER } });
  expect(webhook.status).toBe(201);
  const template = await app.request('POST', '/v1/table-templates', { body: { name: `Template ${MARKER}`, category: MARKER, columns_json: [{ id: 'title', name: 'Title' }] } });
  expect(template.status).toBe(201);
  a = {
    org: ORG_A,
    project: PROJ_A,
    table: table.body.id,
    column: 'title',
    row: rows.body.rows[0].id,
    batch: extracted.body.batch_id,
    export: exported.body.id,
    webhook: webhook.body.id,
    template: template.body.id,
    key: (await app.services.accounts.createKey({ organizationId: ORG_A, name: MARKER, role: 'write' })).record.id,
    example: examples.body.examples[0].id,
  };

  const other = await accounts.createOrg({ name: 'Organization B' });
  orgB = other.id;
  projectB = (await accounts.createProject({ organizationId: orgB, name: 'Project B' })).id;
  keys.otherOrg = (await accounts.createKey({ organizationId: orgB, role: 'admin' })).secret;
  projectA2 = (await accounts.createProject({ organizationId: ORG_A, name: 'Project A2' })).id;
  keys.otherProject = (await accounts.createKey({ organizationId: ORG_A, role: 'admin', projectIds: [projectA2] })).secret;
  keys.read = (await accounts.createKey({ organizationId: ORG_A, role: 'read' })).secret;
  const revoked = await accounts.createKey({ organizationId: ORG_A, role: 'admin' });
  await accounts.revokeKey(revoked.record.id);
  keys.revoked = revoked.secret;
  keys.expired = (await accounts.createKey({ organizationId: ORG_A, role: 'admin', expiresAt: Date.now() + 30 })).secret;
  await Bun.sleep(40);
});
afterAll(() => app.close());

const isOrgPath = (op: Operation) => op.path.startsWith('/v1/organizations/');
/** Organization settings without the organization in the path: the key's own organization. */
const isKeysPath = (op: Operation) => op.path.startsWith('/v1/keys');
/** Reads that need an organization-wide admin key (the key list shows every key of the organization). */
const ADMIN_READS = new Set(['GET /v1/keys']);
const isProjectPath = (op: Operation) => op.path.startsWith('/v1/projects/');
const hasResourceId = (op: Operation) => /\{(table_id|col_id|row_id|batch_id|export_id|template_id|key_id|example_id|id)\}/.test(op.path);
/** The row is a CSV's: it has no page to render, which the owner is told as for any such row. */
const OWNER_NOT_FOUND = new Set(['GET /v1/projects/{project_id}/tables/{table_id}/rows/{row_id}/source/pages/{page}']);
const isWrite = (op: Operation) => op.method !== 'GET';

describe('tenant isolation matrix', () => {
  test('the served document lists every area, and the owner reads each id-bearing GET', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(45);
    for (const op of operations.filter((o) => o.method === 'GET' && hasResourceId(o))) {
      const reply = await call(op, a, ADMIN_KEY);
      if (OWNER_NOT_FOUND.has(`${op.method} ${op.path}`)) expect({ op: describeCall(op, 'owner'), status: reply.status, error_key: reply.body?.error_key }).toEqual({ op: describeCall(op, 'owner'), status: 404, error_key: 'row_source_not_found' });
      else expect({ op: describeCall(op, 'owner'), status: reply.status }).toEqual({ op: describeCall(op, 'owner'), status: 200 });
    }
  });

  test('no key, an unknown key, a revoked key and an expired key are 401 unauthorized on every operation', async () => {
    const cases: Array<[string, string | null]> = [
      ['no key', null],
      ['unknown key', 'rsk_not_a_key_of_anyone_000000'],
      ['revoked key', keys.revoked!],
      ['expired key', keys.expired!],
    ];
    for (const [who, key] of cases) {
      for (const op of operations.filter((o) => o.path.startsWith('/v1/'))) {
        expectDenied(await call(op, a, key), 401, 'unauthorized', describeCall(op, who));
      }
    }
  });

  test("another organization's key gets 404 not_found for A's organization and projects, as for ones that do not exist", async () => {
    for (const op of operations.filter((o) => isOrgPath(o) || isProjectPath(o))) {
      const reply = await call(op, a, keys.otherOrg!);
      expectDenied(reply, 404, 'not_found', describeCall(op, 'other organization'));
      const missing = missingLike(a);
      const unknown = await call(op, { ...missing, org: 'org_nonexistent', project: 'proj_nonexistent' }, keys.otherOrg!);
      expect(normalised(reply, a)).toBe(normalised(unknown, { ...missing, org: 'org_nonexistent', project: 'proj_nonexistent' }));
    }
  });

  test("another organization's key with its own project and organization cannot reach A's ids by naming them", async () => {
    const expected: Record<string, [number, string]> = {
      table_id: [404, 'table_not_found'],
      batch_id: [404, 'not_found'],
      export_id: [404, 'not_found'],
      template_id: [404, 'not_found'],
      key_id: [404, 'not_found'],
      id: [404, 'webhook_not_found'],
    };
    const own = { ...a, org: orgB, project: projectB };
    for (const op of operations.filter(hasResourceId)) {
      const param = Object.keys(expected).find((name) => op.path.includes(`{${name}}`))!;
      const reply = await call(op, own, keys.otherOrg!);
      expectDenied(reply, ...expected[param]!, describeCall(op, 'other organization, own scope'));
      const missing = { ...missingLike(a), org: orgB, project: projectB };
      expect(normalised(reply, own)).toBe(normalised(await call(op, missing, keys.otherOrg!), missing));
    }
  });

  test("a key limited to another project of the same organization gets 404 for A's project and 403 for organization settings", async () => {
    for (const op of operations.filter((o) => isOrgPath(o) || isKeysPath(o) || isProjectPath(o))) {
      const reply = await call(op, a, keys.otherProject!);
      if (isOrgPath(op) || isKeysPath(op)) expectDenied(reply, 403, 'forbidden', describeCall(op, 'other project'));
      else expectDenied(reply, 404, 'not_found', describeCall(op, 'other project'));
    }
    for (const op of operations.filter((o) => isProjectPath(o) && o.path.includes('{table_id}'))) {
      expectDenied(await call(op, { ...a, project: projectA2 }, keys.otherProject!), 404, 'table_not_found', describeCall(op, 'other project, own scope'));
    }
  });

  test('a read-only key is 403 forbidden on every write, and reads work', async () => {
    for (const op of operations.filter((o) => o.path.startsWith('/v1/'))) {
      const reply = await call(op, a, keys.read!);
      if (isWrite(op) || ADMIN_READS.has(`${op.method} ${op.path}`)) expectDenied(reply, 403, 'forbidden', describeCall(op, 'read-only key'));
      else expect({ op: describeCall(op, 'read-only key'), status: reply.status }).toEqual({ op: describeCall(op, 'read-only key'), status: OWNER_NOT_FOUND.has(`${op.method} ${op.path}`) ? 404 : 200 });
    }
  });

  test("id-bearing download links answer A's files to nobody else", async () => {
    const links = [
      `/v1/projects/${PROJ_A}/tables/${a.table}/rows/${a.row}/source`,
      `/v1/projects/${PROJ_A}/batches/${a.batch}/download/csv`,
      `/v1/projects/${PROJ_A}/batches/${a.batch}/download/json`,
      `/v1/projects/${PROJ_A}/batches/${a.batch}/download/xlsx`,
      `/v1/projects/${PROJ_A}/exports/${a.export}/download`,
    ];
    for (const link of links) {
      expect((await app.request('GET', link)).status).toBe(200);
      for (const key of [keys.otherOrg!, keys.otherProject!, keys.revoked!, keys.expired!]) {
        const reply = await app.request('GET', link, { key });
        expect([401, 404]).toContain(reply.status);
        expect(JSON.stringify(reply.body)).not.toContain(MARKER);
      }
      const sideways = link.replace(PROJ_A, projectB);
      const reply = await app.request('GET', sideways, { key: keys.otherOrg! });
      expect(reply.status).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain(MARKER);
    }
  });

  test("another organization's own lists and /v1/me show nothing of A", async () => {
    for (const path of ['/v1/me', '/v1/table-templates/mine', `/v1/projects/${projectB}/tables`, `/v1/projects/${projectB}/batches`, `/v1/projects/${projectB}/table-templates?limit=100`, `/v1/organizations/${orgB}/webhooks`, '/v1/keys']) {
      const reply = await app.request('GET', path, { key: keys.otherOrg! });
      expect({ path, status: reply.status }).toEqual({ path, status: 200 });
      const text = JSON.stringify(reply.body);
      for (const id of [MARKER, a.table, a.batch, a.webhook, a.template, a.key, PROJ_A]) expect(text).not.toContain(id);
    }
  });

  test("after every attack A's data is exactly as it was", async () => {
    const P = `/v1/projects/${PROJ_A}`;
    const table = await app.request('GET', `${P}/tables/${a.table}`);
    expect(table.body).toMatchObject({ name: `Table ${MARKER}`, row_count: 2, deleted_at: null });
    expect(table.body.columns_json.map((c: { id: string }) => c.id)).toEqual(['title', 'amount']);
    expect((await app.request('GET', `${P}/tables/${a.table}/rows/${a.row}`)).body.title).toBe(MARKER);
    const webhook = await app.request('GET', `/v1/organizations/${ORG_A}/webhooks/${a.webhook}`);
    expect(webhook.body).toMatchObject({ url: `https://public.test/${MARKER}`, secret_rotated_at: null, active: true });
    expect((await app.request('GET', `${P}/table-templates/${a.template}`)).body.name).toBe(`Template ${MARKER}`);
    expect((await app.services.accounts.listKeys(ORG_A)).find((k) => k.id === a.key)?.revoked_at).toBeNull();
    expect((await app.services.accounts.listKeys(ORG_A)).filter((k) => k.name === 'Intruder key')).toEqual([]);
    const tables = await app.request('GET', `${P}/tables?limit=100`);
    expect(tables.body.tables.map((t: { name: string }) => t.name)).toEqual([`Table ${MARKER}`]);
  });
});
