/**
 * The training documents: the dev split of the extraction corpus (../shared/extract-corpus, or
 * CORPUS_DIR), each read in-process by the project's readers. Readings are cached under
 * data/.cache/readings keyed by the file's hash and a hash of the readers' sources, so a rerun
 * takes seconds and a change to a reader (or the OCR) reads the documents again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../../domain/columns';
import type { Reading } from '../document';
import { ocrChoice, type OcrEngine } from '../ocr/languages';
import { readDocument } from '../read';

export const CORPUS_DIR = process.env.CORPUS_DIR ?? join(import.meta.dir, '..', '..', '..', '..', 'shared', 'extract-corpus');
const ROOT = join(import.meta.dir, '..', '..', '..');
const CACHE_DIR = join(ROOT, 'data', '.cache', 'readings');

export interface CorpusCase {
  id: string;
  kind: string;
  format: string;
  columns: Column[];
  expected: Array<Record<string, unknown>>;
  documentPath: string;
}

/** The dev cases of the given kinds: all that training reads (it never reads the check split). */
export const devCases = (kinds: Set<string>): CorpusCase[] => splitCases('dev', kinds);

/** The cases of one split of the given kinds. Only benches that print aggregates read the check split. */
export function splitCases(split: 'dev' | 'check', kinds: Set<string>): CorpusCase[] {
  // Training needs the corpus, which lives beside the repository rather than in it.
  if (!existsSync(join(CORPUS_DIR, 'cases.tsv'))) throw new Error(`training needs the extraction corpus: no cases.tsv in ${CORPUS_DIR} (set CORPUS_DIR)`);
  const rows = readFileSync(join(CORPUS_DIR, 'cases.tsv'), 'utf8').split('\n').filter(Boolean);
  const header = rows[0]!.split('\t');
  const at = (name: string) => header.indexOf(name);
  const out: CorpusCase[] = [];
  for (const row of rows.slice(1)) {
    const cells = row.split('\t');
    if (cells[at('split')] !== split || !kinds.has(cells[at('kind')]!)) continue;
    const id = cells[at('case_id')]!;
    const dir = join(CORPUS_DIR, 'cases', id);
    const document = readdirSync(dir).find((f) => f.startsWith('document.'))!;
    const table = JSON.parse(readFileSync(join(dir, 'table.json'), 'utf8')) as { columns_json: Column[] };
    out.push({
      id,
      kind: cells[at('kind')]!,
      format: cells[at('format')]!,
      columns: table.columns_json,
      expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')),
      documentPath: join(dir, document),
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * A hash of every source file that shapes a reading (readers, layout, OCR with its place names, the
 * reading entry point, and the word lists OCR repairs words by) and of the recogniser chosen.
 */
function readerVersion(engine: OcrEngine): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|txt)$/.test(entry.name)) hash.update(entry.name).update(readFileSync(path));
    }
  };
  const extract = join(ROOT, 'src', 'extract');
  for (const dir of ['readers', 'layout', 'ocr']) walk(join(extract, dir));
  for (const file of ['read.ts', 'document.ts', 'tables.ts', 'keyvalue.ts', 'lexicon.data.ts', 'thesaurus.ts', 'thesaurus.data.txt']) hash.update(file).update(readFileSync(join(extract, file)));
  // The same sources read scans differently with another recogniser.
  hash.update(engine);
  return hash.digest('hex').slice(0, 16);
}

const versions = new Map<OcrEngine, string>();

let chosen: OcrEngine | null = null;

/** The recogniser the server would use (ROWSMITH_OCR_ENGINE and ROWSMITH_OCR_LANGS), worked out once. */
export const serverEngine = (): OcrEngine => (chosen ??= ocrChoice().engine);

/**
 * The document's reading, from the cache when this file was read by these readers before. Scans
 * are read with `engine`, which must be the OCR pool's (see configureOcr).
 */
export async function cachedReading(c: CorpusCase, engine: OcrEngine = serverEngine()): Promise<Reading | null> {
  if (!versions.has(engine)) versions.set(engine, readerVersion(engine));
  const version = versions.get(engine)!;
  const bytes = new Uint8Array(readFileSync(c.documentPath));
  const key = createHash('sha256').update(bytes).digest('hex').slice(0, 24);
  // The engine is in the name, so the fallback below never takes another recogniser's reading.
  const file = join(CACHE_DIR, `${key}-${engine}-${version}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Reading | null;
  // TRAIN_REUSE_READINGS=1 takes this file's latest reading by an earlier version of the readers, to iterate
  // on the model while the readers change; the final training reads afresh.
  if (process.env.TRAIN_REUSE_READINGS === '1' && existsSync(CACHE_DIR)) {
    const earlier = readdirSync(CACHE_DIR)
      .filter((f) => f.startsWith(`${key}-${engine}-`))
      .map((f) => ({ f, at: statSync(join(CACHE_DIR, f)).mtimeMs }))
      .sort((a, b) => b.at - a.at)[0];
    if (earlier) return JSON.parse(readFileSync(join(CACHE_DIR, earlier.f), 'utf8')) as Reading | null;
  }
  let reading: Reading | null;
  try {
    reading = await readDocument({ name: c.documentPath.split('/').pop()!, contentType: 'application/octet-stream', bytes });
  } catch {
    reading = null;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(file, JSON.stringify(reading));
  return reading;
}
