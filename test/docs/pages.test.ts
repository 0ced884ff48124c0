/** The documentation's pages hold together: links resolve, the README stays short and self-contained, the configuration table is complete. */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchors, links, pages, read, ROOT } from './markdown';

test('every relative link and image resolves, anchors included', () => {
  const broken: string[] = [];
  for (const page of pages()) {
    for (const { target, line } of links(page)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : normalize(join(dirname(page), path));
      if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
        broken.push(`${page}:${line}: ${target} (no ${file} in the repository)`);
        continue;
      }
      if (anchor !== undefined && (!file.endsWith('.md') || !anchors(file).has(anchor))) broken.push(`${page}:${line}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  expect(broken).toEqual([]);
});

test('the README is at most about 12 KB and the pages never point outside the repository', () => {
  expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(12 * 1024);
  const outside = pages().filter((page) => read(page).includes('../shared'));
  expect(outside).toEqual([]);
});

test('the pages describe the present: no "not yet" or "not built yet"', () => {
  const stale = pages()
    .filter((page) => page !== 'CHANGELOG.md')
    .flatMap((page) => read(page).split('\n').map((text, i) => ({ page, line: i + 1, text })))
    .filter(({ text }) => /\bnot (built )?yet\b|\bfor now\b/i.test(text))
    .map(({ page, line, text }) => `${page}:${line}: ${text}`);
  expect(stale).toEqual([]);
});

test('the configuration table lists exactly the variables the configuration reads', () => {
  // src/config.ts, and the OCR choice it takes from the OCR module (shared with the corpus tools).
  const source = ['src/config.ts', 'src/extract/ocr/languages.ts'].map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
  const read = new Set(source.match(/\b(PORT|HOST|DATA_DIR|ROWSMITH_[A-Z0-9_]+)\b/g));
  const table = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const documented = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!));
  expect([...documented].sort()).toEqual([...read].sort());
});
