/**
 * `.eml` email through postal-mime. A message is its body plus its attachments: each attachment of
 * a format rowsmith reads is a file of the batch of its own (see containers.ts), and the body then
 * gives rows only from the data it holds itself (its tables and key: value blocks), never from the
 * message's own header lines. A message without such attachments is read as before: the body's
 * tables (HTML part) or its text, with the message's own fields (`From`, `From name`, `Subject`,
 * `Date`) as document fields.
 */
import PostalMime, { type Attachment, type Email } from 'postal-mime';
import { detectFormat, UnreadableDocument, type Format, type RecordGroup, type SourceDocument, type SourceRecord, type TableCandidate } from '../document';
import { textTables } from '../keyvalue';
import { parseHtml } from './html';

export async function parseEmail(bytes: Uint8Array): Promise<Email> {
  try {
    return await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer', rfc822Attachments: true, maxNestingDepth: 32 });
  } catch (error) {
    throw new UnreadableDocument(`not a readable email: ${(error as Error).message}`);
  }
}

export interface MessageAttachments {
  /** Attachments of formats rowsmith reads, as documents. */
  documents: Array<{ doc: SourceDocument; format: Format }>;
  /** Names of the attachments that are not (calendar invites, executables). */
  others: string[];
}

/** Images the HTML body shows (logos, signatures) are part of the body, not attachments. */
const partOfBody = (a: Attachment) => a.related === true || (a.disposition === 'inline' && a.mimeType.startsWith('image/') && !!a.contentId);

export function messageAttachments(email: Email): MessageAttachments {
  const out: MessageAttachments = { documents: [], others: [] };
  email.attachments.forEach((attachment, i) => {
    if (partOfBody(attachment)) return;
    const content = attachment.content;
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : new Uint8Array(content);
    const name = (attachment.filename ?? '').replace(/[/\\]/g, '_') || `attachment ${i + 1}`;
    const doc: SourceDocument = { name, contentType: attachment.mimeType, bytes };
    const format = bytes.byteLength ? detectFormat(doc) : null;
    if (format) out.documents.push({ doc, format });
    else out.others.push(name);
  });
  return out;
}

export async function readEmail(doc: SourceDocument): Promise<{ tables: TableCandidate[]; groups: RecordGroup[]; text: string; rest: string; withAttachments: boolean }> {
  const email = await parseEmail(doc.bytes);
  const withAttachments = messageAttachments(email).documents.length > 0;
  const header: SourceRecord = {};
  if (!withAttachments) {
    if (email.from?.address) header.From = email.from.address;
    if (email.from?.name) header['From name'] = email.from.name;
    if (email.subject) header.Subject = email.subject;
    if (email.date) header.Date = email.date;
  }
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
  return { tables: found.tables, groups, text, rest, withAttachments };
}
