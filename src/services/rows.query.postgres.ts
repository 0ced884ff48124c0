/**
 * The list engine on PostgreSQL: lists, aggregates and distinct values as the SQL of
 * `store/postgres/sql.ts`, reading each column through its slot (`rowsFieldSql`). The parameters
 * are parsed and checked by `src/query/` exactly as `RowsQuery` parses them, so both stores give
 * the same 400s, and the same cursors (signed by the same codec over the same values).
 */
import type { CursorCodec } from '../query/cursor';
import { parseAggs } from '../query/aggs';
import { parseFilter } from '../query/filter';
import { envelope, filterLookup, lookupIn, parseListQuery, type ListParams, type ListQuery } from '../query/list';
import type { PgClient } from '../store/postgres/client';
import { rowsFieldSql } from '../store/postgres/rows';
import { aggregateResult, aggregateSql, distinctSql, listSql, pageOfRows, type SqlRow } from '../store/postgres/sql';
import type { RowRecord } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';
import { columnNotFound } from './columns.rules';
import { rowListSpec } from './row-fields';
import { toRow } from './row-values';
import { currencyDigits } from './rows.query';
import type { RowsQueryEngine } from './rows.service';

type ListedRow = Omit<SqlRow, 'created_at' | 'updated_at'> & { created_ms: number; updated_ms: number };

export class PgRowsQuery implements RowsQueryEngine {
  constructor(
    private readonly db: PgClient,
    private readonly cursors: CursorCodec,
  ) {}

  parse(table: TableRecord, params: ListParams): ListQuery {
    return parseListQuery(rowListSpec(table.columns_json), { ...params, order: params.order || table.default_sort || undefined }, this.cursors);
  }

  async list(tableOf: () => Promise<TableRecord>, params: ListParams) {
    const table = await tableOf();
    const query = this.parse(table, params);
    // Row ids are ULIDs of their created_at (RowsService makes both from one clock reading).
    const statement = listSql(table.id, query, rowsFieldSql(table), { idsInCreationOrder: true });
    const found = await this.db.query<ListedRow>(statement.text, statement.params);
    // The page's cursor reads values by column id, as the LMDB engine's does.
    const page = pageOfRows(found.map((row) => ({ ...row, values: byColumnId(table, row.values) })), query, this.cursors);
    return envelope('rows', query, { ...page, items: page.items.map((row) => toRow(table, asRecord(table, row))) });
  }

  async aggregate(table: TableRecord, aggsText: string, filterText: string): Promise<Record<string, number | null>> {
    const spec = rowListSpec(table.columns_json);
    const aggs = parseAggs(aggsText, lookupIn(spec));
    const filter = parseFilter(filterText, filterLookup(spec));
    const statement = aggregateSql(table.id, aggs, filter, rowsFieldSql(table));
    const [row] = await this.db.query<Record<string, string | null>>(statement.text, statement.params);
    return aggregateResult(aggs, row ?? {}, currencyDigits(table));
  }

  async distinct(table: TableRecord, columnId: string, limit: number, q: string | undefined): Promise<Array<string | number | boolean>> {
    if (!table.columns_json.some((c) => c.id === columnId)) throw columnNotFound(columnId);
    const statement = distinctSql(table.id, columnId, limit, q, rowsFieldSql(table));
    return (await this.db.query<{ value: string | number | boolean }>(statement.text, statement.params)).map((row) => row.value);
  }
}

/** A listed row's values (keyed by slot, as stored) keyed by the table's column ids. */
function byColumnId(table: TableRecord, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of table.columns_json) {
    const value = values[String(table.slots[column.id])];
    if (value !== undefined) out[column.id] = value;
  }
  return out;
}

/** A listed row as the row record `toRow` reads (values keyed by slot again). */
function asRecord(table: TableRecord, row: SqlRow): RowRecord {
  const values: Record<number, unknown> = {};
  for (const column of table.columns_json) values[table.slots[column.id]!] = row.values[column.id] ?? null;
  return { id: row.id, created_at: row.created_at, updated_at: row.updated_at, batch_id: row.batch_id, confidence: row.confidence, values };
}
