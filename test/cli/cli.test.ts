/** The admin CLI, run as a user runs it, on the same store as a running server. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { tempDir } from '../helpers/app';
import { runCli, startServer, type ServerProcess } from '../helpers/process';

const ADMIN = 'cli-test-admin-key-0123456789';
let dataDir: string;
let env: Record<string, string>;
let server: ServerProcess;
const dirs: string[] = [];

beforeAll(async () => {
  dataDir = tempDir('rowsmith-cli-');
  dirs.push(dataDir);
  env = { DATA_DIR: dataDir };
  server = await startServer({ DATA_DIR: dataDir, ROWSMITH_BOOTSTRAP_KEY: ADMIN });
});
afterAll(async () => {
  await server.stop();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const api = (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, { ...init, headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json', ...init.headers } });

describe('admin CLI', () => {
  test('usage and exit codes', async () => {
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: rowsmith <command>');
    const none = await runCli([], env);
    expect(none.code).toBe(2);
    const unknown = await runCli(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const badRole = await runCli(['key', 'create', '--org', 'org_default', '--role', 'owner'], env);
    expect(badRole.code).toBe(2);
    const missingOrg = await runCli(['key', 'create', '--org', 'org_nope'], env);
    expect(missingOrg.code).toBe(1);
    expect(missingOrg.stderr).toContain('organization org_nope not found');
  });

  test('org, project and key commands drive what the running server accepts', async () => {
    const org = await runCli(['org', 'create', 'Acme Ltd', '--json'], env);
    expect(org.code).toBe(0);
    const orgId = JSON.parse(org.stdout).id as string;
    expect(orgId).toMatch(/^org_/);

    const project = await runCli(['project', 'create', orgId, 'Billing', '--json'], env);
    const projectId = JSON.parse(project.stdout).id as string;
    expect((await runCli(['project', 'list', '--org', orgId], env)).stdout).toContain(projectId);

    const created = await runCli(['key', 'create', '--org', orgId, '--name', 'ci', '--role', 'read', '--projects', projectId, '--json'], env);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).not.toHaveProperty('hash');
    const me = await api('/v1/me', key.key);
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
    expect((await api(`/v1/projects/${projectId}/tables`, key.key, { method: 'POST', body: '{}' })).status).toBe(403);

    const listed = await runCli(['key', 'list', '--org', orgId], env);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);

    expect((await runCli(['org', 'suspend', orgId], env)).code).toBe(0);
    expect(((await (await api('/v1/me', key.key)).json()) as any).error_key).toBe('org_suspended');
    expect((await runCli(['org', 'unsuspend', orgId], env)).code).toBe(0);
    expect((await api('/v1/me', key.key)).status).toBe(200);

    expect((await runCli(['org', 'quota', orgId, '1'], env)).code).toBe(0);
    // The organization made several requests this month already, so a quota of 1 is used up.
    expect((await api('/v1/me', key.key)).status).toBe(402);
    expect((await runCli(['org', 'quota', orgId, 'none'], env)).code).toBe(0);
    expect((await runCli(['org', 'list'], env)).stdout).toContain('Acme Ltd');

    expect((await runCli(['key', 'revoke', key.id], env)).code).toBe(0);
    expect((await api('/v1/me', key.key)).status).toBe(401);
  });

  test('expiring keys: --expires-in and --expires-at', async () => {
    const soon = await runCli(['key', 'create', '--org', 'org_default', '--expires-in', '1d', '--json'], env);
    const record = JSON.parse(soon.stdout);
    expect(record.expires_at - Date.now()).toBeGreaterThan(86_000_000);
    const past = await runCli(['key', 'create', '--org', 'org_default', '--expires-at', '2001-01-01T00:00:00Z'], env);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('expiry must be in the future');
    expect((await runCli(['key', 'create', '--org', 'org_default', '--expires-in', 'soon'], env)).code).toBe(2);
  });

  test('backup while writes go on gives a consistent store that opens and reads back', async () => {
    const columns = [{ id: 'a', name: 'A' }];
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const reply = await api('/v1/projects/proj_default/tables', ADMIN, { method: 'POST', body: JSON.stringify({ name: `T${written}`, columns_json: columns }) });
        expect(reply.status).toBe(201);
        written++;
      }
    })();
    await Bun.sleep(200);
    const target = tempDir('rowsmith-backup-');
    dirs.push(target);
    const backup = await runCli(['backup', target], env);
    writing = false;
    await writer;
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain(`backup written in ${target}`);
    expect(written).toBeGreaterThan(0);

    // The backup is laid out as a DATA_DIR: the CLI reads it as one, and LMDB opens its tables database.
    const keys = await runCli(['key', 'list', '--json'], { DATA_DIR: target });
    expect(JSON.parse(keys.stdout).length).toBeGreaterThan(0);
    const copy = open({ path: join(target, 'db'), maxDbs: 64, readOnly: true });
    const tables = copy.openDB({ name: 'tables', encoding: 'msgpack' });
    const byProject = copy.openDB({ name: 'project_tables', encoding: 'msgpack' });
    const ids = [...tables.getRange().map(({ key }) => key as string)].sort();
    const indexed = [...byProject.getRange().map(({ key }) => (key as string[])[1]!)].sort();
    await copy.close();
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThanOrEqual(written + 1);
    // A table and its index entry are written in one transaction; a consistent copy has both or neither.
    expect(indexed).toEqual(ids);

    const again = await runCli(['backup', target], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`backup replaced in ${target}`);
  });
});
