/**
 * Checks a table's LMDB index against its rows: every row up to the merge mark (every row, when
 * there is none) has exactly its entries, and no row after the mark has any.
 */
import type { Services } from '../../src/app';
import { slotSpecs } from '../../src/services/rows.query';
import { indexValues, slotValue } from '../../src/store/rows.store';

export function indexProblems(services: Services, projectId: string, tableId: string): string[] {
  const table = services.tables.get(projectId, tableId);
  const store = services.rowsStore;
  const mark = store.mark(table.seq);
  const want = new Set<string>();
  for (const row of store.scanRows(table.seq, false)) {
    if (mark !== undefined && row.id > mark) continue;
    for (const { slot, multi } of slotSpecs(table)) for (const v of indexValues(slotValue(row, slot), multi)) want.add(`${slot} ${JSON.stringify(v)} ${row.id}`);
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { slot } of slotSpecs(table)) {
    for (const [v, id] of store.scanIndex(table.seq, slot, null, null)) {
      const key = `${slot} ${JSON.stringify(v)} ${id}`;
      seen.add(key);
      if (!want.has(key)) problems.push(`extra entry ${key}`);
    }
  }
  for (const key of want) if (!seen.has(key)) problems.push(`missing entry ${key}`);
  return problems;
}
