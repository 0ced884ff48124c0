/** Plain text: line-item tables of aligned columns and key: value lines (see keyvalue.ts). */
import { decodeText, UnreadableDocument, type RecordGroup, type SourceDocument, type TableCandidate } from '../document';
import { textTables } from '../keyvalue';

export function readText(doc: SourceDocument): { tables: TableCandidate[]; groups: RecordGroup[]; text: string } {
  const text = decodeText(doc.bytes);
  if (!text.trim()) throw new UnreadableDocument('the text is empty');
  return { ...textTables(text), text };
}
