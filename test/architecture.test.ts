/**
 * The layout's rules, read from the import statements of src/ and web/src (no build, no network):
 * no module imports itself round about; the top-level parts of src/ depend on each other in one
 * direction only; extraction knows nothing of the services, and the services reach it through its
 * one entry point; the services and routes reach the store through its port only; the shared
 * domain depends on nothing else, and is all the console takes from src/.
 * Type-only imports count like any other: a circle of types still ties the modules together.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(import.meta.dir, '..');
const SRC = join(ROOT, 'src');
const WEB = join(ROOT, 'web', 'src');

/** `import ... from`, `export ... from` and bare `import '...'` at a line's start (so not in comments), and `import('...')`. */
const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$\s{},*]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The module a relative specifier names; null for packages and for data files (JSON, CSS). */
function resolveModule(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  if (existsSync(base)) return null;
  throw new Error(`${relative(ROOT, from)} imports ${specifier}, which does not exist`);
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(STATIC_IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!);
  return [...new Set(specifiers.map((s) => resolveModule(file, s)).filter((m): m is string => m !== null))];
}

/** Strongly connected components with more than one member, or a member that imports itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A file's part of src/: its top-level folder, or the file itself for those at the top (app, config, main). */
const partOf = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.tsx?$/, '');
const name = (file: string) => relative(ROOT, file);

const files = [...sourceFiles(SRC), ...sourceFiles(WEB)];
const edges = new Map(files.map((file) => [file, importsOf(file)]));
const srcEdges = [...edges].filter(([file]) => file.startsWith(SRC + '/'));

/** Every import from one file to another as `from -> to`, for the rule-breaking ones to be listed. */
const importLines = (keep: (from: string, to: string) => boolean) =>
  srcEdges.flatMap(([from, tos]) => tos.filter((to) => keep(from, to)).map((to) => `${name(from)} -> ${name(to)}`));

describe('architecture', () => {
  test('the import walk sees the modules it should', () => {
    // A broken pattern would find nothing and pass every rule below.
    expect(edges.get(join(SRC, 'app.ts'))).toContain(join(SRC, 'services', 'rows.service.ts'));
    expect(edges.get(join(SRC, 'store', 'tables.store.ts'))).toContain(join(SRC, 'domain', 'tables.ts'));
    expect(edges.get(join(SRC, 'bin.ts'))).toContain(join(SRC, 'main.ts'));
    expect(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['d']], ['e', ['a']]]))).toEqual([['a', 'b', 'c'], ['d']]);
  });

  test('no module imports itself round about', () => {
    expect(circles(edges).map((circle) => circle.map(name))).toEqual([]);
  });

  test('the parts of src/ depend on each other in one direction only', () => {
    const parts = new Map<string, Set<string>>();
    for (const [from, tos] of srcEdges) {
      for (const to of tos) {
        if (!to.startsWith(SRC + '/') || partOf(from) === partOf(to)) continue;
        parts.set(partOf(from), (parts.get(partOf(from)) ?? new Set()).add(partOf(to)));
      }
    }
    const graph = new Map([...parts].map(([part, deps]) => [part, [...deps]]));
    // Each circle as its parts' dependencies on each other, with one import that makes each.
    const found = circles(graph).map((circle) =>
      circle.flatMap((part) =>
        (graph.get(part) ?? []).filter((dep) => circle.includes(dep)).map((dep) => `${part} -> ${dep}: ${importLines((from, to) => partOf(from) === part && partOf(to) === dep)[0]}`),
      ),
    );
    expect(found).toEqual([]);
  });

  test('extraction imports nothing from the services', () => {
    expect(importLines((from, to) => partOf(from) === 'extract' && partOf(to) === 'services')).toEqual([]);
  });

  test('the services and routes reach extraction through its entry point only', () => {
    const entry = join(SRC, 'extract', 'index.ts');
    expect(importLines((from, to) => ['services', 'http'].includes(partOf(from)) && partOf(to) === 'extract' && to !== entry)).toEqual([]);
  });

  test('the services and routes reach the store through its port: never lmdb, the LMDB environment or its adapter', () => {
    const lmdb = join(SRC, 'store', 'db.ts');
    const adapter = join(SRC, 'store', 'lmdb.port.ts');
    const layers = ['services', 'http'];
    expect(importLines((from, to) => layers.includes(partOf(from)) && (to === lmdb || to === adapter))).toEqual([]);
    const packageImports = srcEdges
      .map(([from]) => from)
      .filter((from) => layers.includes(partOf(from)))
      .filter((from) => [...readFileSync(from, 'utf8').matchAll(STATIC_IMPORT)].some((m) => m[1] === 'lmdb' || m[1]!.startsWith('lmdb/')))
      .map(name);
    expect(packageImports).toEqual([]);
    // The rule sees the imports it is about: the adapter imports both.
    expect(edges.get(adapter)).toContain(lmdb);
    expect([...readFileSync(join(SRC, 'store', 'db.ts'), 'utf8').matchAll(STATIC_IMPORT)].map((m) => m[1])).toContain('lmdb');
  });

  test('the domain depends on nothing but itself and lib, and is all the console takes from src/', () => {
    expect(importLines((from, to) => partOf(from) === 'domain' && !['domain', 'lib'].includes(partOf(to)))).toEqual([]);
    const web = [...edges].flatMap(([from, tos]) =>
      from.startsWith(WEB + '/') ? tos.filter((to) => to.startsWith(SRC + '/') && partOf(to) !== 'domain').map((to) => `${name(from)} -> ${name(to)}`) : [],
    );
    expect(web).toEqual([]);
  });
});
