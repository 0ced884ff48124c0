/** The rules of column changes: add, reorder, update and remove, each under the table's lock. */
import { columnIdFrom, type Column } from '../domain/columns';
import { invalidInput } from '../lib/errors';
import type { TableRecord } from '../store/tables.store';
import { columnNotFound, normalizeColumn, type ColumnInput } from './columns.rules';
import type { TablesService } from './tables.service';

export type AddColumnInput = ColumnInput;
export type UpdateColumnInput = Partial<Pick<Column, 'name' | 'type' | 'required' | 'searchable' | 'description' | 'instruction' | 'options'>>;

export class ColumnsService {
  constructor(private readonly tables: TablesService) {}

  async add(projectId: string, tableId: string, input: AddColumnInput, ifMatch: string | null): Promise<TableRecord> {
    return this.afterIndexing(projectId, await this.tables.changeColumns(projectId, tableId, ifMatch, (table) => {
      const id = input.id ?? columnIdFrom(input.name, new Set(table.columns_json.map((c) => c.id)));
      const column = normalizeColumn({ ...input, id });
      const columns = [...table.columns_json, column];
      const last = columns.length - 1;
      return { columns, pathOf: (i) => (i === last ? '' : `columns_json[${i}]`) };
    }));
  }

  /** `order` is the full list of column ids in their new order. */
  reorder(projectId: string, tableId: string, order: string[], ifMatch: string | null): Promise<TableRecord> {
    return this.tables.changeColumns(projectId, tableId, ifMatch, (table) => {
      const byId = new Map(table.columns_json.map((c) => [c.id, c]));
      const unknown = order.find((id) => !byId.has(id));
      if (unknown !== undefined) throw columnNotFound(unknown);
      const seen = new Set<string>();
      order.forEach((id, i) => {
        if (seen.has(id)) throw invalidInput(`order[${i}]: "${id}" is listed twice`, [{ path: `order[${i}]`, message: `"${id}" is listed twice`, error_key: 'duplicate' }]);
        seen.add(id);
      });
      const missing = table.columns_json.filter((c) => !seen.has(c.id)).map((c) => c.id);
      if (missing.length) {
        throw invalidInput(`order must list every column; missing: ${missing.join(', ')}`, [
          { path: 'order', message: `missing: ${missing.join(', ')}`, error_key: 'incomplete' },
        ]);
      }
      return { columns: order.map((id) => byId.get(id)!) };
    });
  }

  async update(projectId: string, tableId: string, columnId: string, input: UpdateColumnInput, ifMatch: string | null): Promise<TableRecord> {
    return this.afterIndexing(projectId, await this.tables.changeColumns(projectId, tableId, ifMatch, (table) => {
      const index = table.columns_json.findIndex((c) => c.id === columnId);
      if (index < 0) throw columnNotFound(columnId);
      const current = table.columns_json[index]!;
      const merged = normalizeColumn({ ...current, ...stripUndefined(input), id: current.id });
      const columns = table.columns_json.map((c, i) => (i === index ? merged : c));
      return { columns, pathOf: (i) => (i === index ? '' : `columns_json[${i}]`) };
    }));
  }

  async remove(projectId: string, tableId: string, columnId: string, ifMatch: string | null): Promise<TableRecord> {
    return this.afterIndexing(projectId, await this.tables.changeColumns(projectId, tableId, ifMatch, (table) => {
      const column = table.columns_json.find((c) => c.id === columnId);
      if (!column) throw columnNotFound(columnId);
      if (table.columns_json.length === 1) {
        throw invalidInput('A table keeps at least one column', [{ path: 'columns_json', message: 'a table has 1 to 100 columns' }]);
      }
      return { columns: table.columns_json.filter((c) => c.id !== columnId) };
    }));
  }

  /**
   * Builds the index of new columns before answering, so the next query can use it; the entries of
   * removed columns are left to the maintenance job (they are never read again).
   */
  private async afterIndexing(projectId: string, table: TableRecord): Promise<TableRecord> {
    if (table.pending_slots.length === 0) return table;
    await this.tables.buildPendingSlots(table.id);
    return this.tables.get(projectId, table.id);
  }
}

function stripUndefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}
