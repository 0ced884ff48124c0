import { useEffect, useState } from 'preact/hooks';
import { api, query } from './api';
import { display } from './grid';
import type { Table } from '../../src/domain/tables';
import type { Example, List } from './types';
import { Alert, when } from './ui';

const PAGE_SIZE = 50;

/**
 * The table's examples: each corrected document, the values a person gave or confirmed in it.
 * `version` changes when a fix elsewhere on the page may have added or changed one.
 */
export function ExamplesPanel({ project, table, version, onChanged }: { project: string; table: Table; version: number; onChanged?: () => void }) {
  const path = `/v1/projects/${project}/tables/${table.id}/examples`;
  const [examples, setExamples] = useState<Example[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = async (after: string | null = null) => {
    try {
      const page = await api.get<List<'examples', Example>>(`${path}${query({ limit: PAGE_SIZE, cursor: after })}`);
      setExamples((current) => (after ? [...(current ?? []), ...page.examples] : page.examples));
      setCursor(page.hasMore ? page.nextCursor : null);
      setError(null);
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    void load();
  }, [path, version]);

  const remove = async (example: Example) => {
    setNotice(null);
    try {
      await api.del(`${path}/${example.id}`);
      setNotice(`Removed the example of ${example.file_name ?? example.row_id}.`);
      await load();
      onChanged?.();
    } catch (err) {
      setError(err);
    }
  };
  const removeAll = async () => {
    if (!confirm('Remove every example of this table? Its rows keep their values; new documents are then read by the general model alone.')) return;
    setNotice(null);
    try {
      const { deleted } = await api.del<{ deleted: number }>(path);
      setNotice(`Removed ${deleted} example(s).`);
      await load();
      onChanged?.();
    } catch (err) {
      setError(err);
    }
  };
  const columnName = (id: string) => table.columns_json.find((c) => c.id === id)?.name ?? id;

  return (
    <section class="panel examples" aria-labelledby="examples-title">
      <div class="toolbar">
        <h3 id="examples-title">Examples</h3>
        <button type="button" class="danger" onClick={removeAll} disabled={!examples?.length}>
          Remove all
        </button>
      </div>
      <p class="muted">A fixed row becomes an example: the next documents of its issuer are read the way it was corrected.</p>
      <Alert error={error} />
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {examples === null ? (
        <p class="muted">Loading…</p>
      ) : examples.length === 0 ? (
        <p class="muted">No examples yet: fix a row of a document to make one.</p>
      ) : (
        <ul class="example-list" aria-label="Examples">
          {examples.map((example) => (
            <li key={example.id} data-example-id={example.id}>
              <div class="toolbar">
                <strong>{example.file_name ?? example.row_id}</strong>
                <span class="muted">{when(example.updated_at)}</span>
                <button type="button" class="link danger" onClick={() => remove(example)} aria-label={`Remove the example of ${example.file_name ?? example.row_id}`}>
                  Remove
                </button>
              </div>
              <dl class="example-fields">
                {example.fields.map((field) => (
                  <div class={field.corrected ? 'corrected' : ''}>
                    <dt>{columnName(field.column_id)}</dt>
                    <dd>
                      {display(field.value) || <span class="muted">empty</span>}
                      {field.corrected ? <span class="tag">corrected</span> : null}
                      {field.page === null && display(field.value) ? <span class="muted"> (not found on the page)</span> : null}
                    </dd>
                  </div>
                ))}
              </dl>
            </li>
          ))}
        </ul>
      )}
      {cursor ? (
        <button type="button" class="link" onClick={() => load(cursor)}>
          More examples
        </button>
      ) : null}
    </section>
  );
}
