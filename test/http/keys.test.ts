/** API keys through the API: an organization-wide admin key lists, creates (value shown once) and revokes its organization's keys. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { expectError, startApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

test('create a key (its value once), use it, list keys without values, revoke it', async () => {
  const created = await app.request('POST', '/v1/keys', { body: { name: 'Reporting', role: 'read' } });
  expect(created.status).toBe(201);
  const { id, key: secret } = created.body as { id: string; key: string };
  expect(id).toMatch(/^key_/);
  expect(created.body).toMatchObject({ name: 'Reporting', role: 'read', project_ids: null, revoked_at: null });
  expect(created.body.prefix).toBe(secret.slice(0, 8));

  expect((await app.request('GET', '/v1/me', { key: secret })).body.key).toMatchObject({ id: id, role: 'read' });
  const listed = await app.request('GET', '/v1/keys?order=created_at.desc');
  expect(listed.body.keys[0]).toMatchObject({ id: id, name: 'Reporting' });
  expect(JSON.stringify(listed.body)).not.toContain(secret);
  expect(JSON.stringify(listed.body)).not.toContain('hash');

  const revoked = await app.request('DELETE', `/v1/keys/${id}`);
  expect(revoked.body.revoked_at).toBeGreaterThan(0);
  expectError(await app.request('GET', '/v1/me', { key: secret }), 401, 'unauthorized');
});

test('only an organization-wide admin key manages keys, and only its own organization’s', async () => {
  const read = (await app.request('POST', '/v1/keys', { body: { role: 'read' } })).body.key as string;
  expectError(await app.request('GET', '/v1/keys', { key: read }), 403, 'forbidden');
  const limited = (await app.request('POST', '/v1/keys', { body: { role: 'admin', project_ids: ['proj_default'] } })).body.key as string;
  expectError(await app.request('POST', '/v1/keys', { key: limited, body: { role: 'admin' } }), 403, 'forbidden');
  expectError(await app.request('POST', '/v1/keys', { body: { role: 'owner' } }), 400, 'invalid_input');

  const other = await app.services.accounts.createOrg({ name: 'Other' });
  const foreign = await app.services.accounts.createKey({ organizationId: other.id, role: 'admin' });
  expectError(await app.request('DELETE', `/v1/keys/${foreign.record.id}`), 404, 'not_found');
  expect((await app.request('GET', '/v1/keys?limit=100')).body.keys.map((k: { id: string }) => k.id)).not.toContain(foreign.record.id);
  const theirs = await app.request('GET', '/v1/keys?limit=100', { key: foreign.secret });
  expect(theirs.body.keys.map((k: { id: string }) => k.id)).toEqual([foreign.record.id]);
});
