import { ApiError } from './api';
import { COLUMN_TYPES, type Column, type ColumnType } from '../../src/domain/columns';

/** The messages of a 400 about one draft column (`columns_json[2].name`, `columns_json[2]`, ...). */
function columnMessages(error: unknown, index: number): string[] {
  if (!(error instanceof ApiError)) return [];
  const prefix = `columns_json[${index}]`;
  return Object.entries(error.fields)
    .filter(([path]) => path === prefix || path.startsWith(`${prefix}.`))
    .map(([path, list]) => `${path === prefix ? '' : `${path.slice(prefix.length + 1)}: `}${list[0]?.message ?? ''}`);
}

/** Draft columns for a table being created (scratch or from a sample): name, type, options. */
export function DraftColumns({ columns, onChange, error }: { columns: Column[]; onChange: (columns: Column[]) => void; error?: unknown }) {
  const update = (index: number, patch: Partial<Column>) => onChange(columns.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  return (
    <fieldset class="draft-columns">
      <legend>Columns</legend>
      {error instanceof ApiError && error.fieldMessage('columns_json') ? (
        <small class="field-error" role="alert">
          {error.fieldMessage('columns_json')}
        </small>
      ) : null}
      {columns.map((column, index) => (
        <div class="draft-column" data-index={index}>
          <label>
            <span class="sr-only">Column {index + 1} name</span>
            <input value={column.name} placeholder="Name" onInput={(e) => update(index, { name: e.currentTarget.value, id: toId(e.currentTarget.value) })} />
          </label>
          <label>
            <span class="sr-only">Column {index + 1} type</span>
            <select value={column.type} onChange={(e) => update(index, { type: e.currentTarget.value as ColumnType })}>
              {COLUMN_TYPES.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
          </label>
          {column.type === 'enum' || column.type === 'multi_select' ? (
            <label>
              <span class="sr-only">Column {index + 1} options</span>
              <input value={(column.options ?? []).join(', ')} placeholder="Options, comma separated" onInput={(e) => update(index, { options: splitList(e.currentTarget.value) })} />
            </label>
          ) : null}
          <button type="button" class="link" aria-label={`Remove column ${column.name || index + 1}`} onClick={() => onChange(columns.filter((_, i) => i !== index))}>
            Remove
          </button>
          {columnMessages(error, index).map((message) => (
            <small class="field-error" role="alert">
              {message}
            </small>
          ))}
        </div>
      ))}
      <button type="button" onClick={() => onChange([...columns, { id: '', name: '', type: 'string', required: false }])}>
        Add column
      </button>
    </fieldset>
  );
}

export function toId(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 36);
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
