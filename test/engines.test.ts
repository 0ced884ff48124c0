/** package.json's `engines` tells the truth: it admits no Node version an installed package refuses. */
import { expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');

/** `engines.node` of every installed package, nested ones too. */
function engineRanges(dir: string, out: Array<{ name: string; range: string }> = []) {
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (entry.startsWith('@')) {
      engineRanges(path, out);
      continue;
    }
    const manifest = join(path, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8'));
      if (typeof json.engines?.node === 'string') out.push({ name: `${json.name}@${json.version}`, range: json.engines.node });
    }
    if (existsSync(join(path, 'node_modules'))) engineRanges(join(path, 'node_modules'), out);
  }
  return out;
}

test('every Node version engines admits, every installed package admits; its lowest is admitted', () => {
  const ours: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
  const ranges = engineRanges(join(ROOT, 'node_modules'));
  expect(ranges.length).toBeGreaterThan(10);
  const versions = Array.from({ length: 15 }, (_, i) => 16 + i).flatMap((major) => Array.from({ length: 25 }, (_, minor) => `${major}.${minor}.0`));
  const admitted = versions.filter((v) => Bun.semver.satisfies(v, ours));
  const refused = admitted.flatMap((v) => ranges.filter((r) => !Bun.semver.satisfies(v, r.range)).map((r) => `${v}: ${r.name} needs ${r.range}`));
  expect(refused).toEqual([]);
  // Not stricter than needed: some package refuses the version just below the lowest admitted.
  const below = versions[versions.indexOf(admitted[0]!) - 1]!;
  expect(ranges.filter((r) => !Bun.semver.satisfies(below, r.range)).length).toBeGreaterThan(0);
});
