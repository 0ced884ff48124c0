import { useState } from 'preact/hooks';
import { ApiError, call } from './api';
import { INSERT_MODES, STRICTNESS_LEVELS, type InsertMode, type Strictness, type Table } from '../../src/domain/tables';
import { Field, FormAlert, fieldErrorOf } from './ui';

const STRICTNESS_HINTS: Record<Strictness, string> = {
  strict: 'Leaves out rows with a value that does not fit its column.',
  balanced: 'Keeps such rows without the value; leaves out rows missing a required value.',
  flexible: 'Also guesses ambiguous numbers and keeps what it cannot convert as written.',
};

const INSERT_HINTS: Record<InsertMode, string> = {
  append: 'Adds every extracted row.',
  dedup: 'Skips rows equal to an existing one on the merge columns (all columns when none are chosen).',
  merge: 'Updates the row matching on the merge columns with the extracted values.',
  replace: "A batch's rows replace the table's.",
};

/** The table's name, strictness, insert mode and merge columns (PATCH of the table). */
export function TableSettings({ path, table, onChanged }: { path: string; table: Table; onChanged: (table: Table, etag: string | null) => void }) {
  const [name, setName] = useState(table.name);
  const [strictness, setStrictness] = useState<Strictness>(table.strictness);
  const [insertMode, setInsertMode] = useState<InsertMode>(table.insert_mode);
  const [merge, setMerge] = useState<string[]>(table.merge_columns_json ?? []);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    setBusy(true);
    try {
      const body = { name, strictness, insert_mode: insertMode, merge_columns_json: merge.length ? merge : null };
      const reply = await call<Table>('PATCH', path, body);
      onChanged(reply.body, reply.etag);
      setMerge(reply.body.merge_columns_json ?? []);
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  // A merge column the table no longer has (removed meanwhile) stays listed, so its error has a place.
  const mergeChoices = [...table.columns_json.map((c) => ({ id: c.id, name: c.name })), ...merge.filter((id) => !table.columns_json.some((c) => c.id === id)).map((id) => ({ id, name: id }))];
  const mergeError =
    fieldErrorOf(error, 'merge_columns_json') ??
    (error instanceof ApiError
      ? Object.keys(error.fields)
          .filter((p) => p.startsWith('merge_columns_json['))
          .map((p) => error.fieldMessage(p))
          .join('; ') || undefined
      : undefined);
  const beside = (p: string) => ['name', 'strictness', 'insert_mode'].includes(p) || p.startsWith('merge_columns_json');

  return (
    <form class="panel settings" onSubmit={submit} aria-label="Table settings">
      <Field label="Name" error={fieldErrorOf(error, 'name')}>
        <input name="table-name" value={name} required maxLength={128} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field label="Strictness" hint={STRICTNESS_HINTS[strictness]} error={fieldErrorOf(error, 'strictness')}>
        <select name="strictness" value={strictness} onChange={(e) => setStrictness(e.currentTarget.value as Strictness)}>
          {STRICTNESS_LEVELS.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
      </Field>
      <Field label="Insert mode" hint={INSERT_HINTS[insertMode]} error={fieldErrorOf(error, 'insert_mode')}>
        <select name="insert-mode" value={insertMode} onChange={(e) => setInsertMode(e.currentTarget.value as InsertMode)}>
          {INSERT_MODES.map((m) => (
            <option value={m}>{m}</option>
          ))}
        </select>
      </Field>
      <fieldset aria-describedby="merge-help">
        <legend>Merge columns</legend>
        <p id="merge-help" class="muted">
          The columns that say two rows are the same one, for dedup and merge.
        </p>
        {mergeChoices.map((c) => (
          <label class="check">
            <input
              type="checkbox"
              name="merge-column"
              value={c.id}
              checked={merge.includes(c.id)}
              onChange={(e) => setMerge(e.currentTarget.checked ? [...merge, c.id] : merge.filter((id) => id !== c.id))}
            />{' '}
            {c.name}
          </label>
        ))}
        {mergeError ? (
          <small class="field-error" role="alert" data-field="merge_columns_json">
            {mergeError}
          </small>
        ) : null}
      </fieldset>
      <FormAlert error={error} beside={beside} />
      {saved ? (
        <p class="notice" role="status">
          Settings saved.
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        Save settings
      </button>
    </form>
  );
}
