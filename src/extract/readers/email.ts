/**
 * `.eml` email through postal-mime: the body's tables (HTML part) or its text, with the message's
 * own fields (`From`, `From name`, `Subject`, `Date`) on every record.
 */
import PostalMime from 'postal-mime';
import { UnreadableDocument, type RecordGroup, type SourceDocument, type SourceRecord } from '../document';
import { textGroups } from '../keyvalue';
import { htmlGroups, htmlText } from './html';

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
  const text = email.text ?? (email.html ? htmlText(email.html) : '');
  const fromText = textGroups(text, header);
  const single = fromText.find((g) => g.label === 'key: value' && g.records.length === 1)?.records[0] ?? header;
  const tables = email.html && /<table/i.test(email.html) ? htmlGroups(email.html).filter((g) => g.label !== 'key: value') : [];
  const groups = [...tables.map((g) => ({ ...g, records: g.records.map((r) => ({ ...single, ...r })) })), ...fromText];
  return { groups, text };
}
