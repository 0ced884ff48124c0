/** `order`: up to 3 keys `field[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. */
import { queryError } from './errors';
import { LIMITS } from './fields';
import type { FieldLookup } from './filter';

export interface OrderKey {
  field: string;
  desc: boolean;
  nullsFirst: boolean;
}

export function parseOrder(text: string, lookup: FieldLookup): OrderKey[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw queryError('order', 'an empty sort key; write keys like created_at.desc,name');
  if (parts.length > LIMITS.orderKeys) throw queryError('order', `at most ${LIMITS.orderKeys} sort keys`);
  const seen = new Set<string>();
  return parts.map((part) => {
    const [field, ...mods] = part.split('.');
    let desc: boolean | undefined;
    let nulls: boolean | undefined;
    for (const mod of mods) {
      if ((mod === 'asc' || mod === 'desc') && desc === undefined && nulls === undefined) desc = mod === 'desc';
      else if ((mod === 'nullsfirst' || mod === 'nullslast') && nulls === undefined) nulls = mod === 'nullsfirst';
      else throw queryError('order', `"${part}": expected field[.asc|.desc][.nullsfirst|.nullslast]`);
    }
    const spec = lookup(field!);
    if (!spec?.sortable) throw queryError('order', `cannot sort by "${field}"`);
    if (seen.has(field!)) throw queryError('order', `"${field}" is named twice`);
    seen.add(field!);
    const isDesc = desc ?? false;
    // Nulls sort last ascending and first descending, unless told otherwise.
    return { field: field!, desc: isDesc, nullsFirst: nulls ?? isDesc };
  });
}

export function orderToString(keys: OrderKey[]): string {
  return keys.map((k) => `${k.field}.${k.desc ? 'desc' : 'asc'}.${k.nullsFirst ? 'nullsfirst' : 'nullslast'}`).join(',');
}
