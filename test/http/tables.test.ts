import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ManualClock } from '../../src/lib/clock';
import { expectError, startApp, type TestApp } from '../helpers/app';

const TABLES = '/v1/projects/proj_default/tables';
const cols = (n = 1) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `Col ${i}` }));
const body = (extra: Record<string, unknown> = {}) => ({ name: 'Invoices', columns_json: cols(2), ...extra });

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const create = async (extra: Record<string, unknown> = {}) => {
  const reply = await app.request('POST', TABLES, { body: body(extra) });
  expect(reply.status).toBe(201);
  return reply.body;
};

describe('create and get', () => {
  test('every field of the spec is present, with column defaults filled in', async () => {
    const reply = await app.request('POST', TABLES, {
      body: {
        name: 'Vendor invoices',
        columns_json: [
          { id: 'amount', name: 'Amount', type: 'currency', currency_code: 'eur', description: 'Total', instruction: null },
          { id: 'vendor', name: 'Vendor' },
          { id: 'status', name: 'Status', type: 'enum', options: ['open', 'paid'], required: true, default: 'open', searchable: false },
        ],
        strictness: 'strict',
        insert_mode: 'merge',
        instruction: 'One row per invoice',
        merge_columns_json: ['Vendor'],
        default_sort: 'amount.desc',
      },
    });
    expect(reply.status).toBe(201);
    const t = reply.body;
    expect(Object.keys(t).sort()).toEqual(
      [
        'id', 'project_id', 'name', 'slug', 'columns_json', 'instruction', 'strictness', 'insert_mode', 'merge_columns_json', 'default_sort',
        'row_count', 'usage_count', 'data_version', 'fts_version', 'last_used_at', 'created_at', 'updated_at', 'deleted_at',
      ].sort(),
    );
    expect(t.id).toMatch(/^tbl_[0-9a-z]{26}$/);
    expect(t).toMatchObject({
      project_id: 'proj_default',
      name: 'Vendor invoices',
      slug: 'vendor-invoices',
      strictness: 'strict',
      insert_mode: 'merge',
      instruction: 'One row per invoice',
      merge_columns_json: ['vendor'],
      default_sort: 'amount.desc',
      row_count: 0,
      usage_count: 0,
      data_version: 0,
      fts_version: 0,
      last_used_at: null,
      deleted_at: null,
    });
    expect(t.created_at).toBe(t.updated_at);
    expect(t.columns_json).toEqual([
      { id: 'amount', name: 'Amount', type: 'currency', required: false, currency_code: 'EUR', description: 'Total', instruction: null },
      { id: 'vendor', name: 'Vendor', type: 'string', required: false },
      { id: 'status', name: 'Status', type: 'enum', required: true, default: 'open', options: ['open', 'paid'], searchable: false },
    ]);
    expect(reply.headers.get('etag')).toBe(`"${t.id}.1"`);

    const got = await app.request('GET', `${TABLES}/${t.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(t);
    expect(got.headers.get('etag')).toBe(reply.headers.get('etag'));
  });

  test('defaults: balanced, append, null instruction and merge columns', async () => {
    const t = await create();
    expect(t).toMatchObject({ strictness: 'balanced', insert_mode: 'append', instruction: null, merge_columns_json: null, default_sort: null });
  });

  test('slugs come from the name and are made unique', async () => {
    const a = await create({ name: 'Über Café 2024!!' });
    const b = await create({ name: 'Über  café-2024' });
    const c = await create({ name: 'Über Café 2024' });
    expect([a.slug, b.slug, c.slug]).toEqual(['uber-cafe-2024', 'uber-cafe-2024-2', 'uber-cafe-2024-3']);
    expect((await create({ name: '!!!' })).slug).toBe('table');
    const long = 'x'.repeat(60);
    const first = await create({ name: long });
    const second = await create({ name: long });
    expect(first.slug).toBe('x'.repeat(50));
    expect(second.slug).toBe(`${'x'.repeat(48)}-2`);
  });

  test('404 table_not_found for unknown tables and tables of another project', async () => {
    expectError(await app.request('GET', `${TABLES}/tbl_nope`), 404, 'table_not_found');
    const other = await app.services.accounts.createProject({ organizationId: 'org_default', name: 'Other' });
    const t = await create();
    expectError(await app.request('GET', `/v1/projects/${other.id}/tables/${t.id}`), 404, 'table_not_found');
    expectError(await app.request('GET', `/v1/projects/proj_nope/tables/${t.id}`), 404, 'not_found');
  });
});

describe('create and update bodies: each constraint at and just past its limit', () => {
  const accept = async (b: unknown) => expect((await app.request('POST', TABLES, { body: b })).status).toBe(201);
  const reject = async (b: unknown, path: string) => {
    const reply = await app.request('POST', TABLES, { body: b });
    const err = expectError(reply, 400, 'invalid_input');
    expect(Object.keys(err.fields)).toContain(path);
  };

  test('table fields', async () => {
    await accept(body({ name: 'n'.repeat(128) }));
    await reject(body({ name: 'n'.repeat(129) }), 'name');
    await reject(body({ name: '' }), 'name');
    await reject({ columns_json: cols(1) }, 'name');
    await accept({ name: 'one column', columns_json: cols(1) });
    await accept({ name: 'hundred columns', columns_json: cols(100) });
    await reject({ name: 'none', columns_json: [] }, 'columns_json');
    await reject({ name: 'too many', columns_json: cols(101) }, 'columns_json');
    await reject({ name: 'missing' }, 'columns_json');
    await accept(body({ instruction: 'i'.repeat(512) }));
    await reject(body({ instruction: 'i'.repeat(513) }), 'instruction');
    await reject(body({ strictness: 'lenient' }), 'strictness');
    await reject(body({ insert_mode: 'upsert' }), 'insert_mode');
    await reject(body({ merge_columns_json: [] }), 'merge_columns_json');
    await reject(body({ merge_columns_json: ['nope'] }), 'merge_columns_json[0]');
    await accept(body({ default_sort: 'c0.asc,created_at.desc' }));
    await reject(body({ default_sort: 'nope.asc' }), 'default_sort');
    await reject(body({ default_sort: 's'.repeat(257) }), 'default_sort');
  });

  test('column fields', async () => {
    const one = (c: Record<string, unknown>) => ({ name: 'T', columns_json: [{ id: 'a', name: 'A', ...c }] });
    await accept(one({ id: 'i'.repeat(36) }));
    await reject(one({ id: 'i'.repeat(37) }), 'columns_json[0].id');
    await reject(one({ id: '' }), 'columns_json[0].id');
    await reject(one({ id: 'has space' }), 'columns_json[0].id');
    await reject(one({ id: 'created_at' }), 'columns_json[0].id');
    await accept(one({ name: 'N'.repeat(64) }));
    await reject(one({ name: 'N'.repeat(65) }), 'columns_json[0].name');
    await accept(one({ name: 'Unit price. in-EUR_2' }));
    await reject(one({ name: 'Price ($)' }), 'columns_json[0].name');
    await reject(one({ type: 'decimal' }), 'columns_json[0].type');
    await accept(one({ type: 'currency', currency_code: 'USD' }));
    await reject(one({ type: 'currency', currency_code: 'US' }), 'columns_json[0].currency_code');
    await reject(one({ type: 'currency', currency_code: 'USDX' }), 'columns_json[0].currency_code');
    await reject(one({ type: 'currency', currency_code: '12$' }), 'columns_json[0].currency_code');
    await accept(one({ description: 'd'.repeat(256) }));
    await reject(one({ description: 'd'.repeat(257) }), 'columns_json[0].description');
    await accept(one({ instruction: 'd'.repeat(512) }));
    await reject(one({ instruction: 'd'.repeat(513) }), 'columns_json[0].instruction');
    const options = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);
    await accept(one({ type: 'enum', options: options(500) }));
    await reject(one({ type: 'enum', options: options(501) }), 'columns_json[0].options');
    await reject(one({ type: 'enum' }), 'columns_json[0].options');
    await reject(one({ type: 'multi_select', options: ['a', 'a'] }), 'columns_json[0].options[1]');
    await reject(one({ required: 'yes' }), 'columns_json[0].required');
    await reject({ name: 'T', columns_json: [{ name: 'no id' }] }, 'columns_json[0].id');
  });

  test('column ids and names are unique in a table', async () => {
    await reject({ name: 'T', columns_json: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] }, 'columns_json[1].id');
    await reject({ name: 'T', columns_json: [{ id: 'a', name: 'Name' }, { id: 'b', name: 'name' }] }, 'columns_json[1].name');
    await reject({ name: 'T', columns_json: [{ id: 'a', name: 'b' }, { id: 'b', name: 'B col' }] }, 'columns_json[0].name');
  });

  test('update: every field, limits and slug rules', async () => {
    const t = await create({ name: 'Updatable' });
    const url = `${TABLES}/${t.id}`;
    const reply = await app.request('PATCH', url, {
      body: { name: 'Renamed', slug: 'renamed-table', strictness: 'flexible', insert_mode: 'dedup', instruction: 'x', merge_columns_json: ['c0'], default_sort: 'c1.desc' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ name: 'Renamed', slug: 'renamed-table', strictness: 'flexible', insert_mode: 'dedup', instruction: 'x', merge_columns_json: ['c0'], default_sort: 'c1.desc' });
    expect(reply.body.updated_at).toBeGreaterThanOrEqual(t.updated_at);
    expect(reply.headers.get('etag')).toBe(`"${t.id}.2"`);
    const cleared = await app.request('PATCH', url, { body: { instruction: null, merge_columns_json: null, default_sort: null } });
    expect(cleared.body).toMatchObject({ instruction: null, merge_columns_json: null, default_sort: null });
    // An update that changes nothing keeps the revision.
    const same = await app.request('PATCH', url, { body: { name: 'Renamed' } });
    expect(same.headers.get('etag')).toBe(cleared.headers.get('etag'));

    const patch = async (b: unknown) => app.request('PATCH', url, { body: b });
    expect((await patch({ slug: 's'.repeat(50) })).status).toBe(200);
    expectError(await patch({ slug: 's'.repeat(51) }), 400, 'invalid_input');
    expectError(await patch({ slug: 'Not A Slug' }), 400, 'invalid_input');
    expectError(await patch({ slug: '' }), 400, 'invalid_input');
    expectError(await patch({ name: 'n'.repeat(129) }), 400, 'invalid_input');
    expectError(await patch({ default_sort: 'd'.repeat(257) }), 400, 'invalid_input');
    expectError(await patch({ merge_columns_json: [] }), 400, 'invalid_input');
    expectError(await patch({ strictness: 'loose' }), 400, 'invalid_input');
    const other = await create({ name: 'Slug holder' });
    expectError(await patch({ slug: other.slug }), 409, 'table_project_id_duplicate');
    expectError(await app.request('PATCH', `${TABLES}/tbl_nope`, { body: { name: 'x' } }), 404, 'table_not_found');
  });
});

describe('delete, restore, duplicate, purge', () => {
  test('soft delete hides the table everywhere but restore', async () => {
    const t = await create({ name: 'Doomed' });
    const deleted = await app.request('DELETE', `${TABLES}/${t.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: t.id });
    expectError(await app.request('GET', `${TABLES}/${t.id}`), 404, 'table_not_found');
    expectError(await app.request('PATCH', `${TABLES}/${t.id}`, { body: { name: 'x' } }), 404, 'table_not_found');
    expectError(await app.request('DELETE', `${TABLES}/${t.id}`), 404, 'table_not_found');
    expectError(await app.request('POST', `${TABLES}/${t.id}/columns`, { body: { name: 'X' } }), 404, 'table_not_found');
    expectError(await app.request('POST', `${TABLES}/${t.id}/duplicate`, { body: { name: 'c', slug: 'c' } }), 404, 'table_not_found');
    const list = await app.request('GET', `${TABLES}?filter=id.eq.${t.id}`);
    expect(list.body.count).toBe(0);

    const restored = await app.request('POST', `${TABLES}/${t.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: t.id, slug: 'doomed', deleted_at: null });
    expect((await app.request('GET', `${TABLES}/${t.id}`)).status).toBe(200);
    // Restoring a table that is not deleted returns it as it is.
    expect((await app.request('POST', `${TABLES}/${t.id}/restore`)).body.slug).toBe('doomed');
    expectError(await app.request('POST', `${TABLES}/tbl_nope/restore`), 404, 'table_not_found');
  });

  test('a deleted table gives up its slug; restore then needs a free one (409 otherwise)', async () => {
    const t = await create({ name: 'Reports' });
    await app.request('DELETE', `${TABLES}/${t.id}`);
    const taker = await create({ name: 'Reports' });
    expect(taker.slug).toBe('reports');
    expectError(await app.request('POST', `${TABLES}/${t.id}/restore`), 409, 'table_project_id_duplicate');
    expectError(await app.request('POST', `${TABLES}/${t.id}/restore`, { body: { slug: 'reports' } }), 409, 'table_project_id_duplicate');
    expectError(await app.request('POST', `${TABLES}/${t.id}/restore`, { body: { slug: 'Bad Slug' } }), 400, 'invalid_input');
    const restored = await app.request('POST', `${TABLES}/${t.id}/restore`, { body: { slug: 'reports-old' } });
    expect(restored.status).toBe(200);
    expect(restored.body.slug).toBe('reports-old');
  });

  test('duplicate copies the structure, not the counters', async () => {
    const t = await create({ name: 'Original', strictness: 'strict', insert_mode: 'merge', merge_columns_json: ['c0'], instruction: 'keep' });
    await app.request('POST', `${TABLES}/${t.id}/columns`, { body: { name: 'Extra' } });
    const copy = await app.request('POST', `${TABLES}/${t.id}/duplicate`, { body: { name: 'Copy', slug: 'copy-of-original' } });
    expect(copy.status).toBe(201);
    const source = (await app.request('GET', `${TABLES}/${t.id}`)).body;
    expect(copy.body.id).not.toBe(t.id);
    expect(copy.body).toMatchObject({
      name: 'Copy',
      slug: 'copy-of-original',
      columns_json: source.columns_json,
      strictness: 'strict',
      insert_mode: 'merge',
      merge_columns_json: ['c0'],
      instruction: 'keep',
      data_version: 0,
      row_count: 0,
    });
    expectError(await app.request('POST', `${TABLES}/${t.id}/duplicate`, { body: { name: 'Again', slug: 'copy-of-original' } }), 409, 'table_project_id_duplicate');
    expectError(await app.request('POST', `${TABLES}/${t.id}/duplicate`, { body: { name: 'No slug' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${TABLES}/${t.id}/duplicate`, { body: { name: 'n'.repeat(129), slug: 'ok' } }), 400, 'invalid_input');
    expectError(await app.request('POST', `${TABLES}/tbl_nope/duplicate`, { body: { name: 'x', slug: 'x' } }), 404, 'table_not_found');
  });

  test('a timer purges tables deleted more than 72 hours ago', async () => {
    const clock = new ManualClock();
    const local = await startApp({ clock });
    try {
      const made = await local.request('POST', TABLES, { body: body({ name: 'Old' }) });
      const keep = await local.request('POST', TABLES, { body: body({ name: 'Kept' }) });
      await local.request('DELETE', `${TABLES}/${made.body.id}`);
      clock.advance(72 * 3600 * 1000 - 1);
      expect(await local.services.tables.purgeDeleted()).toEqual([]);
      await local.request('POST', `${TABLES}/${made.body.id}/restore`);
      await local.request('DELETE', `${TABLES}/${made.body.id}`);
      clock.advance(72 * 3600 * 1000);
      expect(await local.services.tables.purgeDeleted()).toEqual([made.body.id]);
      expectError(await local.request('POST', `${TABLES}/${made.body.id}/restore`), 404, 'table_not_found');
      expect((await local.request('GET', `${TABLES}/${keep.body.id}`)).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe('tables list', () => {
  let local: TestApp;
  const names = ['alpha', 'Beta', 'gamma', 'delta, inc.', 'Epsilon (eu)', 'zeta'];
  beforeAll(async () => {
    local = await startApp();
    for (const name of names) await local.request('POST', TABLES, { body: { name, columns_json: cols(1) } });
  });
  afterAll(() => local.close());
  const list = async (qs: string) => {
    const reply = await local.request('GET', `${TABLES}?${qs}`);
    expect(reply.status).toBe(200);
    return reply.body;
  };

  test('the envelope and the default order (newest first)', async () => {
    const page = await list('');
    expect(Object.keys(page).sort()).toEqual(['count', 'hasMore', 'limit', 'nextCursor', 'page', 'tables']);
    expect(page).toMatchObject({ count: 6, hasMore: false, limit: 20, nextCursor: null, page: 1 });
    expect(page.tables.map((t: { name: string }) => t.name)).toEqual([...names].reverse());
  });

  test('order, filter and q on the fields the spec names', async () => {
    expect((await list('order=name.asc')).tables.map((t: { name: string }) => t.name)).toEqual([...names].sort());
    expect((await list('filter=name.ilike.*A&order=name')).tables.map((t: { name: string }) => t.name)).toEqual(['Beta', 'alpha', 'gamma', 'zeta']);
    expect((await list('filter=name.eq."delta, inc."')).count).toBe(1);
    expect((await list('filter=name.in.("Epsilon (eu)",zeta)')).count).toBe(2);
    expect((await list('filter=or(name.eq.alpha,slug.eq.zeta)')).count).toBe(2);
    expect((await list('filter=row_count.eq.0,created_at.gt.0')).count).toBe(6);
    expect((await list('filter=row_count.gt.0')).count).toBe(0);
    expect((await list('q=EPS eu')).tables.map((t: { name: string }) => t.name)).toEqual(['Epsilon (eu)']);
    expect((await list('order=last_used_at.asc,name.desc')).tables[0].name).toBe('zeta');
    expect((await list('order=updated_at.desc,row_count.asc')).count).toBe(6);
    expectError(await local.request('GET', `${TABLES}?order=slug`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?filter=last_used_at.is.null`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?filter=name.gt.a`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?q=${'x'.repeat(201)}`), 400, 'invalid_input');
  });

  test('filter limits through HTTP: nesting, condition count, in-list size', async () => {
    const ok = async (filter: string) => expect((await local.request('GET', `${TABLES}?filter=${encodeURIComponent(filter)}`)).status).toBe(200);
    const bad = async (filter: string, says: string) => {
      const body = expectError(await local.request('GET', `${TABLES}?filter=${encodeURIComponent(filter)}`), 400, 'invalid_input');
      expect(body.message).toContain(says);
      expect(body.fields).toHaveProperty('filter');
    };
    await ok('or(name.eq.a,and(name.eq.b,or(name.eq.c,row_count.gt.1)))');
    await bad('or(name.eq.a,and(name.eq.b,or(name.eq.c,and(row_count.gt.1))))', 'groups nest at most 3 deep');
    const conds = (n: number) => Array.from({ length: n }, (_, i) => `row_count.neq.${i + 1}`).join(',');
    await ok(conds(20));
    await bad(conds(21), 'at most 20 conditions');
    const values = (n: number) => `row_count.in.(${Array.from({ length: n }, (_, i) => i).join(',')})`;
    await ok(values(100));
    await bad(values(101), 'at most 100 values');
    await bad('name.eq.x,ghost.eq.1', 'unknown field "ghost"');
    expect((await local.request('GET', `${TABLES}?filter=${encodeURIComponent('name.in.("delta, inc.","Epsilon (eu)")')}`)).body.count).toBe(2);
  });

  test('select picks fields', async () => {
    const page = await list('select=id,name&order=name');
    expect(page.tables[0]).toEqual({ id: expect.stringMatching(/^tbl_/), name: 'Beta' });
    expectError(await local.request('GET', `${TABLES}?select=id,secret`), 400, 'invalid_input');
  });

  test('page paging', async () => {
    const p1 = await list('order=name&limit=4&page=1');
    const p2 = await list('order=name&limit=4&page=2');
    expect(p1).toMatchObject({ count: 4, hasMore: true, page: 1, limit: 4 });
    expect(p2).toMatchObject({ count: 2, hasMore: false, page: 2, nextCursor: null });
    expect([...p1.tables, ...p2.tables].map((t: { name: string }) => t.name)).toEqual([...names].sort());
  });

  test('cursor paging over a list that changes between pages skips and repeats nothing', async () => {
    const first = await list('order=created_at.asc&limit=2');
    expect(first.hasMore).toBe(true);
    // Changes between pages: a new table, one deleted that was already sent, one renamed.
    await local.request('POST', TABLES, { body: { name: 'late arrival', columns_json: cols(1) } });
    await local.request('DELETE', `${TABLES}/${first.tables[0].id}`);
    const seen = [...first.tables.map((t: { name: string }) => t.name)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await list(`order=created_at.asc&limit=2&cursor=${encodeURIComponent(cursor)}&page=1`);
      expect(page.page).toBeNull();
      seen.push(...page.tables.map((t: { name: string }) => t.name));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...names, 'late arrival']);
  });

  test('a cursor reused with another order or filter is 400', async () => {
    const first = await list('order=name&limit=2');
    const cursor = encodeURIComponent(first.nextCursor);
    expectError(await local.request('GET', `${TABLES}?order=name.desc&cursor=${cursor}`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?cursor=${cursor}`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?order=name&filter=row_count.eq.0&cursor=${cursor}`), 400, 'invalid_input');
    expectError(await local.request('GET', `${TABLES}?order=name&cursor=v1.forged.sig`), 400, 'invalid_input');
  });
});
