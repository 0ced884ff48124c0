/**
 * PDF through the layout engine: each page read into the page model (words, rules, shading) and its
 * tables and lines found, one page at a time so that a long PDF never holds all its pages at once.
 * A PDF without a usable text layer is reported as scanned, for OCR.
 */
import { getDocumentProxy } from 'unpdf';
import { UnreadableDocument, type SourceDocument, type TableCandidate } from '../document';
import { combineReadings, readPage, type PageReading } from '../layout';
import type { Page, TextLine } from '../layout/page';
import { pdfPage } from '../layout/pdf-page';

/** Fewer letters and digits than this on average per page: the text layer is missing or only a stamp. */
const MIN_CHARACTERS_PER_PAGE = 20;

export async function readPdf(doc: SourceDocument): Promise<{ tables: TableCandidate[]; lines: TextLine[]; text: string; scanned: boolean }> {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(doc.bytes), { verbosity: 0 });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'PasswordException') throw new UnreadableDocument('the PDF is encrypted with a password; upload it without the password');
    throw new UnreadableDocument(`not a readable PDF: ${(error as Error).message}`);
  }
  try {
    const readings: PageReading[] = [];
    let characters = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      let page: Page;
      try {
        page = await pdfPage(pdf, number);
      } catch (error) {
        throw new UnreadableDocument(`page ${number} of the PDF cannot be read: ${(error as Error).message}`);
      }
      characters += page.words.reduce((n, w) => n + w.text.replace(/[^\p{L}\p{N}]/gu, '').length, 0);
      // The page model is dropped here; only its reading (tables, lines, text) is kept.
      readings.push(readPage(page));
      // PDF.js settles its work in microtasks, which never let the server's timers and sockets in:
      // give the event loop a turn between pages so requests keep being answered.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (characters < MIN_CHARACTERS_PER_PAGE * Math.max(1, pdf.numPages) * 0.5) return { tables: [], lines: [], text: '', scanned: true };
    return { ...combineReadings(readings), scanned: false };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
