/**
 * Field accuracy of extraction on the evaluation set in test/fixtures/extract: each document is
 * extracted through HTTP into a fresh table, and the table's rows are compared with the expected
 * ones, field by field, in order. Used by `npm run bench -- extract` and by the accuracy test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dir, '..', 'test', 'fixtures', 'extract');

export interface Case {
  file: string;
  format: string;
  table: { name: string; columns_json: Array<{ id: string; type: string }> };
  expected: Array<Record<string, unknown>>;
  note: string;
}

export type Send = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

export interface CaseResult {
  file: string;
  format: string;
  expectedFields: number;
  extractedFields: number;
  correct: number;
  misses: string[];
}

export function loadCases(): Case[] {
  return JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as Case[];
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 0.005;
  return JSON.stringify(a) === JSON.stringify(b);
}

export async function evaluateCase(send: Send, projectId: string, c: Case): Promise<CaseResult> {
  const table = await send('POST', `/v1/projects/${projectId}/tables`, { name: `${c.table.name} ${c.file}`, columns_json: c.table.columns_json });
  if (table.status !== 201) throw new Error(`table for ${c.file}: ${JSON.stringify(table.body)}`);
  const form = new FormData();
  form.append('file', new File([readFileSync(join(FIXTURES, 'files', c.file))], c.file));
  const result = await send('POST', `/v1/projects/${projectId}/tables/${table.body.id}/extract`, form);
  const rows: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  do {
    const page: { body: any } = await send('GET', `/v1/projects/${projectId}/tables/${table.body.id}/rows?limit=100&order=created_at.asc${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...page.body.rows);
    cursor = page.body.nextCursor;
  } while (cursor);
  const columns = c.table.columns_json.map((col) => col.id);
  let expectedFields = 0;
  let extractedFields = 0;
  let correct = 0;
  const misses: string[] = [];
  const count = Math.max(rows.length, c.expected.length);
  for (let i = 0; i < count; i++) {
    for (const column of columns) {
      const want = c.expected[i]?.[column] ?? null;
      const got = rows[i]?.[column] ?? null;
      if (want !== null) expectedFields++;
      if (got !== null) extractedFields++;
      if (want !== null && got !== null && same(want, got)) correct++;
      else if (want !== null || got !== null) misses.push(`row ${i + 1} ${column}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    }
  }
  if (result.status !== 200) misses.unshift(`extract answered ${result.status}: ${JSON.stringify(result.body).slice(0, 300)}`);
  return { file: c.file, format: c.format, expectedFields, extractedFields, correct, misses };
}

export interface FormatScore {
  format: string;
  documents: number;
  expected: number;
  extracted: number;
  correct: number;
  /** Right fields over expected fields (the target figure). */
  accuracy: number;
  precision: number;
  recall: number;
}

export function scoreByFormat(results: CaseResult[]): FormatScore[] {
  const formats = [...new Set(results.map((r) => r.format))];
  return formats.map((format) => {
    const of = results.filter((r) => r.format === format);
    const expected = of.reduce((s, r) => s + r.expectedFields, 0);
    const extracted = of.reduce((s, r) => s + r.extractedFields, 0);
    const correct = of.reduce((s, r) => s + r.correct, 0);
    return { format, documents: of.length, expected, extracted, correct, accuracy: correct / expected, precision: extracted ? correct / extracted : 0, recall: correct / expected };
  });
}

/** Accuracy each format must reach (issue 6). */
export const TARGETS: Record<string, number> = {
  csv: 1, tsv: 1, json: 1, ndjson: 1, xlsx: 1, html: 0.97, markdown: 0.97, docx: 0.97, pdf: 0.97, text: 0.9, email: 0.9,
};
