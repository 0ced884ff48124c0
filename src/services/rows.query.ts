/**
 * Runs row lists, aggregates and distinct values on the row store and its index. A list picks one
 * of two ways, by what the index says:
 *   - few candidates: when a condition of the filter matches at most CANDIDATE_CAP rows, those
 *     rows are fetched, checked, sorted and paged in memory;
 *   - an ordered walk: otherwise the index of the first order key is walked from the cursor, each
 *     row checked against the whole filter, until the page is full. Index entries whose row the
 *     column cache (or `q`'s hits) rule out are passed without reading the row.
 * `q` asks the search index for its hits first: few hits are fetched and sorted like candidates,
 * many are met soon enough on the ordered walk. Either way every filter condition is checked on
 * the row itself, so an index only narrows.
 */
import { fieldTypeOf } from '../domain/columns';
import { DecimalSum, minorUnits } from '../lib/decimal';
import { ApiError } from '../lib/errors';
import type { CursorCodec, CursorPosition } from '../query/cursor';
import { compareBy, compileFilter } from '../query/evaluate';
import type { FieldSpec, ListSpec } from '../query/fields';
import { envelope, filterLookup, lookupIn, pageFrom, pageOfSorted, parseListQuery, sortByOrder, type Access, type ListParams, type ListQuery, type Page } from '../query/list';
import { parseAggs, type Agg } from '../query/aggs';
import { filterFields, parseFilter, type FilterNode } from '../query/filter';
import type { OrderKey } from '../query/order';
import { candidatePlan, type Bound, type Probe } from '../query/plan';
import { BUILD_AT_ONCE_ROWS } from '../search/builds';
import type { ColumnCache } from '../search/column-cache';
import { queryTerms } from '../query/terms';
import type { SearchIndexes } from '../search/search';
import { INDEX_PREFIX, indexValue, type IndexKeyBound, type IndexValue, type RowRecord, type RowsStore } from '../store/rows.store';
import { slotOf } from '../store/slots';
import type { TableRecord } from '../store/tables.store';
import { columnNotFound } from './columns.rules';
import type { RowIndex } from './row-index';
import { rowListSpec } from './row-fields';
import { rowAccessor, rowField, toRow } from './row-values';

/** Distinct values scanned at most; past it the frequencies rank only the values scanned. */
export const DISTINCT_SCAN_CAP = 20_000;

/** The most rows a list fetches by id before it walks an order index instead. */
export const CANDIDATE_CAP = 300;
/** Relative costs, per item, of passing an order-index entry, sorting a hit's id, and fetching a row (measured at a million rows). */
const COST = { walkEntry: 1, sortId: 0.5, fetchRow: 8 };
/** A walk on a table larger than BUILD_AT_ONCE_ROWS that passes this many rows asks for the column cache. */
export const WARM_AFTER_WALKED = 1000;

/** The slot of a field whose index is complete, or undefined (no index, or still being built). */
function indexedSlot(table: TableRecord, field: string): number | undefined {
  const slot = slotOf(table, field);
  return slot === undefined || table.pending_slots.includes(slot) ? undefined : slot;
}

function toKeyBound(bound: Bound): IndexKeyBound {
  return bound ? { value: indexValue(bound.value), inclusive: bound.inclusive } : null;
}

export class RowsQuery {
  constructor(
    private readonly rows: RowsStore,
    private readonly search: SearchIndexes,
    private readonly cursors: CursorCodec,
    private readonly columns: ColumnCache,
    private readonly index: RowIndex,
  ) {}

  spec(table: TableRecord): ListSpec {
    return rowListSpec(table.columns_json);
  }

  /** The list parameters checked against the table's columns: a bad filter, order or q is a 400. */
  parse(table: TableRecord, params: ListParams): ListQuery {
    return parseListQuery(this.spec(table), { ...params, order: params.order || table.default_sort || undefined }, this.cursors);
  }

  /** A page of rows; `tableOf` reads the table again after waiting for its search index to be built. */
  async list(tableOf: () => Promise<TableRecord>, params: ListParams) {
    let table = await tableOf();
    let query = this.parse(table, params);
    const terms = query.terms.flatMap(queryTerms);
    for (let attempt = 1; terms.length; attempt++) {
      await this.search.load(table);
      const now = await tableOf();
      if (now.revision === table.revision) {
        table = now;
        break;
      }
      // Its columns changed meanwhile: the parameters are checked and the index loaded again.
      if (attempt === 3) throw new ApiError(503, 'service_unavailable', 'The columns of this table are changing; try again shortly', {}, { 'Retry-After': '1' });
      table = now;
      query = this.parse(table, params);
    }
    const spec = this.spec(table);
    const page = this.page(table, spec, query, terms);
    return envelope('rows', query, { ...page, items: page.items.map((r) => toRow(table, r)) });
  }

  private page(table: TableRecord, spec: ListSpec, query: ListQuery, terms: string[]): Page<RowRecord> {
    const get = rowField(table);
    const access: Access<RowRecord> = { get, id: (r) => r.id };
    const matches = compileFilter(query.filter, rowAccessor(table));
    const hits = terms.length ? this.search.search(table, terms) : null;

    const inMemory = (rows: RowRecord[]) => pageOfSorted(sortByOrder(rows, query, access), query, access, this.cursors);
    if (!hits) {
      const byValue = this.equalityWalk(table, query, matches, access);
      if (byValue) return byValue;
    }
    const ids = this.candidates(table, query.filter, lookupIn(spec));
    if (ids !== null) return inMemory(this.fetch(table, ids, hits ? (row) => hits.has(row.id) && matches(row) : matches));
    const prefilter = this.prefilter(table, query);
    // Without the column cache a long filtered walk asks for it to be built.
    const warm = !prefilter && query.filter && table.row_count > BUILD_AT_ONCE_ROWS ? () => this.columns.request(table) : null;
    // Whether what the walk checks before reading a row decides the whole filter (then an offset
    // page passes over the rows before it without reading them).
    const exact = query.filter === null || prefilter !== null;
    if (hits === null) return this.walk(table, query, matches, access, prefilter, exact, warm);
    const isHit: Prefilter = prefilter ? (id, position) => hits.has(id) && prefilter(id, position) : (id) => hits.has(id);
    const first = query.order[0]!.field;
    if ((first === 'created_at' || first === 'id') && query.order.length === 1 && !query.cursor && hits.inOrder) {
      // The hits listed newest (or oldest) first from the postings: no pass over every hit.
      return this.walk(table, query, matches, access, prefilter, exact, warm, undefined, hits.inOrder(query.order[0]!.desc));
    }
    // A walk of the order passes about row_count / hits entries per hit. When fetching the hits
    // costs less, they are fetched and sorted (in creation order only their ids are sorted, and
    // only the page is fetched); otherwise the walk passes the rest without reading them.
    const want = offsetOf(query) + query.limit + 1;
    const walkCost = ((want * table.row_count) / Math.max(1, hits.size)) * COST.walkEntry;
    if (first === 'created_at' || first === 'id') {
      if (hits.size * COST.sortId <= walkCost) return this.walk(table, query, matches, access, isHit, exact, warm, hits.ids().sort());
    } else if (hits.size * COST.fetchRow <= walkCost) {
      return inMemory(this.fetch(table, hits.ids(), matches));
    }
    return this.walk(table, query, matches, access, isHit, exact, warm);
  }

  /**
   * A filter of one equality on an indexed column, in creation order: the index entries of that
   * value are in row id order already, so the page is read straight from them (an offset page
   * passes over the entries before it in native code), with no row read but the page's own.
   */
  private equalityWalk(table: TableRecord, query: ListQuery, keep: (r: RowRecord) => boolean, access: Access<RowRecord>): Page<RowRecord> | null {
    const filter = query.filter;
    const [first, ...rest] = query.order as [OrderKey, ...OrderKey[]];
    if (!filter || filter.kind !== 'cond' || filter.op !== 'eq' || rest.length || (first.field !== 'created_at' && first.field !== 'id')) return null;
    const column = table.columns_json.find((c) => c.id === filter.field);
    const slot = indexedSlot(table, filter.field);
    if (slot === undefined || !column || fieldTypeOf(column.type) === 'array') return null;
    const value = indexValue(filter.value);
    // A long string is indexed by its start: its entries may hold rows that differ after it.
    if (Array.isArray(filter.value) || value === null || (typeof value === 'string' && value.length >= INDEX_PREFIX)) return null;
    const at: IndexKeyBound = { value, inclusive: true };
    const after: IndexKeyBound = query.cursor ? { value, inclusive: true, afterId: query.cursor.id } : at;
    const skip = offsetOf(query);
    const entries = first.desc ? this.index.scan(table, slot, at, after, true, skip) : this.index.scan(table, slot, after, at, false, skip);
    const found: RowRecord[] = [];
    for (const [, id] of entries) {
      const row = this.rows.get(table.seq, id);
      if (row && keep(row)) found.push(row);
      if (found.length > query.limit) break;
    }
    return pageFrom(found.slice(0, query.limit), found.length > query.limit, query, access, this.cursors);
  }

  /**
   * A check of the filter by row id against the column cache, so a walk decodes only the rows that
   * match; null when the cache does not hold the filter's columns at this version (it is then built
   * in the background once walks on this table turn out long).
   */
  private prefilter(table: TableRecord, query: ListQuery): Prefilter | null {
    if (!query.filter) return null;
    const fields = [...filterFields(query.filter)];
    if (fields.some((f) => f === 'created_at' || f === 'id')) return null;
    const slots = fields.map((f) => slotOf(table, f)!);
    const cached = this.columns.peek(table, slots);
    if (!cached) return null;
    const slotFor = new Map(fields.map((f, k) => [f, slots[k]!]));
    const matches = compileFilter(query.filter, (field) => cached.reader(slotFor.get(field)!));
    return (id, position) => {
      const i = position ?? cached.at(id);
      return i === undefined || matches(i);
    };
  }

  private fetch(table: TableRecord, ids: Iterable<string>, keep: (row: RowRecord) => boolean): RowRecord[] {
    const found: RowRecord[] = [];
    for (const id of ids) {
      const row = this.rows.get(table.seq, id);
      if (row && keep(row)) found.push(row);
    }
    return found;
  }

  /** Row ids from the most selective index probe, or null when none is small enough. */
  private candidates(table: TableRecord, filter: FilterNode | null, lookup: (f: string) => FieldSpec | undefined): string[] | null {
    const plan = candidatePlan(filter, lookup);
    if (!plan) return null;
    const count = (probe: Probe) => {
      const slot = indexedSlot(table, probe.field);
      if (slot === undefined) return Infinity;
      let total = 0;
      for (const r of probe.ranges) {
        total += this.index.count(table, slot, toKeyBound(r.low), toKeyBound(r.high), CANDIDATE_CAP + 1 - total);
        if (total > CANDIDATE_CAP) return Infinity;
      }
      return total;
    };
    let chosen: Probe[] | null = null;
    if ('all' in plan) {
      let best = Infinity;
      for (const probe of plan.all) {
        const n = count(probe);
        if (n < best) [best, chosen] = [n, [probe]];
      }
    } else {
      let total = 0;
      const picks: Probe[] = [];
      for (const branch of plan.any) {
        let best = Infinity;
        let pick: Probe | null = null;
        for (const probe of branch) {
          const n = count(probe);
          if (n < best) [best, pick] = [n, probe];
        }
        total += best;
        if (!pick || total > CANDIDATE_CAP) return null;
        picks.push(pick);
      }
      chosen = picks;
    }
    if (!chosen) return null;
    const ids = new Set<string>();
    for (const probe of chosen) {
      const slot = slotOf(table, probe.field)!;
      for (const r of probe.ranges) {
        for (const [, id] of this.index.scan(table, slot, toKeyBound(r.low), toKeyBound(r.high))) ids.add(id);
      }
    }
    return [...ids];
  }

  /**
   * Walks the first order key's index (or the rows themselves for created_at and id) from the
   * cursor. With more than one order key, rows tied on the first are gathered and sorted whole.
   */
  private walk(
    table: TableRecord,
    query: ListQuery,
    keep: (r: RowRecord) => boolean,
    access: Access<RowRecord>,
    prefilter: Prefilter | null,
    exact: boolean,
    warm: (() => void) | null,
    sortedIds?: string[],
    inOrder?: Iterable<string>,
  ): Page<RowRecord> {
    const get = access.get;
    const [first, ...rest] = query.order as [OrderKey, ...OrderKey[]];
    if (first.field !== 'created_at' && first.field !== 'id' && indexedSlot(table, first.field) === undefined) {
      // Its index is still being built: check every row and sort in memory.
      const found: RowRecord[] = [];
      for (const row of this.rows.scanRows(table.seq, false)) if ((!prefilter || prefilter(row.id)) && keep(row)) found.push(row);
      return pageOfSorted(sortByOrder(found, query, access), query, access, this.cursors);
    }
    const single = rest.length === 0;
    const cursor = query.cursor;
    const skip = offsetOf(query);
    // A single-key offset page whose walk decides the filter before reading rows passes over the
    // rows before the page unread.
    const passing = single && exact ? skip : 0;
    const pass = { rows: passing };
    const want = skip - passing + query.limit + 1;
    const collected: RowRecord[] = [];
    let lastFirst: unknown = undefined;
    let examined = 0;
    for (const row of this.ordered(table, first, cursor, single, prefilter, sortedIds, pass, inOrder)) {
      if (++examined === WARM_AFTER_WALKED) warm?.();
      if (!single && collected.length >= want && get(row, first.field) !== lastFirst) break;
      if (!single && cursor && compareBy(query.order, query.order.map((k) => get(row, k.field)), row.id, cursor.values, cursor.id) <= 0) continue;
      if (!keep(row)) continue;
      collected.push(row);
      lastFirst = get(row, first.field);
      if (single && collected.length >= want) break;
    }
    const ordered = single ? collected : sortByOrder(collected, query, access);
    // Rows not passed over (the walk ended first) leave nothing collected: an empty page.
    const from = skip - passing;
    return pageFrom(ordered.slice(from, from + query.limit), ordered.length > from + query.limit, query, access, this.cursors);
  }

  /**
   * Rows in the order of one key, starting after the cursor (single key) or at its value (several).
   * Rows the prefilter rules out are skipped without being read. In creation order, `sortedIds`
   * (ascending) stands in for all of the table's row ids, and `inOrder` (in the walk's direction,
   * from the start) for the rows themselves. The first `pass.rows` rows that the
   * prefilter lets through are passed over unread.
   */
  private *ordered(
    table: TableRecord,
    key: OrderKey,
    cursor: CursorPosition | null,
    exactResume: boolean,
    prefilter: Prefilter | null = null,
    sortedIds?: string[],
    pass: { rows: number } = { rows: 0 },
    inOrder?: Iterable<string>,
  ): Generator<RowRecord> {
    if (key.field === 'created_at' || key.field === 'id') {
      const after = exactResume && cursor ? cursor.id : undefined;
      if (!prefilter && !inOrder) {
        // Passed over without reading them: counted along the column cache's ids when it is
        // current, else by lmdb in native code.
        const skip = pass.rows;
        pass.rows = 0;
        const cached = skip > 0 ? this.columns.creationOrder(table) : null;
        if (cached) yield* this.read(table, cached.walk(key.desc, after, skip), null, pass);
        else yield* this.rows.scanRows(table.seq, key.desc, after, skip);
        return;
      }
      // The column cache's positions follow creation order: walked there, rows are tested by
      // position without reading LMDB keys or looking ids up.
      const cached = sortedIds || inOrder ? null : this.columns.creationOrder(table);
      const entries: Iterable<{ id: string; position?: number }> = inOrder
        ? idsOf(inOrder)
        : cached
          ? cached.walk(key.desc, after)
          : idsOf(sortedIds ? idsFrom(sortedIds, key.desc, after) : this.rows.scanRowIds(table.seq, key.desc, after));
      yield* this.read(table, entries, prefilter, pass);
      return;
    }
    const slot = slotOf(table, key.field);
    if (slot === undefined) throw new ApiError(400, 'invalid_input', `cannot sort by ${key.field}`);
    // The column cache's sorted order when it has one (same order, no index keys to decode), else the index.
    const sorted = this.columns.sorted(table, slot);
    const scan = (from: IndexKeyBound, to: IndexKeyBound, reverse: boolean): Iterable<{ id: string; position?: number }> => {
      let placed = sorted?.scan(from, to, reverse);
      if (placed === false) {
        // A write brought a value the order has not placed yet: sort again.
        sorted!.sort();
        placed = sorted!.usable() && sorted!.scan(from, to, reverse);
      }
      return placed || idsOf(this.index.scan(table, slot, from, to, reverse));
    };
    const resumeValue = cursor ? indexValue(cursor.values[0]) : undefined;
    const resumeId = cursor && exactResume ? cursor.id : undefined;
    const nullSegment = (): Iterable<{ id: string; position?: number }> => {
      const at: IndexKeyBound = { value: null, inclusive: true };
      const from = resumeValue === null && resumeId ? { value: null, inclusive: true, afterId: resumeId } : at;
      return key.desc ? scan(at, from, true) : scan(from, at, false);
    };
    const valueSegment = (): Iterable<{ id: string; position?: number }> => {
      const start: IndexKeyBound = { value: false, inclusive: true };
      if (resumeValue === undefined || resumeValue === null) {
        return key.desc ? scan(start, null, true) : scan(start, null, false);
      }
      const from: IndexKeyBound = resumeId ? { value: resumeValue, inclusive: true, afterId: resumeId } : { value: resumeValue, inclusive: true };
      return key.desc ? scan(start, from, true) : scan(from, null, false);
    };
    // A cursor past the null segment (or inside the value segment with nulls last) skips what it passed.
    const inNulls = resumeValue === null;
    const segments = key.nullsFirst
      ? inNulls || resumeValue === undefined
        ? [nullSegment, valueSegment]
        : [valueSegment]
      : inNulls
        ? [nullSegment]
        : [valueSegment, nullSegment];
    for (const segment of segments) yield* this.read(table, segment(), prefilter, pass);
  }

  /**
   * The rows of walked entries the prefilter lets through, read from LMDB but for the first
   * `pass.rows` (passed over unread: `pass.rows` counts down as they go).
   */
  private *read(table: TableRecord, entries: Iterable<{ id: string; position?: number }>, prefilter: Prefilter | null, pass: { rows: number }): Generator<RowRecord> {
    for (const { id, position } of entries) {
      if (prefilter && !prefilter(id, position)) continue;
      if (pass.rows > 0) {
        pass.rows--;
        continue;
      }
      const row = this.rows.get(table.seq, id);
      if (row) yield row;
    }
  }

  /**
   * Aggregates over the rows a filter matches: the few candidates of a selective index probe are
   * fetched; otherwise the filter runs over the column cache, so no row is decoded.
   */
  private async aggregateRows(table: TableRecord, aggs: Agg[], filterText: string): Promise<Record<string, number | null>> {
    const spec = this.spec(table);
    const digits = currencyDigits(table);
    const filter = parseFilter(filterText, filterLookup(spec));
    const ids = this.candidates(table, filter, lookupIn(spec));
    if (ids) {
      const accessor = rowAccessor(table);
      return accumulate(aggs, this.fetch(table, ids, compileFilter(filter, accessor)), accessor, digits);
    }
    const fields = new Set([...filterFields(filter), ...aggs.flatMap((a) => (a.field ? [a.field] : []))]);
    fields.delete('id');
    if (fields.has('created_at')) {
      // created_at lives in the row keys, not in a column slot: read the rows.
      const accessor = rowAccessor(table);
      const matches = compileFilter(filter, accessor);
      const found: RowRecord[] = [];
      for (const row of this.rows.scanRows(table.seq, false)) if (matches(row)) found.push(row);
      return accumulate(aggs, found, accessor, digits);
    }
    const slotFor = new Map([...fields].map((f) => [f, slotOf(table, f)!]));
    const cols = await this.columns.load(table, [...slotFor.values()]);
    const accessor = (field: string): ((i: number) => unknown) => (field === 'id' ? (i) => cols.ids[i] : cols.reader(slotFor.get(field)!));
    const matches = compileFilter(filter, accessor);
    // Positions in a typed array: a million boxed numbers a request kept the collector busy.
    const hits = new Int32Array(cols.ids.length);
    let n = 0;
    for (let i = 0; i < cols.ids.length; i++) if (cols.ids[i] !== null && matches(i)) hits[n++] = i;
    return accumulate(aggs, hits.subarray(0, n), accessor, digits);
  }

  /**
   * Aggregates. Counts, minimums and maximums of a whole table are read from index entries (a
   * count, or the first and last entry of a column); sums, averages and distinct counts, and
   * everything under a filter, come from the matching rows through the column cache.
   */
  async aggregate(table: TableRecord, aggsText: string, filterText: string): Promise<Record<string, number | null>> {
    const aggs = parseAggs(aggsText, lookupIn(this.spec(table)));
    const out: Record<string, number | null> = {};
    const fromRows: Agg[] = [];
    for (const agg of aggs) {
      const fromIndex = filterText.trim() ? undefined : this.aggregateFromIndex(table, agg);
      if (fromIndex === undefined) fromRows.push(agg);
      else out[agg.alias] = fromIndex;
    }
    if (fromRows.length) Object.assign(out, await this.aggregateRows(table, fromRows, filterText));
    // Keep the order the aggregates were asked in.
    return Object.fromEntries(aggs.map((a) => [a.alias, out[a.alias] ?? null]));
  }

  /** An aggregate answered by the index alone, or undefined when it needs the rows. */
  private aggregateFromIndex(table: TableRecord, agg: Agg): number | null | undefined {
    if (agg.field === null) return table.row_count;
    const slot = indexedSlot(table, agg.field);
    const column = table.columns_json.find((c) => c.id === agg.field);
    // created_at and id have no index of their own, a new column's may not be built yet, and a
    // list-valued column's index holds elements rather than rows.
    // While a bulk load's tail is unmerged, the column cache counts faster than the tail's entries.
    if (slot === undefined || (column && fieldTypeOf(column.type) === 'array') || this.index.hasTail(table)) return undefined;
    switch (agg.fn) {
      case 'count':
        return this.index.count(table, slot, { value: false, inclusive: true }, null, Infinity);
      case 'min':
      case 'max': {
        const numbers = { from: { value: true, inclusive: false }, to: { value: '', inclusive: false } } as const;
        for (const [v] of this.index.scan(table, slot, numbers.from, numbers.to, agg.fn === 'max')) return v as number;
        return null;
      }
      default:
        return undefined;
    }
  }

  /**
   * A column's most frequent values (nulls left out), optionally only those containing `q`: the
   * first DISTINCT_SCAN_CAP values of its index, each counted there. The column cache, when
   * current, counts the same in one pass over the column (unless it has more values than the cap).
   */
  async distinct(table: TableRecord, columnId: string, limit: number, q: string | undefined): Promise<Array<string | number | boolean>> {
    if (!table.columns_json.some((c) => c.id === columnId)) throw columnNotFound(columnId);
    const slot = indexedSlot(table, columnId);
    if (slot === undefined) throw new ApiError(503, 'service_unavailable', 'This column is still being indexed; try again shortly', {}, { 'Retry-After': '1' });
    const needle = q?.trim().toLowerCase() || null;
    const wanted = (value: unknown) => needle === null || String(value).toLowerCase().includes(needle);
    const counts: Array<{ value: string | number | boolean; n: number }> = [];
    const cached = this.columns.counts(table, slot, DISTINCT_SCAN_CAP);
    if (cached) {
      // Counted by index value, as the index holds them (long strings by their start).
      const byKey = new Map<IndexValue, number>();
      for (const [value, n] of cached) {
        const key = indexValue(value);
        byKey.set(key, (byKey.get(key) ?? 0) + n);
      }
      for (const [value, n] of byKey) if (wanted(value)) counts.push({ value: value as string | number, n });
    } else {
      let low: IndexKeyBound = { value: false, inclusive: true };
      for (let scanned = 0; scanned < DISTINCT_SCAN_CAP; scanned++) {
        const entries = this.index.scan(table, slot, low, null);
        const next = entries.next();
        // Ended at once: an open LMDB range keeps its read snapshot (and a reader slot) alive.
        entries.return(undefined);
        if (next.done) break;
        const value = next.value[0] as string | number | boolean;
        const at: IndexKeyBound = { value, inclusive: true };
        low = { value, inclusive: false };
        if (wanted(value)) counts.push({ value, n: this.index.count(table, slot, at, at, Infinity) });
      }
    }
    counts.sort((a, b) => b.n - a.n || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    return counts.slice(0, limit).map((c) => c.value);
  }
}

/**
 * A check of a row before it is read, by id, or by its position in the column cache when the
 * walk knows it.
 */
type Prefilter = (id: string, position?: number) => boolean;

function* idsOf(entries: Iterable<[unknown, string] | string>): Generator<{ id: string }> {
  for (const entry of entries) yield { id: typeof entry === 'string' ? entry : entry[1] };
}

/** Rows a page passes over before its own (offset pages; a cursor page starts at its cursor). */
function offsetOf(query: ListQuery): number {
  return query.cursor ? 0 : ((query.page ?? 1) - 1) * query.limit;
}

/** Ids of an ascending list in either direction, starting after `after` when given. */
function* idsFrom(sorted: string[], desc: boolean, after: string | undefined): Generator<string> {
  if (desc) {
    for (let i = sorted.length - 1; i >= 0; i--) if (after === undefined || sorted[i]! < after) yield sorted[i]!;
  } else {
    for (const id of sorted) if (after === undefined || id > after) yield id;
  }
}

/**
 * Aggregates computed over rows (nulls left out; sums, averages and extremes over numbers only).
 * Sums and averages are decimal-exact (no binary noise); a currency column's come out in its
 * minor unit (`digits` of its field).
 */
function accumulate<T>(aggs: Agg[], items: ArrayLike<T>, accessor: (field: string) => (item: T) => unknown, digits: (field: string) => number | undefined): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const agg of aggs) {
    const st = { n: 0, sum: new DecimalSum(), min: Infinity, max: -Infinity, seen: new Set<unknown>() };
    if (agg.field === null) {
      st.n = items.length;
    } else {
      const read = accessor(agg.field);
      const summed = agg.fn === 'sum' || agg.fn === 'avg';
      for (let k = 0; k < items.length; k++) {
        const v = read(items[k]!);
        if (v === null || v === undefined) continue;
        if (agg.fn === 'count') st.n++;
        else if (agg.fn === 'count_distinct') for (const x of Array.isArray(v) ? v : [v]) st.seen.add(indexValue(x));
        else if (typeof v === 'number') {
          st.n++;
          if (summed) st.sum.add(v);
          if (v < st.min) st.min = v;
          if (v > st.max) st.max = v;
        }
      }
    }
    out[agg.alias] = finishAgg(agg, st, agg.field === null ? undefined : digits(agg.field));
  }
  return out;
}

function finishAgg(agg: Agg, st: { n: number; sum: DecimalSum; min: number; max: number; seen: Set<unknown> }, digits: number | undefined): number | null {
  switch (agg.fn) {
    case 'count':
      return st.n;
    case 'count_distinct':
      return st.seen.size;
    case 'sum':
      return st.sum.sum(digits);
    case 'avg':
      return st.sum.mean(digits);
    case 'min':
      return st.n ? st.min : null;
    case 'max':
      return st.n ? st.max : null;
  }
}

/** The decimals a column's sums and averages are given in: a currency's minor unit; none for other columns. */
export function currencyDigits(table: TableRecord): (field: string) => number | undefined {
  const digits = new Map(table.columns_json.filter((c) => c.type === 'currency').map((c) => [c.id, minorUnits(c.currency_code)]));
  return (field) => digits.get(field);
}
