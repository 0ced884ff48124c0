/**
 * The web console: the static files of web/dist at `/` (index.html) and `/assets/*` (hashed, so
 * cached for good). The console talks to the server only through the public /v1 API; its CSP lets
 * the page load and call nothing but this origin.
 */
import { existsSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { Elysia } from 'elysia';

// The executable `npm run build` makes carries the built console beside its entry (src/cli/build.ts).
const DEFAULT_DIST = Bun.isStandaloneExecutable ? join(dirname(process.argv[1]!), 'web-console') : join(import.meta.dir, '../../web/dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const ASSET_NAME = /^[\w.-]+$/;

function notBuilt(): Response {
  return new Response('The web console is not built: run `npm run build:web` (npm install does it).\n', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
}

export function consoleRoutes(dist = DEFAULT_DIST) {
  const page = async () => {
    const index = Bun.file(join(dist, 'index.html'));
    if (!(await index.exists())) return notBuilt();
    return new Response(index, {
      headers: {
        'content-type': CONTENT_TYPES['.html']!,
        // index.html names the hashed assets of the current build, so it must always be revalidated.
        'cache-control': 'no-cache',
        'content-security-policy': CONSOLE_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    });
  };
  return new Elysia()
    .get('/', page, { detail: { hide: true } })
    .get('/index.html', page, { detail: { hide: true } })
    .get(
      '/assets/:file',
      async ({ params }) => {
        const name = params.file;
        const type = CONTENT_TYPES[extname(name)];
        if (!ASSET_NAME.test(name) || !type) return new Response('Not found\n', { status: 404 });
        const file = Bun.file(join(dist, 'assets', name));
        if (!(await file.exists())) return existsSync(join(dist, 'index.html')) ? new Response('Not found\n', { status: 404 }) : notBuilt();
        return new Response(file, {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' },
        });
      },
      { detail: { hide: true } },
    );
}
