/** One entry point for every format: detects it and runs its reader. */
import type { Column } from '../domain/columns';
import { detectFormat, decodeText, FILE_TYPES, UnreadableDocument, type Format, type Reading, type SourceDocument } from './document';
import { decodeBytes, encodingNote } from './encoding';
import { mapReading } from './mapper';
import { readCsv } from './readers/csv';
import { readDocx } from './readers/docx';
import { einvoiceReading, parseEInvoice, type EInvoice } from './readers/einvoice';
import { readEmail } from './readers/email';
import { readHtml } from './readers/html';
import { readImage, readScannedPdf } from './readers/image';
import { readJson } from './readers/json';
import { readMarkdown } from './readers/markdown';
import { readPdf, type EmbeddedFile } from './readers/pdf';
import { readText } from './readers/text';
import { readXlsx } from './readers/xlsx';
import { linesFromText } from './fields';

/** The totals a PDF's printed page and its XML are compared on, each read from the page on its own. */
const TOTALS: Array<{ field: string; column: Column }> = [
  { field: 'Net amount', column: { id: 'net', name: 'Net amount', type: 'number', required: false, description: 'invoice total without tax' } },
  { field: 'Tax amount', column: { id: 'tax', name: 'Tax amount', type: 'number', required: false, description: 'total tax (VAT) amount' } },
  { field: 'Total amount', column: { id: 'total', name: 'Total amount', type: 'number', required: false, description: 'grand total including tax' } },
];

/** Every amount printed on the page, in cents without its sign (credit notes print theirs in many ways), read with either decimal mark. */
function printedAmounts(text: string): Set<number> {
  const cents = new Set<number>();
  for (const m of text.matchAll(/\d+(?:[.,' ]\d{3})*(?:[.,]\d{1,2})?(?!\d)/g)) {
    const token = m[0].replace(/[' ]/g, '');
    for (const decimal of ['.', ',']) {
      const group = decimal === '.' ? ',' : '.';
      const n = Number(token.split(group).join('').replace(decimal, '.'));
      if (Number.isFinite(n)) cents.add(Math.abs(Math.round(n * 100)));
    }
  }
  return cents;
}

/**
 * Where the printed page states another total than the XML: the page's total as the layout path
 * reads it differs, and the XML's amount is printed nowhere on the page. The XML's is used; the
 * file's result says so.
 */
function disagreements(printed: Pick<Reading, 'tables' | 'groups' | 'lines' | 'text'>, invoice: EInvoice): string[] {
  const onPage = printedAmounts(printed.text);
  const notes: string[] = [];
  for (const { field, column } of TOTALS) {
    const xml = invoice.fields[field];
    if (typeof xml !== 'number' || onPage.has(Math.abs(Math.round(xml * 100)))) continue;
    const page = mapReading(printed, [column], 'flexible')[0]?.values[column.id];
    if (typeof page === 'number' && Math.abs(Math.abs(xml) - Math.abs(page)) >= 0.005) notes.push(`the printed ${field.toLowerCase()} ${page} differs from the XML's ${xml}; the XML's is used`);
  }
  return notes;
}

/** The first embedded e-invoice that reads; why the others did not, for the file's result. */
function embeddedInvoice(files: EmbeddedFile[]): { invoice: EInvoice; file: EmbeddedFile } | { errors: string[] } {
  const errors: string[] = [];
  for (const file of files) {
    try {
      return { invoice: parseEInvoice(file.bytes), file };
    } catch (error) {
      if (!(error instanceof UnreadableDocument)) throw error;
      errors.push(`the embedded ${file.name} could not be read (${error.message}); the printed page was read instead`);
    }
  }
  return { errors };
}

/** The encoding note of a text format, none for UTF-8. */
function textNotes(doc: SourceDocument): string[] {
  const note = encodingNote(decodeBytes(doc.bytes));
  return note ? [note] : [];
}

/** Reads a document; `known` is its format when the caller has already detected it. */
export async function readDocument(doc: SourceDocument, known?: Format, onPage?: (done: number, total: number) => void): Promise<Reading> {
  const format = known ?? detectFormat(doc);
  if (!format) throw new UnreadableDocument(`${doc.name}: not a format rowsmith reads`);
  const fileType = FILE_TYPES[format];
  if (doc.bytes.byteLength === 0) throw new UnreadableDocument('the file is empty');
  const none = { tables: [], groups: [], lines: [], text: '' };
  switch (format) {
    case 'csv':
    case 'tsv': {
      const { tables, titles } = readCsv(doc, format === 'tsv');
      return { format, fileType, ...none, tables, lines: linesFromText(titles.join('\n')), notes: textNotes(doc) };
    }
    case 'xml': {
      const invoice = parseEInvoice(doc.bytes);
      return einvoiceReading(invoice, [`read from the e-invoice XML (${invoice.standard}): every value exact`]);
    }
    case 'zip':
      throw new UnreadableDocument('a ZIP archive is read as the files it holds, each a file of the batch');
    case 'json':
    case 'ndjson':
      return { format, fileType, ...none, groups: readJson(doc, format === 'ndjson') };
    case 'xlsx': {
      const { tables, titles } = await readXlsx(doc);
      return { format, fileType, ...none, tables, lines: linesFromText(titles.join('\n')) };
    }
    case 'html': {
      const page = readHtml(doc);
      return { format, fileType, tables: page.tables, groups: page.groups, lines: linesFromText(page.rest), text: page.text };
    }
    case 'markdown': {
      const md = readMarkdown(doc);
      return { format, fileType, tables: md.tables, groups: md.groups, lines: linesFromText(md.rest), text: decodeText(doc.bytes), notes: textNotes(doc) };
    }
    case 'docx': {
      const docx = await readDocx(doc);
      return { format, fileType, tables: docx.tables, groups: docx.groups, lines: linesFromText(docx.rest), text: docx.text };
    }
    case 'pdf': {
      const pdf = await readPdf(doc);
      const embedded = embeddedInvoice(pdf.embedded);
      if ('invoice' in embedded) {
        const { invoice, file } = embedded;
        const notes = [`read from the e-invoice XML embedded in the PDF (${file.name}; ${invoice.standard}): every value exact`];
        if (pdf.scanned) return { ...einvoiceReading(invoice, notes), format, fileType: 'scanned' };
        const printed = { tables: pdf.tables, groups: [], lines: pdf.lines, text: pdf.text, pages: pdf.pages };
        notes.push(...disagreements(printed, invoice));
        return { ...einvoiceReading(invoice, notes), format, fileType, printed, pages: pdf.pages };
      }
      if (pdf.scanned) {
        const scan = await readScannedPdf(doc, onPage);
        return { format, fileType: 'scanned', tables: scan.tables, groups: [], lines: scan.lines, text: scan.text, pages: scan.pages };
      }
      return { format, fileType, tables: pdf.tables, groups: [], lines: pdf.lines, text: pdf.text, pages: pdf.pages, notes: embedded.errors };
    }
    case 'image': {
      const image = await readImage(doc, onPage);
      return { format, fileType, tables: image.tables, groups: [], lines: image.lines, text: image.text, pages: image.pages };
    }
    case 'email': {
      const email = await readEmail(doc);
      // With its attachments read as files of their own, the body's free lines are no data.
      if (email.withAttachments) {
        const notes = ['its attachments are read as files of their own; the body gives rows only from the tables and fields it holds'];
        return { format, fileType, tables: email.tables, groups: email.groups, lines: [], text: '', optional: true, notes };
      }
      return { format, fileType, tables: email.tables, groups: email.groups, lines: linesFromText(email.rest), text: email.text };
    }
    case 'text': {
      const text = readText(doc);
      return { format, fileType, tables: text.tables, groups: text.groups, lines: linesFromText(text.text), text: text.text, notes: textNotes(doc) };
    }
  }
}
