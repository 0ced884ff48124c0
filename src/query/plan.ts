/**
 * Which index ranges can answer a filter. A condition becomes ranges of one field's index:
 * eq/in/is.null exact values, gt/gte/lt/lte number ranges, contains on arrays, like with a literal
 * start. AND takes the most selective such condition; OR needs one for every branch and unions
 * them. Everything is checked again on the rows, so a range only has to hold every match.
 */
import type { FieldSpec } from './fields';
import type { FilterNode, Scalar } from './filter';

export type Bound = { value: Scalar | null; inclusive: boolean } | null;
export interface Range {
  low: Bound;
  high: Bound;
}
export interface Probe {
  field: string;
  ranges: Range[];
}

/** Where numbers end: strings sort after every number, so `''` exclusive bounds them from above. */
const NUMBERS_END: Bound = { value: '', inclusive: false };
/** Where numbers start: after every boolean. */
const NUMBERS_START: Bound = { value: true, inclusive: false };

const exact = (value: Scalar | null): Range => ({ low: { value, inclusive: true }, high: { value, inclusive: true } });

export function probeFor(node: FilterNode, lookup: (field: string) => FieldSpec | undefined): Probe | null {
  if (node.kind !== 'cond') return null;
  const spec = lookup(node.field);
  if (!spec) return null;
  const { field, op, value } = node;
  switch (op) {
    case 'eq':
      return { field, ranges: [exact(value as Scalar)] };
    case 'in':
      return { field, ranges: (value as Scalar[]).map(exact) };
    case 'is':
      return value === null && spec.type !== 'array' ? { field, ranges: [exact(null)] } : null;
    case 'gt':
    case 'gte':
      return { field, ranges: [{ low: { value: value as Scalar, inclusive: op === 'gte' }, high: NUMBERS_END }] };
    case 'lt':
    case 'lte':
      return { field, ranges: [{ low: NUMBERS_START, high: { value: value as Scalar, inclusive: op === 'lte' } }] };
    case 'contains':
      return spec.type === 'array' ? { field, ranges: [exact(value as Scalar)] } : null;
    case 'like': {
      // Without a wildcard it is an equality; with one, the text before it bounds a range.
      const pattern = value as string;
      const star = pattern.indexOf('*');
      if (star < 0) return { field, ranges: [exact(pattern)] };
      if (star === 0) return null;
      const prefix = pattern.slice(0, star);
      return { field, ranges: [{ low: { value: prefix, inclusive: true }, high: { value: `${prefix}\uffff`, inclusive: false } }] };
    }
    default:
      return null;
  }
}

export type CandidatePlan = { all: Probe[] } | { any: Probe[][] } | null;

/**
 * The probes that can narrow a filter: for AND, any one of `all` holds every match; for OR, each
 * branch of `any` must be answered by one of its probes, and their union holds every match.
 */
export function candidatePlan(filter: FilterNode | null, lookup: (field: string) => FieldSpec | undefined): CandidatePlan {
  if (!filter) return null;
  const probesOf = (node: FilterNode): Probe[] => {
    if (node.kind === 'cond') {
      const probe = probeFor(node, lookup);
      return probe ? [probe] : [];
    }
    return node.kind === 'and' ? node.children.flatMap(probesOf) : [];
  };
  if (filter.kind === 'or') {
    const branches = filter.children.map(probesOf);
    return branches.every((b) => b.length > 0) ? { any: branches } : null;
  }
  const all = probesOf(filter);
  return all.length ? { all } : null;
}
