/** `aggs`: `count`, `count:col`, `sum:col`, `avg:col`, `min:col`, `max:col`, `count_distinct:col`, each optionally `alias=...`. */
import { queryError } from './errors';
import type { FieldSpec } from './fields';

export type AggFn = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'count_distinct';
export interface Agg {
  alias: string;
  fn: AggFn;
  /** null for a plain row count. */
  field: string | null;
}

const FNS = new Set<AggFn>(['count', 'sum', 'avg', 'min', 'max', 'count_distinct']);
const NUMERIC_ONLY = new Set<AggFn>(['sum', 'avg', 'min', 'max']);
export const MAX_AGGS = 20;

export function parseAggs(text: string, lookup: (field: string) => FieldSpec | undefined): Agg[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) throw queryError('aggs', 'give a comma-separated list such as count,sum:amount');
  if (items.length > MAX_AGGS) throw queryError('aggs', `at most ${MAX_AGGS} aggregates`);
  const aliases = new Set<string>();
  return items.map((item) => {
    const m = /^(?:([A-Za-z_][A-Za-z0-9_]{0,63})=)?([a-z_]+)(?::([A-Za-z0-9_-]+))?$/.exec(item);
    if (!m) throw queryError('aggs', `"${item}" is not fn, fn:column or alias=fn:column`);
    const [, alias, fnText, field] = m;
    const fn = fnText as AggFn;
    if (!FNS.has(fn)) throw queryError('aggs', `"${item}": unknown function "${fnText}"; use count, sum, avg, min, max or count_distinct`);
    if (!field && fn !== 'count') throw queryError('aggs', `"${item}": ${fn} needs a column, as in ${fn}:amount`);
    if (field) {
      const spec = lookup(field);
      if (!spec) throw queryError('aggs', `"${item}": unknown column "${field}"`);
      if (NUMERIC_ONLY.has(fn) && spec.type !== 'number') throw queryError('aggs', `"${item}": ${fn} needs a number or currency column; "${field}" is ${spec.type}`);
    }
    const name = alias ?? (field ? `${fn}_${field}` : 'count');
    if (aliases.has(name)) throw queryError('aggs', `"${name}" is named twice; give one an alias, as in total=${item}`);
    aliases.add(name);
    return { alias: name, fn, field: field ?? null };
  });
}
