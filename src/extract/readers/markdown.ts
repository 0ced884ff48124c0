/** Markdown: its tables (through marked's lexer), else key: value lines of its text. */
import { marked, type Tokens } from 'marked';
import { decodeText, type RecordGroup, type SourceDocument } from '../document';
import { textGroups, withDocumentFields } from '../keyvalue';
import { gridToRecords } from '../tables';

/** Cell text without inline markup (`**bold**`, `[link](url)`, `code`). */
function plain(cell: Tokens.TableCell): string {
  return cell.tokens.map((t) => ('text' in t ? t.text : t.raw)).join('').replace(/\\\|/g, '|').trim();
}

export function readMarkdown(doc: SourceDocument): RecordGroup[] {
  const text = decodeText(doc.bytes);
  const groups: RecordGroup[] = [];
  const prose: string[] = [];
  let n = 0;
  for (const token of marked.lexer(text)) {
    if (token.type !== 'table') {
      prose.push(token.raw);
      continue;
    }
    const table = token as Tokens.Table;
    const grid = [table.header.map(plain), ...table.rows.map((row) => row.map(plain))];
    groups.push({ label: `table ${++n}`, records: gridToRecords(grid, 0) });
  }
  return groups.length ? withDocumentFields(groups, prose.join('')) : textGroups(text);
}
