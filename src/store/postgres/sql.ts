/**
 * The list grammar of `src/query/` as PostgreSQL: filter, order, keyset cursor, offset page, `q`,
 * aggregates and distinct values over the rows table of `schema.ts`, answering exactly what the
 * in-memory engine answers. Values only ever travel as `$n` parameters (`Params`); the SQL text
 * holds identifiers from a whitelist, JSON keys checked against the field-name pattern, and
 * constants of this module.
 *
 * Column values are JSONB of any type: a column's type may change without converting what is
 * stored (docs/design.md), and the engine compares by the value's own type. So conditions test
 * `jsonb_typeof` where the engine tests `typeof`, and an order key sorts by the engine's rank
 * (null apart, then booleans < numbers < strings) before the value itself.
 *
 * Speed at a million rows comes from the indexes `rows.ts` gives each column of each table
 * (`columnIndexesSql`): a list sorts by exactly their expressions (rank, number, start of the
 * text), and equality and null conditions are written in them too (`keyCondition`), so the index
 * finds those rows and the planner knows how many there are from the statistics it keeps of the
 * index. With `idsInCreationOrder`, created_at sorts by the id.
 *
 * Where it differs from the engine (all but the first are edge cases the API rarely meets):
 *   - `q` matches words that start with each term; the in-memory search also takes words within a
 *     typo's distance of terms over 4 letters without digits. The words themselves are the same:
 *     `searchWords` tokenizes and lowercases as the search index does.
 *   - Text sorts by code point (COLLATE "C"), the engine by UTF-16 unit: they disagree only between
 *     a character above U+FFFF and one from U+E000 to U+FFFF.
 *   - Long strings are cut to INDEX_PREFIX code points for distinct values and counts, the engine's
 *     to as many UTF-16 units (differing only with characters above U+FFFF in the first 200).
 *   - Sums and averages stay decimal-exact; the engine falls back to a float sum past 12 decimals
 *     or 2^53 units, so such sums may differ in the last digits.
 *   - Arrays and objects where scalars belong (left by a type change from a list column) sort as
 *     an empty string does, and `contains` does not match them as array elements by
 *     their `String()` text; distinct values ignore DISTINCT_SCAN_CAP and match `q` against a
 *     number's numeric text (0.0000001, where String gives 1e-7); values of different types tie in
 *     distinct's order by rank rather than by JavaScript's loose `<`.
 */
import { fieldTypeOf, type Column } from '../../domain/columns';
import { roundTo } from '../../lib/decimal';
import type { Agg } from '../../query/aggs';
import type { CursorCodec, CursorPosition, CursorValue } from '../../query/cursor';
import type { FilterNode, Scalar } from '../../query/filter';
import { pageFrom, type Access, type ListQuery, type Page } from '../../query/list';
import type { OrderKey } from '../../query/order';
import { queryTerms } from '../../query/terms';
import { INDEX_PREFIX } from '../rows.store';

type Cast = 'text' | 'jsonb' | 'numeric' | 'float8' | 'int' | 'boolean' | 'tsquery';
export type ParamValue = string | boolean;

/** The parameters of one statement; `add` gives the placeholder that stands for a value. */
export class Params {
  readonly values: ParamValue[] = [];

  /** Text goes in typed as text and is cast on the server, so the driver never re-encodes it (it sends a JS string for a jsonb parameter as a JSON string). */
  add(value: ParamValue, cast: Cast): string {
    this.values.push(value);
    const n = `$${this.values.length}`;
    return typeof value === 'string' && cast !== 'text' ? `${n}::text::${cast}` : `${n}::${cast}`;
  }
}

export interface Statement {
  text: string;
  params: ParamValue[];
}

/** A quoted identifier of this module's own naming. */
function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${name}`);
  return `"${name}"`;
}

/** A column id as a JSON key literal; ids have the filter grammar's field-name shape, so nothing in one needs quoting. */
function jsonKey(id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`not a column id: ${id}`);
  return `'${id}'`;
}

/** How a field is read: a typed column of the rows table, or a JSONB value of any type (SQL NULL when empty). */
export type FieldSql =
  | { kind: 'column'; sql: string; type: 'text' | 'bigint' | 'float8' | 'boolean'; notNull: boolean }
  | { kind: 'json'; sql: string; multi: boolean };

export type FieldSqlOf = (field: string) => FieldSql;

const SYSTEM_COLUMNS: Record<string, Omit<FieldSql & { kind: 'column' }, 'kind' | 'sql'>> = {
  id: { type: 'text', notNull: true },
  created_at: { type: 'bigint', notNull: true },
  updated_at: { type: 'bigint', notNull: true },
  batch_id: { type: 'text', notNull: false },
  confidence: { type: 'float8', notNull: false },
  needs_review: { type: 'boolean', notNull: true },
};

/** The fields of a table's rows: system fields as columns, each column's value from `values` (whitelisted by the table's columns). */
export function rowFieldSql(columns: Column[]): FieldSqlOf {
  const byId = new Map(columns.map((c) => [c.id, c]));
  return (field) => {
    const system = Object.hasOwn(SYSTEM_COLUMNS, field) ? SYSTEM_COLUMNS[field] : undefined;
    if (system) return { kind: 'column', sql: ident(field), ...system };
    const column = byId.get(field);
    if (!column) throw new Error(`unknown field ${field}`);
    return { kind: 'json', sql: `"values"->${jsonKey(field)}`, multi: fieldTypeOf(column.type) === 'array' };
  };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** `ilike` folds ASCII case only, as the engine does (lower() would fold by the collation). */
const asciiLowerSql = (text: string) => `translate(${text}, '${UPPER}', '${UPPER.toLowerCase()}')`;
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** A like pattern: `*` is the wildcard, everything else literal (`%`, `_` and `\` escaped for LIKE's default escape). */
export function likePattern(pattern: string): string {
  return pattern
    .split('*')
    .map((part) => part.replace(/[\\%_]/g, '\\$&'))
    .join('%');
}

const columnCast = { text: 'text', bigint: 'numeric', float8: 'float8', boolean: 'boolean' } as const;

function columnParam(params: Params, field: FieldSql & { kind: 'column' }, value: Scalar): string {
  // bigint columns compare with numeric bounds, so a fractional bound stays exact.
  return params.add(typeof value === 'number' ? String(value) : value, columnCast[field.type]);
}

const jsonParam = (params: Params, value: Scalar | null) => params.add(JSON.stringify(value), 'jsonb');

/**
 * What a `contains` value equals as an array element: the engine compares `String(element)`, so
 * besides the text itself a number whose own text it is, a boolean, or a null element.
 */
function elementsAsText(value: string): Array<Scalar | null> {
  const out: Array<Scalar | null> = [value];
  const n = Number(value);
  if (Number.isFinite(n) && String(n) === value) out.push(n);
  if (value === 'true' || value === 'false') out.push(value === 'true');
  if (value === 'null') out.push(null);
  return out;
}

function columnCondition(field: FieldSql & { kind: 'column' }, op: string, value: Scalar | Scalar[] | null | 'notnull', params: Params): string {
  const c = field.sql;
  // A NULL column makes every comparison NULL, which the filter treats as false, as the engine does.
  switch (op) {
    case 'is':
      return value === null ? `${c} IS NULL` : `${c} IS NOT NULL`;
    case 'eq':
      return `${c} = ${columnParam(params, field, value as Scalar)}`;
    case 'ne':
    case 'neq':
      return `${c} <> ${columnParam(params, field, value as Scalar)}`;
    case 'gt':
      return `${c} > ${columnParam(params, field, value as Scalar)}`;
    case 'gte':
      return `${c} >= ${columnParam(params, field, value as Scalar)}`;
    case 'lt':
      return `${c} < ${columnParam(params, field, value as Scalar)}`;
    case 'lte':
      return `${c} <= ${columnParam(params, field, value as Scalar)}`;
    case 'in':
    case 'nin':
      return `${c} ${op === 'in' ? 'IN' : 'NOT IN'} (${(value as Scalar[]).map((v) => columnParam(params, field, v)).join(', ')})`;
    case 'like':
      return `${c} LIKE ${params.add(likePattern(value as string), 'text')}`;
    case 'ilike':
      return `${asciiLowerSql(c)} LIKE ${params.add(likePattern(asciiLower(value as string)), 'text')}`;
    case 'contains':
      return `strpos(${c}, ${params.add(value as string, 'text')}) > 0`;
    default:
      throw new Error(`unhandled operator ${op}`);
  }
}

/**
 * A condition in the terms of a column's sort index (`columnIndexesSql`): the same rows as the
 * condition on the JSONB value, but the index can find them, and the planner estimates them from
 * the statistics it keeps of the index's expressions. Null where there is no such form: a string
 * as long as the index's prefix (a longer one could share it), an empty string (arrays and
 * objects sort as one), mixed types in a list, and ranges. A range is mostly tested row by row
 * beside an order by another column, where testing the JSONB value costs about a third of what
 * the index's parts cost (measured at a million rows); the column's statistics estimate it.
 */
function keyCondition(v: string, op: string, value: Scalar | Scalar[] | null | 'notnull', params: Params): string | null {
  const rank = rankSql(v, NULLS_HIGH);
  // The rank a value's key has, or null when the index cannot tell it from other values.
  const rankOf = (x: Scalar): number | null =>
    typeof x === 'number' ? 2 : typeof x === 'boolean' ? 1 : x !== '' && [...x].length < SORT_PREFIX ? 3 : null;
  const number = (x: Scalar) => (typeof x === 'number' ? params.add(String(x), 'numeric') : x === true ? '1' : '0');
  switch (op) {
    case 'is':
      return value === null ? `${rank} = ${NULLS_HIGH}` : `${rank} < ${NULLS_HIGH}`;
    case 'eq': {
      const x = value as Scalar;
      const r = rankOf(x);
      if (r === null) return null;
      return r === 3
        ? `(${textSql(v, true)} = ${params.add(x as string, 'text')} AND ${rank} = 3 AND ${numberSql(v)} = 0)`
        : `(${numberSql(v)} = ${number(x)} AND ${rank} = ${r} AND ${textSql(v, true)} = '')`;
    }
    case 'in': {
      const values = value as Scalar[];
      const ranks = new Set(values.map(rankOf));
      if (ranks.size !== 1 || !(ranks.has(2) || ranks.has(3))) return null;
      return ranks.has(2)
        ? `(${numberSql(v)} IN (${values.map(number).join(', ')}) AND ${rank} = 2 AND ${textSql(v, true)} = '')`
        : `(${textSql(v, true)} IN (${values.map((x) => params.add(x as string, 'text')).join(', ')}) AND ${rank} = 3 AND ${numberSql(v)} = 0)`;
    }
    default:
      return null;
  }
}

function jsonCondition(field: FieldSql & { kind: 'json' }, op: string, value: Scalar | Scalar[] | null | 'notnull', params: Params, probe: boolean): string {
  const v = field.sql;
  if (probe && !field.multi) {
    const key = keyCondition(v, op, value, params);
    if (key) return key;
  }
  const text = `(${v} #>> '{}')`;
  switch (op) {
    case 'is':
      return value === null ? `${v} IS NULL` : `${v} IS NOT NULL`;
    case 'eq':
      // JSONB equality is by type and value (numbers numerically, strings byte for byte), as `===` is.
      return `${v} = ${jsonParam(params, value as Scalar)}`;
    case 'ne':
    case 'neq':
      return `${v} <> ${jsonParam(params, value as Scalar)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      // Ranges take numbers only (fields.ts); values of another type never compare (JSONB would order them by type).
      const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
      return `(jsonb_typeof(${v}) = 'number' AND ${v} ${sign} ${jsonParam(params, value as Scalar)})`;
    }
    case 'in':
    case 'nin':
      return `${v} ${op === 'in' ? 'IN' : 'NOT IN'} (${(value as Scalar[]).map((x) => jsonParam(params, x)).join(', ')})`;
    case 'like':
      return `(jsonb_typeof(${v}) = 'string' AND ${text} LIKE ${params.add(likePattern(value as string), 'text')})`;
    case 'ilike':
      return `(jsonb_typeof(${v}) = 'string' AND ${asciiLowerSql(text)} LIKE ${params.add(likePattern(asciiLower(value as string)), 'text')})`;
    case 'contains': {
      const needle = value as string;
      const inArray = elementsAsText(needle).map((e) => `${v} @> ${params.add(JSON.stringify([e]), 'jsonb')}`);
      return `((jsonb_typeof(${v}) = 'string' AND strpos(${text}, ${params.add(needle, 'text')}) > 0) OR (jsonb_typeof(${v}) = 'array' AND (${inArray.join(' OR ')})))`;
    }
    default:
      throw new Error(`unhandled operator ${op}`);
  }
}

/**
 * A filter as a boolean SQL expression; a condition is never NULL where the engine says true.
 * Conditions every matching row meets (`probe`: not inside an `or`) take the sort indexes' form,
 * which an index scan can start from; the others are tested row by row, in the cheaper JSONB form.
 */
export function filterToSql(node: FilterNode, fieldSql: FieldSqlOf, params: Params, probe = true): string {
  if (node.kind !== 'cond') {
    const parts = node.children.map((c) => filterToSql(c, fieldSql, params, probe && node.kind === 'and'));
    return `(${parts.join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
  const field = fieldSql(node.field);
  return field.kind === 'column' ? columnCondition(field, node.op, node.value, params) : jsonCondition(field, node.op, node.value, params, probe);
}

/** One part of a sort: never NULL, so a keyset is a plain row comparison. */
interface Component {
  sql: string;
  /** The part's value for a cursor value of its key. */
  at: (value: CursorValue, params: Params) => string;
}

interface SortKey {
  parts: Component[];
  desc: boolean;
  /** The key's value in a cursor. */
  of: (cursor: CursorPosition) => CursorValue;
}

/**
 * How a list's JSON values are sorted: `fast` by the start of long strings, as the columns' sort
 * indexes hold them (exact only while no string is longer), `exact` by the whole string.
 */
type Form = 'fast' | 'exact';

export interface ListOptions {
  /**
   * The table's row ids follow creation order (a row's id is a ULID of its created_at, as the rows
   * service makes them), so created_at sorts as the id does, by the primary key and the columns'
   * sort indexes. LMDB's engine walks created_at in id order too.
   */
  idsInCreationOrder?: boolean;
}

/** Where nulls go in a key's own direction: nulls first ascending (or last descending) rank lowest. */
function nullRank(key: OrderKey, high: number): number {
  return key.nullsFirst !== key.desc ? 0 : high;
}

const ZERO = { text: "''", bigint: '0', float8: '0', boolean: 'false' } as const;

/** Strings are cut to this many characters in the sort indexes (a B-tree entry holds about 2,700 bytes). */
export const SORT_PREFIX = 200;
/** The rank of an empty value in the sort indexes: nulls last ascending and first descending, the default. */
const NULLS_HIGH = 4;

/** The engine's rank of a JSONB value: `nulls` for null (absent), then booleans, numbers, anything else (strings). */
function rankSql(v: string, nulls: number): string {
  return `(CASE COALESCE(jsonb_typeof(${v}), 'null') WHEN 'boolean' THEN 1 WHEN 'number' THEN 2 WHEN 'null' THEN ${nulls} ELSE 3 END)`;
}

/** A JSONB value's number: a number's own, 0 and 1 for booleans (the rank tells them apart), else 0. */
function numberSql(v: string): string {
  return `(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::numeric WHEN 'boolean' THEN (CASE WHEN (${v})::boolean THEN 1 ELSE 0 END) ELSE 0 END)`;
}

/** A JSONB value's text in code point order: a string's own (its start when `prefix`), else empty. */
function textSql(v: string, prefix: boolean): string {
  const text = prefix ? `left(${v} #>> '{}', ${SORT_PREFIX})` : `(${v} #>> '{}')`;
  return `((CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${text} ELSE '' END) COLLATE "C")`;
}

/** A string longer than the sort indexes keep. */
function longSql(v: string): string {
  return `(jsonb_typeof(${v}) = 'string' AND length(${v} #>> '{}') > ${SORT_PREFIX})`;
}

/**
 * What one JSON column of one partition of the rows table has, as the ends of `CREATE INDEX` and
 * `CREATE STATISTICS` statements (`ON <table> ...`, `... FROM <table>`): its sort index, with
 * exactly the expressions a list sorts by and its equality and null conditions test; the (mostly
 * empty) index of its long strings, which tells a list whether the sort index's order is exact;
 * and statistics of the value and its type, by which the planner estimates the conditions on the
 * value itself (ranges, `ne`, `like`, ...).
 */
export function columnIndexesSql(v: string): { sort: string; long: string; statistics: string } {
  return {
    sort: `(${rankSql(v, NULLS_HIGH)}, ${numberSql(v)}, ${textSql(v, true)}, id)`,
    long: `(id) WHERE ${longSql(v)}`,
    statistics: `(${v}), (jsonb_typeof(${v}))`,
  };
}

/** A JSONB value's parts: the engine's rank (`nulls` for null), then its number and its text. */
function jsonParts(v: string, nulls: number, form: Form): Component[] {
  const rankOf = (value: CursorValue) => (value === null ? nulls : typeof value === 'boolean' ? 1 : typeof value === 'number' ? 2 : 3);
  return [
    { sql: rankSql(v, nulls), at: (value) => String(rankOf(value)) },
    { sql: numberSql(v), at: (value, params) => (typeof value === 'number' ? params.add(String(value), 'numeric') : value === true ? '1' : '0') },
    {
      sql: textSql(v, form === 'fast'),
      at: (value, params) => (typeof value !== 'string' ? "''" : form === 'fast' ? `left(${params.add(value, 'text')}, ${SORT_PREFIX})` : params.add(value, 'text')),
    },
  ];
}

function sortKey(key: OrderKey, i: number, fieldSql: FieldSqlOf, form: Form): SortKey {
  const field = fieldSql(key.field);
  const of = (cursor: CursorPosition) => cursor.values[i] ?? null;
  if (field.kind === 'json') return { parts: jsonParts(field.sql, nullRank(key, NULLS_HIGH), form), desc: key.desc, of };
  const c = field.type === 'text' ? `${field.sql} COLLATE "C"` : field.sql;
  const own = (value: CursorValue, params: Params) => columnParam(params, field, value as Scalar);
  if (field.notNull) return { parts: [{ sql: c, at: own }], desc: key.desc, of };
  const nulls = nullRank(key, 1);
  const parts: Component[] = [
    { sql: `(CASE WHEN ${field.sql} IS NULL THEN ${nulls} ELSE ${1 - nulls} END)`, at: (value) => String(value === null ? nulls : 1 - nulls) },
    { sql: `COALESCE(${c}, ${ZERO[field.type]})`, at: (value, params) => (value === null ? ZERO[field.type] : own(value, params)) },
  ];
  return { parts, desc: key.desc, of };
}

/** The sort of a list: each key's parts, then the id in the direction of the last key. */
function sortKeys(order: OrderKey[], fieldSql: FieldSqlOf, form: Form, options: ListOptions): SortKey[] {
  const id = fieldSql('id');
  const byId = (desc: boolean): SortKey => ({ parts: [{ sql: `${id.sql} COLLATE "C"`, at: (value, params) => params.add(value as string, 'text') }], desc, of: (cursor) => cursor.id });
  const keys: SortKey[] = [];
  for (const [i, key] of order.entries()) {
    // Ids are unique: the keys after created_at, as the id, never decide.
    if (key.field === 'created_at' && options.idsInCreationOrder) return [...keys, byId(key.desc)];
    keys.push(sortKey(key, i, fieldSql, form));
  }
  return [...keys, byId(order[order.length - 1]?.desc ?? false)];
}

function orderOf(keys: SortKey[]): string {
  return keys.flatMap((key) => key.parts.map((p) => `${p.sql} ${key.desc ? 'DESC' : 'ASC'}`)).join(', ');
}

/**
 * Rows strictly after a cursor in the list's order: a row comparison per run of keys in one
 * direction, `(k1, k2, id) > ($1, $2, $3)` when every key goes the same way.
 */
function afterCursorSql(keys: SortKey[], cursor: CursorPosition, params: Params): string {
  const runs: Array<{ desc: boolean; sql: string[]; at: string[] }> = [];
  for (const key of keys) {
    let run = runs[runs.length - 1];
    if (!run || run.desc !== key.desc) runs.push((run = { desc: key.desc, sql: [], at: [] }));
    for (const part of key.parts) {
      run.sql.push(part.sql);
      run.at.push(part.at(key.of(cursor), params));
    }
  }
  const row = (xs: string[]) => `(${xs.join(', ')})`;
  const alternatives = runs.map((run, i) => {
    const equalBefore = runs.slice(0, i).map((r) => `${row(r.sql)} = ${row(r.at)}`);
    return [...equalBefore, `${row(run.sql)} ${run.desc ? '<' : '>'} ${row(run.at)}`].join(' AND ');
  });
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.map((a) => `(${a})`).join(' OR ')})`;
}

/** A tsquery lexeme in the input syntax: quoted, with `'` doubled and `\` escaped. */
function lexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * `q` on the row's tsvector: every term, as MiniSearch reads it, must start a word of the row
 * (a prefix query). The in-memory search also takes words within a typo's distance of a term of
 * more than 4 letters without digits; this does not.
 */
export function searchSql(terms: string[], params: Params): string | null {
  const words = [...new Set(terms.flatMap(queryTerms))];
  if (words.length === 0) return null;
  return `search @@ ${params.add(words.map((w) => `${lexeme(w)}:*`).join(' & '), 'tsquery')}`;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(' ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The words of a row's searchable values, as the in-memory search index takes them (its `rowText`, tokenized). */
export function searchWords(values: unknown[]): string[] {
  return [...new Set(queryTerms(values.map(text).join('\n')))];
}

/** The tsvector of some words (from `searchWords`), for an insert or update. */
export function searchVectorSql(words: string[], params: Params): string {
  return `array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(${params.add(JSON.stringify(words), 'jsonb')})))`;
}

/** The WHERE clause of a table's rows under a filter and `q`. */
function whereSql(tableId: string, filter: FilterNode | null, terms: string[], fieldSql: FieldSqlOf, params: Params): string {
  const where = [`table_id = ${params.add(tableId, 'text')}`];
  if (filter) where.push(filterToSql(filter, fieldSql, params));
  const search = searchSql(terms, params);
  if (search) where.push(search);
  return where.join(' AND ');
}

// bigint comes back as text; float8 holds millisecond times exactly.
const ROW_COLUMNS = 'id, created_at::float8 AS created_ms, updated_at::float8 AS updated_ms, batch_id, confidence, needs_review, "values"';

/** A row as the list query returns it. */
export interface SqlRow {
  id: string;
  created_at: number;
  updated_at: number;
  batch_id: string | null;
  confidence: number | null;
  needs_review: boolean;
  values: Record<string, unknown>;
}

/** The stored columns a list reads and sorts by, before `ROW_COLUMNS` shapes them. */
const STORED_COLUMNS = 'id, created_at, updated_at, batch_id, confidence, needs_review, "values"';

/**
 * One page of a table's rows, and one row more to tell whether more follow.
 *
 * A list sorted by JSON columns has two forms in one statement, of which only one runs: while the
 * table holds no string longer than SORT_PREFIX in those columns (the usual case, told by their
 * long-string indexes), `fast`, whose sort the columns' sort indexes give; otherwise `exact`, which
 * sorts the rows it finds. Both give the rows in the same order; the outer sort of the one page
 * makes that order the statement's own.
 *
 * An offset page of any other list first finds the page's ids and then reads their rows, so the
 * rows passed over are not read when the index holds all the list needs (the primary key for the
 * order of creation).
 */
export function listSql(tableId: string, query: ListQuery, fieldSql: FieldSqlOf, options: ListOptions = {}): Statement {
  const params = new Params();
  const offset = query.cursor ? 0 : ((query.page ?? 1) - 1) * query.limit;
  const page = () => `LIMIT ${params.add(String(query.limit + 1), 'int')} OFFSET ${params.add(String(offset), 'int')}`;
  const form = (kind: Form) => {
    const keys = sortKeys(query.order, fieldSql, kind, options);
    let where = whereSql(tableId, query.filter, query.terms, fieldSql, params);
    if (query.cursor) where += ` AND ${afterCursorSql(keys, query.cursor, params)}`;
    return { where, order: orderOf(keys), keys };
  };
  const exact = form('exact');
  // The keys before the id: created_at, when it sorts as the id, ends them.
  const jsonFields = query.order.slice(0, exact.keys.length - 1).map((k) => fieldSql(k.field)).filter((f) => f.kind === 'json');
  // A cursor taken at a long string resumes by the whole string.
  const longCursor = query.cursor?.values.some((v) => typeof v === 'string' && [...v].length > SORT_PREFIX);
  if (jsonFields.length === 0 || longCursor) {
    const text =
      offset === 0 || jsonFields.length > 0
        ? `SELECT ${ROW_COLUMNS} FROM rows WHERE ${exact.where} ORDER BY ${exact.order} ${page()}`
        : `SELECT ${ROW_COLUMNS} FROM rows WHERE table_id = ${params.add(tableId, 'text')} AND id IN ` +
          `(SELECT id FROM rows WHERE ${exact.where} ORDER BY ${exact.order} ${page()}) ORDER BY ${exact.order}`;
    return { text, params: params.values };
  }
  const fast = form('fast');
  const long = () => `(${jsonFields.map((f) => `EXISTS (SELECT FROM rows WHERE table_id = ${params.add(tableId, 'text')} AND ${longSql(f.sql)})`).join(' OR ')})`;
  // Each form's test stands outside its page's query (whose LIMIT keeps it there), so the form not
  // taken is never started: not even the parallel workers its plan may have.
  const text =
    `SELECT ${ROW_COLUMNS} FROM (` +
    `SELECT * FROM (SELECT ${STORED_COLUMNS} FROM rows WHERE ${fast.where} ORDER BY ${fast.order} ${page()}) AS fast WHERE NOT ${long()} UNION ALL ` +
    `SELECT * FROM (SELECT ${STORED_COLUMNS} FROM rows WHERE ${exact.where} ORDER BY ${exact.order} ${page()}) AS exact WHERE ${long()}` +
    `) AS rows ORDER BY ${exact.order} LIMIT ${params.add(String(query.limit + 1), 'int')}`;
  return { text, params: params.values };
}

/** Reading a row's fields by name, as the engine reads them (for cursors). */
export const sqlRowAccess: Access<SqlRow> = {
  get: (row, field) => (Object.hasOwn(SYSTEM_COLUMNS, field) ? row[field as keyof SqlRow] : (row.values[field] ?? null)),
  id: (row) => row.id,
};

/** The page from the rows `listSql` returned. */
export function pageOfRows(result: Array<Omit<SqlRow, 'created_at' | 'updated_at'> & { created_ms: number; updated_ms: number }>, query: ListQuery, codec: CursorCodec): Page<SqlRow> {
  const rows = result.map(({ created_ms, updated_ms, ...row }) => ({ ...row, created_at: created_ms, updated_at: updated_ms }));
  return pageFrom(rows.slice(0, query.limit), rows.length > query.limit, query, sqlRowAccess, codec);
}

/** A number field as exact numeric text: numbers only, as the engine's sums and extremes take them. */
function numericSql(field: FieldSql): string {
  if (field.kind === 'json') return `(CASE WHEN jsonb_typeof(${field.sql}) = 'number' THEN (${field.sql})::numeric END)`;
  // float8 to numeric keeps 15 digits; its text is the shortest exact form, as a JS number's.
  return field.type === 'float8' ? `(${field.sql})::text::numeric` : `(${field.sql})::numeric`;
}

/** A JSONB value as the index keys it (long strings by their start), for distinct counts. */
function indexKeySql(e: string): string {
  return `(CASE WHEN jsonb_typeof(${e}) = 'string' THEN to_jsonb(left(${e} #>> '{}', ${INDEX_PREFIX})) ELSE ${e} END)`;
}

/** A field's value as a JSONB array of what a distinct count counts: a list's elements, else the value itself. */
function countedSql(field: FieldSql, listsByValue: boolean): string {
  if (field.kind === 'column') return `jsonb_build_array(to_jsonb(${field.sql}))`;
  const v = field.sql;
  return listsByValue || field.multi ? `(CASE WHEN jsonb_typeof(${v}) = 'array' THEN ${v} ELSE jsonb_build_array(${v}) END)` : `jsonb_build_array(${v})`;
}

/**
 * The aggregates over the rows a filter matches, as one row of text columns a0, a1, ... (sums
 * and averages as exact sum and count, finished by `aggregateResult`).
 */
export function aggregateSql(tableId: string, aggs: Agg[], filter: FilterNode | null, fieldSql: FieldSqlOf): Statement {
  const params = new Params();
  const where = whereSql(tableId, filter, [], fieldSql, params);
  const columns = aggs.map((agg, i) => {
    const out = `a${i}`;
    if (agg.field === null) return `count(*)::text AS ${out}`;
    const field = fieldSql(agg.field);
    switch (agg.fn) {
      case 'count':
        return `count(${field.sql})::text AS ${out}`;
      case 'sum':
      case 'avg':
        return `sum(${numericSql(field)})::text || ' ' || count(${numericSql(field)})::text AS ${out}`;
      case 'min':
      case 'max':
        return `${agg.fn}(${numericSql(field)})::text AS ${out}`;
      case 'count_distinct':
        // Unqualified columns in the subquery read its own FROM: the matched rows.
        return `(SELECT count(DISTINCT ${indexKeySql('elem')}) FROM matched, jsonb_array_elements(${countedSql(field, true)}) AS d(elem) WHERE ${field.sql} IS NOT NULL)::text AS ${out}`;
    }
  });
  // The matched rows are kept for the distinct counts' subqueries only: without those the aggregates read the rows once as they are found.
  const text = aggs.some((agg) => agg.fn === 'count_distinct')
    ? `WITH matched AS MATERIALIZED (SELECT * FROM rows WHERE ${where}) SELECT ${columns.join(', ')} FROM matched`
    : `SELECT ${columns.join(', ')} FROM rows WHERE ${where}`;
  return { text, params: params.values };
}

/** Mean of an exact decimal sum as the engine's DecimalSum computes it: the sum's units over count × 10^decimals. */
function meanOf(sumText: string, count: number): number {
  const [whole, fraction = ''] = sumText.replace('-', '').split('.');
  const units = Number(`${whole}${fraction}`) * (sumText.startsWith('-') ? -1 : 1);
  return Number.isSafeInteger(units) ? units / (count * 10 ** fraction.length) : Number(sumText) / count;
}

/** The aggregates' answer as the API gives it, from `aggregateSql`'s row; `digits` gives a currency column's minor unit. */
export function aggregateResult(aggs: Agg[], row: Record<string, string | null>, digits: (field: string) => number | undefined): Record<string, number | null> {
  return Object.fromEntries(
    aggs.map((agg, i) => {
      const value = row[`a${i}`] ?? null;
      const places = agg.field === null ? undefined : digits(agg.field);
      if (value === null) return [agg.alias, null];
      if (agg.fn === 'sum' || agg.fn === 'avg') {
        const [sum, count] = value.split(' ') as [string, string];
        const n = agg.fn === 'sum' ? Number(sum) : meanOf(sum, Number(count));
        return [agg.alias, places === undefined ? n : roundTo(n, places)];
      }
      return [agg.alias, Number(value)];
    }),
  );
}

/**
 * A column's most frequent values (nulls left out; a list-valued column's elements), keyed as the
 * index keys them, optionally only those whose text holds `q` (lowercased), most frequent first,
 * ties by value in the engine's order. Rows come as `value` (JSONB) and `n`.
 */
export function distinctSql(tableId: string, columnId: string, limit: number, q: string | undefined, fieldSql: FieldSqlOf): Statement {
  const params = new Params();
  const field = fieldSql(columnId);
  const needle = q?.trim().toLowerCase() || null;
  // Lowercased by Unicode's rules, as toLowerCase does, whatever the database's own locale.
  const wanted = needle === null ? '' : `WHERE strpos(lower((k #>> '{}') COLLATE "und-x-icu"), ${params.add(needle, 'text')}) > 0`;
  const where = `WHERE table_id = ${params.add(tableId, 'text')} AND ${field.sql} IS NOT NULL`;
  // A column of single values counts each row's value as it is, without making it a list first.
  const keys =
    field.kind === 'json' && !field.multi
      ? `SELECT ${indexKeySql(field.sql)} AS k FROM rows ${where}`
      : `SELECT ${indexKeySql('elem')} AS k FROM rows, jsonb_array_elements(${countedSql(field, false)}) AS d(elem) ${where}`;
  const text =
    `SELECT k AS value, count(*)::int AS n FROM (${keys}) s ${wanted} GROUP BY k ` +
    `ORDER BY n DESC, ${jsonParts('k', 0, 'exact').map((p) => `${p.sql} ASC`).join(', ')} LIMIT ${params.add(String(limit), 'int')}`;
  return { text, params: params.values };
}
