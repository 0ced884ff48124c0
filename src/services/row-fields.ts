/** How a table's columns appear to the list engine: the fields rows can be filtered and ordered by. */
import type { FieldType, ListSpec } from '../query/fields';
import type { Column, ColumnType } from '../store/tables.store';

/** System fields every row has; no column may take these ids. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at', 'batch_id', 'confidence'] as const;

const FIELD_TYPE: Record<ColumnType, FieldType> = {
  array: 'array',
  multi_select: 'array',
  boolean: 'boolean',
  currency: 'number',
  number: 'number',
  date: 'string',
  email: 'string',
  enum: 'string',
  string: 'string',
  text: 'string',
  url: 'string',
};

export function fieldTypeOf(type: ColumnType): FieldType {
  return FIELD_TYPE[type];
}

/** Text-like columns are searched by `q` unless a column says otherwise. */
export function isSearchable(column: Column): boolean {
  return column.searchable ?? ['text', 'string', 'email', 'url', 'enum'].includes(column.type);
}

export function rowListSpec(columns: Column[]): ListSpec {
  const fields: ListSpec['fields'] = {
    id: { type: 'string', sortable: true, filterable: true },
    created_at: { type: 'number', sortable: true, filterable: true },
    updated_at: { type: 'number', sortable: true, filterable: true },
    batch_id: { type: 'string', sortable: true, filterable: true },
    confidence: { type: 'number', sortable: true, filterable: true },
  };
  for (const column of columns) {
    const type = fieldTypeOf(column.type);
    fields[column.id] = { type, sortable: type !== 'array', filterable: true };
  }
  return { resource: 'rows', fields, searchable: columns.filter(isSearchable).map((c) => c.id) };
}
