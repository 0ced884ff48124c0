import { useEffect, useState } from 'preact/hooks';
import { api, call, query } from './api';
import { DraftColumns } from './columns-editor';
import { columnsFromSuggestion, type SuggestedColumn } from './draft';
import type { Column } from '../../src/domain/columns';
import type { Table } from '../../src/domain/tables';
import type { List, Template } from './types';
import { Alert, Field, FormAlert, fieldErrorOf, navigate, when } from './ui';

export function TablesPage({ project }: { project: string }) {
  const base = `/v1/projects/${project}/tables`;
  const [tables, setTables] = useState<Table[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [undo, setUndo] = useState<Table | null>(null);
  const [creating, setCreating] = useState(false);

  const load = () =>
    api
      .get<List<'tables', Table>>(`${base}${query({ limit: 100, order: 'updated_at.desc' })}`)
      .then((list) => setTables(list.tables))
      .catch(setError);
  useEffect(() => {
    void load();
  }, [project]);

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const rename = (table: Table) => {
    const name = prompt('New name', table.name);
    if (name && name !== table.name) void act(() => api.patch(`${base}/${table.id}`, { name }));
  };
  const duplicate = (table: Table) => {
    const name = prompt('Name of the copy', `${table.name} copy`);
    // The API needs the copy's slug; a taken one is a 409 shown as the error.
    if (name) void act(() => api.post(`${base}/${table.id}/duplicate`, { name, slug: slugify(name) }));
  };
  const remove = (table: Table) =>
    act(async () => {
      await api.del(`${base}/${table.id}`);
      setUndo(table);
    });
  const restore = (table: Table) =>
    act(async () => {
      await api.post(`${base}/${table.id}/restore`, {});
      setUndo(null);
    });

  return (
    <section aria-labelledby="tables-title">
      <div class="toolbar">
        <h2 id="tables-title">Tables</h2>
        <button onClick={() => setCreating(!creating)} aria-expanded={creating}>
          New table
        </button>
      </div>
      {undo ? (
        <p class="notice" role="status">
          Deleted “{undo.name}”. It can be restored for 72 hours.{' '}
          <button class="link" onClick={() => restore(undo)}>
            Undo
          </button>
        </p>
      ) : null}
      <Alert error={error} />
      {creating ? <CreateTable project={project} onCreated={(t) => navigate(`#/tables/${t.id}`)} /> : null}
      {tables === null ? (
        <p class="muted">Loading…</p>
      ) : tables.length === 0 ? (
        <p class="muted">No tables yet.</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Rows</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tables.map((table) => (
              <tr>
                <td>
                  <a href={`#/tables/${table.id}`}>{table.name}</a>
                </td>
                <td class="num">{table.row_count.toLocaleString()}</td>
                <td>{when(table.last_used_at)}</td>
                <td class="actions">
                  <button class="link" onClick={() => rename(table)} aria-label={`Rename ${table.name}`}>
                    Rename
                  </button>
                  <button class="link" onClick={() => duplicate(table)} aria-label={`Duplicate ${table.name}`}>
                    Duplicate
                  </button>
                  <button class="link danger" onClick={() => remove(table)} aria-label={`Delete ${table.name}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type Source = 'scratch' | 'template' | 'sample';

function CreateTable({ project, onCreated }: { project: string; onCreated: (table: Table) => void }) {
  const [source, setSource] = useState<Source>('template');
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<Column[]>([{ id: 'name', name: 'Name', type: 'string', required: false }]);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [templateId, setTemplateId] = useState('');
  const [sampleText, setSampleText] = useState('');
  const [sampleFile, setSampleFile] = useState<File | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (source !== 'template' || templates.length) return;
    api
      .get<List<'templates', Template>>(`/v1/projects/${project}/table-templates${query({ limit: 100 })}`)
      .then((list) => {
        setTemplates(list.templates);
        setTemplateId(list.templates[0]?.id ?? '');
      })
      .catch(setError);
  }, [source]);
  const template = templates.find((t) => t.id === templateId);

  const suggest = async () => {
    setError(null);
    setBusy(true);
    try {
      const form = new FormData();
      if (sampleFile) form.append('file', sampleFile);
      else form.append('text', sampleText);
      const { body } = await call<{ columns: SuggestedColumn[] }>('POST', `/v1/projects/${project}/suggest-schema`, form);
      setColumns(columnsFromSuggestion(body.columns));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const table =
        source === 'template'
          ? await api.post<Table>(`/v1/projects/${project}/table-templates/${templateId}/use`, { name: name || template?.name })
          : await api.post<Table>(`/v1/projects/${project}/tables`, { name, columns_json: columns });
      onCreated(table);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (path: string) => fieldErrorOf(error, path);
  // Template tables send only their name; the other sources also send the draft columns.
  const beside = (path: string) => path === 'name' || (source !== 'template' && /^columns_json(\[\d+\]|$)/.test(path));

  return (
    <form class="panel" onSubmit={create} aria-label="New table">
      <div role="radiogroup" aria-label="Start from" class="segmented">
        {(['scratch', 'template', 'sample'] as Source[]).map((s) => (
          <label>
            <input type="radio" name="source" value={s} checked={source === s} onChange={() => setSource(s)} />
            {s === 'scratch' ? 'Scratch' : s === 'template' ? 'Template' : 'Sample document'}
          </label>
        ))}
      </div>
      <Field label="Table name" error={fieldError('name')}>
        <input name="table-name" value={name} required={source !== 'template'} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      {source === 'template' ? (
        <>
          <Field label="Template">
            <select name="template" value={templateId} onChange={(e) => setTemplateId(e.currentTarget.value)}>
              {templates.map((t) => (
                <option value={t.id}>
                  {t.category}: {t.name}
                </option>
              ))}
            </select>
          </Field>
          {template ? (
            <div class="template-preview">
              <p class="muted">{template.description}</p>
              <ul aria-label="Template columns">
                {template.columns_json.map((c) => (
                  <li>
                    <strong>{c.name}</strong> <code>{c.type}</code> {c.description}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </>
      ) : null}
      {source === 'sample' ? (
        <div class="sample">
          <Field label="Sample document">
            <input type="file" onChange={(e) => setSampleFile(e.currentTarget.files?.[0] ?? null)} />
          </Field>
          <Field label="or paste a sample">
            <textarea rows={4} value={sampleText} onInput={(e) => setSampleText(e.currentTarget.value)} />
          </Field>
          <button type="button" onClick={suggest} disabled={busy || (!sampleFile && !sampleText.trim())}>
            Suggest columns
          </button>
        </div>
      ) : null}
      {source !== 'template' ? <DraftColumns columns={columns} onChange={setColumns} error={error} /> : null}
      <FormAlert error={error} beside={beside} />
      <button type="submit" disabled={busy}>
        Create table
      </button>
    </form>
  );
}

/** The slug the server would derive from a name: accents dropped, lowercase letters and digits joined by single dashes. */
export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50)
      .replace(/-+$/, '') || 'table'
  );
}
