/** What the readers share: the document given, the records they find, and format detection. */
import type { FileType } from '../domain/batches';
import { byteOrderMark, decodeBytes } from './encoding';
import type { PageModel, TextLine } from './layout/page';
import { imageKind } from './ocr/image-info';

/** `xml` is an e-invoice (UBL, CII); `zip` an archive of documents, unpacked into files of their own. */
export type Format = 'csv' | 'tsv' | 'json' | 'ndjson' | 'xlsx' | 'html' | 'markdown' | 'docx' | 'pdf' | 'text' | 'email' | 'image' | 'xml' | 'zip';

export interface SourceDocument {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** One record as a document gives it: source field name to raw value (string, number, Date, ...). */
export type SourceRecord = Record<string, unknown>;

/** Records that belong together: one table, sheet, or set of key: value blocks. */
export interface RecordGroup {
  label: string;
  records: SourceRecord[];
  /** The fields in the document's order, when it has one (a table's columns). */
  fields?: string[];
}

/** A cell of a table as its reader gives it: text, or a typed value from a spreadsheet. */
export type Cell = unknown;

/**
 * A table found in a document, header rows still in its grid: which rows are the header is decided
 * against the target columns (a header of years is only a header when the columns are years).
 */
export interface TableCandidate {
  /** Caption, title, sheet name, or `table N`. */
  label: string;
  /** Text just above the table (headings, titles): it helps choose among a document's tables. */
  context: string;
  /** Rows of cells, header rows first; spanning cells repeated into every row/column they cover. */
  grid: Cell[][];
  /** Header rows at the top when the layout knows them (`<th>`, PDF layout); else detected. */
  headerRows?: number;
  /** Per grid row: a summary row (Total, Subtotal) when the reader knows; else detected. */
  summary?: boolean[];
  page?: number;
  /** How regular the layout was, 0..1 (1 for formats that carry their cells). */
  quality?: number;
}

export interface Reading {
  format: Format;
  fileType: FileType;
  /** The document's tables. */
  tables: TableCandidate[];
  /** Records already keyed by field: JSON objects, key: value blocks. */
  groups: RecordGroup[];
  /** Lines outside the tables, for document fields (numbers, dates, parties, totals). */
  lines: TextLine[];
  /** The document's running text, for the optional language-model extractor. */
  text: string;
  /** The pages' words with their boxes (PDFs and images): where each value is printed. */
  pages?: PageModel[];
  /** Where the values came from when not from the layout: an e-invoice's XML gives them exactly. */
  source?: 'xml';
  /** A PDF's printed page, read by the layout path, when its values came from its XML: for what the XML does not state. */
  printed?: Pick<Reading, 'tables' | 'groups' | 'lines' | 'text' | 'pages'>;
  /** What the file's result should tell: the text encoding read, the XML used, a printed total that disagrees. */
  notes?: string[];
  /**
   * The body of a message whose attachments are files of their own: finding no rows in it is no
   * failure, since the data is in the attachments.
   */
  optional?: boolean;
}

/** A document that cannot be read as it is (an empty file, a PDF without a text layer, bad JSON). */
export class UnreadableDocument extends Error {}

const BY_EXTENSION: Record<string, Format> = {
  csv: 'csv', tsv: 'tsv', tab: 'tsv', json: 'json', ndjson: 'ndjson', jsonl: 'ndjson', xlsx: 'xlsx', html: 'html', htm: 'html',
  md: 'markdown', markdown: 'markdown', docx: 'docx', pdf: 'pdf', eml: 'email', xml: 'xml', zip: 'zip',
};

const BY_TYPE: Record<string, Format> = {
  'text/csv': 'csv', 'application/csv': 'csv', 'text/tab-separated-values': 'tsv', 'application/json': 'json',
  'application/x-ndjson': 'ndjson', 'application/ndjson': 'ndjson', 'application/jsonl': 'ndjson',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx', 'text/html': 'html', 'application/xhtml+xml': 'html',
  'text/markdown': 'markdown', 'text/x-markdown': 'markdown',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx', 'application/pdf': 'pdf',
  'text/plain': 'text', 'message/rfc822': 'email', 'application/xml': 'xml', 'text/xml': 'xml', 'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
};

export const CONTENT_TYPES: Record<Format, string> = {
  csv: 'text/csv', tsv: 'text/tab-separated-values', json: 'application/json', ndjson: 'application/x-ndjson',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', html: 'text/html', markdown: 'text/markdown',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', pdf: 'application/pdf', text: 'text/plain',
  email: 'message/rfc822', image: 'application/octet-stream', xml: 'application/xml', zip: 'application/zip',
};

export const FILE_TYPES: Record<Format, FileType> = {
  csv: 'text', tsv: 'text', json: 'text', ndjson: 'text', xlsx: 'document', html: 'text', markdown: 'text', docx: 'document',
  pdf: 'text_pdf', text: 'text', email: 'text', image: 'image', xml: 'text', zip: 'document',
};

function startsWith(bytes: Uint8Array, text: string): boolean {
  return text.split('').every((c, i) => bytes[i] === c.charCodeAt(0));
}

function looksBinary(bytes: Uint8Array): boolean {
  // UTF-16 text has NUL bytes; its byte-order mark, or NULs in every other byte, say it is text.
  if (byteOrderMark(bytes) || decodeBytes(bytes.subarray(0, 64)).encoding.startsWith('utf-16')) return false;
  const sample = bytes.subarray(0, 4096);
  // NUL and other control bytes never occur in text (tab, newlines, form feed and escape aside).
  for (const b of sample) if (b < 9 || (b > 13 && b < 32 && b !== 27)) return true;
  return false;
}

/** Guesses a plain-text document's format from its first lines. */
function sniffText(bytes: Uint8Array): Format {
  const head = decodeBytes(bytes.subarray(0, 8192)).text.trimStart();
  if (/^[[{]/.test(head)) {
    const lines = head.split(/\r?\n/).filter((l) => l.trim());
    return lines.length > 1 && lines.slice(0, 3).every((l) => /^\s*\{.*\}\s*$/.test(l)) ? 'ndjson' : 'json';
  }
  if (/^<(!doctype html|html|table|body|div|head)\b/i.test(head) || (/^<\?xml\b/.test(head) && /<html\b/i.test(head))) return 'html';
  if (/^<\?xml\b/.test(head) || /^<[A-Za-z_][\w.:-]*\s[^>]*\bxmlns\b/.test(head)) return 'xml';
  if (/^(received|from|return-path|message-id|mime-version|delivered-to|date|subject|to):/im.test(head.split(/\r?\n/)[0] ?? '') && /\r?\n\r?\n/.test(head)) return 'email';
  if (/^\s*\|.*\|\s*\r?\n\s*\|?\s*:?-{3,}/m.test(head)) return 'markdown';
  const lines = head.split(/\r?\n/).filter((l) => l.trim()).slice(0, 10);
  if (lines.length >= 2) {
    for (const [delimiter, format] of [['\t', 'tsv'], [',', 'csv'], [';', 'csv']] as const) {
      const counts = lines.map((l) => l.split(delimiter).length - 1);
      if (counts[0]! > 0 && counts.every((c) => c === counts[0])) return format;
    }
  }
  return 'text';
}

/**
 * The format of a document, from its name, then its declared type, then its bytes; null when it
 * is not one rowsmith reads (other binaries). Images are known by their bytes alone; a ZIP that is
 * no office document is an archive of documents.
 */
export function detectFormat(doc: SourceDocument): Format | null {
  // `.txt` (and pasted text) says nothing about the layout inside, so it is sniffed like untyped text.
  const ext = doc.name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (imageKind(doc.bytes)) return 'image';
  if (ext && BY_EXTENSION[ext]) return BY_EXTENSION[ext]!;
  const type = doc.contentType.split(';')[0]!.trim().toLowerCase();
  if (startsWith(doc.bytes, '%PDF')) return 'pdf';
  if (startsWith(doc.bytes, 'PK\x03\x04')) {
    const head = new TextDecoder('latin1').decode(doc.bytes.subarray(0, 65536));
    if (head.includes('word/')) return 'docx';
    if (head.includes('xl/')) return 'xlsx';
    return BY_TYPE[type] === 'docx' || BY_TYPE[type] === 'xlsx' ? BY_TYPE[type]! : 'zip';
  }
  if (BY_TYPE[type] && BY_TYPE[type] !== 'text') return BY_TYPE[type]!;
  if (looksBinary(doc.bytes)) return null;
  return sniffText(doc.bytes);
}

/** A text document's characters, its encoding decided from its bytes (see encoding.ts). */
export function decodeText(bytes: Uint8Array): string {
  return decodeBytes(bytes).text;
}
