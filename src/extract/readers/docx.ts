/** DOCX through mammoth: its tables as HTML tables, and its text outside them for document fields. */
import mammoth from 'mammoth';
import { UnreadableDocument, type RecordGroup, type SourceDocument, type TableCandidate } from '../document';
import { checkArchive } from '../limits';
import { textTables } from '../keyvalue';
import { parseHtml } from './html';

export async function readDocx(doc: SourceDocument): Promise<{ tables: TableCandidate[]; groups: RecordGroup[]; text: string; rest: string }> {
  checkArchive(doc.bytes, 'DOCX document');
  const buffer = Buffer.from(doc.bytes);
  let html: string;
  let text: string;
  try {
    html = (await mammoth.convertToHtml({ buffer })).value;
    text = (await mammoth.extractRawText({ buffer })).value;
  } catch (error) {
    throw new UnreadableDocument(`not a readable DOCX document: ${(error as Error).message}`);
  }
  const page = parseHtml(html);
  return { tables: page.tables, groups: textTables(page.rest).groups, text, rest: page.rest };
}
