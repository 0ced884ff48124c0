/** Markdown: its tables (through marked's lexer), with the heading or line above each, and its prose. */
import { marked, type Tokens } from 'marked';
import { decodeText, type RecordGroup, type SourceDocument, type TableCandidate } from '../document';
import { textTables } from '../keyvalue';

/** Cell text without inline markup (`**bold**`, `[link](url)`, `code`). */
function plain(cell: Tokens.TableCell): string {
  return cell.tokens.map((t) => ('text' in t ? t.text : t.raw)).join('').replace(/\\\|/g, '|').trim();
}

export function readMarkdown(doc: SourceDocument): { tables: TableCandidate[]; groups: RecordGroup[]; rest: string } {
  const text = decodeText(doc.bytes);
  const tables: TableCandidate[] = [];
  const prose: string[] = [];
  for (const token of marked.lexer(text)) {
    if (token.type !== 'table') {
      prose.push(token.raw);
      continue;
    }
    const table = token as Tokens.Table;
    const grid = [table.header.map(plain), ...table.rows.map((row) => row.map(plain))];
    const above = prose.join('').trim().split(/\n/).filter((l) => l.trim()).slice(-2).join(' ').replace(/^#+\s*/, '');
    tables.push({ label: `table ${tables.length + 1}`, context: above, grid, headerRows: 1, quality: 1 });
  }
  const rest = prose.join('');
  if (tables.length) return { tables, groups: textTables(rest).groups, rest };
  return { ...textTables(text), rest: text };
}
