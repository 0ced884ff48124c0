/** Plain text: key: value lines, repeated blocks, and line-item tables (see keyvalue.ts). */
import { decodeText, UnreadableDocument, type RecordGroup, type SourceDocument } from '../document';
import { textGroups } from '../keyvalue';

export function readText(doc: SourceDocument): RecordGroup[] {
  const text = decodeText(doc.bytes);
  if (!text.trim()) throw new UnreadableDocument('the text is empty');
  return textGroups(text);
}
