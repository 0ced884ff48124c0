/**
 * The one list engine: parses limit, page, cursor, order, filter, q and select against what a
 * list declares, pages (offset or keyset), and builds the list envelope of the spec.
 */
import { CursorCodec, type CursorPosition, type CursorValue } from './cursor';
import { queryError } from './errors';
import { accessorOf, compareBy, compileFilter, type Getter } from './evaluate';
import { LIMITS, type FieldSpec, type ListSpec } from './fields';
import { parseFilter, type FilterNode } from './filter';
import { orderToString, parseOrder, type OrderKey } from './order';

export interface ListParams {
  limit?: number;
  page?: number;
  cursor?: string;
  order?: string;
  filter?: string;
  q?: string;
  select?: string;
}

export interface ListQuery {
  limit: number;
  /** 1-based page for offset paging; null when a cursor is used. */
  page: number | null;
  cursor: CursorPosition | null;
  order: OrderKey[];
  filter: FilterNode | null;
  terms: string[];
  select: string[] | null;
  binding: string;
}

export function lookupIn(spec: ListSpec): (name: string) => FieldSpec | undefined {
  return (name) => (Object.hasOwn(spec.fields, name) ? spec.fields[name] : undefined);
}

/** The fields a filter may name: those the list declares filterable. */
export function filterLookup(spec: ListSpec): (name: string) => FieldSpec | undefined {
  const lookup = lookupIn(spec);
  return (name) => {
    const f = lookup(name);
    return f?.filterable ? f : undefined;
  };
}

export function parseListQuery(spec: ListSpec, params: ListParams, codec: CursorCodec): ListQuery {
  const lookup = lookupIn(spec);
  const limit = params.limit ?? LIMITS.defaultPageSize;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.pageSize) throw queryError('limit', `must be a whole number from 1 to ${LIMITS.pageSize}`);
  if (params.page !== undefined && (!Number.isInteger(params.page) || params.page < 1)) throw queryError('page', 'must be a whole number from 1');

  const q = params.q ?? '';
  if (q.length > LIMITS.qChars) throw queryError('q', `at most ${LIMITS.qChars} characters`);
  const terms = q.split(/\s+/).filter(Boolean);
  if (terms.length && spec.searchable.length === 0) throw queryError('q', `${spec.resource} cannot be searched with q`);

  const filterText = params.filter ?? '';
  const filter = parseFilter(filterText, filterLookup(spec));
  const order = parseOrder(params.order || spec.defaultOrder || 'created_at.desc', lookup);

  let select: string[] | null = null;
  if (params.select !== undefined && params.select.trim() !== '' && params.select.trim() !== '*') {
    const allowed = new Set(spec.selectable ?? Object.keys(spec.fields));
    select = [...new Set(params.select.split(',').map((s) => s.trim()))];
    for (const name of select) {
      if (!allowed.has(name)) throw queryError('select', `unknown field "${name}"`);
    }
  }

  const binding = CursorCodec.binding({ resource: spec.resource, order: orderToString(order), filter: filterText, q: terms.join(' ') });
  const cursor = params.cursor ? codec.decode(params.cursor, binding) : null;
  return { limit, page: cursor ? null : (params.page ?? 1), cursor, order, filter, terms, select, binding };
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface Access<T> {
  get: Getter<T>;
  id: (item: T) => string;
}

/** Access to a plain record's fields by name, and its `id`: what every stored resource's list needs. */
export function recordAccess<T extends { id: string }>(): Access<T> {
  return { get: (item, field) => (item as Record<string, unknown>)[field], id: (item) => item.id };
}

export function positionOf<T>(item: T, query: ListQuery, access: Access<T>): CursorPosition {
  return { values: query.order.map((k) => (access.get(item, k.field) ?? null) as CursorValue), id: access.id(item) };
}

/** Sorts by the list's order, ties broken by id (in the direction of the last key). */
export function sortByOrder<T>(items: T[], query: ListQuery, access: Access<T>): T[] {
  const keyed = items.map((item) => ({ item, values: query.order.map((k) => access.get(item, k.field)), id: access.id(item) }));
  keyed.sort((a, b) => compareBy(query.order, a.values, a.id, b.values, b.id));
  return keyed.map((k) => k.item);
}

/** A page of chosen items, with the cursor of its last one when more follow. */
export function pageFrom<T>(items: T[], hasMore: boolean, query: ListQuery, access: Access<T>, codec: CursorCodec): Page<T> {
  const last = items[items.length - 1];
  return { items, hasMore, nextCursor: hasMore && last !== undefined ? codec.encode(query.binding, positionOf(last, query, access)) : null };
}

/** The page of sorted items that the cursor (or else the page number) asks for. */
export function pageOfSorted<T>(sorted: T[], query: ListQuery, access: Access<T>, codec: CursorCodec): Page<T> {
  let start = 0;
  if (query.cursor) {
    const { values, id } = query.cursor;
    start = sorted.findIndex((item) => compareBy(query.order, query.order.map((k) => access.get(item, k.field)), access.id(item), values, id) > 0);
    if (start < 0) start = sorted.length;
  } else if (query.page) {
    start = (query.page - 1) * query.limit;
  }
  return pageFrom(sorted.slice(start, start + query.limit), start + query.limit < sorted.length, query, access, codec);
}

/** Filters, searches, sorts and pages a collection held in memory. */
export function listInMemory<T>(all: Iterable<T>, spec: ListSpec, query: ListQuery, access: Access<T>, codec: CursorCodec): Page<T> {
  const matches = compileFilter(query.filter, accessorOf(access.get));
  const terms = query.terms.map((t) => t.toLowerCase());
  const searchText = (item: T) => spec.searchable.map((f) => String(access.get(item, f) ?? '')).join('\n').toLowerCase();
  const found: T[] = [];
  for (const item of all) {
    if (!matches(item)) continue;
    if (terms.length && !terms.every((t) => searchText(item).includes(t))) continue;
    found.push(item);
  }
  return pageOfSorted(sortByOrder(found, query, access), query, access, codec);
}

/** Keeps only the selected fields of each item. */
export function applySelect<T extends Record<string, unknown>>(items: T[], select: string[] | null): Array<Partial<T>> {
  if (!select) return items;
  return items.map((item) => Object.fromEntries(select.filter((f) => Object.hasOwn(item, f)).map((f) => [f, item[f]])) as Partial<T>);
}

export interface EnvelopeFields {
  count: number;
  hasMore: boolean;
  limit: number;
  nextCursor: string | null;
  page: number | null;
}

/** The list envelope of the spec, with the array named after the resource. */
export function envelope<K extends string, T extends Record<string, unknown>>(
  resource: K,
  query: ListQuery,
  page: Page<T>,
): Record<K, Array<Partial<T>>> & EnvelopeFields {
  const items = applySelect(page.items, query.select);
  const fields: EnvelopeFields = { count: items.length, hasMore: page.hasMore, limit: query.limit, nextCursor: page.nextCursor, page: query.page };
  return { ...fields, [resource]: items } as Record<K, Array<Partial<T>>> & EnvelopeFields;
}
