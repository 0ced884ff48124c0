/**
 * Where a table's values live in its rows and their index: the slot of a field, and every index a
 * row of the table has. The row writes, the index reads, the tails and the merge all go by these.
 */
import { fieldTypeOf } from '../domain/columns';
import { SYSTEM_SLOTS, type SlotSpec } from './rows.store';
import type { TableRecord } from './tables.store';

export function slotOf(table: TableRecord, field: string): number | undefined {
  // Own properties only: `toString` and `constructor` are fine column ids.
  if (Object.hasOwn(SYSTEM_SLOTS, field)) return SYSTEM_SLOTS[field as keyof typeof SYSTEM_SLOTS];
  return Object.hasOwn(table.slots, field) ? table.slots[field] : undefined;
}

const specsOf = new WeakMap<TableRecord, SlotSpec[]>();

/** Every index a row of this table has: each column's slot and the indexed system fields. */
export function slotSpecs(table: TableRecord): SlotSpec[] {
  // Table records are never changed in place, so one list per record serves every row written.
  let specs = specsOf.get(table);
  if (!specs) {
    specs = Object.values(SYSTEM_SLOTS).map((slot) => ({ slot, multi: false }));
    for (const column of table.columns_json) specs.push({ slot: table.slots[column.id]!, multi: fieldTypeOf(column.type) === 'array' });
    specsOf.set(table, specs);
  }
  return specs;
}
