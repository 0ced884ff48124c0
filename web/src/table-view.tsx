import { useEffect, useState } from 'preact/hooks';
import { api, call, download, query } from './api';
import { ColumnsPanel } from './columns';
import { ExtractPanel } from './extract';
import { RowsGrid } from './grid';
import { ReviewView } from './review';
import { TableSettings } from './table-settings';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/domain/exports';
import type { Table } from '../../src/domain/tables';
import type { Batch, BatchDetail, List } from './types';
import { Alert, when } from './ui';

const TABS = [
  ['rows', 'Rows'],
  ['review', 'Review'],
  ['extract', 'Extract'],
  ['columns', 'Columns'],
  ['batches', 'Batches'],
  ['export', 'Export'],
  ['settings', 'Settings'],
] as const;

export function TableView({ project, tableId, tab }: { project: string; tableId: string; tab: string }) {
  const path = `/v1/projects/${project}/tables/${tableId}`;
  const [table, setTable] = useState<Table | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  // The grid refreshes the table (its row count) after its own writes without being rebuilt, so
  // its messages and scroll position stay; any other reload rebuilds it.
  const load = (rebuildGrid = true) =>
    call<Table>('GET', path)
      .then(({ body, etag }) => {
        setTable(body);
        setEtag(etag);
        if (rebuildGrid) setVersion((v) => v + 1);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, [path]);

  if (error) return <Alert error={error} />;
  if (!table) return <p class="muted">Loading…</p>;
  const tabName = tab.split('/')[0];
  return (
    <section aria-labelledby="table-title">
      <p>
        <a href="#/tables">← Tables</a>
      </p>
      <h2 id="table-title">{table.name}</h2>
      <nav class="tabs" aria-label="Table sections">
        {TABS.map(([id, label]) => (
          <a href={`#/tables/${table.id}/${id}`} aria-current={tabName === id ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {tabName === 'extract' ? (
        <ExtractPanel project={project} table={table} onDone={() => load()} />
      ) : tabName === 'columns' ? (
        <ColumnsPanel path={path} table={table} etag={etag} onChanged={(t, e) => { setTable(t); setEtag(e); }} onReload={() => load()} />
      ) : tabName === 'batches' ? (
        <BatchesPanel project={project} table={table} selected={location.hash.split('/')[4]} />
      ) : tabName === 'export' ? (
        <ExportPanel project={project} table={table} />
      ) : tabName === 'review' ? (
        <ReviewView project={project} table={table} batchId={location.hash.split('/')[4]} />
      ) : tabName === 'settings' ? (
        <TableSettings path={path} table={table} onChanged={(t, e) => { setTable(t); setEtag(e); }} />
      ) : (
        <RowsGrid key={version} project={project} table={table} onTableChanged={() => load(false)} />
      )}
    </section>
  );
}

/** The table's batches with their files (name, status, rows, error); downloads only for batches that wrote rows. */
function BatchesPanel({ project, table, selected }: { project: string; table: Table; selected?: string }) {
  const [batches, setBatches] = useState<BatchDetail[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    // The list leaves out each batch's files; a batch's own record has them.
    api
      .get<List<'batches', Batch>>(`/v1/projects/${project}/batches${query({ limit: 50, filter: `table_id.eq.${table.id}` })}`)
      .then((list) => Promise.all(list.batches.map((b) => api.get<BatchDetail>(`/v1/projects/${project}/batches/${b.id}`))))
      .then(setBatches)
      .catch(setError);
  }, [table.id]);
  const get = (batch: Batch, format: ExportFormat) =>
    download(`/v1/projects/${project}/batches/${batch.id}/download/${format}`, `${batch.id}.${format}`).catch(setError);
  return (
    <div>
      <Alert error={error} />
      {batches === null ? (
        error ? null : <p class="muted">Loading…</p>
      ) : batches.length === 0 ? (
        <p class="muted">No extractions into this table yet.</p>
      ) : (
        <table class="list batches">
          <thead>
            <tr>
              <th scope="col">Batch</th>
              <th scope="col">Status</th>
              <th scope="col">Rows</th>
              <th scope="col">Files</th>
              <th scope="col">Started</th>
              <th scope="col">Review and downloads</th>
            </tr>
          </thead>
          <tbody>
            {batches.map((b) => (
              <tr class={b.id === selected ? 'highlight' : ''} aria-current={b.id === selected ? 'true' : undefined} data-batch-id={b.id}>
                <td>
                  <code>{b.id}</code>
                </td>
                <td>{b.status}</td>
                <td class="num">{b.total_rows ?? ''}</td>
                <td>
                  <ul class="batch-files" aria-label={`Files of batch ${b.id}`}>
                    {b.extractions.map((x) => (
                      <li class={x.status} data-file={x.file_name}>
                        <strong>{x.file_name}</strong>: {x.status}
                        {x.row_count !== null ? `, ${x.row_count} rows` : ''}
                        {x.error ? <span class="file-error"> — {x.error}</span> : null}
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{when(b.created_at)}</td>
                <td>
                  {(b.total_rows ?? 0) > 0 ? (
                    <div class="actions">
                      <a href={`#/tables/${table.id}/review/${b.id}`} aria-label={`Review batch ${b.id}`}>
                        Review
                      </a>
                      {EXPORT_FORMATS.map((f) => (
                        <button class="link" onClick={() => get(b, f)} aria-label={`Download batch ${b.id} as ${f.toUpperCase()}`}>
                          {f.toUpperCase()}
                        </button>
                      ))}
                    </div>
                  ) : (
                    <span class="muted">no rows</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

interface ExportRecord {
  id: string;
  status: 'processing' | 'complete' | 'failed';
  row_count?: number;
  error?: string;
}

function ExportPanel({ project, table }: { project: string; table: Table }) {
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [filter, setFilter] = useState('');
  const [state, setState] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const start = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      let record = await api.get<ExportRecord>(`/v1/projects/${project}/tables/${table.id}/export${query({ format, filter })}`);
      setState('Exporting…');
      while (record.status === 'processing') {
        await new Promise((resolve) => setTimeout(resolve, 300));
        record = await api.get<ExportRecord>(`/v1/projects/${project}/exports/${record.id}`);
      }
      if (record.status === 'failed') throw new Error(`export failed: ${record.error ?? 'unknown reason'}`);
      const bytes = await download(`/v1/projects/${project}/exports/${record.id}/download`, `${table.slug}.${format}`);
      setState(`Export complete: ${record.row_count ?? 0} rows, ${bytes.toLocaleString()} bytes downloaded.`);
    } catch (err) {
      setState(null);
      setError(err);
    }
  };
  return (
    <form class="panel" onSubmit={start} aria-label="Export">
      <label class="field">
        <span>Format</span>
        <select name="format" value={format} onChange={(e) => setFormat(e.currentTarget.value as ExportFormat)}>
          {EXPORT_FORMATS.map((f) => (
            <option value={f}>{f.toUpperCase()}</option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>Filter (optional)</span>
        <input value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <button type="submit">Export</button>
      {state ? (
        <p class="notice" role="status">
          {state}
        </p>
      ) : null}
      <Alert error={error} />
    </form>
  );
}
