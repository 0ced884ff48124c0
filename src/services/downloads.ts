/**
 * Rows as downloadable files: CSV (RFC 4180, UTF-8 with BOM, formula-injection safe), JSON, and
 * XLSX with typed cells. Shared by batch downloads and table exports.
 */
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { Column } from '../domain/columns';
import type { ExportFormat } from '../domain/exports';

export const DOWNLOAD_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** A spreadsheet would run a cell starting with these as a formula; a leading `'` keeps it text. */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string | number | boolean {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : typeof value === 'string' ? value : JSON.stringify(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** CSV lines (CRLF-terminated) of already formula-safe cells. */
export function csvLines(records: Array<Array<string | number | boolean>>): string {
  return stringify(records, { record_delimiter: '\r\n', cast: { boolean: (b) => (b ? 'true' : 'false') } });
}

export const UTF8_BOM = '\uFEFF';

/**
 * Each row's origin in a batch download, after the columns: the name of the file it was extracted
 * from and its confidence, named as the extract stream's rows name their confidence (the `_` sets
 * them apart from columns). The same two in CSV, JSON and XLSX.
 */
export const ROW_ORIGIN_COLUMNS: Column[] = [
  { id: '_file', name: '_file', type: 'string', required: false },
  { id: '_confidence', name: '_confidence', type: 'number', required: false },
  { id: '_needs_review', name: '_needs_review', type: 'boolean', required: false },
];

export function toCsv(columns: Column[], rows: Iterable<Record<string, unknown>>): Uint8Array {
  const records = [columns.map((c) => csvCell(c.name))];
  for (const row of rows) records.push(columns.map((c) => csvCell(row[c.id])));
  return new TextEncoder().encode(`${UTF8_BOM}${csvLines(records)}`);
}

export function toJson(columns: Column[], rows: Iterable<Record<string, unknown>>): Uint8Array {
  const out = [];
  for (const row of rows) out.push(Object.fromEntries(columns.map((c) => [c.id, row[c.id] ?? null])));
  return new TextEncoder().encode(JSON.stringify(out, null, 2));
}

export function xlsxCell(value: unknown, column: Pick<Column, 'type'>): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  if (column.type === 'date' && typeof value === 'string') {
    const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    return Number.isNaN(date.getTime()) ? value : date;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  return JSON.stringify(value);
}

/** Sheet columns: header names, widths, and formats for dates and amounts. */
export function xlsxColumns(columns: Array<Pick<Column, 'id' | 'name' | 'type'>>): Array<Partial<ExcelJS.Column>> {
  return columns.map((c) => ({
    header: c.name,
    key: c.id,
    width: Math.min(60, Math.max(10, c.name.length + 2)),
    style: c.type === 'date' ? { numFmt: 'yyyy-mm-dd' } : c.type === 'currency' ? { numFmt: '#,##0.00' } : {},
  }));
}

export function sheetName(name: string): string {
  return name.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31) || 'Rows';
}

export async function toXlsx(columns: Column[], rows: Iterable<Record<string, unknown>>, name = 'Rows'): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName(name));
  sheet.columns = xlsxColumns(columns);
  sheet.getRow(1).font = { bold: true };
  for (const row of rows) sheet.addRow(columns.map((c) => xlsxCell(row[c.id], c)));
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

export async function renderRows(format: ExportFormat, columns: Column[], rows: Iterable<Record<string, unknown>>, name: string): Promise<Uint8Array> {
  if (format === 'csv') return toCsv(columns, rows);
  if (format === 'json') return toJson(columns, rows);
  return toXlsx(columns, rows, name);
}

/** `attachment; filename="..."` with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function contentDisposition(kind: 'attachment' | 'inline', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
