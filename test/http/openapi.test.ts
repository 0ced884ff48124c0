/**
 * The served OpenAPI document: it equals rowsmith's own checked-in description (docs/openapi.json),
 * and, where the reference OpenAPI is beside the repository, every built operation of the
 * reference (the official SDKs are generated from it) is at its path and method.
 */
import { beforeAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { canonicalJson, jsonDifferences, servedOpenApi, SNAPSHOT_PATH } from '../helpers/openapi-snapshot';
import { referenceShapes } from '../helpers/reference-shapes';

/** The areas built so far; the rest of the reference arrives with later issues. */
const BUILT = [/^\/v1\/projects\/\{project_id\}\/tables(\/\{table_id\}(\/(columns|rows|duplicate|restore).*)?)?$/];

let served: { paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  served = (await servedOpenApi()) as typeof served;
});

test('the served document is docs/openapi.json (after a change to the API: npm run openapi)', () => {
  const snapshot = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8'));
  expect({ differences: jsonDifferences(snapshot, served), run: 'npm run openapi' }).toEqual({ differences: [], run: 'npm run openapi' });
  // Stored as `npm run openapi` writes it, so the script after an unchanged API changes nothing.
  expect(readFileSync(SNAPSHOT_PATH, 'utf8') === canonicalJson(served)).toBe(true);
});

test('a difference is named by its place and both values', () => {
  const want = { paths: { '/v1/a': { get: { summary: 'A' } }, '/v1/b': { get: {} } }, tags: ['x'] };
  const got = { paths: { '/v1/a': { get: { summary: 'B' } }, '/v1/c': { post: {} } }, tags: ['x', 'y'] };
  expect(jsonDifferences(want, got)).toEqual([
    '/paths/~1v1~1a/get/summary: was "A", now "B"',
    '/paths/~1v1~1b: removed (was {"get":{}})',
    '/paths/~1v1~1c: added {"post":{}}',
    '/tags: was ["x"], now ["x","y"]',
  ]);
  expect(jsonDifferences(want, structuredClone(want))).toEqual([]);
});

const reference = referenceShapes();
test.skipIf(!reference)('every built operation of the reference is at the same path and method', () => {
  const wanted = reference!.operations().filter((op) => BUILT.some((re) => re.test(op.split(' ')[1]!)));
  const ours = new Set(Object.entries(served.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`)));
  expect(wanted.length).toBeGreaterThanOrEqual(19);
  expect(wanted.filter((op) => !ours.has(op))).toEqual([]);
});
