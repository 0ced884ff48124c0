/**
 * HTML: every `<table>` (header from `<th>` or the first label row; colspan and rowspan spread out),
 * then the page's text for key: value fields when it has no table.
 */
import { parse, type HTMLElement } from 'node-html-parser';
import { decodeText, type RecordGroup, type SourceDocument, type SourceRecord } from '../document';
import { withDocumentFields } from '../keyvalue';
import { findHeaderRow, gridToRecords, type Cell } from '../tables';

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
      const text = clean(cell.text);
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
  return { grid, headerRows };
}

/** Tables of a page (no key: value fields); see htmlGroups for both. */
/** A page read once: its tables, its whole text, and its text without the tables (for key: value fields). */
export interface HtmlPage {
  tables: RecordGroup[];
  text: string;
  rest: string;
}

export function parseHtml(html: string): HtmlPage {
  const root = parse(html, { blockTextElements: { script: false, style: false, noscript: false } });
  // structuredText breaks lines at blocks only, so each <br> becomes an empty block.
  for (const br of root.querySelectorAll('br')) br.replaceWith(parse('<div></div>'));
  const tables: RecordGroup[] = [];
  const elements = root.querySelectorAll('table');
  elements.forEach((table, n) => {
    const { grid, headerRows } = tableGrid(table);
    // With several header rows (a spanning group over sub-headers), the last one names the columns.
    const header = headerRows > 0 ? headerRows - 1 : findHeaderRow(grid);
    const records = gridToRecords(grid, header);
    const caption = clean(table.querySelector('caption')?.text ?? '');
    if (records.length) tables.push({ label: caption || `table ${n + 1}`, records });
  });
  const text = root.structuredText;
  for (const table of elements) table.remove();
  return { tables, text, rest: root.structuredText };
}

/** A page's tables, each row carrying the page's key: value fields, and those fields. */
export function pageGroups(page: HtmlPage, extra: SourceRecord = {}): RecordGroup[] {
  return withDocumentFields(page.tables, page.rest, extra);
}

export function readHtml(doc: SourceDocument): { groups: RecordGroup[]; text: string } {
  const page = parseHtml(decodeText(doc.bytes));
  return { groups: pageGroups(page), text: page.text };
}
