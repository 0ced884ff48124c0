/**
 * `.eml` email through postal-mime: the body's tables (HTML part) or its text, with the message's
 * own fields (`From`, `From name`, `Subject`, `Date`) on every record.
 */
import PostalMime from 'postal-mime';
import { UnreadableDocument, type RecordGroup, type SourceDocument, type SourceRecord } from '../document';
import { textGroups } from '../keyvalue';
import { pageGroups, parseHtml } from './html';

export async function readEmail(doc: SourceDocument): Promise<{ groups: RecordGroup[]; text: string }> {
  let email;
  try {
    email = await PostalMime.parse(doc.bytes);
  } catch (error) {
    throw new UnreadableDocument(`not a readable email: ${(error as Error).message}`);
  }
  const header: SourceRecord = {};
  if (email.from?.address) header.From = email.from.address;
  if (email.from?.name) header['From name'] = email.from.name;
  if (email.subject) header.Subject = email.subject;
  if (email.date) header.Date = email.date;
  const page = email.html ? parseHtml(email.html) : null;
  const text = email.text ?? page?.text ?? '';
  // An HTML body's tables, or else the text's own line-item tables and key: value blocks.
  const groups = page?.tables.length ? pageGroups(page, header) : textGroups(text, header);
  return { groups, text };
}
