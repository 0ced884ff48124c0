/**
 * Builds the console into web/dist: hashed, minified JS and CSS plus index.html naming them.
 * Run by `npm install` (postinstall) and `npm run build:web`; the server serves web/dist as it is.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const WEB = import.meta.dir;
const OUT = join(WEB, 'dist');

export async function buildConsole(): Promise<{ files: string[] }> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'assets'), { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(WEB, 'src/main.tsx')],
    outdir: join(OUT, 'assets'),
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    minify: true,
    target: 'browser',
    tsconfig: join(WEB, 'tsconfig.json'),
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, 'console build failed');
  const names = result.outputs.map((o) => basename(o.path));
  const scripts = names.filter((n) => n.endsWith('.js')).map((n) => `<script type="module" src="/assets/${n}"></script>`);
  const styles = names.filter((n) => n.endsWith('.css')).map((n) => `<link rel="stylesheet" href="/assets/${n}" />`);
  const html = readFileSync(join(WEB, 'index.html'), 'utf8').replace('<!-- STYLES -->', styles.join('\n    ')).replace('<!-- SCRIPTS -->', scripts.join('\n    '));
  writeFileSync(join(OUT, 'index.html'), html);
  return { files: names };
}

if (import.meta.main) {
  const { files } = await buildConsole();
  console.log(`console built: web/dist (${files.join(', ')})`);
}
