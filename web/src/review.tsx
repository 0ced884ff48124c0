import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { AccuracyPanel } from './accuracy';
import { ApiError, api, call, query, session } from './api';
import { ExamplesPanel } from './examples';
import { CellEditor, display, formatCell, parseInput } from './grid';
import type { Column } from '../../src/domain/columns';
import type { Table } from '../../src/domain/tables';
import type { List, Provenance, Row } from './types';
import { Alert } from './ui';

const PAGE_SIZE = 100;

/** Page images by extraction and page: the rows of one document share them, and they are fetched once. */
class PageImages {
  private urls = new Map<string, Promise<string>>();
  constructor(readonly rowsPath: string) {}
  get(rowId: string, extractionId: string, page: number): Promise<string> {
    const key = `${extractionId}:${page}`;
    let url = this.urls.get(key);
    if (!url) {
      // An <img> cannot send the key, so the image is fetched and shown from a blob URL.
      url = fetch(`${this.rowsPath}/${rowId}/source/pages/${page}`, { headers: { authorization: `ApiKey ${session.key ?? ''}` } }).then(async (response) => {
        if (!response.ok) throw new ApiError(response.status, 'page_image_failed', `the page image could not be loaded (${response.status})`);
        return URL.createObjectURL(await response.blob());
      });
      url.catch(() => this.urls.delete(key));
      this.urls.set(key, url);
    }
    return url;
  }
  release() {
    for (const url of this.urls.values()) url.then(URL.revokeObjectURL, () => undefined);
    this.urls.clear();
  }
}

/**
 * The review of a table's rows, or of one batch's: least confident rows first; the selected row's
 * fields beside its document page, with the boxes of the words each value came from. A fix is one
 * keyboard edit saved with If-Match, and the server keeps it as an example of the table.
 */
export function ReviewView({ project, table, batchId }: { project: string; table: Table; batchId?: string }) {
  const rowsPath = `/v1/projects/${project}/tables/${table.id}/rows`;
  const [rows, setRows] = useState<Row[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [examplesVersion, setExamplesVersion] = useState(0);
  const images = useRef<PageImages | null>(null);
  if (!images.current || images.current.rowsPath !== rowsPath) images.current = new PageImages(rowsPath);
  useEffect(() => () => images.current?.release(), []);

  const load = async (after: string | null = null) => {
    try {
      const page = await api.get<List<'rows', Row>>(`${rowsPath}${query({ limit: PAGE_SIZE, cursor: after, order: 'confidence.asc', filter: batchId ? `batch_id.eq.${batchId}` : undefined })}`);
      setRows((current) => (after ? [...(current ?? []), ...page.rows] : page.rows));
      setCursor(page.hasMore ? page.nextCursor : null);
      if (!after) setSelectedId((current) => current ?? page.rows[0]?.id ?? null);
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    setRows(null);
    setSelectedId(null);
    void load();
  }, [rowsPath, batchId]);

  /** A row named elsewhere (the worst documents) may not be loaded yet: it is fetched and put first. */
  const openRow = async (rowId: string) => {
    if (!rows?.some((r) => r.id === rowId)) {
      try {
        const row = await api.get<Row>(`${rowsPath}/${rowId}`);
        setRows((current) => [row, ...(current ?? [])]);
      } catch (err) {
        setError(err);
        return;
      }
    }
    setSelectedId(rowId);
  };
  const saved = (row: Row) => {
    setRows((current) => (current ?? []).map((r) => (r.id === row.id ? row : r)));
    setExamplesVersion((v) => v + 1);
  };

  const selected = rows?.find((r) => r.id === selectedId) ?? null;
  const summary = (row: Row) =>
    table.columns_json
      .map((c) => display(row[c.id]))
      .filter(Boolean)
      .slice(0, 2)
      .join(' · ') || row.id;
  const moveInQueue = (event: KeyboardEvent, index: number) => {
    const next = event.key === 'ArrowDown' ? index + 1 : event.key === 'ArrowUp' ? index - 1 : -1;
    if (next < 0 || !rows || next >= rows.length) return;
    event.preventDefault();
    setSelectedId(rows[next]!.id);
    const buttons = (event.currentTarget as HTMLElement).closest('ol')?.querySelectorAll('button');
    (buttons?.[next] as HTMLElement | undefined)?.focus();
  };

  return (
    <div class="review-view">
      <p class="muted">
        {batchId ? (
          <>
            Rows of batch <code>{batchId}</code>, least confident first. <a href={`#/tables/${table.id}/review`}>Review every row of the table</a>
          </>
        ) : (
          'Rows of the table, least confident first.'
        )}
      </p>
      <Alert error={error} />
      {rows === null ? (
        <p class="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p class="muted">No rows to review.</p>
      ) : (
        <div class="review-layout" key="layout">
          <nav class="review-queue" aria-label="Rows to review">
            <ol>
              {rows.map((row, index) => (
                <li key={row.id}>
                  <button
                    type="button"
                    class={`queue-item ${row.needs_review ? 'needs-review' : ''}`}
                    aria-current={row.id === selectedId ? 'true' : undefined}
                    data-row-id={row.id}
                    onClick={() => setSelectedId(row.id)}
                    onKeyDown={(e) => moveInQueue(e, index)}
                  >
                    <span class="queue-summary">{summary(row)}</span>
                    <span class={row.needs_review ? 'num review' : 'num muted'}>
                      {row.confidence === null ? '' : `${Math.round(row.confidence * 100)}%`}
                      {row.needs_review ? ' · review' : ''}
                    </span>
                  </button>
                </li>
              ))}
            </ol>
            {cursor ? (
              <button type="button" class="link" onClick={() => load(cursor)}>
                More rows
              </button>
            ) : null}
          </nav>
          {selected ? <RowReview key={selected.id} rowsPath={rowsPath} table={table} row={selected} images={images.current} onSaved={saved} /> : null}
        </div>
      )}
      {/* Keyed: while rows load, the panels must stay the same components (and keep their measures). */}
      <div class="review-panels" key="panels">
        <ExamplesPanel project={project} table={table} version={examplesVersion} />
        <AccuracyPanel project={project} table={table} onOpenRow={openRow} />
      </div>
    </div>
  );
}

type FieldMessage = { text: string; conflict: boolean };

function RowReview({ rowsPath, table, row, images, onSaved }: { rowsPath: string; table: Table; row: Row; images: PageImages; onSaved: (row: Row) => void }) {
  const [current, setCurrent] = useState<Row>(row);
  const [provenance, setProvenance] = useState<Provenance | null>(null);
  const [sourceMissing, setSourceMissing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [focused, setFocused] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [messages, setMessages] = useState<Record<string, FieldMessage>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const list = useRef<HTMLDivElement>(null);
  // The field whose editor Enter or Escape closed gets the focus back, as in the grid.
  const refocus = useRef<string | null>(null);

  const loadProvenance = async (keepPage: boolean) => {
    try {
      const body = await api.get<Provenance>(`${rowsPath}/${row.id}/provenance`);
      setProvenance(body);
      setSourceMissing(false);
      if (!keepPage) setPage(body.fields[0]?.page ?? body.pages[0]?.number ?? 1);
    } catch (err) {
      if (err instanceof ApiError && err.errorKey === 'row_source_not_found') setSourceMissing(true);
      else setError(err);
    }
  };
  useEffect(() => {
    void loadProvenance(false);
  }, [row.id]);
  useLayoutEffect(() => {
    if (!refocus.current || editing) return;
    const field = list.current?.querySelector(`[data-column="${refocus.current}"]`) as HTMLElement | null;
    refocus.current = null;
    field?.focus();
  });

  const boxOf = (columnId: string) => provenance?.fields.find((f) => f.column_id === columnId);
  const focus = (columnId: string) => {
    setFocused(columnId);
    const field = boxOf(columnId);
    if (field && field.page !== page) setPage(field.page);
  };
  const close = (column: Column, byKey: boolean) => {
    if (byKey) refocus.current = column.id;
    setEditing(null);
  };
  const save = async (column: Column, text: string, byKey: boolean) => {
    close(column, byKey);
    setNotice(null);
    const { [column.id]: _, ...others } = messages;
    setMessages(others);
    try {
      // The row's ETag as loaded: a change made elsewhere since is a 409, not overwritten.
      const reply = await call<Row>('PATCH', `${rowsPath}/${current.id}`, { [column.id]: parseInput(column, text) }, { 'if-match': `"${current.id}.${current.updated_at}"` });
      setCurrent(reply.body);
      onSaved(reply.body);
      setNotice(`Saved ${column.name}: the row is now an example of this table.`);
      void loadProvenance(true);
    } catch (err) {
      const message: FieldMessage =
        err instanceof ApiError && err.status === 409
          ? { text: '409 conflict: this row was changed elsewhere since it was loaded. Nothing was saved.', conflict: true }
          : { text: err instanceof ApiError ? err.fieldMessage(column.id) ?? err.message : String(err), conflict: false };
      setMessages({ ...others, [column.id]: message });
    }
  };
  const reloadRow = async (column: Column) => {
    try {
      const fresh = await api.get<Row>(`${rowsPath}/${current.id}`);
      setCurrent(fresh);
      onSaved(fresh);
      const { [column.id]: _, ...others } = messages;
      setMessages(others);
    } catch (err) {
      setError(err);
    }
  };
  const move = (event: KeyboardEvent, index: number) => {
    const next = event.key === 'ArrowDown' ? index + 1 : event.key === 'ArrowUp' ? index - 1 : -1;
    const column = table.columns_json[next];
    if (!column) return;
    event.preventDefault();
    (list.current?.querySelector(`[data-column="${column.id}"]`) as HTMLElement | null)?.focus();
  };

  return (
    <>
      <section class="review-fields" aria-label="Fields of the row">
        <h3 class="review-file">{provenance?.file_name ?? (sourceMissing ? 'No source document' : '…')}</h3>
        <p class="muted hint">Enter edits a field, Enter saves it, Escape cancels; the arrow keys move between fields.</p>
        <div ref={list}>
          {table.columns_json.map((column, index) => {
            const field = boxOf(column.id);
            const message = messages[column.id];
            return editing === column.id ? (
              <div class="review-field editing">
                <span class="field-name">{column.name}</span>
                <CellEditor column={column} value={display(current[column.id])} onSave={(text, byKey) => save(column, text, byKey)} onCancel={(byKey) => close(column, byKey)} />
              </div>
            ) : (
              <div
                class={`review-field ${focused === column.id ? 'focused' : ''} ${message ? 'invalid' : ''}`}
                tabIndex={0}
                data-column={column.id}
                aria-label={`${column.name}: ${formatCell(column, current[column.id]) || 'empty'}${field ? `, on page ${field.page}` : ''}. Press Enter to edit.`}
                aria-invalid={message ? 'true' : undefined}
                onFocus={() => focus(column.id)}
                onClick={() => focus(column.id)}
                onDblClick={() => setEditing(column.id)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === 'F2') {
                    e.preventDefault();
                    setEditing(column.id);
                  } else move(e, index);
                }}
              >
                <span class="field-name">{column.name}</span>
                <span class={`field-value ${column.type}`}>{formatCell(column, current[column.id]) || <span class="muted">empty</span>}</span>
                <span class="field-where muted">{field ? `p. ${field.page}` : provenance && display(current[column.id]) ? 'not on the page' : ''}</span>
                {message ? (
                  <small class="field-error" role="alert">
                    {message.text}{' '}
                    {message.conflict ? (
                      <button type="button" class="link" onClick={() => reloadRow(column)}>
                        Reload the row
                      </button>
                    ) : null}
                  </small>
                ) : null}
              </div>
            );
          })}
        </div>
        {notice ? (
          <p class="notice" role="status">
            {notice}
          </p>
        ) : null}
        <p class="muted">
          Confidence {current.confidence === null ? '–' : `${Math.round(current.confidence * 100)}%`}
          {current.needs_review ? ' · needs review' : ''}
        </p>
      </section>
      <section class="review-page" aria-label="Document page">
        <Alert error={error} />
        {sourceMissing ? (
          <p class="muted">This row came from no document file, so there is no page to show.</p>
        ) : provenance === null ? (
          <p class="muted">Loading…</p>
        ) : provenance.pages.length === 0 ? (
          <p class="muted">{provenance.file_name} has no pages to show (a file without pages, such as CSV).</p>
        ) : (
          <PageView provenance={provenance} page={page} onPage={setPage} focused={focused} images={images} table={table} onPickField={(id) => (list.current?.querySelector(`[data-column="${id}"]`) as HTMLElement | null)?.focus()} />
        )}
      </section>
    </>
  );
}

function PageView({
  provenance,
  page,
  onPage,
  focused,
  images,
  table,
  onPickField,
}: {
  provenance: Provenance;
  page: number;
  onPage: (page: number) => void;
  focused: string | null;
  images: PageImages;
  table: Table;
  onPickField: (columnId: string) => void;
}) {
  const info = provenance.pages.find((p) => p.number === page) ?? provenance.pages[0]!;
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setUrl(null);
    setError(null);
    if (!info.image) return;
    let live = true;
    images.get(provenance.row_id, provenance.extraction_id, info.number).then(
      (u) => live && setUrl(u),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [provenance.extraction_id, info.number]);

  const boxes = provenance.fields.filter((f) => f.page === info.number);
  const columnName = (id: string) => table.columns_json.find((c) => c.id === id)?.name ?? id;
  const pct = (value: number, of: number) => `${((value / of) * 100).toFixed(3)}%`;
  return (
    <figure class="page-view">
      {provenance.pages.length > 1 ? (
        <nav class="page-switcher" aria-label="Pages">
          <button type="button" class="link" disabled={info.number <= provenance.pages[0]!.number} onClick={() => onPage(info.number - 1)} aria-label="Previous page">
            ‹
          </button>
          {provenance.pages.map((p) => (
            <button type="button" class="link" aria-pressed={p.number === info.number ? 'true' : 'false'} onClick={() => onPage(p.number)} aria-label={`Page ${p.number}`}>
              {p.number}
            </button>
          ))}
          <button type="button" class="link" disabled={info.number >= provenance.pages[provenance.pages.length - 1]!.number} onClick={() => onPage(info.number + 1)} aria-label="Next page">
            ›
          </button>
        </nav>
      ) : null}
      {/* As wide as the column allows, but never taller than most of the window. */}
      <div class="page-sheet" style={{ aspectRatio: `${info.width} / ${info.height}`, width: `min(100%, calc(70vh * ${(info.width / info.height).toFixed(4)}))` }} data-page={info.number}>
        {url ? <img src={url} alt={`Page ${info.number} of ${provenance.file_name}`} /> : null}
        {!info.image ? <span class="page-note muted">This page cannot be rendered; the boxes show where the words are.</span> : null}
        {boxes.map((f) => (
          <span
            class={`box ${f.column_id === focused ? 'focused' : ''}`}
            data-column={f.column_id}
            title={`${columnName(f.column_id)}: ${f.text}${f.label ? ` (${f.label})` : ''}`}
            style={{ left: pct(f.box.x0, info.width), top: pct(f.box.y0, info.height), width: pct(f.box.x1 - f.box.x0, info.width), height: pct(f.box.y1 - f.box.y0, info.height) }}
            onClick={() => onPickField(f.column_id)}
          >
            {!info.image ? f.text : null}
          </span>
        ))}
      </div>
      <figcaption class="muted">
        {provenance.file_name}, page {info.number} of {provenance.pages.length}
        {error ? ` · ${error instanceof Error ? error.message : String(error)}` : ''}
      </figcaption>
    </figure>
  );
}
