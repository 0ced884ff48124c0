/** The console's static routes: content types, caching, the CSP, and nothing outside web/dist served. */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_CSP, consoleRoutes } from '../../src/http/console.routes';

const dist = mkdtempSync(join(tmpdir(), 'rowsmith-console-dist-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>console</title>');
writeFileSync(join(dist, 'assets', 'main-abc123.js'), 'console.log(1)');
writeFileSync(join(dist, 'assets', 'main-abc123.css'), 'body{}');
writeFileSync(join(dist, 'secret.txt'), 'not an asset');
const app = consoleRoutes(dist);
const get = (path: string) => app.handle(new Request(`http://localhost${path}`));

afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('console routes', () => {
  test('/ serves index.html, revalidated, under a CSP that allows only this origin', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).not.toMatch(/https?:|\*/);
    expect(await response.text()).toContain('<title>console</title>');
  });

  test('hashed assets are immutable, with their content types', async () => {
    const js = await get('/assets/main-abc123.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log(1)');
    expect((await get('/assets/main-abc123.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  test('unknown, oddly named or out-of-folder files are 404', async () => {
    expect((await get('/assets/missing-1.js')).status).toBe(404);
    expect((await get('/assets/secret.txt')).status).toBe(404);
    expect((await get('/assets/..%2Fsecret.txt')).status).toBe(404);
    expect((await get('/assets/..%2Findex.html')).status).toBe(404);
  });

  test('an unbuilt console says how to build it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rowsmith-console-empty-'));
    const response = await consoleRoutes(empty).handle(new Request('http://localhost/'));
    rmSync(empty, { recursive: true, force: true });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('npm run build:web');
  });
});
