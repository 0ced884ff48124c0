/** The rules of tables: create, read, list, update, soft delete, restore, duplicate and purge. */
import { fieldTypeOf, isSearchable, type Column } from '../domain/columns';
import type { InsertMode, Strictness } from '../domain/tables';
import type { Clock } from '../lib/clock';
import { ApiError, checkIfMatchTag, fieldError } from '../lib/errors';
import { newId } from '../lib/ids';
import { SLUG_PATTERN, slugify, uniqueSlug } from '../lib/slug';
import type { CursorCodec } from '../query/cursor';
import type { ListSpec } from '../query/fields';
import { envelope, listInMemory, parseListQuery, recordAccess, type ListParams } from '../query/list';
import type { ColumnCache } from '../search/column-cache';
import type { SearchIndexes } from '../search/search';
import { tableLock, type Repositories, type StorePort } from '../store/port';
import type { TableRecord } from '../store/tables.store';
import { checkColumns, checkDefaultSort, normalizeColumn, resolveMergeColumns, type ColumnInput } from './columns.rules';

/** How long a deleted table can be restored. */
export const DELETE_GRACE_MS = 72 * 60 * 60 * 1000;
/** Keys deleted per transaction when purging, so no write transaction grows without bound. */
const PURGE_BATCH = 10_000;

export const TABLE_LIST: ListSpec = {
  resource: 'tables',
  fields: {
    created_at: { type: 'number', sortable: true, filterable: true },
    name: { type: 'string', sortable: true, filterable: true },
    row_count: { type: 'number', sortable: true, filterable: true },
    last_used_at: { type: 'number', sortable: true },
    updated_at: { type: 'number', sortable: true },
    id: { type: 'string', filterable: true },
    slug: { type: 'string', filterable: true },
  },
  searchable: ['name'],
  selectable: [
    'id', 'project_id', 'name', 'slug', 'columns_json', 'instruction', 'strictness', 'insert_mode', 'merge_columns_json',
    'default_sort', 'row_count', 'usage_count', 'data_version', 'fts_version', 'last_used_at', 'created_at', 'updated_at', 'deleted_at',
  ],
};

/** What a user defines of a table; everything else is kept by the service. */
type TableDefinition = Pick<TableRecord, 'name' | 'slug' | 'columns_json' | 'instruction' | 'strictness' | 'insert_mode' | 'merge_columns_json' | 'default_sort'>;

export type Table = Omit<TableRecord, 'revision' | 'seq' | 'slots' | 'next_slot' | 'dropped_slots' | 'pending_slots'>;

export interface CreateTableInput {
  name: string;
  /** Chosen slug (templates' `use`); otherwise one is made from the name. */
  slug?: string;
  columns_json: Array<ColumnInput & { id: string }>;
  insert_mode?: InsertMode;
  strictness?: Strictness;
  instruction?: string | null;
  merge_columns_json?: string[] | null;
  default_sort?: string | null;
}

export interface UpdateTableInput {
  name?: string;
  slug?: string;
  insert_mode?: InsertMode;
  strictness?: Strictness;
  instruction?: string | null;
  merge_columns_json?: string[] | null;
  default_sort?: string | null;
}

export function toTable(record: TableRecord): Table {
  const { revision: _r, seq: _s, slots: _sl, next_slot: _n, dropped_slots: _d, pending_slots: _p, ...table } = record;
  return table;
}

/** Slots for a new table's columns: 1, 2, 3, ... */
function initialSlots(columns: Column[]): Pick<TableRecord, 'slots' | 'next_slot' | 'dropped_slots' | 'pending_slots'> {
  return { slots: Object.fromEntries(columns.map((c, i) => [c.id, i + 1])), next_slot: columns.length + 1, dropped_slots: [], pending_slots: [] };
}

export function etagOf(record: TableRecord): string {
  return `"${record.id}.${record.revision}"`;
}

function checkSlug(slug: string): string {
  if (!SLUG_PATTERN.test(slug) || slug.length > 50) {
    throw fieldError('slug', 'must be 1 to 50 lowercase letters, digits and single dashes, such as "invoices-2024"');
  }
  return slug;
}

function slugTaken(): ApiError {
  return new ApiError(409, 'table_project_id_duplicate', 'Another table of this project already has that slug', {
    slug: [{ error_key: 'duplicate', message: 'already used by another table of this project', path: 'slug' }],
  });
}

export class TablesService {
  constructor(
    private readonly port: StorePort,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    /** The LMDB engine's caches of a table's rows, forgotten when it is purged (none on PostgreSQL). */
    private readonly caches: { search: SearchIndexes; columns: ColumnCache } | null,
  ) {}

  /**
   * The active table, or 404 table_not_found (also for soft-deleted and other projects' tables);
   * read through `tx` inside a transaction.
   */
  async requireActive(projectId: string, tableId: string, tx: Repositories = this.port): Promise<TableRecord> {
    const table = await tx.tables.get(tableId);
    if (!table || table.project_id !== projectId || table.deleted_at !== null) {
      throw new ApiError(404, 'table_not_found', `Table ${tableId} not found`);
    }
    return table;
  }

  /** A transaction that writes the table's record, in turn with the table's row writes (`tableLock`). */
  private onTable<T>(tableId: string, fn: (tx: Repositories) => Promise<T>): Promise<T> {
    return this.port.transaction(fn, { lock: [tableLock(tableId)] });
  }

  /** A new, empty table record with a fresh id, internal number and column slots. */
  private async newRecord(tx: Repositories, projectId: string, definition: TableDefinition): Promise<TableRecord> {
    const now = this.clock.now();
    return {
      ...definition,
      id: newId('tbl', now),
      project_id: projectId,
      row_count: 0,
      usage_count: 0,
      data_version: 0,
      fts_version: 0,
      last_used_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      revision: 1,
      seq: await tx.meta.nextSeq('table_seq'),
      ...initialSlots(definition.columns_json),
    };
  }

  get(projectId: string, tableId: string): Promise<TableRecord> {
    return this.requireActive(projectId, tableId);
  }

  async list(projectId: string, params: ListParams) {
    const query = parseListQuery(TABLE_LIST, params, this.cursors);
    const active = (await this.port.tables.listProject(projectId)).filter((t) => t.deleted_at === null);
    const page = listInMemory(active, TABLE_LIST, query, recordAccess(), this.cursors);
    return envelope('tables', query, { ...page, items: page.items.map(toTable) });
  }

  create(projectId: string, input: CreateTableInput): Promise<TableRecord> {
    const columns = input.columns_json.map(normalizeColumn);
    checkColumns(columns);
    const merge = resolveMergeColumns(input.merge_columns_json, columns);
    const defaultSort = checkDefaultSort(input.default_sort, columns);
    if (input.slug !== undefined) checkSlug(input.slug);
    return this.port.transaction(async (tx) => {
      if (input.slug !== undefined && (await tx.tables.slugOwner(projectId, input.slug)) !== undefined) throw slugTaken();
      const taken = input.slug === undefined ? new Set((await tx.tables.listProject(projectId)).filter((t) => t.deleted_at === null).map((t) => t.slug)) : null;
      const table = await this.newRecord(tx, projectId, {
        name: input.name.trim(),
        slug: input.slug ?? uniqueSlug(slugify(input.name), (s) => taken!.has(s)),
        columns_json: columns,
        instruction: input.instruction ?? null,
        strictness: input.strictness ?? 'balanced',
        insert_mode: input.insert_mode ?? 'append',
        merge_columns_json: merge,
        default_sort: defaultSort,
      });
      await tx.tables.put(table);
      return table;
    });
  }

  update(projectId: string, tableId: string, input: UpdateTableInput): Promise<TableRecord> {
    if (input.slug !== undefined) checkSlug(input.slug);
    if (input.name !== undefined && input.name.trim() === '') throw fieldError('name', 'must not be blank');
    return this.onTable(tableId, async (tx) => {
      const table = await this.requireActive(projectId, tableId, tx);
      const next: TableRecord = { ...table };
      if (input.name !== undefined) next.name = input.name.trim();
      if (input.slug !== undefined && input.slug !== table.slug) {
        if ((await tx.tables.slugOwner(projectId, input.slug)) !== undefined) throw slugTaken();
        next.slug = input.slug;
      }
      if (input.insert_mode !== undefined) next.insert_mode = input.insert_mode;
      if (input.strictness !== undefined) next.strictness = input.strictness;
      if (input.instruction !== undefined) next.instruction = input.instruction;
      if (input.merge_columns_json !== undefined) next.merge_columns_json = resolveMergeColumns(input.merge_columns_json, table.columns_json);
      if (input.default_sort !== undefined) next.default_sort = checkDefaultSort(input.default_sort, table.columns_json);
      if (JSON.stringify(next) === JSON.stringify(table)) return table;
      next.updated_at = this.clock.now();
      next.revision = table.revision + 1;
      await tx.tables.put(next, table);
      return next;
    });
  }

  /** Counts an extraction into the table that wrote no rows (rows writes count themselves). */
  async markUsed(projectId: string, tableId: string): Promise<void> {
    await this.onTable(tableId, async (tx) => {
      const table = await this.requireActive(projectId, tableId, tx);
      await tx.tables.putRecord({ ...table, usage_count: table.usage_count + 1, last_used_at: this.clock.now() });
    });
  }

  /** Soft delete: the table disappears everywhere but restore, and gives up its slug. */
  remove(projectId: string, tableId: string): Promise<{ id: string }> {
    return this.onTable(tableId, async (tx) => {
      const table = await this.requireActive(projectId, tableId, tx);
      const now = this.clock.now();
      await tx.tables.put({ ...table, deleted_at: now, updated_at: now, revision: table.revision + 1 }, table);
      return { id: table.id };
    });
  }

  restore(projectId: string, tableId: string, slug?: string): Promise<TableRecord> {
    if (slug !== undefined) checkSlug(slug);
    return this.onTable(tableId, async (tx) => {
      const table = await tx.tables.get(tableId);
      const expired = table?.deleted_at != null && table.deleted_at <= this.clock.now() - DELETE_GRACE_MS;
      if (!table || table.project_id !== projectId || expired) throw new ApiError(404, 'table_not_found', `Table ${tableId} not found`);
      const wanted = slug ?? table.slug;
      const owner = await tx.tables.slugOwner(projectId, wanted);
      if (owner !== undefined && owner !== table.id) throw slugTaken();
      if (table.deleted_at === null && wanted === table.slug) return table;
      const next: TableRecord = { ...table, slug: wanted, deleted_at: null, updated_at: this.clock.now(), revision: table.revision + 1 };
      await tx.tables.put(next, table);
      return next;
    });
  }

  /** A new table with the same structure and settings, and no rows. */
  duplicate(projectId: string, tableId: string, input: { name: string; slug: string }): Promise<TableRecord> {
    checkSlug(input.slug);
    if (input.name.trim() === '') throw fieldError('name', 'must not be blank');
    return this.port.transaction(async (tx) => {
      const source = await this.requireActive(projectId, tableId, tx);
      if ((await tx.tables.slugOwner(projectId, input.slug)) !== undefined) throw slugTaken();
      const copy = await this.newRecord(tx, projectId, {
        name: input.name.trim(),
        slug: input.slug,
        columns_json: structuredClone(source.columns_json),
        instruction: source.instruction,
        strictness: source.strictness,
        insert_mode: source.insert_mode,
        merge_columns_json: source.merge_columns_json,
        default_sort: source.default_sort,
      });
      await tx.tables.put(copy);
      return copy;
    });
  }

  /** Changes a table's columns under the optimistic lock; `change` returns the new column list. */
  changeColumns(
    projectId: string,
    tableId: string,
    ifMatch: string | null,
    change: (table: TableRecord) => { columns: Column[]; pathOf?: (i: number) => string },
  ): Promise<TableRecord> {
    return this.onTable(tableId, async (tx) => {
      const table = await this.requireActive(projectId, tableId, tx);
      checkIfMatch(ifMatch, table);
      const { columns, pathOf } = change(table);
      checkColumns(columns, pathOf);
      const ids = new Set(columns.map((c) => c.id));
      const merge = table.merge_columns_json?.filter((id) => ids.has(id)) ?? null;
      let defaultSort = table.default_sort;
      try {
        defaultSort = checkDefaultSort(defaultSort, columns);
      } catch {
        // The column it sorted by is gone (or no longer sortable); rows fall back to created_at.desc.
        defaultSort = null;
      }
      const slots: Record<string, number> = {};
      const pending = new Set(table.pending_slots);
      let nextSlot = table.next_slot;
      const multi = (c: Column | undefined) => c !== undefined && fieldTypeOf(c.type) === 'array';
      for (const c of columns) {
        const before = table.columns_json.find((b) => b.id === c.id);
        slots[c.id] = table.slots[c.id] ?? nextSlot++;
        // A new column has no entries for the rows already there; one that turns list-valued (or back) needs them again.
        if (!before || multi(before) !== multi(c)) pending.add(slots[c.id]!);
      }
      const dropped = Object.entries(table.slots).filter(([id]) => !ids.has(id)).map(([, slot]) => slot);
      for (const slot of dropped) pending.delete(slot);
      const next: TableRecord = {
        ...table,
        columns_json: columns,
        slots,
        next_slot: nextSlot,
        dropped_slots: [...table.dropped_slots, ...dropped],
        pending_slots: [...pending],
        merge_columns_json: merge?.length ? merge : null,
        default_sort: defaultSort,
        data_version: table.data_version + 1,
        fts_version: table.fts_version + (searchedColumns(columns) !== searchedColumns(table.columns_json) ? 1 : 0),
        updated_at: this.clock.now(),
        revision: table.revision + 1,
      };
      await tx.tables.put(next, table);
      return next;
    });
  }

  /**
   * Removes tables deleted more than 72 hours ago with their rows and index entries; returns their
   * ids. Rows go in batches of their own transactions and the table record last, so a crash part
   * way through resumes on the next run.
   */
  async purgeDeleted(): Promise<string[]> {
    const cutoff = this.clock.now() - DELETE_GRACE_MS;
    const purged: string[] = [];
    const { port } = this;
    for (const id of await port.tables.deletedBefore(cutoff)) {
      const table = await port.tables.get(id);
      if (!table || table.deleted_at === null || table.deleted_at > cutoff) continue;
      while ((await port.transaction((tx) => tx.rows.dropTableEntries(table.seq, PURGE_BATCH))) > 0);
      const removed = await port.transaction(async (tx) => {
        const current = await tx.tables.get(id);
        if (!current || current.deleted_at === null || current.deleted_at > cutoff) return false;
        await tx.tables.remove(current);
        return true;
      });
      if (removed) {
        this.caches?.search.drop(id);
        this.caches?.columns.drop(id);
        purged.push(id);
      }
    }
    return purged;
  }

  /**
   * Builds the index of pending slots (new columns, or columns that became list-valued or stopped
   * being), a batch per transaction: first clearing what the slot held, then an entry per row. The
   * slot leaves `pending_slots` only when done, so after a crash the next run starts it again.
   */
  async buildPendingSlots(tableId?: string): Promise<void> {
    const { port } = this;
    const tables = tableId ? [await port.tables.get(tableId)].filter((t): t is TableRecord => !!t) : await port.tables.withSlotWork();
    for (const table of tables) {
      for (const slot of table.pending_slots) {
        const column = table.columns_json.find((c) => table.slots[c.id] === slot);
        while ((await port.transaction((tx) => tx.rows.dropSlotEntries(table.seq, slot, PURGE_BATCH))) > 0);
        if (column) {
          const spec = { slot, multi: fieldTypeOf(column.type) === 'array' };
          let after: string | undefined;
          do after = await port.transaction((tx) => tx.rows.indexSlot(table.seq, spec, after, PURGE_BATCH));
          while (after !== undefined);
        }
        await this.updateSlots(table.id, (t) => ({ pending_slots: t.pending_slots.filter((s) => s !== slot) }));
      }
    }
  }

  /** Deletes the index entries of removed columns, a batch per transaction; returns how many. */
  async cleanDroppedSlots(): Promise<number> {
    let deleted = 0;
    for (const table of await this.port.tables.withSlotWork()) {
      for (const slot of table.dropped_slots) {
        let n: number;
        while ((n = await this.port.transaction((tx) => tx.rows.dropSlotEntries(table.seq, slot, PURGE_BATCH))) > 0) deleted += n;
        await this.updateSlots(table.id, (t) => ({ dropped_slots: t.dropped_slots.filter((s) => s !== slot) }));
      }
    }
    return deleted;
  }

  private updateSlots(tableId: string, change: (t: TableRecord) => Partial<TableRecord>): Promise<void> {
    return this.onTable(tableId, async (tx) => {
      const current = await tx.tables.get(tableId);
      if (current) await tx.tables.putRecord({ ...current, ...change(current) });
    });
  }
}

/** The searchable columns, as a key that changes exactly when the search index must be rebuilt. */
function searchedColumns(columns: Column[]): string {
  return columns.filter(isSearchable).map((c) => c.id).sort().join(',');
}

/** `If-Match` must name the table's current ETag (or `*`); a stale one is 409. */
export function checkIfMatch(ifMatch: string | null, table: TableRecord): void {
  checkIfMatchTag(ifMatch, etagOf(table), 'table');
}
