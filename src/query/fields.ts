/** What a list declares about its fields, and the operators each value type accepts. */
import type { FieldType } from '../domain/columns';

export interface FieldSpec {
  type: FieldType;
  /** Usable in `order`. */
  sortable?: boolean;
  /** Usable in `filter`. */
  filterable?: boolean;
}

export interface ListSpec {
  /** The resource's name, also the envelope's array key (`tables`, `rows`, ...). */
  resource: string;
  fields: Record<string, FieldSpec>;
  /** Fields `q` looks in; empty means the list takes no `q`. */
  searchable: string[];
  /** Fields `select` may name; defaults to every field of `fields`. */
  selectable?: string[];
  defaultOrder?: string;
}

export type FilterOp = 'eq' | 'ne' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'like' | 'ilike' | 'is' | 'contains';

export const OPS_BY_TYPE: Record<FieldType, readonly FilterOp[]> = {
  boolean: ['eq', 'ne', 'neq', 'is'],
  number: ['eq', 'ne', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is'],
  string: ['eq', 'ne', 'neq', 'like', 'ilike', 'in', 'nin', 'is', 'contains'],
  array: ['contains', 'is'],
};

export const ALL_OPS = new Set<string>(['eq', 'ne', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'is', 'contains']);

export const LIMITS = {
  conditions: 20,
  depth: 3,
  inValues: 100,
  orderKeys: 3,
  qChars: 200,
  pageSize: 100,
  defaultPageSize: 20,
} as const;
