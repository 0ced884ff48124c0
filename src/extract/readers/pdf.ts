/**
 * PDF through the layout engine: each page read into the page model (words, rules, shading) and its
 * tables and lines found, one page at a time so that a long PDF never holds all its pages at once.
 * A PDF without a usable text layer is reported as scanned, for OCR. Its embedded e-invoice XML
 * (Factur-X, ZUGFeRD) is taken too: from the EmbeddedFiles name tree through PDF.js, else from the
 * embedded-file streams themselves, which is where associated files (`/AF`) that no name tree
 * lists are.
 */
import { inflateSync } from 'node:zlib';
import { getDocumentProxy } from 'unpdf';
import { UnreadableDocument, type SourceDocument, type TableCandidate } from '../document';
import { combineReadings, readPage, type PageReading } from '../layout';
import { pageModel, type Page, type PageModel, type TextLine } from '../layout/page';
import { pdfPage } from '../layout/pdf-page';
import { looksLikeEInvoice } from './einvoice';

export interface EmbeddedFile {
  name: string;
  bytes: Uint8Array;
}

type PDFDocumentProxy = Awaited<ReturnType<typeof getDocumentProxy>>;

/** Larger than any invoice's XML: an embedded stream past it is not read. */
const MAX_EMBEDDED_BYTES = 32 * 1024 * 1024;

async function namedAttachments(pdf: PDFDocumentProxy): Promise<EmbeddedFile[]> {
  const found: EmbeddedFile[] = [];
  const attachments = await pdf.getAttachments();
  for (const [id, attachment] of attachments ?? []) {
    const content = (await pdf.getAttachmentContent(id)) as unknown;
    const bytes = content instanceof Uint8Array ? content : (content as { content?: Uint8Array } | null)?.content;
    if (bytes) found.push({ name: attachment.filename || id, bytes });
  }
  return found;
}

/** Embedded-file streams found in the file itself (streams are never inside object streams). */
function embeddedStreams(bytes: Uint8Array): EmbeddedFile[] {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf('/EmbeddedFile') < 0) return [];
  const text = new TextDecoder('latin1').decode(bytes);
  const found: EmbeddedFile[] = [];
  for (const m of text.matchAll(/\bobj\s*<<((?:(?!\bobj\b)[\s\S]){0,4000}?)>>\s*stream\r?\n/g)) {
    const dict = m[1]!;
    if (!/\/Type\s*\/EmbeddedFile\b/.test(dict)) continue;
    const start = m.index! + m[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) continue;
    const raw = bytes.subarray(start, end);
    try {
      const data = /\/FlateDecode/.test(dict) ? new Uint8Array(inflateSync(raw, { maxOutputLength: MAX_EMBEDDED_BYTES })) : /\/Filter/.test(dict) ? null : raw;
      if (data) found.push({ name: 'embedded XML', bytes: data });
    } catch {
      // a stream that does not inflate (encrypted, damaged) holds nothing to read
    }
  }
  return found;
}

/** The PDF's embedded e-invoice XML files (Factur-X, ZUGFeRD, XRechnung), by their namespace. */
async function embeddedInvoices(pdf: PDFDocumentProxy, bytes: Uint8Array): Promise<EmbeddedFile[]> {
  let files: EmbeddedFile[] = [];
  try {
    files = (await namedAttachments(pdf)).filter((f) => looksLikeEInvoice(f.bytes));
  } catch {
    // a damaged name tree: the streams themselves are looked at below
  }
  if (files.length === 0) files = embeddedStreams(bytes).filter((f) => looksLikeEInvoice(f.bytes));
  return files;
}

/** Fewer letters and digits than this on average per page: the text layer is missing or only a stamp. */
const MIN_CHARACTERS_PER_PAGE = 20;

export async function readPdf(doc: SourceDocument): Promise<{ tables: TableCandidate[]; lines: TextLine[]; text: string; pages: PageModel[]; scanned: boolean; embedded: EmbeddedFile[] }> {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(doc.bytes), { verbosity: 0 });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'PasswordException') throw new UnreadableDocument('the PDF is encrypted with a password; upload it without the password');
    throw new UnreadableDocument(`not a readable PDF: ${(error as Error).message}`);
  }
  try {
    const embedded = await embeddedInvoices(pdf, doc.bytes);
    const readings: PageReading[] = [];
    const models: PageModel[] = [];
    let characters = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      let page: Page;
      try {
        page = await pdfPage(pdf, number);
      } catch (error) {
        throw new UnreadableDocument(`page ${number} of the PDF cannot be read: ${(error as Error).message}`);
      }
      characters += page.words.reduce((n, w) => n + w.text.replace(/[^\p{L}\p{N}]/gu, '').length, 0);
      readings.push(readPage(page));
      models.push(pageModel(page));
      // PDF.js settles its work in microtasks, which never let the server's timers and sockets in:
      // give the event loop a turn between pages so requests keep being answered.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (characters < MIN_CHARACTERS_PER_PAGE * Math.max(1, pdf.numPages) * 0.5) return { tables: [], lines: [], text: '', pages: [], scanned: true, embedded };
    return { ...combineReadings(readings), pages: models, scanned: false, embedded };
  } finally {
    await pdf.loadingTask.destroy();
  }
}
