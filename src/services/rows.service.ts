/**
 * The rules of rows: typed create, read, update, delete; atomic bulk with the table's insert mode;
 * and the counters (`row_count`, `data_version`) kept exact in the same transaction as the rows.
 */
import { isSearchable } from '../domain/columns';
import type { Clock } from '../lib/clock';
import { invalidFields } from '../lib/errors';
import { newId } from '../lib/ids';
import type { EnvelopeFields, ListParams, ListQuery } from '../query/list';
import { BUILD_AT_ONCE_ROWS } from '../search/builds';
import type { ColumnCache } from '../search/column-cache';
import type { IndexTails } from '../search/index-tail';
import type { SearchIndexes } from '../search/search';
import { tableLock, type Repositories, type StorePort } from '../store/port';
import { maintainedThrough, type RowRecord } from '../store/rows.store';
import { slotSpecs } from '../store/slots';
import type { TableRecord } from '../store/tables.store';
import { checkRowIfMatch, columnResolver, rowNotFound, rowValues, toRow, type Problem } from './row-values';
import type { TablesService } from './tables.service';

/** The most creates, updates and deletes one bulk request may carry, each. */
export const BULK_LIMIT = 1000;

export interface BulkInput {
  creates?: Array<Record<string, unknown>>;
  updates?: Array<{ id: string; data: Record<string, unknown> }>;
  deletes?: string[];
}

interface Changes {
  /** Rows written (new or changed) and ids removed, for the search index. */
  upserted: RowRecord[];
  removed: string[];
  /** Every earlier row was removed (replace mode). */
  cleared: boolean;
  /** Rows added minus rows removed, for row_count. */
  rowDelta: number;
  /** The table's merge mark during the write, and how far rows keep their index entries (see RowsStore). */
  mark: string | undefined;
  through: string | undefined;
  /** Rows after the mark this write changed, noted while a merge run is under way (`watched`). */
  touched: string[];
  watched: boolean;
  /** This write began the table's unmerged tail, or merged all of it. */
  began: boolean;
  mergedTail?: boolean;
}

/** A write creating at least this many rows leaves their index entries to the background merge. */
export const DEFER_INDEX_ROWS = 100;

/**
 * What row writes tell the background merge of unmerged tails (jobs/index-merge, which runs on
 * top of the services and so is known here by this interface only).
 */
export interface TailMerge {
  /** Waits while the table's tail is full. */
  room(seq: number): Promise<void>;
  /** The table's tail grew: merge it once writes pause. */
  notify(tableId: string, seq: number): void;
  /** Whether a merge run is under way on the table, so writes must report the tail rows they change. */
  watching(seq: number): boolean;
  touch(seq: number, rowIds: string[]): void;
}

/**
 * What hears a person's writes to rows that came from documents (the examples of review and
 * learn): `prepare` before the write's transaction, `reviewed` inside it, so the row and what is
 * learned from it are written together.
 */
export interface ReviewListener {
  prepare(projectId: string, tableId: string, rowIds: string[]): Promise<void>;
  reviewed(table: TableRecord, previous: RowRecord, row: RowRecord, tx: Repositories): Promise<void>;
}

/**
 * What the rows service asks of a store's list engine: on LMDB, `RowsQuery` over the list engine,
 * the column cache and the search index; on PostgreSQL, `PgRowsQuery` over `store/postgres/sql.ts`.
 */
export interface RowsQueryEngine {
  /** The list parameters checked against the table's columns: a bad filter, order or q is a 400. */
  parse(table: TableRecord, params: ListParams): ListQuery;
  /** A page of rows; `tableOf` reads the table (again, when the engine waited for something). */
  list(tableOf: () => Promise<TableRecord>, params: ListParams): Promise<Record<'rows', Array<Partial<Record<string, unknown>>>> & EnvelopeFields>;
  aggregate(table: TableRecord, aggs: string, filter: string): Promise<Record<string, number | null>>;
  distinct(table: TableRecord, columnId: string, limit: number, q: string | undefined): Promise<Array<string | number | boolean>>;
}

/**
 * The LMDB engine's in-process caches, told of every write: the search index, the column cache,
 * and the unmerged tails of bulk loads with their merge. A store whose database keeps its own
 * indexes (PostgreSQL) has none.
 */
export interface RowCaches {
  search: SearchIndexes;
  columns: ColumnCache;
  tails: IndexTails;
  merger: TailMerge;
}

/** Where an extracted row came from, kept on the row. */
export interface RowOrigin {
  batch_id: string;
  extraction_id: string;
  confidence: number;
}

export class RowsService {
  constructor(
    private readonly port: StorePort,
    private readonly tables: TablesService,
    private readonly query: RowsQueryEngine,
    private readonly clock: Clock,
    private readonly caches: RowCaches | null,
  ) {}

  private review: ReviewListener | null = null;

  /** Set once at start (the examples service is made after this one). */
  onReview(listener: ReviewListener): void {
    this.review = listener;
  }

  /** Each large table's `data_version` at the last `prebuild`. */
  private versionsSeen = new Map<string, number>();

  /**
   * Starts background builds of the column cache and search index of large tables (a no-op for
   * those built or under way): of every one at start, and then, called periodically with
   * `settled`, of those that have not changed since the last call. A table that grew large after
   * the start would otherwise make its first search wait for the whole build, and building while
   * it is still being loaded would slow the load. Returns how many tables it asked for.
   */
  async prebuild(settled = false): Promise<number> {
    const caches = this.caches;
    if (!caches) return 0;
    const seen = new Map<string, number>();
    let asked = 0;
    for (const table of await this.port.tables.activeLargerThan(BUILD_AT_ONCE_ROWS)) {
      seen.set(table.id, table.data_version);
      if (settled && this.versionsSeen.get(table.id) !== table.data_version) continue;
      caches.columns.request(table);
      if (table.columns_json.some(isSearchable)) caches.search.request(table);
      asked++;
    }
    this.versionsSeen = seen;
    return asked;
  }

  list(projectId: string, tableId: string, params: ListParams) {
    return this.query.list(() => this.tables.requireActive(projectId, tableId), params);
  }

  /** Checks list parameters without running the list (exports check before they start). */
  async checkList(projectId: string, tableId: string, params: ListParams): Promise<void> {
    this.query.parse(await this.tables.requireActive(projectId, tableId), params);
  }

  async get(projectId: string, tableId: string, rowId: string) {
    const table = await this.tables.requireActive(projectId, tableId);
    const row = await this.port.rows.get(table.seq, rowId);
    if (!row) throw rowNotFound(rowId);
    return toRow(table, row);
  }

  async aggregate(projectId: string, tableId: string, aggs: string, filter: string | undefined) {
    return this.query.aggregate(await this.tables.requireActive(projectId, tableId), aggs, filter ?? '');
  }

  async distinct(projectId: string, tableId: string, columnId: string, limit: number, q: string | undefined) {
    const table = await this.tables.requireActive(projectId, tableId);
    return { values: await this.query.distinct(table, columnId, limit, q) };
  }

  /**
   * Runs a write on the current table in one transaction, then bumps its counters and the caches.
   * The store may run the body again (a conflict on PostgreSQL): `changes` start afresh on each try,
   * and the caches hear only of the try that committed. `used` marks the table as used by an
   * extraction (`usage_count`, `last_used_at`).
   */
  private async write<T>(projectId: string, tableId: string, work: (tx: Repositories, table: TableRecord, changes: Changes) => Promise<T>, used = false): Promise<T> {
    const merger = this.caches?.merger;
    // Every write rewrites the table's record: its writers queue on it instead of conflicting.
    const { result, table, changes } = await this.port.transaction(async (tx) => {
      const changes: Changes = { upserted: [], removed: [], cleared: false, rowDelta: 0, mark: undefined, through: undefined, touched: [], watched: false, began: false };
      const current = await this.tables.requireActive(projectId, tableId, tx);
      const record = await tx.rows.markRecord(current.seq);
      changes.mark = record?.mark;
      changes.through = maintainedThrough(record);
      changes.watched = merger?.watching(current.seq) ?? false;
      const out = await work(tx, current, changes);
      // Told inside the transaction, so a run's next batch (a later transaction) leaves them out;
      // only a store with a tail (LMDB, which never runs a body twice) has a mark to watch.
      if (changes.touched.length) merger?.touch(current.seq, changes.touched);
      const table: TableRecord = {
        ...current,
        row_count: changes.cleared ? changes.rowDelta : current.row_count + changes.rowDelta,
        data_version: current.data_version + 1,
        ...(used ? { usage_count: current.usage_count + 1, last_used_at: this.clock.now() } : {}),
      };
      await tx.tables.putRecord(table);
      return { result: out, table, changes };
    }, { lock: [tableLock(tableId)] });
    if (this.caches) {
      const { search, columns, tails, merger } = this.caches;
      search.apply(table, changes);
      columns.apply(table, changes);
      if (changes.mark !== undefined || changes.mergedTail) tails.apply(table.seq, slotSpecs(table), changes, changes.began);
      if (changes.mark !== undefined) merger.notify(table.id, table.seq);
    }
    return result;
  }

  async create(projectId: string, tableId: string, input: Record<string, unknown>) {
    return this.write(projectId, tableId, async (tx, table, changes) => {
      const problems: Problem[] = [];
      const values = rowValues(table, input, '', problems);
      if (problems.length) throw invalidFields(problems);
      const row = this.newRow(values);
      await tx.rows.insert(table.seq, [{ row, indexed: indexed(changes, row.id) }], slotSpecs(table));
      changes.upserted.push(row);
      changes.rowDelta++;
      return toRow(table, row);
    });
  }

  async update(projectId: string, tableId: string, rowId: string, input: Record<string, unknown>, ifMatch: string | null = null) {
    await this.review?.prepare(projectId, tableId, [rowId]);
    return this.write(projectId, tableId, async (tx, table, changes) => {
      const previous = await tx.rows.get(table.seq, rowId);
      if (!previous) throw rowNotFound(rowId);
      checkRowIfMatch(ifMatch, previous);
      const problems: Problem[] = [];
      const values = rowValues(table, input, '', problems, previous.values);
      if (problems.length) throw invalidFields(problems);
      const row = await this.replaceValues(tx, table, previous, values, changes);
      changes.upserted.push(row);
      return toRow(table, row);
    });
  }

  async remove(projectId: string, tableId: string, rowId: string) {
    return this.write(projectId, tableId, async (tx, table, changes) => {
      const row = await tx.rows.get(table.seq, rowId);
      if (!row) throw rowNotFound(rowId);
      await tx.rows.remove(table.seq, row, slotSpecs(table), indexed(changes, row.id));
      changes.removed.push(rowId);
      changes.rowDelta--;
      return { id: rowId };
    });
  }

  /**
   * Creates, then updates, then deletes, all in one transaction: any invalid item fails the whole
   * request with a 400 whose `fields` name each bad item (`creates[3].amount`).
   */
  async bulk(projectId: string, tableId: string, input: BulkInput) {
    if ((input.creates?.length ?? 0) >= DEFER_INDEX_ROWS && this.caches) await this.caches.merger.room((await this.tables.requireActive(projectId, tableId)).seq);
    if (input.updates?.length) await this.review?.prepare(projectId, tableId, input.updates.map((u) => u.id));
    return this.write(projectId, tableId, async (tx, table, changes) => {
      const problems: Problem[] = [];
      const resolve = columnResolver(table);
      const creates = (input.creates ?? []).map((data, i) => ({
        data,
        path: `creates[${i}]`,
        values: rowValues(table, data, `creates[${i}]`, problems, undefined, resolve),
      }));
      const updates = [];
      for (const [i, u] of (input.updates ?? []).entries()) {
        const previous = await tx.rows.get(table.seq, u.id);
        if (!previous) problems.push({ path: `updates[${i}].id`, error_key: 'row_not_found', message: `no row ${u.id} in this table` });
        else updates.push({ previous, values: rowValues(table, u.data, `updates[${i}].data`, problems, previous.values, resolve) });
      }
      const deletes = [];
      for (const [i, id] of (input.deletes ?? []).entries()) {
        const row = await tx.rows.get(table.seq, id);
        if (!row) problems.push({ path: `deletes[${i}]`, error_key: 'row_not_found', message: `no row ${id} in this table` });
        else deletes.push(row);
      }
      if (problems.length) throw invalidFields(problems);

      const out = { created: [] as RowRecord[], updated: [] as RowRecord[], deleted: [] as string[] };
      const written = await this.insertAll(tx, table, creates, changes, resolve);
      out.created.push(...written.created);
      out.updated.push(...written.merged);
      for (const u of updates) {
        const current = await tx.rows.get(table.seq, u.previous.id);
        // In replace mode the creates have just taken the place of every earlier row.
        if (!current) continue;
        const row = await this.replaceValues(tx, table, current, u.values, changes);
        out.updated.push(row);
        changes.upserted.push(row);
      }
      for (const row of deletes) {
        // The same id listed twice is deleted once.
        if (!(await tx.rows.get(table.seq, row.id))) continue;
        await tx.rows.remove(table.seq, row, slotSpecs(table), indexed(changes, row.id));
        out.deleted.push(row.id);
        changes.removed.push(row.id);
        changes.rowDelta--;
      }
      return {
        created: out.created.map((r) => toRow(table, r)),
        updated: out.updated.map((r) => toRow(table, r)),
        deleted: out.deleted,
      };
    });
  }

  /**
   * Writes an extraction's rows through the table's insert mode in one transaction, together with
   * `alongside` (the batch's own final record), so a batch is merged wholly or not at all. Rows
   * that no longer fit the table (a column changed since they were mapped) are skipped and counted.
   */
  async insertExtracted(
    projectId: string,
    tableId: string,
    rows: Array<{ values: Record<string, unknown>; origin: RowOrigin }>,
    alongside: (result: { created: number; merged: number; skipped: number }, tx: Repositories) => Promise<void>,
  ) {
    if (rows.length >= DEFER_INDEX_ROWS && this.caches) await this.caches.merger.room((await this.tables.requireActive(projectId, tableId)).seq);
    return this.write(
      projectId,
      tableId,
      async (tx, table, changes) => {
        const resolve = columnResolver(table);
        const inputs = [];
        let skipped = 0;
        for (const [i, row] of rows.entries()) {
          const problems: Problem[] = [];
          const values = rowValues(table, row.values, `rows[${i}]`, problems, undefined, resolve);
          if (problems.length) skipped++;
          else inputs.push({ data: row.values, path: `rows[${i}]`, values, origin: row.origin });
        }
        const written = await this.insertAll(tx, table, inputs, changes, resolve);
        const result = { created: written.created.length, merged: written.merged.length, skipped };
        await alongside(result, tx);
        return { ...result, rows: [...written.created, ...written.merged].map((r) => toRow(table, r)) };
      },
      true,
    );
  }

  /**
   * Inserts rows through the table's insert mode. Call inside the write transaction. A row that
   * `merge` matches takes only the values the client gave (as a PATCH would), not the defaults a
   * new row would get.
   */
  private async insertAll(
    tx: Repositories,
    table: TableRecord,
    rows: Array<{ data: Record<string, unknown>; path: string; values: Record<number, unknown>; origin?: RowOrigin }>,
    changes: Changes,
    resolve: ReturnType<typeof columnResolver>,
  ): Promise<{ created: RowRecord[]; merged: RowRecord[] }> {
    const created: RowRecord[] = [];
    const merged: RowRecord[] = [];
    if (rows.length === 0) return { created, merged };
    const mode = table.insert_mode;
    if (mode === 'replace') {
      const specs = slotSpecs(table);
      for (const row of await tx.rows.all(table.seq)) await tx.rows.remove(table.seq, row, specs, indexed(changes, row.id));
      changes.cleared = true;
      changes.rowDelta = 0;
    }
    const matchSlots =
      mode === 'dedup' || mode === 'merge'
        ? (table.merge_columns_json ?? (mode === 'dedup' ? table.columns_json.map((c) => c.id) : [])).map((id) => table.slots[id]!)
        : [];
    if (matchSlots.length && changes.mark !== undefined) {
      // Matches are found through the index, so it must hold every row: the tail (left by loads
      // before the table took this mode) is merged first, in this transaction.
      await tx.rows.mergeAll(table.seq, slotSpecs(table));
      changes.mark = changes.through = undefined;
      changes.mergedTail = true;
    } else if (!matchSlots.length && changes.mark === undefined && rows.length >= DEFER_INDEX_ROWS) {
      // Every row so far has its entries; the new ones (with later ids) form the tail.
      changes.mark = changes.through = await tx.rows.lastRowId(table.seq);
      changes.began = true;
      await tx.rows.setMark(table.seq, { mark: changes.mark });
    }
    // New rows are written together, in one call rather than one a row; before a match is
    // looked for, since it may be one of them.
    const specs = slotSpecs(table);
    const multi = new Set(specs.filter((s) => s.multi).map((s) => s.slot));
    const fresh: Array<{ row: RowRecord; indexed: boolean }> = [];
    for (const input of rows) {
      if (matchSlots.length) {
        if (fresh.length) await tx.rows.insert(table.seq, fresh.splice(0), specs);
        const match = await tx.rows.findEqual(table.seq, matchSlots, input.values, multi);
        if (match && mode === 'dedup') continue;
        if (match && mode === 'merge') {
          const problems: Problem[] = [];
          const values = rowValues(table, input.data, input.path, problems, match.values, resolve);
          if (problems.length) throw invalidFields(problems);
          const row = await this.replaceValues(tx, table, match, values, changes, input.origin);
          merged.push(row);
          changes.upserted.push(row);
          continue;
        }
      }
      const row = this.newRow(input.values, input.origin);
      fresh.push({ row, indexed: indexed(changes, row.id) });
      created.push(row);
      changes.upserted.push(row);
      changes.rowDelta++;
    }
    if (fresh.length) await tx.rows.insert(table.seq, fresh, specs);
    return { created, merged };
  }

  private newRow(values: Record<number, unknown>, origin?: RowOrigin): RowRecord {
    const now = this.clock.now();
    return { id: newId('row', now), created_at: now, updated_at: now, batch_id: null, confidence: null, values, ...origin };
  }

  /** A merged extracted row takes its new origin: the row source is then the latest file. */
  private async replaceValues(tx: Repositories, table: TableRecord, previous: RowRecord, values: Record<number, unknown>, changes: Changes, origin?: RowOrigin): Promise<RowRecord> {
    // A write always moves updated_at on, so the row's ETag changes with it. A person's write to an
    // extracted row (no origin: not an extraction merging into it) is its review: its values are now
    // as sure as anything a person wrote.
    const reviewed = origin === undefined && previous.confidence !== null ? { confidence: 1 } : {};
    const row: RowRecord = { ...previous, ...origin, ...reviewed, values, updated_at: Math.max(this.clock.now(), previous.updated_at + 1) };
    await tx.rows.put(table.seq, row, slotSpecs(table), previous, indexed(changes, row.id));
    if (origin === undefined) await this.review?.reviewed(table, previous, row, tx);
    return row;
  }
}

/**
 * Whether a write keeps a row's index entries: every row's but those of the unmerged tail past a
 * merge run's reach. A row after the mark is noted for the run.
 */
function indexed(changes: Changes, rowId: string): boolean {
  if (changes.watched && changes.mark !== undefined && rowId > changes.mark) changes.touched.push(rowId);
  return changes.through === undefined || rowId <= changes.through;
}
