/**
 * `npm run build`: compiles src/bin.ts (server and admin CLI) into one executable, dist/rowsmith,
 * that runs without Node, npm or node_modules.
 *
 * What a plain `bun build --compile` misses, and how this build adds it:
 * - lmdb and msgpackr-extract find their native addons at run time through node-gyp-build, by
 *   looking at the folders next to their own files, which do not exist inside the executable. The
 *   build swaps that lookup for a `require` of this platform's prebuilt `.node` file by its literal
 *   path, which Bun embeds.
 * - OCR runs in worker threads: rowsmith's own (src/extract/ocr/worker.ts) and tesseract.js's, each
 *   a separate entry point. Entry points are named flat (`[name].js` at the executable's root) so
 *   that `new Worker(new URL('./worker.ts', import.meta.url))` finds rowsmith's; tesseract.js's
 *   path, which it builds from its own folder, is pointed at its entry.
 * - The recogniser's WebAssembly is taken from the builds of tesseract.js-core that inline it.
 * - OCR language data (`@tesseract.js-data/*`) is embedded as files under `node_modules/` at the
 *   executable's root, where src/extract/ocr/languages.ts looks when running from the executable;
 *   the built web console likewise under `web-console/`.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BunPlugin } from 'bun';

const ROOT = join(import.meta.dir, '..', '..');
export const BINARY = join(ROOT, 'dist', 'rowsmith');

const requireFromRoot = createRequire(join(ROOT, 'package.json'));

function packageDir(name: string): string | null {
  try {
    return dirname(requireFromRoot.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** The N-API build in a prebuilt package such as `@lmdb/lmdb-linux-x64`, for this machine's libc. */
function prebuiltAddon(packageName: string): string {
  const dir = packageDir(packageName);
  if (!dir) throw new Error(`${packageName} is not installed: run npm install`);
  const addons = readdirSync(dir).filter((f) => f.endsWith('.node') && f.includes('napi'));
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = process.platform === 'linux' && !report?.header?.glibcVersionRuntime;
  const wanted = addons.find((f) => (musl ? f.includes('musl') : !f.includes('musl'))) ?? addons[0];
  if (!wanted) throw new Error(`no N-API addon (.node) in ${dir}`);
  return join(dir, wanted);
}

/** The folder beside the executable's entry that holds the web console (see src/http/console.routes.ts). */
export const CONSOLE_FOLDER = 'web-console';

/** Where tesseract.js's worker script is embedded: its entry point, named flat. */
const TESSERACT_WORKER_ENTRY = 'tesseract-worker';

function embeddingPlugin(): BunPlugin {
  const platform = `${process.platform}-${process.arch}`;
  const lmdb = prebuiltAddon(`@lmdb/lmdb-${platform}`);
  const msgpackr = prebuiltAddon(`@msgpackr-extract/msgpackr-extract-${platform}`);
  return {
    name: 'rowsmith-embedding',
    setup(build) {
      // lmdb's only use of node-gyp-build is `loadNAPI(itsOwnDir)`; msgpackr-extract's whole module is that call.
      // Paths no package has: Bun's bundler has been seen to give a plain `import 'lmdb'` a module of
      // this namespace with the package's own name.
      build.onResolve({ filter: /^node-gyp-build-optional-packages$/ }, () => ({ path: 'lmdb-native-addon', namespace: 'native-addon' }));
      build.onResolve({ filter: /^msgpackr-extract$/ }, () => ({ path: 'msgpackr-extract-native-addon', namespace: 'native-addon' }));
      build.onLoad({ filter: /.*/, namespace: 'native-addon' }, ({ path }) => ({
        loader: 'js',
        contents:
          path === 'lmdb-native-addon'
            ? `export default function loadNAPI() { return require(${JSON.stringify(lmdb)}); }`
            : `module.exports = require(${JSON.stringify(msgpackr)});`,
      }));
      // The recogniser's cores read their .wasm beside them; their `.wasm.js` twins carry it inline.
      const core = packageDir('tesseract.js-core');
      if (core) build.onResolve({ filter: /^tesseract\.js-core\/tesseract-core[\w-]*$/ }, ({ path }) => ({ path: join(core, `${path.split('/')[1]}.wasm.js`) }));
      // tesseract.js starts its worker from `<its folder>/../../worker-script/node/index.js`.
      build.onLoad({ filter: /tesseract\.js[\\/]src[\\/]worker[\\/]node[\\/]defaultOptions\.js$/ }, ({ path }) => ({
        loader: 'js',
        contents: `const { dirname, join } = require('node:path');
module.exports = {
  ...require(${JSON.stringify(join(dirname(path), '..', '..', 'constants', 'defaultOptions.js'))}),
  workerPath: join(dirname(process.argv[1]), ${JSON.stringify(`${TESSERACT_WORKER_ENTRY}.js`)}),
};`,
      }));
    },
  };
}

/** Copies each installed OCR language package (its preferred model only) into `<stage>/node_modules`. */
function stageLanguageData(stage: string): string[] {
  const scope = join(ROOT, 'node_modules', '@tesseract.js-data');
  if (!existsSync(scope)) return [];
  const staged = join(stage, 'node_modules');
  for (const code of readdirSync(scope)) {
    const from = join(scope, code);
    const to = join(staged, '@tesseract.js-data', code);
    const model = ['4.0.0_best_int', '4.0.0'].find((version) => existsSync(join(from, version)));
    if (!model) continue;
    cpSync(join(from, 'package.json'), join(to, 'package.json'));
    cpSync(join(from, model), join(to, model), { recursive: true });
  }
  return existsSync(staged) ? [staged] : [];
}

/** The built web console (web/dist, made by npm install) copied to `<stage>/web-console`, embedded beside the entry. */
function stageConsole(stage: string): string[] {
  const dist = join(ROOT, 'web', 'dist');
  if (!existsSync(join(dist, 'index.html'))) return [];
  const to = join(stage, CONSOLE_FOLDER);
  cpSync(dist, to, { recursive: true });
  return [to];
}

export async function build(outfile = BINARY): Promise<void> {
  const entrypoints = [join(ROOT, 'src', 'bin.ts')];
  const ocrWorker = join(ROOT, 'src', 'extract', 'ocr', 'worker.ts');
  const tesseract = packageDir('tesseract.js');
  const stage = mkdtempSync(join(tmpdir(), 'rowsmith-build-'));
  try {
    // The OCR parts go in when the tree has them, so the build serves a checkout from before them too.
    if (existsSync(ocrWorker) && tesseract) {
      entrypoints.push(ocrWorker);
      // Its own file name is index.js; the flat naming below would make that a vague name at the root.
      const entry = join(stage, `${TESSERACT_WORKER_ENTRY}.js`);
      await Bun.write(entry, `require(${JSON.stringify(join(tesseract, 'src', 'worker-script', 'node', 'index.js'))});\n`);
      entrypoints.push(entry);
    }
    const result = await Bun.build({
      entrypoints,
      compile: {
        outfile,
        assets: [...stageLanguageData(stage), ...stageConsole(stage)],
        // A bunfig.toml in whatever folder the binary starts in must not change how it runs.
        autoloadBunfig: false,
      },
      naming: { entry: '[name].[ext]' },
      minify: true,
      // Embedded in the executable (zstd), so stack traces name source lines; the .map files written beside it are not needed.
      sourcemap: 'linked',
      plugins: [embeddingPlugin()],
    });
    if (!result.success) throw new AggregateError(result.logs, 'the build failed');
    for (const output of result.outputs) if (output.path.endsWith('.map')) rmSync(output.path, { force: true });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const started = Date.now();
  await build();
  const megabytes = (statSync(BINARY).size / 1024 / 1024).toFixed(0);
  console.log(`built ${BINARY} (${megabytes} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
