/**
 * Plain evaluation of filters and orderings on values. Lists small enough to hold in memory use it
 * directly; indexed row queries use it for the conditions their index does not answer.
 */
import type { OrderKey } from './order';
import type { FilterNode, Scalar } from './filter';

export type Getter<T> = (item: T, field: string) => unknown;

/** A reader of one field, resolved once per query rather than on every item. */
export type Accessor<T> = (field: string) => (item: T) => unknown;

export function accessorOf<T>(get: Getter<T>): Accessor<T> {
  return (field) => (item) => get(item, field);
}

function isNull(v: unknown): boolean {
  return v === null || v === undefined;
}

/** `*` is the wildcard; everything else is literal. `ilike` folds ASCII case only. */
export function likeToRegExp(pattern: string, ignoreCase: boolean): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${body}$`, ignoreCase ? 'i' : '');
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** A test of one item against a filter; each field's reader is resolved once, here. */
export function compileFilter<T>(node: FilterNode | null, accessor: Accessor<T>): (item: T) => boolean {
  if (!node) return () => true;
  if (node.kind !== 'cond') {
    const parts = node.children.map((c) => compileFilter(c, accessor));
    // Plain loops: walks test this per entry, and every/some with a closure cost about 3x as much.
    if (node.kind === 'and') {
      return (item) => {
        for (let k = 0; k < parts.length; k++) if (!parts[k]!(item)) return false;
        return true;
      };
    }
    return (item) => {
      for (let k = 0; k < parts.length; k++) if (parts[k]!(item)) return true;
      return false;
    };
  }
  const { field, op, value } = node;
  const read = accessor(field);
  switch (op) {
    case 'is':
      return value === null ? (item) => isNull(read(item)) : (item) => !isNull(read(item));
    case 'eq':
      return (item) => read(item) === value;
    case 'ne':
    case 'neq':
      // As in SQL, a null is neither equal nor unequal to anything.
      return (item) => {
        const v = read(item);
        return !isNull(v) && v !== value;
      };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      // Values of another type (and nulls) never compare; the comparison is chosen once, here.
      const type = typeof value;
      const bound = value as Scalar;
      const holds =
        op === 'gt' ? (v: Scalar) => v > bound : op === 'gte' ? (v: Scalar) => v >= bound : op === 'lt' ? (v: Scalar) => v < bound : (v: Scalar) => v <= bound;
      return (item) => {
        const v = read(item) as Scalar;
        return typeof v === type && holds(v);
      };
    }
    case 'in':
    case 'nin': {
      const set = new Set(value as Scalar[]);
      return (item) => {
        const v = read(item) as Scalar;
        return !isNull(v) && set.has(v) === (op === 'in');
      };
    }
    case 'like':
    case 'ilike': {
      const ignoreCase = op === 'ilike';
      const re = likeToRegExp(ignoreCase ? asciiLower(value as string) : (value as string), false);
      return (item) => {
        const v = read(item);
        return typeof v === 'string' && re.test(ignoreCase ? asciiLower(v) : v);
      };
    }
    case 'contains':
      return (item) => {
        const v = read(item);
        if (Array.isArray(v)) return v.some((e) => String(e) === value);
        return typeof v === 'string' && v.includes(value as string);
      };
    default:
      throw new Error(`unhandled operator ${op satisfies never}`);
  }
}

/** null < booleans < numbers < strings, the order LMDB's key encoding gives, so both agree. */
function rank(v: unknown): number {
  return typeof v === 'boolean' ? 1 : typeof v === 'number' ? 2 : 3;
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean') {
    return a < (b as typeof a) ? -1 : a > (b as typeof a) ? 1 : 0;
  }
  return 0;
}

/** Compares by the order keys, then by id in the direction of the last key. */
export function compareBy(keys: OrderKey[], aValues: unknown[], aId: string, bValues: unknown[], bId: string): number {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const a = aValues[i];
    const b = bValues[i];
    const an = isNull(a);
    const bn = isNull(b);
    if (an || bn) {
      if (an && bn) continue;
      return an === key.nullsFirst ? -1 : 1;
    }
    const c = compareValues(a, b);
    if (c !== 0) return key.desc ? -c : c;
  }
  const last = keys[keys.length - 1];
  const c = aId < bId ? -1 : aId > bId ? 1 : 0;
  return last?.desc ? -c : c;
}
