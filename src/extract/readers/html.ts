/**
 * HTML: every `<table>` as a grid (header rows from leading `<th>` rows; colspan and rowspan spread
 * out) with the text above it, and the page's text outside its tables for document fields.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { decodeText, type Cell, type RecordGroup, type SourceDocument, type TableCandidate } from '../document';
import { textTables } from '../keyvalue';
import { checkHtmlDepth } from '../limits';

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The rows of a table, not of tables nested in it. */
function ownRows(table: HTMLElement): HTMLElement[] {
  return table.querySelectorAll('tr').filter((tr) => tr.closest('table') === table);
}

function tableGrid(table: HTMLElement): { grid: Cell[][]; headerRows: number } {
  const grid: Cell[][] = [];
  const pending: Array<{ col: number; left: number; value: string }> = [];
  let headerRows = 0;
  ownRows(table).forEach((tr, r) => {
    const row: Cell[] = [];
    const cells = tr.childNodes.filter((n): n is HTMLElement => (n as HTMLElement).tagName === 'TD' || (n as HTMLElement).tagName === 'TH');
    if (r === headerRows && cells.length > 0 && cells.every((c) => c.tagName === 'TH')) headerRows++;
    const isHeader = cells.every((c) => c.tagName === 'TH');
    let col = 0;
    const place = () => {
      for (;;) {
        const span = pending.find((p) => p.col === col && p.left > 0);
        if (!span) return;
        row[col] = span.value;
        span.left--;
        col++;
      }
    };
    for (const cell of cells) {
      place();
      const text = cellText(cell);
      const colspan = Math.max(1, Math.min(50, Number(cell.getAttribute('colspan')) || 1));
      const rowspan = Math.max(1, Math.min(500, Number(cell.getAttribute('rowspan')) || 1));
      for (let k = 0; k < colspan; k++) {
        // A spanning header names every column it covers; a spanning value fills the first.
        row[col] = k === 0 || isHeader ? text : '';
        if (rowspan > 1) pending.push({ col, left: rowspan - 1, value: row[col] as string });
        col++;
      }
    }
    place();
    grid.push(row);
  });
  // Row headers (a `<th>` spanning down the rows it heads) are not column headers: a header row
  // spans nearly the table's width.
  const width = grid.reduce((w, r) => Math.max(w, r.length), 0);
  let header = 0;
  while (header < headerRows && grid[header]!.filter((c) => c !== '' && c !== undefined).length >= 0.8 * width) header++;
  return { grid, headerRows: header };
}

/** Text a person reads as one cell: block children (list items, paragraphs, lines) apart by a space. */
function cellText(cell: HTMLElement): string {
  return clean(cell.structuredText.replace(/\n/g, ' '));
}

/** The text just above an element (a heading, a title paragraph), up to 200 characters. */
function precedingText(element: HTMLElement): string {
  let node: HTMLElement | null = element;
  for (let depth = 0; node && depth < 4; depth++, node = node.parentNode as HTMLElement | null) {
    let sibling = node.previousElementSibling;
    for (let k = 0; sibling && k < 3; k++, sibling = sibling.previousElementSibling) {
      if (sibling.tagName === 'TABLE') break;
      const text = clean(sibling.text);
      if (text) return text.slice(-200);
    }
  }
  return '';
}

/** A page read once: its tables, its whole text, and its text without the tables (for document fields). */
export interface HtmlPage {
  tables: TableCandidate[];
  text: string;
  rest: string;
}

export function parseHtml(html: string): HtmlPage {
  checkHtmlDepth(html);
  const root = parse(html, { blockTextElements: { script: false, style: false, noscript: false } });
  // structuredText breaks lines at blocks only, so each <br> becomes an empty block.
  for (const br of root.querySelectorAll('br')) br.replaceWith(parse('<div></div>'));
  const tables: TableCandidate[] = [];
  const elements = root.querySelectorAll('table');
  elements.forEach((table, n) => {
    const { grid, headerRows } = tableGrid(table);
    if (grid.length === 0) return;
    const caption = clean(table.querySelector('caption')?.text ?? '');
    tables.push({
      label: caption || `table ${n + 1}`,
      context: [precedingText(table), caption].filter(Boolean).join(' '),
      grid,
      ...(headerRows > 0 ? { headerRows } : {}),
      quality: 1,
    });
  });
  const text = root.structuredText;
  for (const table of elements) table.remove();
  return { tables, text, rest: root.structuredText };
}

export function readHtml(doc: SourceDocument): { tables: TableCandidate[]; groups: RecordGroup[]; text: string; rest: string } {
  const page = parseHtml(decodeText(doc.bytes));
  return { tables: page.tables, groups: textTables(page.rest).groups, text: page.text, rest: page.rest };
}
