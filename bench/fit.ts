/**
 * `npm run bench -- fit`: how sure extraction is of documents that do not belong in the table, next
 * to documents that do. Dev cases of the corpus only (never the check split): every text document
 * (no OCR, to keep it quick) is extracted into a flexible copy of its own case's table ("fits") and
 * into the tables of cases of another family ("does not fit": a statistics table into an invoice's
 * tables, an invoice into a statistics table's; invoices, their line items and receipts are one
 * family, since one such document may rightly fill another's table). Prints the files' confidence
 * by quantile for both, and what share of each a cut-off would keep: the cut-off a `balanced`
 * table applies to whole documents (src/services/extract.service.ts, DOCUMENT_FIT) is chosen here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, devCases, type CorpusCase } from '../src/extract/model/corpus';
import { apiClient, startRowsmith } from './lib';

const ADMIN = 'bench-admin-key-0123456789abcdef';
const OCR_FORMATS = new Set(['jpg', 'png']);
/** Misfit pairs per document: enough for quantiles, few enough for a minute's run. */
const PAIRS_PER_DOCUMENT = 3;
const CUTS = [0.2, 0.3, 0.35, 0.4, 0.45, 0.5];

const family = (kind: string) => (kind === 'invoice' || kind === 'invoice-lines' || kind === 'receipt' ? 'invoice' : 'table');

/** The dev cases read without OCR (scanned PDFs and images left out). */
const textCases = (): CorpusCase[] => devCases(new Set(['table', 'derived', 'invoice', 'invoice-lines'])).filter((c) => !OCR_FORMATS.has(c.format));

export async function run(): Promise<void> {
  if (!existsSync(join(CORPUS_DIR, 'cases.tsv'))) {
    console.log(`fit: no corpus at ${CORPUS_DIR} (set CORPUS_DIR); skipped`);
    return;
  }
  const cases = textCases();
  const server = await startRowsmith({ ROWSMITH_BOOTSTRAP_KEY: ADMIN });
  const call = apiClient(server.url, ADMIN);
  try {
    const me = await call('GET', '/v1/me');
    const P = `/v1/projects/${me.body.projects[0].id}`;
    const tables = new Map<string, string>();
    for (const c of cases) {
      const created = await call('POST', `${P}/tables`, { name: `fit ${c.id}`, columns_json: c.columns, strictness: 'flexible' });
      if (created.status >= 300) throw new Error(`create table for ${c.id}: ${JSON.stringify(created.body).slice(0, 200)}`);
      tables.set(c.id, created.body.id);
    }
    /** The file's confidence, or 0 when it wrote no rows (a flexible table writes whatever it finds). */
    const confidence = async (tableCase: CorpusCase, doc: CorpusCase): Promise<number> => {
      const form = new FormData();
      form.append('file', new Blob([readFileSync(doc.documentPath)]), doc.documentPath.split('/').pop()!.replace('document', doc.id));
      const res = await call('POST', `${P}/tables/${tables.get(tableCase.id)}/extract`, form);
      const file = res.body?.files?.[0];
      return typeof file?.confidence === 'number' && file.status === 'complete' ? file.confidence : 0;
    };
    const fits: number[] = [];
    const misfits: number[] = [];
    for (const [i, doc] of cases.entries()) {
      fits.push(await confidence(doc, doc));
      const others = cases.filter((c) => family(c.kind) !== family(doc.kind));
      // A fixed spread over the other family, so every run measures the same pairs.
      for (let k = 0; k < PAIRS_PER_DOCUMENT && others.length; k++) {
        const table = others[(i * 7 + k * 13) % others.length]!;
        const c = await confidence(table, doc);
        misfits.push(c);
        if (process.env.VERBOSE && c >= 0.5) console.log(`misfit ${c.toFixed(2)}  ${doc.id} into the table of ${table.id}`);
      }
    }
    const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(2);
    console.log('\nfit        files  written    p10    p25    p50    p75    p90');
    for (const [label, xs] of [['fits', fits], ['misfits', misfits]] as const) {
      const written = xs.filter((x) => x > 0);
      console.log(`${label.padEnd(10)} ${String(xs.length).padStart(5)} ${String(written.length).padStart(8)} ${[0.1, 0.25, 0.5, 0.75, 0.9].map((p) => q(written.length ? written : [0], p).padStart(6)).join(' ')}`);
    }
    console.log('\ncut-off    fits kept  misfits kept   (of the files that wrote rows)');
    for (const cut of CUTS) {
      const kept = (xs: number[]) => {
        const written = xs.filter((x) => x > 0);
        return written.length ? `${((written.filter((x) => x >= cut).length / written.length) * 100).toFixed(0)}%` : '-';
      };
      console.log(`${cut.toFixed(2).padEnd(10)} ${kept(fits).padStart(9)} ${kept(misfits).padStart(13)}`);
    }
    console.log(`\nfit: ${cases.length} dev documents without OCR, ${misfits.length} misfit pairs, through HTTP against one rowsmith child process`);
  } finally {
    await server.stop();
  }
}
