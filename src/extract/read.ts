/** One entry point for every format: detects it and runs its reader. */
import { detectFormat, decodeText, FILE_TYPES, UnreadableDocument, type Format, type Reading, type SourceDocument } from './document';
import { readCsv } from './readers/csv';
import { readDocx } from './readers/docx';
import { readEmail } from './readers/email';
import { readHtml } from './readers/html';
import { readJson } from './readers/json';
import { readMarkdown } from './readers/markdown';
import { readPdf } from './readers/pdf';
import { readText } from './readers/text';
import { readXlsx } from './readers/xlsx';

/** Reads a document; `known` is its format when the caller has already detected it. */
export async function readDocument(doc: SourceDocument, known?: Format): Promise<Reading> {
  const format = known ?? detectFormat(doc);
  if (!format) throw new UnreadableDocument(`${doc.name}: not a format rowsmith reads`);
  const fileType = FILE_TYPES[format];
  if (doc.bytes.byteLength === 0) throw new UnreadableDocument('the file is empty');
  switch (format) {
    case 'csv':
    case 'tsv':
      return { format, fileType, groups: readCsv(doc, format === 'tsv'), text: '' };
    case 'json':
    case 'ndjson':
      return { format, fileType, groups: readJson(doc, format === 'ndjson'), text: '' };
    case 'xlsx':
      return { format, fileType, groups: await readXlsx(doc), text: '' };
    case 'html':
      return { format, fileType, ...readHtml(doc) };
    case 'markdown':
      return { format, fileType, groups: readMarkdown(doc), text: decodeText(doc.bytes) };
    case 'docx':
      return { format, fileType, ...(await readDocx(doc)) };
    case 'pdf':
      return { format, fileType, ...(await readPdf(doc)) };
    case 'email':
      return { format, fileType, ...(await readEmail(doc)) };
    case 'text':
      return { format, fileType, groups: readText(doc), text: decodeText(doc.bytes) };
  }
}
