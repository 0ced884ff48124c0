/** XLSX through exceljs: every sheet's tables (cut at blank rows); dates stay dates, formulas give their results. */
import ExcelJS from 'exceljs';
import { UnreadableDocument, type SourceDocument, type TableCandidate } from '../document';
import { checkArchive } from '../limits';
import { splitBlocks, type Cell } from '../tables';

function cellValue(value: ExcelJS.CellValue): Cell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value !== 'object') return value;
  if ('result' in value) return cellValue(value.result as ExcelJS.CellValue);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('text' in value) return typeof value.text === 'string' ? value.text : cellValue(value.text as ExcelJS.CellValue);
  if ('error' in value) return null;
  return String(value);
}

/** Every sheet's tables, and the lone lines outside them (a letterhead's name and address, see `splitBlocks`). */
export async function readXlsx(doc: SourceDocument): Promise<{ tables: TableCandidate[]; titles: string[] }> {
  checkArchive(doc.bytes, 'XLSX workbook');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(doc.bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw new UnreadableDocument(`not a readable XLSX workbook: ${(error as Error).message}`);
  }
  const tables: TableCandidate[] = [];
  const titles: string[] = [];
  workbook.eachSheet((sheet) => {
    const grid: Cell[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row, n) => {
      const values = (row.values as ExcelJS.CellValue[]).slice(1).map(cellValue);
      grid[n - 1] = values;
    });
    const rows = Array.from({ length: grid.length }, (_, i) => grid[i] ?? []);
    const blocks = splitBlocks(rows, sheet.name);
    tables.push(...blocks.tables.map((t) => ({ ...t, context: `${sheet.name} ${t.context}`.trim() })));
    titles.push(...blocks.titles);
  });
  return { tables, titles };
}
