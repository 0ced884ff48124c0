import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectError, startApp, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const own = {
  name: 'Field reports',
  category: 'Operations',
  description: 'Daily reports from site visits',
  columns_json: [
    { id: 'site', name: 'Site', required: true },
    { id: 'visited', name: 'Visited', type: 'date' },
    { id: 'issues', name: 'Issues', type: 'number' },
  ],
  insert_mode: 'merge',
  merge_columns_json: ['site', 'visited'],
  strictness: 'strict',
};

describe('built-in catalogue', () => {
  test('at least 12 templates across the categories of the issue, each creatable as a table', async () => {
    const list = await app.request('GET', `${P}/table-templates?limit=100`);
    expect(list.status).toBe(200);
    const templates = list.body.templates as any[];
    expect(templates.length).toBeGreaterThanOrEqual(12);
    const names = templates.map((t) => t.name.toLowerCase()).join(' | ');
    for (const word of ['invoice', 'receipt', 'purchase order', 'bank statement', 'expense', 'contact', 'lead', 'job', 'product', 'shipping', 'real-estate', 'event']) {
      expect({ word, found: names.includes(word) }).toEqual({ word, found: true });
    }
    for (const template of templates) {
      expect(template).toMatchObject({ creator_display_name: 'rowsmith', creator_user_id: null, usage_count: expect.any(Number) });
      expect(template.id).toMatch(/^ttmpl_[0-9a-z]{26}$/);
      expect(template.columns_json.every((c: any) => typeof c.description === 'string' && c.description.length > 5)).toBe(true);
      const table = await app.request('POST', `${P}/tables`, { body: { name: `From ${template.name}`, columns_json: template.columns_json, merge_columns_json: template.merge_columns_json } });
      expect({ template: template.name, status: table.status }).toEqual({ template: template.name, status: 201 });
    }
  });

  test('list: q over name, description and category, filter by category, order, paging', async () => {
    const finance = await app.request('GET', `${P}/table-templates?filter=category.eq.Finance&limit=100`);
    expect(finance.body.templates.length).toBeGreaterThanOrEqual(3);
    expect(finance.body.templates.every((t: any) => t.category === 'Finance')).toBe(true);
    const q = await app.request('GET', `${P}/table-templates?q=recruiting`);
    expect(q.body.templates.map((t: any) => t.name)).toEqual(['Job postings']);
    const byDescription = await app.request('GET', `${P}/table-templates?q=brochures`);
    expect(byDescription.body.templates.map((t: any) => t.name)).toEqual(['Real-estate listings']);
    const ordered = await app.request('GET', `${P}/table-templates?order=name.desc&limit=2`);
    expect(ordered.body).toMatchObject({ count: 2, hasMore: true });
    const next = await app.request('GET', `${P}/table-templates?order=name.desc&limit=2&cursor=${ordered.body.nextCursor}`);
    expect(next.body.templates[0].name < ordered.body.templates[1].name).toBe(true);
    expectError(await app.request('GET', `${P}/table-templates?filter=columns_json.eq.x`), 400, 'invalid_input');
  });

  test('get one; 404 for unknown ids', async () => {
    const [first] = (await app.request('GET', `${P}/table-templates?q=invoices&filter=name.eq.Invoices`)).body.templates;
    const got = await app.request('GET', `${P}/table-templates/${first.id}`);
    expect(got.body).toMatchObject({ id: first.id, name: 'Invoices', category: 'Finance', insert_mode: 'merge', merge_columns_json: ['invoice_number', 'vendor'] });
    expectError(await app.request('GET', `${P}/table-templates/ttmpl_nope`), 404, 'not_found');
  });

  test('built-in templates cannot be changed or deleted', async () => {
    const [first] = (await app.request('GET', `${P}/table-templates?limit=1`)).body.templates;
    expectError(await app.request('PATCH', `/v1/table-templates/${first.id}`, { body: { name: 'Mine now' } }), 403, 'forbidden');
    expectError(await app.request('DELETE', `/v1/table-templates/${first.id}`), 403, 'forbidden');
  });
});

describe('using a template', () => {
  test('creates a table (201) with its definition, counts the use; name and slug rules hold', async () => {
    const [receipts] = (await app.request('GET', `${P}/table-templates?filter=name.eq.Receipts`)).body.templates;
    const used = await app.request('POST', `${P}/table-templates/${receipts.id}/use`, { body: { name: 'Team receipts', slug: 'team-receipts' } });
    expect(used.status).toBe(201);
    expect(used.headers.get('etag')).toMatch(/^"tbl_/);
    expect(used.body).toMatchObject({
      name: 'Team receipts',
      slug: 'team-receipts',
      strictness: 'flexible',
      insert_mode: 'dedup',
      merge_columns_json: ['merchant', 'purchase_date', 'total'],
      row_count: 0,
    });
    expect(used.body.columns_json).toEqual(receipts.columns_json);
    expect((await app.request('GET', `${P}/table-templates/${receipts.id}`)).body.usage_count).toBe(receipts.usage_count + 1);

    expectError(await app.request('POST', `${P}/table-templates/${receipts.id}/use`, { body: { name: 'Again', slug: 'team-receipts' } }), 409, 'table_project_id_duplicate');
    expectError(await app.request('POST', `${P}/table-templates/${receipts.id}/use`, { body: { name: 'Bad slug', slug: 'Not A Slug' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${P}/table-templates/${receipts.id}/use`, { body: {} }), 400, 'invalid_input');
    expectError(await app.request('POST', `${P}/table-templates/ttmpl_nope/use`, { body: { name: 'x' } }), 404, 'not_found');
    expect((await app.request('GET', `${P}/table-templates/${receipts.id}`)).body.usage_count).toBe(receipts.usage_count + 1);
    const auto = await app.request('POST', `${P}/table-templates/${receipts.id}/use`, { body: { name: 'Team receipts' } });
    expect(auto.body.slug).toBe('team-receipts-2');
  });
});

describe("an organization's own templates", () => {
  test('create, list mine, update, use, delete', async () => {
    const created = await app.request('POST', '/v1/table-templates', { body: own });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Field reports', category: 'Operations', usage_count: 0, insert_mode: 'merge', strictness: 'strict', creator_user_id: null });
    expect(created.body.creator_display_name).toBeString();
    expect(created.body.id).toMatch(/^ttmpl_/);
    expect(created.body.columns_json[1]).toEqual({ id: 'visited', name: 'Visited', type: 'date', required: false });

    const mine = await app.request('GET', '/v1/table-templates/mine');
    expect(mine.body.templates.map((t: any) => t.id)).toEqual([created.body.id]);
    const inProject = await app.request('GET', `${P}/table-templates?filter=category.eq.Operations`);
    expect(inProject.body.templates.map((t: any) => t.id)).toEqual([created.body.id]);

    const updated = await app.request('PATCH', `/v1/table-templates/${created.body.id}`, { body: { description: 'Weekly now', columns_json: [...own.columns_json, { id: 'inspector', name: 'Inspector' }] } });
    expect(updated.status).toBe(200);
    expect(updated.body.description).toBe('Weekly now');
    expect(updated.body.columns_json.map((c: any) => c.id)).toEqual(['site', 'visited', 'issues', 'inspector']);
    expect(updated.body.merge_columns_json).toEqual(['site', 'visited']);
    expect(updated.body.updated_at).toBeGreaterThanOrEqual(created.body.updated_at);

    const table = await app.request('POST', `${P}/table-templates/${created.body.id}/use`, { body: { name: 'Reports' } });
    expect(table.body.columns_json.map((c: any) => c.id)).toEqual(['site', 'visited', 'issues', 'inspector']);
    expect((await app.request('GET', `/v1/table-templates/mine`)).body.templates[0].usage_count).toBe(1);

    expect((await app.request('DELETE', `/v1/table-templates/${created.body.id}`)).body).toEqual({ id: created.body.id });
    expectError(await app.request('GET', `${P}/table-templates/${created.body.id}`), 404, 'not_found');
    expectError(await app.request('DELETE', `/v1/table-templates/${created.body.id}`), 404, 'not_found');
  });

  test('validation: columns, merge columns, names', async () => {
    expectError(await app.request('POST', '/v1/table-templates', { body: { ...own, columns_json: [] } }), 400, 'invalid_input');
    expectError(await app.request('POST', '/v1/table-templates', { body: { ...own, category: '' } }), 400, 'invalid_input');
    expectError(await app.request('POST', '/v1/table-templates', { body: { ...own, merge_columns_json: ['nope'] } }), 400, 'invalid_input');
    expectError(await app.request('POST', '/v1/table-templates', { body: { ...own, columns_json: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] } }), 400, 'invalid_input');
    expectError(await app.request('POST', '/v1/table-templates', { body: { ...own, columns_json: [{ id: 'e', name: 'E', type: 'enum' }] } }), 400, 'invalid_input');
  });

  test('other organizations neither see nor change them; read keys cannot write', async () => {
    const created = (await app.request('POST', '/v1/table-templates', { body: own })).body;
    const other = await app.services.accounts.createOrg({ name: 'Elsewhere' });
    const project = await app.services.accounts.createProject({ organizationId: other.id, name: 'P' });
    const otherKey = (await app.services.accounts.createKey({ organizationId: other.id, role: 'admin' })).secret;
    expect((await app.request('GET', '/v1/table-templates/mine', { key: otherKey })).body.templates).toEqual([]);
    expectError(await app.request('GET', `/v1/projects/${project.id}/table-templates/${created.id}`, { key: otherKey }), 404, 'not_found');
    expectError(await app.request('POST', `/v1/projects/${project.id}/table-templates/${created.id}/use`, { key: otherKey, body: { name: 'x' } }), 404, 'not_found');
    expectError(await app.request('PATCH', `/v1/table-templates/${created.id}`, { key: otherKey, body: { name: 'x' } }), 404, 'not_found');
    expectError(await app.request('DELETE', `/v1/table-templates/${created.id}`, { key: otherKey }), 404, 'not_found');
    const read = (await app.services.accounts.createKey({ organizationId: 'org_default', role: 'read' })).secret;
    expect((await app.request('GET', '/v1/table-templates/mine', { key: read })).status).toBe(200);
    expectError(await app.request('POST', '/v1/table-templates', { key: read, body: own }), 403, 'forbidden');
    expectError(await app.request('GET', '/v1/table-templates/mine', { key: 'rsk_wrong' }), 401, 'unauthorized');
  });
});
