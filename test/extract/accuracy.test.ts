/** Every document of the evaluation set, extracted through HTTP into a table, meets its format's accuracy target. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { evaluateCase, loadCases, scoreByFormat, TARGETS, type CaseResult, type Send } from '../../bench/extract-eval';
import { startApp, type TestApp } from '../helpers/app';

let app: TestApp;
const results: CaseResult[] = [];
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const send: Send = async (method, path, body) =>
  body instanceof FormData ? app.request(method, path, { raw: body }) : app.request(method, path, body === undefined ? {} : { body });

describe('evaluation set', () => {
  const cases = loadCases();
  test('has at least five documents of every format', () => {
    for (const format of Object.keys(TARGETS)) expect({ format, n: cases.filter((c) => c.format === format).length >= 5 }).toEqual({ format, n: true });
  });
  for (const c of cases) {
    test(`${c.format}: ${c.file} (${c.note})`, async () => {
      const result = await evaluateCase(send, 'proj_default', c);
      results.push(result);
      expect(result.expectedFields).toBeGreaterThan(0);
    });
  }
  test('every format meets its accuracy target', () => {
    for (const score of scoreByFormat(results)) {
      expect({ format: score.format, met: score.accuracy >= TARGETS[score.format]!, misses: results.filter((r) => r.format === score.format).flatMap((r) => r.misses) }).toEqual({
        format: score.format,
        met: true,
        misses: expect.any(Array),
      });
    }
  });
});
