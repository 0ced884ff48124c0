import { useState } from 'preact/hooks';
import { ApiError, call } from './api';
import { splitList } from './columns-editor';
import { COLUMN_TYPES, type Column, type ColumnType } from '../../src/domain/columns';
import type { Table } from '../../src/domain/tables';
import { Field, FormAlert } from './ui';

type Reply = { body: Table; etag: string | null };

/**
 * Column changes send If-Match with the ETag of the table as loaded, so a change made elsewhere
 * meanwhile is a 409 shown to the user instead of being silently overwritten.
 */
export function ColumnsPanel({ path, table, etag, onChanged, onReload }: { path: string; table: Table; etag: string | null; onChanged: (table: Table, etag: string | null) => void; onReload: () => void }) {
  const [error, setError] = useState<{ index: number | 'new' | 'order'; error: unknown } | null>(null);
  const [dragged, setDragged] = useState<number | null>(null);

  const send = async (where: number | 'new' | 'order', method: string, url: string, body?: unknown) => {
    setError(null);
    try {
      const reply: Reply = await call<Table>(method, url, body, etag ? { 'if-match': etag } : {});
      onChanged(reply.body, reply.etag);
      return true;
    } catch (err) {
      setError({ index: where, error: err });
      return false;
    }
  };
  const move = (from: number, to: number) => {
    if (to < 0 || to >= table.columns_json.length || from === to) return;
    const order = table.columns_json.map((c) => c.id);
    const [id] = order.splice(from, 1);
    order.splice(to, 0, id!);
    void send('order', 'PUT', `${path}/columns/order`, { order });
  };
  const errorFor = (where: number | 'new' | 'order') => (error && error.index === where ? error.error : null);

  return (
    <div class="columns">
      <ConflictOrError error={errorFor('order')} onReload={onReload} />
      <ol class="column-list" aria-label="Columns (drag, or use Move up and Move down, to reorder)">
        {table.columns_json.map((column, index) => (
          <li
            key={column.id}
            draggable
            onDragStart={() => setDragged(index)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={() => {
              if (dragged !== null) move(dragged, index);
              setDragged(null);
            }}
          >
            <ColumnForm
              key={`${column.id}:${etag ?? ''}`}
              column={column}
              error={errorFor(index)}
              onReload={onReload}
              onSave={(patch) => send(index, 'PATCH', `${path}/columns/${column.id}`, patch)}
              onRemove={() => send(index, 'DELETE', `${path}/columns/${column.id}`)}
              onMove={(delta) => move(index, index + delta)}
            />
          </li>
        ))}
      </ol>
      <h3>Add a column</h3>
      <ColumnForm
        key={table.columns_json.length}
        column={{ id: '', name: '', type: 'string', required: false }}
        error={errorFor('new')}
        onReload={onReload}
        onSave={(patch) => send('new', 'POST', `${path}/columns`, patch)}
      />
    </div>
  );
}

const FORM_FIELDS = ['name', 'type', 'options', 'currency_code', 'description'];

function ConflictOrError({ error, onReload, beside = () => false }: { error: unknown; onReload: () => void; beside?: (path: string) => boolean }) {
  if (!error) return null;
  if (error instanceof ApiError && error.status === 409)
    return (
      <p class="alert" role="alert">
        409 conflict: the table's columns were changed elsewhere since this page loaded them. Nothing was saved.{' '}
        <button class="link" onClick={onReload}>
          Reload
        </button>
      </p>
    );
  if (error instanceof ApiError && Object.keys(error.fields).length) return <FormAlert error={error} beside={beside} />;
  return (
    <p class="alert" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

function ColumnForm({
  column,
  error,
  onSave,
  onRemove,
  onMove,
  onReload,
}: {
  column: Column;
  error: unknown;
  onSave: (patch: Partial<Column>) => Promise<boolean>;
  onRemove?: () => void;
  onMove?: (delta: number) => void;
  onReload: () => void;
}) {
  const [draft, setDraft] = useState<Column>(column);
  const isNew = !column.id;
  const set = (patch: Partial<Column>) => setDraft({ ...draft, ...patch });
  const fieldError = (name: string) => (error instanceof ApiError ? error.fieldMessage(name) : undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    const patch: Partial<Column> = { name: draft.name, type: draft.type, required: draft.required, description: draft.description || null };
    if (draft.type === 'enum' || draft.type === 'multi_select') patch.options = draft.options ?? [];
    if (draft.type === 'currency' && draft.currency_code) patch.currency_code = draft.currency_code;
    if (!isNew && draft.searchable !== undefined) patch.searchable = draft.searchable;
    if (isNew && (await onSave(patch))) setDraft(column);
    else if (!isNew) await onSave(patch);
  };
  const label = isNew ? 'New column' : `Column ${column.name}`;
  return (
    <form class="column-form" onSubmit={submit} aria-label={label}>
      <Field label="Name" error={fieldError('name')}>
        <input name="name" value={draft.name} required onInput={(e) => set({ name: e.currentTarget.value })} />
      </Field>
      <Field label="Type" error={fieldError('type')}>
        <select name="type" value={draft.type} onChange={(e) => set({ type: e.currentTarget.value as ColumnType })}>
          {COLUMN_TYPES.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </Field>
      {draft.type === 'enum' || draft.type === 'multi_select' ? (
        <Field label="Options" hint="Comma separated" error={fieldError('options') ?? optionsError(error)}>
          <input name="options" value={(draft.options ?? []).join(', ')} onInput={(e) => set({ options: splitList(e.currentTarget.value) })} />
        </Field>
      ) : null}
      {draft.type === 'currency' ? (
        <Field label="Currency" error={fieldError('currency_code')}>
          <input name="currency_code" maxLength={3} value={draft.currency_code ?? ''} onInput={(e) => set({ currency_code: e.currentTarget.value.toUpperCase() })} />
        </Field>
      ) : null}
      <Field label="Description" error={fieldError('description')}>
        <input name="description" value={draft.description ?? ''} onInput={(e) => set({ description: e.currentTarget.value })} />
      </Field>
      <label class="check">
        <input type="checkbox" checked={draft.required} onChange={(e) => set({ required: e.currentTarget.checked })} /> Required
      </label>
      {!isNew ? (
        <label class="check">
          <input type="checkbox" checked={draft.searchable ?? ['string', 'text', 'email', 'url', 'enum'].includes(draft.type)} onChange={(e) => set({ searchable: e.currentTarget.checked })} /> Searchable
        </label>
      ) : null}
      <div class="actions">
        <button type="submit">{isNew ? 'Add column' : 'Save'}</button>
        {onMove ? (
          <>
            <button type="button" class="link" onClick={() => onMove(-1)} aria-label={`Move ${column.name} up`}>
              Move up
            </button>
            <button type="button" class="link" onClick={() => onMove(1)} aria-label={`Move ${column.name} down`}>
              Move down
            </button>
          </>
        ) : null}
        {onRemove ? (
          <button type="button" class="link danger" onClick={onRemove} aria-label={`Remove column ${column.name}`}>
            Remove
          </button>
        ) : null}
      </div>
      <ConflictOrError error={error} onReload={onReload} beside={(path) => FORM_FIELDS.includes(path) || /^options\[\d+\]$/.test(path)} />
    </form>
  );
}

function optionsError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const path = Object.keys(error.fields).find((p) => /^options\[\d+\]$/.test(p));
  return path ? `${path}: ${error.fieldMessage(path)}` : undefined;
}
