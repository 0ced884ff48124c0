import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'preact/hooks';
import { ApiError, api, call, download, query } from './api';
import type { Column } from '../../src/domain/columns';
import type { Table } from '../../src/domain/tables';
import type { List, Row } from './types';
import { Alert } from './ui';

// 32 px keeps a million rows (32,000,000 px) under the tallest box Chromium lays out (about 33,500,000 px).
const ROW_HEIGHT = 32;
const PAGE_SIZE = 100;

interface Params {
  filter: string;
  order: string;
  q: string;
}

/**
 * The rows of one query, fetched page after page by cursor (keyset paging stays fast at any depth,
 * unlike offsets) as the viewport nears the end of what is loaded. Rows live in a plain array that
 * grows in place, so a million rows do not get copied on every page.
 */
class RowPages {
  rows: Row[] = [];
  cursor: string | null = null;
  hasMore = true;
  loading = false;
  error: unknown = null;
  total: number | null = null;
  constructor(readonly path: string, readonly params: Params, readonly onChange: () => void) {}

  async loadUntil(index: number) {
    if (this.loading) return;
    this.loading = true;
    try {
      for (let pages = 1; this.hasMore && this.rows.length <= index; pages++) {
        const page = await api.get<List<'rows', Row>>(`${this.path}${query({ limit: PAGE_SIZE, cursor: this.cursor, order: this.params.order, filter: this.params.filter, q: this.params.q })}`);
        for (const row of page.rows) this.rows.push(row);
        this.cursor = page.nextCursor;
        this.hasMore = page.hasMore && page.nextCursor !== null;
        // On a long walk to a far row, redrawing after every page would cost more than the fetch.
        if (this.rows.length > index || !this.hasMore || pages % 25 === 0) this.onChange();
      }
      this.onChange();
    } catch (err) {
      this.error = err;
      this.hasMore = false;
      this.onChange();
    } finally {
      this.loading = false;
    }
  }
}

export function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

/** How a cell shows its value: amounts in their currency, numbers grouped; the editor gets the raw value. */
export function formatCell(column: Column, value: unknown): string {
  if (typeof value === 'number' && column.type === 'currency') {
    try {
      return new Intl.NumberFormat(undefined, { style: 'currency', currency: column.currency_code ?? 'USD' }).format(value);
    } catch {
      return String(value);
    }
  }
  if (typeof value === 'number') return value.toLocaleString(undefined, { maximumFractionDigits: 20 });
  return display(value);
}

export function parseInput(column: Column, text: string): unknown {
  if (text.trim() === '') return null;
  if (column.type === 'multi_select' || column.type === 'array') return text.split(',').map((s) => s.trim()).filter(Boolean);
  return text;
}

export function RowsGrid({ project, table, onTableChanged }: { project: string; table: Table; onTableChanged: () => void }) {
  const path = `/v1/projects/${project}/tables/${table.id}/rows`;
  const [params, setParams] = useState<Params>({ filter: '', order: '', q: '' });
  const [draft, setDraft] = useState<Params>(params);
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const redraw = () => bump(undefined);
  const pages = useRef<RowPages | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<{ row: Row; column: Column } | null>(null);
  const [message, setMessage] = useState<{ text: string; kind: 'done' | 'error' | 'conflict' } | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<Column | null>(null);
  // The cell whose editor Enter or Escape closed: focus goes back to it so the arrow keys go on working.
  const refocus = useRef<{ rowId: string; col: number } | null>(null);

  if (!pages.current || pages.current.params !== params || pages.current.path !== path) {
    pages.current = new RowPages(path, params, redraw);
    // Only an unfiltered list knows its size up front; others grow as pages arrive.
    if (!params.filter && !params.q) pages.current.total = table.row_count;
  }
  const data = pages.current;
  const count = data.hasMore ? Math.max(data.total ?? 0, data.rows.length + 1) : data.rows.length;

  const [virtualizer] = useState(
    () =>
      new Virtualizer<HTMLDivElement, Element>({
        count,
        getScrollElement: () => scroller.current,
        estimateSize: () => ROW_HEIGHT,
        overscan: 8,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        onChange: redraw,
      }),
  );
  virtualizer.setOptions({ ...virtualizer.options, count });
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  useLayoutEffect(() => {
    if (!refocus.current || editing) return;
    const cell = scroller.current?.querySelector(`[data-row-id="${refocus.current.rowId}"] [data-col="${refocus.current.col}"]`) as HTMLElement | null;
    refocus.current = null;
    cell?.focus();
  });

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length ? items[items.length - 1]!.index : PAGE_SIZE;
  useEffect(() => {
    if (data.hasMore && lastIndex >= data.rows.length - 1) void data.loadUntil(lastIndex);
  });

  const columns = table.columns_json;
  const template = `2.5rem repeat(${columns.length}, minmax(9rem, 1fr)) 6rem 7rem`;

  const search = (event: Event) => {
    event.preventDefault();
    setSelected(new Set());
    setParams({ ...draft });
    virtualizer.scrollToOffset(0);
  };
  const apply = (next: Params) => {
    setDraft(next);
    setSelected(new Set());
    setParams(next);
    virtualizer.scrollToOffset(0);
  };
  const reload = () => {
    setMessage(null);
    setParams({ ...params });
    onTableChanged();
  };

  const closeEditor = (row: Row, column: Column, byKey: boolean) => {
    if (byKey) refocus.current = { rowId: row.id, col: columns.indexOf(column) };
    setEditing(null);
  };
  const save = async (row: Row, column: Column, text: string, byKey: boolean) => {
    closeEditor(row, column, byKey);
    setMessage(null);
    try {
      // The row's ETag is its id and updated_at as loaded: a change made elsewhere since is a 409.
      const reply = await call<Row>('PATCH', `${path}/${row.id}`, { [column.id]: parseInput(column, text) }, { 'if-match': `"${row.id}.${row.updated_at}"` });
      Object.assign(row, reply.body);
      setMessage({ text: `Saved ${column.name}.`, kind: 'done' });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setMessage({ text: '409 conflict: this row was changed elsewhere since it was loaded. Nothing was saved. Reload to see the current values, then edit again.', kind: 'conflict' });
        return;
      }
      setMessage({ text: err instanceof ApiError ? err.fieldMessage(column.id) ?? err.message : String(err), kind: 'error' });
    }
  };

  /** Arrow keys move between cells, scrolling rows that are not rendered yet into view first. */
  const moveFocus = (key: string, rowIndex: number, colIndex: number): boolean => {
    const delta: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = delta[key];
    if (!step) return false;
    const targetRow = Math.max(0, Math.min(count - 1, rowIndex + step[0]));
    const targetCol = Math.max(0, Math.min(columns.length - 1, colIndex + step[1]));
    const selector = `[aria-rowindex="${targetRow + 2}"] [data-col="${targetCol}"]`;
    const focus = () => (scroller.current?.querySelector(selector) as HTMLElement | null)?.focus();
    virtualizer.scrollToIndex(targetRow);
    requestAnimationFrame(() => requestAnimationFrame(focus));
    return true;
  };

  const deleteSelected = async () => {
    if (!selected.size) return;
    try {
      await api.post(`${path}/bulk`, { deletes: [...selected] });
      reload();
      setMessage({ text: `Deleted ${selected.size} row(s).`, kind: 'done' });
      setSelected(new Set());
    } catch (err) {
      setMessage({ text: String(err instanceof Error ? err.message : err), kind: 'error' });
    }
  };

  const openSource = (row: Row) => download(`${path}/${row.id}/source`, `source-of-${row.id}`).catch((err) => setMessage({ text: String(err.message), kind: 'error' }));

  return (
    <div class="grid-view">
      <form class="searchbar" role="search" onSubmit={search}>
        <label>
          <span>Search</span>
          <input name="q" type="search" value={draft.q} onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })} />
        </label>
        <label>
          <span>Filter</span>
          <input name="filter" placeholder="amount.gt.100,status.eq.paid" value={draft.filter} onInput={(e) => setDraft({ ...draft, filter: e.currentTarget.value })} />
        </label>
        <label>
          <span>Order</span>
          <input name="order" placeholder="created_at.desc" value={draft.order} onInput={(e) => setDraft({ ...draft, order: e.currentTarget.value })} />
        </label>
        <button type="submit">Apply</button>
        <button type="button" onClick={deleteSelected} disabled={!selected.size} class="danger">
          Delete selected ({selected.size})
        </button>
      </form>
      {message ? (
        <p class={message.kind === 'done' ? 'notice' : 'alert'} role={message.kind === 'done' ? 'status' : 'alert'}>
          {message.text}{' '}
          {message.kind === 'conflict' ? (
            <button class="link" onClick={reload}>
              Reload
            </button>
          ) : null}
        </p>
      ) : null}
      {menu ? (
        <ColumnMenu
          column={menu}
          onOrder={(direction) => apply({ ...params, order: `${menu.id}.${direction}` })}
          onFilter={(condition) => apply({ ...params, filter: params.filter ? `${params.filter},${condition}` : condition })}
          onClose={() => setMenu(null)}
        />
      ) : null}
      <Alert error={data.error} />
      <p class="muted" aria-live="polite">
        {data.hasMore ? `${data.rows.length.toLocaleString()} loaded${data.total !== null ? ` of ${data.total.toLocaleString()}` : ''}` : `${data.rows.length.toLocaleString()} rows`}
      </p>
      <div class="grid" role="grid" aria-rowcount={count + 1} aria-colcount={columns.length + 3} ref={scroller} tabIndex={0}>
        <div class="grid-row grid-head" role="row" style={{ gridTemplateColumns: template }}>
          <span role="columnheader">
            <span class="sr-only">Select</span>
          </span>
          {columns.map((c) => (
            <span role="columnheader" title={c.description ?? ''}>
              <button class="link" aria-expanded={menu?.id === c.id} aria-label={`${c.name}: sort and filter`} onClick={() => setMenu(menu?.id === c.id ? null : c)}>
                {c.name}
                {params.order === `${c.id}.asc` ? ' ▲' : params.order === `${c.id}.desc` ? ' ▼' : ''}
              </button>
            </span>
          ))}
          <span role="columnheader">Confidence</span>
          <span role="columnheader">Source</span>
        </div>
        <div style={{ height: `${virtualizer.getTotalSize()}px`, position: 'relative' }}>
          {items.map((item) => {
            const row = data.rows[item.index];
            return (
              <div
                class="grid-row"
                role="row"
                aria-rowindex={item.index + 2}
                data-row-id={row?.id}
                style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)`, height: `${ROW_HEIGHT}px` }}
              >
                {row ? (
                  <>
                    <span role="gridcell">
                      <input
                        type="checkbox"
                        aria-label={`Select row ${item.index + 1}`}
                        checked={selected.has(row.id)}
                        onChange={(e) => {
                          const next = new Set(selected);
                          if (e.currentTarget.checked) next.add(row.id);
                          else next.delete(row.id);
                          setSelected(next);
                        }}
                      />
                    </span>
                    {columns.map((column) =>
                      editing?.row === row && editing.column === column ? (
                        <span role="gridcell">
                          <CellEditor column={column} value={display(row[column.id])} onSave={(text, byKey) => save(row, column, text, byKey)} onCancel={(byKey) => closeEditor(row, column, byKey)} />
                        </span>
                      ) : (
                        <span
                          role="gridcell"
                          tabIndex={0}
                          class={`cell ${column.type}`}
                          aria-label={`${column.name}: ${formatCell(column, row[column.id]) || 'empty'}. Press Enter to edit.`}
                          onDblClick={() => setEditing({ row, column })}
                          data-col={columns.indexOf(column)}
                          onKeyDown={(e) => {
                            if (e.key === 'Enter' || e.key === 'F2') {
                              e.preventDefault();
                              setEditing({ row, column });
                            } else if (moveFocus(e.key, item.index, columns.indexOf(column))) e.preventDefault();
                          }}
                        >
                          {formatCell(column, row[column.id])}
                        </span>
                      ),
                    )}
                    <span role="gridcell" class={row.needs_review ? 'num review' : 'num'} title={row.needs_review ? 'Low confidence: check this row' : undefined}>
                      {row.confidence === null ? '' : `${Math.round(row.confidence * 100)}%`}
                      {row.needs_review ? ' · review' : ''}
                    </span>
                    <span role="gridcell">
                      {row.batch_id ? (
                        <>
                          <button class="link" onClick={() => openSource(row)} aria-label={`Source file of row ${item.index + 1}`}>
                            file
                          </button>{' '}
                          <a href={`#/tables/${table.id}/batches/${row.batch_id}`}>batch</a>
                        </>
                      ) : null}
                    </span>
                  </>
                ) : (
                  <span role="gridcell" class="muted">
                    Loading…
                  </span>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** `byKey`: closed with Enter or Escape (the caller puts focus back), not by leaving the field. */
export function CellEditor({ column, value, onSave, onCancel, label: givenLabel }: { column: Column; value: string; onSave: (text: string, byKey: boolean) => void; onCancel: (byKey: boolean) => void; label?: string }) {
  const [text, setText] = useState(value);
  const ref = useRef<HTMLInputElement & HTMLSelectElement>(null);
  // Enter then the blur of the removed input must not save twice.
  const finished = useRef(false);
  const finish = (save: boolean, value: string, byKey = false) => {
    if (finished.current) return;
    finished.current = true;
    if (save) onSave(value, byKey);
    else onCancel(byKey);
  };
  // Before paint, so the first key typed after Enter already lands in the selected value.
  useLayoutEffect(() => {
    ref.current?.focus();
    // Typing replaces the value, as in a spreadsheet; arrow keys still move inside it.
    if (ref.current instanceof HTMLInputElement) ref.current.select();
  }, []);
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      finish(true, text, true);
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      finish(false, text, true);
    }
  };
  const label = givenLabel ?? `Edit ${column.name}`;
  if (column.type === 'enum' || column.type === 'boolean') {
    const options = column.type === 'boolean' ? ['true', 'false'] : column.options ?? [];
    return (
      <select ref={ref} aria-label={label} value={text} onChange={(e) => finish(true, e.currentTarget.value, true)} onKeyDown={keys} onBlur={() => finish(false, text)}>
        <option value="">(empty)</option>
        {options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    );
  }
  const type: string = column.type === 'number' || column.type === 'currency' ? 'number' : column.type === 'date' ? 'date' : column.type === 'email' ? 'email' : column.type === 'url' ? 'url' : 'text';
  return (
    <input
      ref={ref}
      aria-label={label}
      // Preact's input typings are a union per type; the type is chosen at run time from the column.
      {...({ type } as { type: 'text' })}
      step={type === 'number' ? 'any' : undefined}
      value={text}
      onInput={(e) => setText(e.currentTarget.value)}
      onKeyDown={keys}
      onBlur={() => finish(text !== value, text)}
    />
  );
}

const OPERATORS: Record<string, string[]> = {
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is'],
  currency: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is'],
  date: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is'],
  boolean: ['eq', 'neq', 'is'],
  multi_select: ['contains', 'is'],
  array: ['contains', 'is'],
};
const TEXT_OPERATORS = ['ilike', 'eq', 'neq', 'like', 'contains', 'is'];

/** A column's menu: its sort directions and a condition added to the filter (the API's operators for its type). */
function ColumnMenu({ column, onOrder, onFilter, onClose }: { column: Column; onOrder: (direction: 'asc' | 'desc') => void; onFilter: (condition: string) => void; onClose: () => void }) {
  const operators = OPERATORS[column.type] ?? TEXT_OPERATORS;
  const [op, setOp] = useState(operators[0]!);
  const [value, setValue] = useState('');
  const sortable = column.type !== 'multi_select' && column.type !== 'array';
  const submit = (event: Event) => {
    event.preventDefault();
    const written = op === 'ilike' && !value.includes('*') ? `*${value}*` : value;
    // Values holding the filter syntax's own characters are double-quoted, as the API reads them.
    const quoted = /[,()"\\]/.test(written) && op !== 'is' ? `"${written.replace(/["\\]/g, '\\$&')}"` : written;
    onFilter(`${column.id}.${op}.${quoted}`);
    onClose();
  };
  return (
    <form class="panel column-menu" aria-label={`Sort and filter ${column.name}`} onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <strong>{column.name}</strong>
      {sortable ? (
        <>
          <button type="button" onClick={() => onOrder('asc')}>
            Sort ascending
          </button>
          <button type="button" onClick={() => onOrder('desc')}>
            Sort descending
          </button>
        </>
      ) : null}
      <label>
        <span class="sr-only">Operator</span>
        <select name="operator" value={op} onChange={(e) => setOp(e.currentTarget.value)}>
          {operators.map((o) => (
            <option value={o}>{o === 'ilike' ? 'contains text' : o}</option>
          ))}
        </select>
      </label>
      <label>
        <span class="sr-only">Value</span>
        <input name="value" value={value} placeholder={op === 'is' ? 'null or notnull' : 'value'} onInput={(e) => setValue(e.currentTarget.value)} />
      </label>
      <button type="submit">Add filter</button>
      <button type="button" class="link" onClick={onClose}>
        Close
      </button>
    </form>
  );
}
