/** How a table's columns appear to the list engine: the fields rows can be filtered and ordered by. */
import { fieldTypeOf, isSearchable, type Column } from '../domain/columns';
import type { ListSpec } from '../query/fields';

export function rowListSpec(columns: Column[]): ListSpec {
  const fields: ListSpec['fields'] = {
    id: { type: 'string', sortable: true, filterable: true },
    created_at: { type: 'number', sortable: true, filterable: true },
    updated_at: { type: 'number', sortable: true, filterable: true },
    batch_id: { type: 'string', sortable: true, filterable: true },
    confidence: { type: 'number', sortable: true, filterable: true },
    needs_review: { type: 'boolean', sortable: true, filterable: true },
  };
  for (const column of columns) {
    const type = fieldTypeOf(column.type);
    fields[column.id] = { type, sortable: type !== 'array', filterable: true };
  }
  return { resource: 'rows', fields, searchable: columns.filter(isSearchable).map((c) => c.id) };
}
