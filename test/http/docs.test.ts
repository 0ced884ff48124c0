/** The OpenAPI UI is served by rowsmith itself: a page and its assets, nothing from another host. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

test('/swagger loads Swagger UI from this origin and reads /swagger/json', async () => {
  const page = await app.request('GET', '/swagger', { key: null });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toStartWith('text/html');
  const html = page.body as string;
  expect(html).not.toMatch(/https?:\/\//);
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(assets).toEqual(['/swagger/assets/swagger-ui.css', '/swagger/assets/swagger-ui-bundle.js', '/swagger/assets/swagger-ui-standalone-preset.js', '/swagger/assets/init.js']);
  for (const asset of assets) {
    const reply = await app.request('GET', asset, { key: null });
    expect({ asset, status: reply.status }).toEqual({ asset, status: 200 });
  }
  const init = (await app.request('GET', '/swagger/assets/init.js', { key: null })).body as string;
  expect(init).toContain("url: '/swagger/json'");
  expect((await app.request('GET', '/swagger/json', { key: null })).body.openapi).toMatch(/^3\./);
  expect((await app.request('GET', '/swagger/assets/other.js', { key: null })).status).toBe(404);
});
