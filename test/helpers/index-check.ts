/**
 * Checks a table's LMDB index against its rows: every row up to the merge mark (every row, when
 * there is none) has exactly its entries; a row a merge run reaches may have some of them (never
 * others); no other row has any.
 */
import type { Services } from '../../src/app';
import { slotSpecs } from '../../src/store/slots';
import { indexValues, maintainedThrough, slotValue, type RowsStore } from '../../src/store/rows.store';
import type { TableRecord } from '../../src/store/tables.store';

export function indexProblems(services: Services, projectId: string, tableId: string): string[] {
  return storeIndexProblems(services.rowsStore, services.tablesStore.get(tableId)!);
}

export function storeIndexProblems(store: RowsStore, table: TableRecord): string[] {
  const mark = store.mark(table.seq);
  const reach = maintainedThrough(store.markRecord(table.seq));
  const want = new Set<string>();
  const allowed = new Set<string>();
  for (const row of store.scanRows(table.seq, false)) {
    if (reach !== undefined && row.id > reach) continue;
    const into = mark !== undefined && row.id > mark ? allowed : want;
    for (const { slot, multi } of slotSpecs(table)) for (const v of indexValues(slotValue(row, slot), multi)) into.add(`${slot} ${JSON.stringify(v)} ${row.id}`);
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { slot } of slotSpecs(table)) {
    for (const [v, id] of store.scanIndex(table.seq, slot, null, null)) {
      const key = `${slot} ${JSON.stringify(v)} ${id}`;
      seen.add(key);
      if (!want.has(key) && !allowed.has(key)) problems.push(`extra entry ${key}`);
    }
  }
  for (const key of want) if (!seen.has(key)) problems.push(`missing entry ${key}`);
  return problems;
}
