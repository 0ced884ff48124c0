/** Defects the fault suites found, each pinned by the smallest request that showed it. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { nestingExceeds } from '../../src/http/body';
import { expectError, startApp, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';
let app: TestApp;
let table: string;
beforeAll(async () => {
  app = await startApp({ config: { rateLimitPerSecond: 0 } });
  const reply = await app.request('POST', `${P}/tables`, { body: { name: 'T', columns_json: [{ id: 'title', name: 'Title' }] } });
  table = reply.body.id;
});
afterAll(() => app.close());

describe('an id longer than an LMDB key can be (fuzzer: 500 from every id-bearing path)', () => {
  const long = 'ß'.repeat(5000);
  test('in a path it names nothing: the 404 of its kind', async () => {
    expectError(await app.request('GET', `${P}/tables/${long}`), 404, 'table_not_found');
    expectError(await app.request('GET', `/v1/projects/${long}/tables`), 404, 'not_found');
    expectError(await app.request('GET', `${P}/tables/${table}/rows/${long}`), 404, 'row_not_found');
    expectError(await app.request('GET', `${P}/batches/${long}`), 404, 'not_found');
    expectError(await app.request('GET', `${P}/exports/${long}/download`), 404, 'not_found');
    expectError(await app.request('GET', `/v1/organizations/org_default/webhooks/${long}`), 404, 'webhook_not_found');
    expectError(await app.request('DELETE', `/v1/table-templates/${long}`), 404, 'not_found');
  });

  test('a path segment that is not UTF-8 names nothing either (Elysia hands the route a null)', async () => {
    expectError(await app.request('GET', `${P}/batches/%ED%A0%80`), 404, 'not_found');
    expectError(await app.request('DELETE', `${P}/tables/%ED%A0%80/rows/x`), 404, 'table_not_found');
    expectError(await app.request('GET', `/v1/projects/%E0%A4%A/tables`), 404, 'not_found');
  });

  test('without a key it is still 401 first', async () => {
    expectError(await app.request('GET', `${P}/tables/${long}`, { key: null }), 401, 'unauthorized');
  });

  test('in a bulk body it is a row that does not exist', async () => {
    const reply = await app.request('POST', `${P}/tables/${table}/rows/bulk`, { body: { deletes: [long], updates: [{ id: long, data: {} }] } });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body.fields).sort()).toEqual(['deletes[0]', 'updates[0].id']);
  });
});

describe('deeply nested JSON (fuzzer: a 120 KB body held the server 6 s while validation indented it)', () => {
  test('is 400 at once', async () => {
    const started = performance.now();
    const reply = await app.request('POST', `${P}/tables`, { raw: '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000), headers: { 'content-type': 'application/json' } });
    expectError(reply, 400, 'invalid_input');
    expect(reply.body.message).toContain('nested deeper than 64');
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('the depth count skips strings and allows the deepest real bodies', () => {
    expect(nestingExceeds('{"a":"[[[[[[[[[[[[[[[["}', 3)).toBe(false);
    expect(nestingExceeds('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(nestingExceeds('[[[1]]]', 3)).toBe(false);
    expect(nestingExceeds('[[[[1]]]]', 3)).toBe(true);
    expect(nestingExceeds('[1],[2],[3],[4]', 1)).toBe(false);
  });
});

describe('a body key named like an Object property (fuzzer: {"constructor":1} was a 500)', () => {
  test('is an ordinary 400 naming the real problems', async () => {
    for (const raw of ['{"constructor":1}', '{"toString":{}}', '{"__proto__":{}}']) {
      const reply = await app.request('POST', `${P}/tables`, { raw, headers: { 'content-type': 'application/json' } });
      expectError(reply, 400, 'invalid_input');
      expect(reply.body.fields.name.length).toBeGreaterThan(0);
    }
  });

  test('a field path that is an Object property name keeps its own entry', async () => {
    const { invalidFields } = await import('../../src/lib/errors');
    const body = invalidFields([{ path: 'constructor', message: 'bad' }, { path: '__proto__', message: 'worse' }]).toBody();
    expect(JSON.parse(JSON.stringify(body.fields))).toEqual({
      constructor: [{ error_key: 'invalid', message: 'bad', path: 'constructor' }],
      ['__proto__']: [{ error_key: 'invalid', message: 'worse', path: '__proto__' }],
    });
  });
});

describe('documents that cost far more to read than their size (fuzzer: hangs of seconds to minutes)', () => {
  const upload = (name: string, bytes: Uint8Array | string, type: string) => {
    const form = new FormData();
    form.append('file', new File([bytes], name, { type }));
    return app.request('POST', `${P}/tables/${table}/extract`, { raw: form });
  };

  test('a one-line CSV of 2,000 columns is answered at once (the assignment was cubic in the columns)', async () => {
    const started = performance.now();
    const reply = await upload('wide.csv', `${Array.from({ length: 2000 }, (_, i) => i).join(',')}\n`, 'text/csv');
    expect(reply.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test('a DOCX that inflates a hundredfold and HTML nested 50,000 deep fail their files with the reason', async () => {
    const { zip } = await import('./fuzzer');
    const bomb = zip({ 'word/document.xml': '<w:p><w:r><w:t>0</w:t></w:r></w:p>'.repeat(300_000) });
    const docx = await upload('bomb.docx', bomb, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docx.body.files[0].error).toContain('decompression bomb');
    const html = await upload('deep.html', `<html><body>${'<div>'.repeat(50_000)}x${'</div>'.repeat(50_000)}</body></html>`, 'text/html');
    expect(html.body.files[0].error).toContain('more than 2000 deep');
  });
});
