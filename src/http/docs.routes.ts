/**
 * The OpenAPI UI at `/swagger`: Swagger UI's own files from the installed `swagger-ui-dist`,
 * served by this process (imported as files, so `bun build --compile` embeds them in the one
 * binary), reading the document at `/swagger/json`. Nothing is fetched from another host.
 */
import { Elysia } from 'elysia';
import bundlePath from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import presetPath from 'swagger-ui-dist/swagger-ui-standalone-preset.js' with { type: 'file' };
import stylePath from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };

const ASSETS: Record<string, { path: string; type: string }> = {
  'swagger-ui-bundle.js': { path: bundlePath, type: 'text/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { path: presetPath, type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { path: stylePath, type: 'text/css; charset=utf-8' },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rowsmith API</title>
<link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/swagger/assets/swagger-ui-bundle.js"></script>
<script src="/swagger/assets/swagger-ui-standalone-preset.js"></script>
<script src="/swagger/assets/init.js"></script>
</body>
</html>
`;

// Kept out of the page so the page's policy can forbid inline scripts.
const INIT = `window.ui = SwaggerUIBundle({ url: '/swagger/json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', persistAuthorization: true });\n`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function docsRoutes() {
  return new Elysia()
    .get('/swagger', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-cache' } }), {
      detail: { hide: true },
    })
    .get('/swagger/assets/init.js', () => new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8' } }), { detail: { hide: true } })
    .get(
      '/swagger/assets/:file',
      ({ params }) => {
        const asset = ASSETS[params.file];
        if (!asset) return new Response('Not found\n', { status: 404 });
        return new Response(Bun.file(asset.path), { headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' } });
      },
      { detail: { hide: true } },
    );
}

/**
 * The OpenAPI document is the same for the life of the process, but the plugin builds and
 * serialises it (about 6 ms) on every request: it is kept as text after the first. Registered before
 * the plugin, whose route it then covers.
 */
export function openApiCache(specPath: string) {
  let text: string | null = null;
  return new Elysia({ name: 'openapi-cache' }).onAfterHandle({ as: 'global' }, ({ path, response }) => {
    if (path !== specPath || response === null || typeof response !== 'object' || response instanceof Response) return;
    text ??= JSON.stringify(response);
    return new Response(text, { headers: { 'content-type': 'application/json' } });
  });
}
