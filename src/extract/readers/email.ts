/**
 * `.eml` email through postal-mime: the body's tables (HTML part) or its text, and the message's
 * own fields (`From`, `From name`, `Subject`, `Date`) as document fields.
 */
import PostalMime from 'postal-mime';
import { UnreadableDocument, type RecordGroup, type SourceDocument, type SourceRecord, type TableCandidate } from '../document';
import { textTables } from '../keyvalue';
import { parseHtml } from './html';

export async function readEmail(doc: SourceDocument): Promise<{ tables: TableCandidate[]; groups: RecordGroup[]; text: string; rest: string }> {
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
  // An HTML body's tables, or else the text's own line-item tables; the message's own fields join
  // the body's key: value fields.
  const rest = page?.tables.length ? page.rest : text;
  const found = page?.tables.length ? { tables: page.tables, groups: textTables(rest).groups } : textTables(text);
  const blocks = found.groups.flatMap((g) => g.records);
  const fields: SourceRecord = blocks.length === 1 ? { ...header, ...blocks[0] } : header;
  const groups: RecordGroup[] = blocks.length > 1 ? found.groups : [];
  if (Object.keys(fields).length) groups.push({ label: 'message', records: [fields] });
  return { tables: found.tables, groups, text, rest };
}
