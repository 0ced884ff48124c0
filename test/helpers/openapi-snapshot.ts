/**
 * rowsmith's own description of its API: the OpenAPI document `/swagger/json` serves, checked in
 * at docs/openapi.json (keys sorted, two-space indent) so that every change to the API shows in a
 * review and clients can be generated without running the service. `npm run openapi` rewrites it
 * (this file run as a script); test/http/openapi.test.ts fails while the two differ.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempDir } from './app';
import { startServer } from './process';

export const SNAPSHOT_PATH = join(import.meta.dir, '..', '..', 'docs', 'openapi.json');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys(value[key])]),
  );
}

/** The snapshot's text: keys sorted at every level (the order routes are registered in is no change). */
export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(sortedKeys(value), null, 2)}\n`;
}

/** A JSON pointer segment (`/` and `~` escaped, as RFC 6901 has it). */
const segment = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');
const brief = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** Where `got` differs from `want`, one line per place (JSON pointers), for a reader rather than a diff tool. */
export function jsonDifferences(want: unknown, got: unknown, at = ''): string[] {
  if (isObject(want) && isObject(got)) {
    const out: string[] = [];
    for (const key of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const path = `${at}/${segment(key)}`;
      if (!(key in got)) out.push(`${path}: removed (was ${brief(want[key])})`);
      else if (!(key in want)) out.push(`${path}: added ${brief(got[key])}`);
      else out.push(...jsonDifferences(want[key], got[key], path));
    }
    return out;
  }
  if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
    return want.flatMap((item, i) => jsonDifferences(item, got[i], `${at}/${i}`));
  }
  return JSON.stringify(want) === JSON.stringify(got) ? [] : [`${at || '/'}: was ${brief(want)}, now ${brief(got)}`];
}

/**
 * The document rowsmith serves, from a server process of its own: apps made one after another in
 * one process (as tests do) describe some bodies differently, since the schema objects they share
 * are changed by the first one compiled.
 */
export async function servedOpenApi(): Promise<unknown> {
  const dataDir = tempDir('rowsmith-openapi-');
  const server = await startServer({ DATA_DIR: dataDir });
  try {
    const response = await fetch(`${server.url}/swagger/json`);
    if (!response.ok) throw new Error(`/swagger/json answered ${response.status}:\n${await response.text()}`);
    return await response.json();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  writeFileSync(SNAPSHOT_PATH, canonicalJson(await servedOpenApi()));
  console.log(`wrote ${relative(process.cwd(), SNAPSHOT_PATH)}`);
}
