/** DOCX through mammoth: its tables as HTML tables, and key: value paragraphs of its text. */
import mammoth from 'mammoth';
import { UnreadableDocument, type RecordGroup, type SourceDocument } from '../document';
import { pageGroups, parseHtml } from './html';

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
  return { groups: pageGroups(parseHtml(html)), text };
}
