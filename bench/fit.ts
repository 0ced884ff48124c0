/**
 * `npm run bench -- fit`: how well documents that do not belong in a table fit it, next to
 * documents that do. Dev cases of the corpus only (never the check split): every text document (no
 * OCR, to keep it quick) is mapped onto its own case's columns ("fits") and onto the columns of
 * cases of another family ("does not fit": a statistics table into an invoice's tables, an invoice
 * into a statistics table's; invoices, their line items and receipts are one family, since one such
 * document may rightly fill another's table). Prints the documents' fit (the measure a `balanced`
 * table's cut-off applies, `documentFit` in src/services/extract.service.ts) by quantile for both,
 * and what share of each a cut-off would keep: DOCUMENT_FIT is chosen here. Run in-process, with
 * the server's reading and mapping: the fit is no field of the API.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, cachedReading, devCases, type CorpusCase } from '../src/extract/model/corpus';
import { documentFit, rowsOfReading } from '../src/services/extract.service';

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
  /** The document's fit in the table of `tableCase`, or 0 when it gives no rows (a flexible table writes whatever it finds). */
  const fitOf = async (tableCase: CorpusCase, doc: CorpusCase): Promise<number> => {
    const reading = await cachedReading(doc);
    if (!reading) return 0;
    const rows = rowsOfReading(reading, { columns: tableCase.columns, instruction: null, strictness: 'flexible' }, `fit ${tableCase.id}`, {}).filter((r) => Object.keys(r.values).length);
    return documentFit(rows) ?? 0;
  };
  const fits: number[] = [];
  const misfits: number[] = [];
  for (const [i, doc] of cases.entries()) {
    fits.push(await fitOf(doc, doc));
    const others = cases.filter((c) => family(c.kind) !== family(doc.kind));
    // A fixed spread over the other family, so every run measures the same pairs.
    for (let k = 0; k < PAIRS_PER_DOCUMENT && others.length; k++) {
      const table = others[(i * 7 + k * 13) % others.length]!;
      const c = await fitOf(table, doc);
      misfits.push(c);
      if (process.env.VERBOSE && c >= 0.5) console.log(`misfit ${c.toFixed(2)}  ${doc.id} into the table of ${table.id}`);
    }
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(2);
  // Documents that wrote rows: the others have no fit to cut.
  const written = { fits: fits.filter((x) => x > 0), misfits: misfits.filter((x) => x > 0) };
  console.log('\nfit        files  written    p10    p25    p50    p75    p90');
  for (const [label, xs] of [['fits', fits], ['misfits', misfits]] as const) {
    const wrote = written[label];
    console.log(`${label.padEnd(10)} ${String(xs.length).padStart(5)} ${String(wrote.length).padStart(8)} ${[0.1, 0.25, 0.5, 0.75, 0.9].map((p) => q(wrote.length ? wrote : [0], p).padStart(6)).join(' ')}`);
  }
  console.log('\ncut-off    fits kept  misfits kept   (of the files that wrote rows)');
  const kept = (wrote: number[], cut: number) => (wrote.length ? `${((wrote.filter((x) => x >= cut).length / wrote.length) * 100).toFixed(0)}%` : '-');
  for (const cut of CUTS) console.log(`${cut.toFixed(2).padEnd(10)} ${kept(written.fits, cut).padStart(9)} ${kept(written.misfits, cut).padStart(13)}`);
  console.log(`\nfit: ${cases.length} dev documents without OCR, ${misfits.length} misfit pairs, mapped in-process as the server maps them`);
}
