/** DOCX through mammoth: its tables as HTML tables, and key: value paragraphs of its text. */
import mammoth from 'mammoth';
import { UnreadableDocument, type RecordGroup, type SourceDocument } from '../document';
import { textGroups } from '../keyvalue';
import { htmlGroups } from './html';

export async function readDocx(doc: SourceDocument): Promise<{ groups: RecordGroup[]; text: string }> {
  const buffer = Buffer.from(doc.bytes);
  let html: string;
  let text: string;
  try {
    html = (await mammoth.convertToHtml({ buffer })).value;
    text = (await mammoth.extractRawText({ buffer })).value;
  } catch (error) {
    throw new UnreadableDocument(`not a readable DOCX document: ${(error as Error).message}`);
  }
  const tables = /<table/i.test(html) ? htmlGroups(html) : [];
  const fields = textGroups(text).filter((g) => g.label === 'key: value');
  // A table's rows also carry the document's single set of key: value fields (an invoice's number and date).
  const single = fields[0]?.records.length === 1 ? fields[0].records[0]! : {};
  return { groups: [...tables.map((g) => ({ ...g, records: g.records.map((r) => ({ ...single, ...r })) })), ...fields], text };
}
