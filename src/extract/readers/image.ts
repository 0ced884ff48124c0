/**
 * Images (PNG, JPEG, every page of a TIFF, WebP, BMP, GIF) and PDFs without a text layer, read by
 * OCR into the page model and then through the same layout engine as text PDFs. A file in which
 * no text at all is recognised (noise, a photo of no document) is unreadable, with the reason.
 */
import { getDocumentProxy } from 'unpdf';
import { UnreadableDocument, type SourceDocument, type TableCandidate } from '../document';
import { readingFromPages } from '../layout';
import { pageModel, type Page, type PageModel, type TextLine } from '../layout/page';
import { checkSourceSize, DEFAULT_LIMITS, imageInfo, ocrPages } from '../ocr';

export interface OcrReading {
  tables: TableCandidate[];
  lines: TextLine[];
  text: string;
  pages: PageModel[];
  /** Pages turned, shrunk or skipped, or why nothing was found: to show with the file's result. */
  notes: string[];
}

export type PageProgress = (done: number, total: number) => void;

export async function readImage(doc: SourceDocument, onPage?: PageProgress): Promise<OcrReading> {
  let info;
  try {
    info = imageInfo(doc.bytes);
    checkSourceSize(info.width, info.height, DEFAULT_LIMITS);
  } catch (error) {
    throw new UnreadableDocument((error as Error).message);
  }
  const { pages, notes, nothingFound } = await ocrPages('image', doc.bytes, info.pages, onPage);
  if (nothingFound) throw new UnreadableDocument(nothingFound);
  return { ...recognised(pages), notes };
}

/** The layout engine's reading of recognised pages, each table's quality scaled by how sure the recognition was. */
function recognised(pages: Page[]): Omit<OcrReading, 'notes'> {
  const words = pages.flatMap((p) => p.words);
  const sureness = words.length ? words.reduce((s, w) => s + (w.confidence ?? 1), 0) / words.length : 1;
  const reading = readingFromPages(pages);
  return { ...reading, tables: reading.tables.map((t) => ({ ...t, quality: (t.quality ?? 1) * sureness })), pages: pages.map(pageModel) };
}

export async function readScannedPdf(doc: SourceDocument, onPage?: PageProgress): Promise<OcrReading> {
  let pageCount: number;
  try {
    const pdf = await getDocumentProxy(new Uint8Array(doc.bytes));
    pageCount = pdf.numPages;
    await pdf.loadingTask.destroy();
  } catch (error) {
    throw new UnreadableDocument(`not a readable PDF: ${(error as Error).message}`);
  }
  const { pages, notes, nothingFound } = await ocrPages('pdf', doc.bytes, pageCount, onPage);
  if (nothingFound) throw new UnreadableDocument(nothingFound);
  return { ...recognised(pages), notes };
}
