/** One entry point for every format: detects it and runs its reader. */
import { detectFormat, decodeText, FILE_TYPES, UnreadableDocument, type Format, type Reading, type SourceDocument } from './document';
import { readCsv } from './readers/csv';
import { readDocx } from './readers/docx';
import { readEmail } from './readers/email';
import { readHtml } from './readers/html';
import { readImage, readScannedPdf } from './readers/image';
import { readJson } from './readers/json';
import { readMarkdown } from './readers/markdown';
import { readPdf } from './readers/pdf';
import { readText } from './readers/text';
import { readXlsx } from './readers/xlsx';
import { linesFromText } from './fields';

/** Reads a document; `known` is its format when the caller has already detected it. */
export async function readDocument(doc: SourceDocument, known?: Format, onPage?: (done: number, total: number) => void): Promise<Reading> {
  const format = known ?? detectFormat(doc);
  if (!format) throw new UnreadableDocument(`${doc.name}: not a format rowsmith reads`);
  const fileType = FILE_TYPES[format];
  if (doc.bytes.byteLength === 0) throw new UnreadableDocument('the file is empty');
  const none = { tables: [], groups: [], lines: [], text: '' };
  switch (format) {
    case 'csv':
    case 'tsv':
      return { format, fileType, ...none, tables: readCsv(doc, format === 'tsv') };
    case 'json':
    case 'ndjson':
      return { format, fileType, ...none, groups: readJson(doc, format === 'ndjson') };
    case 'xlsx':
      return { format, fileType, ...none, tables: await readXlsx(doc) };
    case 'html': {
      const page = readHtml(doc);
      return { format, fileType, tables: page.tables, groups: page.groups, lines: linesFromText(page.rest), text: page.text };
    }
    case 'markdown': {
      const md = readMarkdown(doc);
      return { format, fileType, tables: md.tables, groups: md.groups, lines: linesFromText(md.rest), text: decodeText(doc.bytes) };
    }
    case 'docx': {
      const docx = await readDocx(doc);
      return { format, fileType, tables: docx.tables, groups: docx.groups, lines: linesFromText(docx.rest), text: docx.text };
    }
    case 'pdf': {
      const pdf = await readPdf(doc);
      if (pdf.scanned) {
        const scan = await readScannedPdf(doc, onPage);
        return { format, fileType: 'scanned', tables: scan.tables, groups: [], lines: scan.lines, text: scan.text };
      }
      return { format, fileType, tables: pdf.tables, groups: [], lines: pdf.lines, text: pdf.text };
    }
    case 'image': {
      const image = await readImage(doc, onPage);
      return { format, fileType, tables: image.tables, groups: [], lines: image.lines, text: image.text };
    }
    case 'email': {
      const email = await readEmail(doc);
      return { format, fileType, tables: email.tables, groups: email.groups, lines: linesFromText(email.rest), text: email.text };
    }
    case 'text': {
      const text = readText(doc);
      return { format, fileType, tables: text.tables, groups: text.groups, lines: linesFromText(text.text), text: text.text };
    }
  }
}
