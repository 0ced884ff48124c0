/**
 * What the console's Chromium tests share: a child rowsmith on a fresh data folder, Debian's
 * chromium through puppeteer-core, signing in, waiting for text, screenshots into web/screenshots/.
 * Every request the page makes must go to the server under test, and the page must throw nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { buildConsole } from '../../web/build';
import { startServer, type ServerProcess } from '../helpers/process';

// The callbacks passed to page.evaluate run in the browser; the project compiles without the DOM
// library (it would retype Bun's own globals), so the browser globals they use are declared here.
declare const document: any;

export const CHROMIUM = process.env.ROWSMITH_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
export const KEY = 'rsk_console_test_key_000000000000000000000000';
export const PROJECT = 'proj_default';
export const STEP_MS = 60_000;
const SHOTS = join(import.meta.dir, '../../web/screenshots');

if (!CHROMIUM) console.warn('console tests skipped: no chromium (apt-get install -y chromium, or set ROWSMITH_CHROMIUM)');

export class ConsoleHarness {
  server!: ServerProcess;
  browser!: Browser;
  page!: Page;
  dataDir = '';
  readonly foreignRequests: string[] = [];
  readonly pageErrors: string[] = [];

  async start(width = 1280, height = 860) {
    mkdirSync(SHOTS, { recursive: true });
    // The served bundle must be the one built from the sources under test.
    await buildConsole();
    this.dataDir = mkdtempSync(join(tmpdir(), 'rowsmith-console-'));
    this.server = await startServer({ DATA_DIR: this.dataDir, ROWSMITH_BOOTSTRAP_KEY: KEY, ROWSMITH_RATE_LIMIT_PER_SECOND: '0' });
    this.browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    this.page = await this.browser.newPage();
    await this.page.setViewport({ width, height });
    const origin = new URL(this.server.url).origin;
    await this.page.setRequestInterception(true);
    this.page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return void request.continue();
      this.foreignRequests.push(url);
      void request.abort();
    });
    this.page.on('pageerror', (error) => this.pageErrors.push(String(error)));
  }

  async stop() {
    await this.browser?.close();
    await this.server?.stop();
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  async signIn() {
    await this.page.goto(this.server.url, { waitUntil: 'networkidle0' });
    await this.page.type('input[name="api-key"]', KEY);
    await this.page.click('button[type="submit"]');
    await this.waitForText('h2', /^Tables$/);
  }

  api(path: string, init: RequestInit = {}) {
    return fetch(`${this.server.url}${path}`, { ...init, headers: { authorization: `ApiKey ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  }

  async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await this.api(path, init);
    const body = await response.json();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body as T;
  }

  async createTable(body: Record<string, unknown>): Promise<{ id: string }> {
    return this.json(`/v1/projects/${PROJECT}/tables`, { method: 'POST', body: JSON.stringify(body) });
  }

  /** Extracts files into a table through the API, the way an integration does; answers the batch. */
  async extract(tableId: string, files: { name: string; type: string; bytes: Uint8Array | string }[]): Promise<{ batch_id: string; status: string }> {
    const form = new FormData();
    for (const f of files) form.append('file', new File([f.bytes], f.name, { type: f.type }));
    const response = await fetch(`${this.server.url}/v1/projects/${PROJECT}/tables/${tableId}/extract`, { method: 'POST', headers: { authorization: `ApiKey ${KEY}` }, body: form });
    const body = (await response.json()) as { batch_id?: string; id?: string; status: string };
    if (!response.ok) throw new Error(`extract: ${response.status} ${JSON.stringify(body)}`);
    return { batch_id: body.batch_id ?? body.id!, status: body.status };
  }

  go(hash: string) {
    return this.page.goto(`${this.server.url}/${hash}`);
  }

  shot(name: string) {
    return this.page.screenshot({ path: join(SHOTS, `${name}.png`) as `${string}.png` });
  }

  text(selector: string) {
    return this.page.$eval(selector, (el) => (el as { innerText: string }).innerText);
  }

  async waitForText(selector: string, pattern: RegExp, timeout = 30_000) {
    try {
      await this.page.waitForFunction((s, source) => [...document.querySelectorAll(s)].some((el) => new RegExp(source).test((el as { innerText: string }).innerText)), { timeout }, selector, pattern.source);
    } catch (error) {
      // Say what the page showed instead, so a failure explains itself.
      const alerts = await this.page.$$eval('[role="alert"], [role="status"]', (els) => els.map((el) => (el as { innerText: string }).innerText));
      throw new Error(`no ${selector} matching ${pattern} (page shows: ${JSON.stringify(alerts)}): ${error}`);
    }
  }

  async clickButton(label: RegExp, scope = 'body') {
    const handle = await this.page.waitForFunction(
      (s, source) => [...document.querySelectorAll(`${s} button, ${s} a`)].find((el) => [(el as { innerText: string }).innerText, el.getAttribute('aria-label') ?? ''].some((name) => new RegExp(source).test(name))),
      { timeout: 15_000 },
      scope,
      label.source,
    );
    await (handle as unknown as { click(): Promise<void> }).click();
  }

  /** The `data-*` attribute (or id) of the focused element. */
  focusedAttribute(name: string): Promise<string | null> {
    return this.page.evaluate((n) => document.activeElement?.getAttribute(n) ?? null, name);
  }
}
