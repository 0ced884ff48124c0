/**
 * The rules a table's set of columns must keep, whichever way it is changed (create, add, update,
 * reorder, remove, duplicate, templates): unique ids and names, no system field ids, options for
 * choice columns, merge columns and default sort that name existing columns.
 */
import { SYSTEM_FIELDS, type Column } from '../domain/columns';
import { ApiError, invalidFields, invalidInput } from '../lib/errors';
import { lookupIn } from '../query/list';
import { parseOrder } from '../query/order';
import { rowListSpec } from './row-fields';

export const MAX_COLUMNS = 100;

export function columnNotFound(id: string): ApiError {
  return new ApiError(404, 'column_not_found', `Column ${id} not found in this table`);
}

export type ColumnInput = Partial<Column> & { id?: string; name: string };

type Problem = { path: string; message: string; error_key?: string };

/** `columns_json[2]` + `name`; an empty base is the body itself (single-column changes). */
const sub = (base: string, key: string) => (base ? `${base}.${key}` : key);

/** Fills the defaults a stored column always has and keeps only the fields a column has. */
export function normalizeColumn(input: ColumnInput & { id: string }): Column {
  const column: Column = {
    id: input.id,
    name: input.name.trim(),
    type: input.type ?? 'string',
    required: input.required ?? false,
  };
  if (input.currency_code !== undefined) column.currency_code = input.currency_code.toUpperCase();
  if (input.default !== undefined) column.default = input.default;
  if (input.description !== undefined) column.description = input.description;
  if (input.instruction !== undefined) column.instruction = input.instruction;
  if (input.options !== undefined) column.options = input.options;
  if (input.searchable !== undefined) column.searchable = input.searchable;
  return column;
}

/** Problems of one column on its own, with paths under `path`. */
function columnProblems(column: Column, path: string): Problem[] {
  const problems: Problem[] = [];
  if (!/^[A-Za-z0-9_-]{1,36}$/.test(column.id)) {
    problems.push({ path: sub(path, 'id'), message: 'must be 1 to 36 letters, digits, _ or -' });
  }
  if ((SYSTEM_FIELDS as readonly string[]).includes(column.id)) {
    problems.push({ path: sub(path, 'id'), message: `"${column.id}" is a system field of every row`, error_key: 'reserved' });
  }
  if (column.name === '') problems.push({ path: sub(path, 'name'), message: 'must not be blank' });
  if (column.currency_code !== undefined && !/^[A-Z]{3}$/.test(column.currency_code)) {
    problems.push({ path: sub(path, 'currency_code'), message: 'must be a 3-letter currency code such as USD' });
  }
  if (column.type === 'enum' || column.type === 'multi_select') {
    if (!column.options?.length) problems.push({ path: sub(path, 'options'), message: `${column.type} columns need at least one option` });
  }
  if (column.options) {
    const seen = new Set<string>();
    column.options.forEach((option, i) => {
      if (seen.has(option)) problems.push({ path: sub(path, `options[${i}]`), message: `"${option}" is listed twice`, error_key: 'duplicate' });
      seen.add(option);
    });
  }
  return problems;
}

/**
 * Checks a whole column list; `pathOf(i)` names column i in errors (`columns_json[i]` on create,
 * the column's own field names on a single-column change).
 */
export function checkColumns(columns: Column[], pathOf: (index: number) => string = (i) => `columns_json[${i}]`): void {
  const problems: Problem[] = [];
  if (columns.length < 1 || columns.length > MAX_COLUMNS) {
    problems.push({ path: 'columns_json', message: `a table has 1 to ${MAX_COLUMNS} columns` });
  }
  const ids = new Map<string, number>();
  const names = new Map<string, number>();
  columns.forEach((column, i) => {
    const path = pathOf(i);
    problems.push(...columnProblems(column, path));
    if (ids.has(column.id)) problems.push({ path: sub(path, 'id'), message: `another column already has id "${column.id}"`, error_key: 'duplicate' });
    ids.set(column.id, i);
    const lower = column.name.toLowerCase();
    if (names.has(lower)) problems.push({ path: sub(path, 'name'), message: `another column is already named "${column.name}"`, error_key: 'duplicate' });
    names.set(lower, i);
  });
  // Writes may key values by name or id, so a name must not be another column's id.
  columns.forEach((column, i) => {
    const other = ids.get(column.name);
    if (other !== undefined && other !== i) {
      problems.push({ path: sub(pathOf(i), 'name'), message: `"${column.name}" is the id of another column`, error_key: 'duplicate' });
    }
  });
  if (problems.length) throw invalidFields(problems);
}

/** Resolves merge columns given by id or name to ids; every one must exist. */
export function resolveMergeColumns(merge: string[] | null | undefined, columns: Column[]): string[] | null {
  if (merge === null || merge === undefined) return null;
  const problems: Problem[] = [];
  const ids = merge.map((ref, i) => {
    const column = columns.find((c) => c.id === ref) ?? columns.find((c) => c.name.toLowerCase() === ref.toLowerCase());
    if (!column) problems.push({ path: `merge_columns_json[${i}]`, message: `no column "${ref}" in this table`, error_key: 'column_not_found' });
    return column?.id ?? ref;
  });
  if (ids.length === 0) problems.push({ path: 'merge_columns_json', message: 'needs at least one column, or null' });
  if (problems.length) throw invalidFields(problems);
  return [...new Set(ids)];
}

/** A default sort must be an order the rows list accepts. */
export function checkDefaultSort(defaultSort: string | null | undefined, columns: Column[]): string | null {
  if (defaultSort === null || defaultSort === undefined || defaultSort.trim() === '') return null;
  const spec = rowListSpec(columns);
  try {
    parseOrder(defaultSort, lookupIn(spec));
  } catch (error) {
    const message = (error as Error).message.replace(/^order: /, '');
    throw invalidInput(`default_sort: ${message}`, [{ path: 'default_sort', message }]);
  }
  return defaultSort.trim();
}
