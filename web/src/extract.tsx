import { useState } from 'preact/hooks';
import { ApiError, readEvents, session } from './api';
import type { Table } from '../../src/domain/tables';
import { Alert } from './ui';

interface FileState {
  name: string;
  status: 'waiting' | 'reading' | 'done' | 'failed';
  rows: number;
  pages?: string;
  error?: string;
}

const LIVE_ROWS_SHOWN = 200;

/** Drop or paste documents; rows and per-file progress arrive over the extract-stream SSE answer. */
export function ExtractPanel({ project, table, onDone }: { project: string; table: Table; onDone: () => void }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [rows, setRows] = useState<Record<string, unknown>[]>([]);
  const [text, setText] = useState('');
  const [over, setOver] = useState(false);
  const [running, setRunning] = useState(false);
  const [summary, setSummary] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const run = async (form: FormData, names: string[]) => {
    setError(null);
    setSummary(null);
    setRows([]);
    const states: FileState[] = names.map((name) => ({ name, status: 'waiting', rows: 0 }));
    setFiles(states);
    setRunning(true);
    const update = (name: string, patch: Partial<FileState>) => {
      const state = states.find((s) => s.name === name);
      if (state) Object.assign(state, patch);
      setFiles([...states]);
    };
    try {
      const response = await fetch(`/v1/projects/${project}/tables/${table.id}/extract-stream`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${session.key ?? ''}` },
        body: form,
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new ApiError(response.status, body.error_key ?? 'error', body.message ?? `${response.status}`, body.fields ?? {});
      }
      for await (const { event, data } of readEvents(response)) {
        const payload = data as Record<string, any>;
        if (event === 'file') update(payload.file_name, { status: 'reading' });
        else if (event === 'rows') {
          update(payload.file_name, { status: 'done', rows: payload.rows.length });
          setRows((current) => [...current, ...payload.rows].slice(0, LIVE_ROWS_SHOWN));
        } else if (event === 'file_error') update(payload.file_name, { status: 'failed', error: payload.error });
        else if (event === 'progress' && payload.file_name && payload.page_count) update(payload.file_name, { pages: `page ${payload.pages_done} of ${payload.page_count}` });
        else if (event === 'done') {
          const result = payload.result ?? {};
          setSummary(`Batch ${payload.status}: ${payload.total_rows} rows from ${payload.success_count} file(s)${payload.fail_count ? `, ${payload.fail_count} failed` : ''}; ${result.created ?? 0} created, ${result.merged ?? 0} merged, ${result.skipped ?? 0} skipped.`);
        } else if (event === 'error') throw new ApiError(payload.status ?? 500, payload.error_key ?? 'error', payload.message ?? 'extraction failed');
      }
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  const sendFiles = (list: FileList | null) => {
    if (!list || !list.length) return;
    const form = new FormData();
    for (const file of list) form.append('file', file, file.name);
    void run(form, [...list].map((f) => f.name));
  };
  const sendText = (event: Event) => {
    event.preventDefault();
    const form = new FormData();
    form.append('text', text);
    void run(form, ['text.txt']);
  };

  const columns = table.columns_json;
  return (
    <div class="extract">
      <div
        class={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          sendFiles(e.dataTransfer?.files ?? null);
        }}
      >
        <p>Drop documents here (PDF, CSV, XLSX, DOCX, HTML, e-mail, images…)</p>
        <label class="button">
          Choose files
          <input class="sr-only" type="file" name="files" multiple disabled={running} onChange={(e) => sendFiles(e.currentTarget.files)} />
        </label>
      </div>
      <form onSubmit={sendText} class="paste">
        <label class="field">
          <span>Or paste text</span>
          <textarea name="text" rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={running || !text.trim()}>
          Extract text
        </button>
      </form>
      <Alert error={error} />
      {files.length ? (
        <ul class="file-progress" aria-label="Files" aria-live="polite">
          {files.map((f) => (
            <li class={f.status} data-file={f.name}>
              <strong>{f.name}</strong>: {f.status}
              {f.pages && f.status === 'reading' ? ` (${f.pages})` : ''}
              {f.status === 'done' ? `, ${f.rows} rows` : ''}
              {f.error ? ` — ${f.error}` : ''}
            </li>
          ))}
        </ul>
      ) : null}
      {summary ? (
        <p class="notice" role="status">
          {summary} <a href={`#/tables/${table.id}/rows`}>See the rows</a>
        </p>
      ) : null}
      {rows.length ? (
        <div class="scroll-x">
          <table class="list live-rows" aria-label="Extracted rows">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th scope="col">{c.name}</th>
                ))}
                <th scope="col">Confidence</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  {columns.map((c) => (
                    <td>{row[c.id] === null || row[c.id] === undefined ? '' : String(row[c.id])}</td>
                  ))}
                  <td class={row._needs_review ? 'num review' : 'num'} title={row._needs_review ? 'Low confidence: check this row' : undefined}>
                    {typeof row._confidence === 'number' ? `${Math.round(row._confidence * 100)}%` : ''}
                    {row._needs_review ? ' · review' : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
