import { useState } from 'preact/hooks';
import { api } from './api';
import type { Table } from '../../src/domain/tables';
import type { Evaluation } from './types';
import { Alert } from './ui';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** The table's accuracy over its own corrected documents (POST evaluate), beside the previous measure. */
export function AccuracyPanel({ project, table, onOpenRow }: { project: string; table: Table; onOpenRow?: (rowId: string) => void }) {
  const [result, setResult] = useState<Evaluation | null>(null);
  const [previous, setPrevious] = useState<Evaluation | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const measure = async () => {
    setBusy(true);
    setError(null);
    try {
      const next = await api.post<Evaluation>(`/v1/projects/${project}/tables/${table.id}/evaluate`);
      if (result) setPrevious(result);
      setResult(next);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const columnName = (id: string) => table.columns_json.find((c) => c.id === id)?.name ?? id;

  return (
    <section class="panel accuracy" aria-labelledby="accuracy-title">
      <div class="toolbar">
        <h3 id="accuracy-title">Accuracy</h3>
        <button type="button" onClick={measure} disabled={busy}>
          {busy ? 'Measuring…' : 'Measure'}
        </button>
      </div>
      <p class="muted">Reads the table's corrected documents again (each without what it taught itself) and compares with the corrections.</p>
      <Alert error={error} />
      {result ? (
        result.documents === 0 ? (
          <p class="muted" role="status" data-f1="none">
            No corrected documents yet: fix a row of a document, then measure.
          </p>
        ) : (
          <>
            <p role="status" class="scores" data-f1={result.f1 ?? 'none'}>
              <strong>F1 {percent(result.f1)}</strong> · precision {percent(result.precision)} · recall {percent(result.recall)} over {result.documents} document(s)
              {previous && previous.f1 !== null ? <span class="muted"> (was {percent(previous.f1)})</span> : previous ? <span class="muted"> (no corrected documents before)</span> : null}
              <span class="muted"> · {result.duration_ms} ms</span>
            </p>
            <table class="list" aria-label="Accuracy per column">
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">F1</th>
                  <th scope="col">Precision</th>
                  <th scope="col">Recall</th>
                  <th scope="col">Values</th>
                </tr>
              </thead>
              <tbody>
                {result.columns.map((c) => (
                  <tr>
                    <td>{c.name}</td>
                    <td class="num">{percent(c.f1)}</td>
                    <td class="num">{percent(c.precision)}</td>
                    <td class="num">{percent(c.recall)}</td>
                    <td class="num">{c.support}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {result.worst.length ? (
              <>
                <h4>Worst documents</h4>
                <ol class="worst" aria-label="Worst documents">
                  {result.worst.map((w) => (
                    <li>
                      {onOpenRow ? (
                        <button type="button" class="link" onClick={() => onOpenRow(w.row_id)}>
                          {w.file_name ?? w.row_id}
                        </button>
                      ) : (
                        <span>{w.file_name ?? w.row_id}</span>
                      )}{' '}
                      F1 {percent(w.f1)}
                      {w.wrong.length ? ` · wrong: ${w.wrong.map(columnName).join(', ')}` : ''}
                    </li>
                  ))}
                </ol>
              </>
            ) : null}
          </>
        )
      ) : (
        <p class="muted">Not measured yet.</p>
      )}
    </section>
  );
}
