/**
 * Full-text `q`: one MiniSearch index per table over its searchable columns. It is derived data:
 * built from LMDB on the first search after a start (or after the searchable columns change), then
 * kept in step with every committed write. LMDB stays the source of truth.
 */
import MiniSearch from 'minisearch';
import { isSearchable } from '../services/row-fields';
import type { RowRecord, RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

interface TableIndex {
  ftsVersion: number;
  mini: MiniSearch<RowRecord>;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(' ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export class SearchIndexes {
  private readonly indexes = new Map<string, TableIndex>();

  constructor(private readonly rows: RowsStore) {}

  private options(table: TableRecord) {
    const fields = table.columns_json.filter(isSearchable).map((c) => String(table.slots[c.id]));
    return {
      fields,
      idField: 'id',
      extractField: (row: RowRecord, field: string) => (field === 'id' ? row.id : text(row.values[Number(field)])),
    };
  }

  /** The table's index, built from the store when missing or made for other searchable columns. */
  private index(table: TableRecord): TableIndex {
    const existing = this.indexes.get(table.id);
    if (existing && existing.ftsVersion === table.fts_version) return existing;
    const mini = new MiniSearch<RowRecord>(this.options(table));
    let batch: RowRecord[] = [];
    for (const row of this.rows.scanRows(table.seq, false)) {
      batch.push(row);
      if (batch.length === 5000) {
        mini.addAll(batch);
        batch = [];
      }
    }
    mini.addAll(batch);
    const built = { ftsVersion: table.fts_version, mini };
    this.indexes.set(table.id, built);
    return built;
  }

  /** Ids of rows holding every term of `q` (prefix matches, a little fuzziness on longer terms). */
  search(table: TableRecord, terms: string[]): Set<string> {
    if (table.columns_json.filter(isSearchable).length === 0) return new Set();
    const results = this.index(table).mini.search(terms.join(' '), {
      combineWith: 'AND',
      prefix: true,
      fuzzy: (term) => (term.length > 4 ? 0.2 : false),
    });
    return new Set(results.map((r) => r.id as string));
  }

  /** Brings a built index in step with committed row changes; an index not built yet is left alone. */
  apply(table: TableRecord, changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }): void {
    const entry = this.indexes.get(table.id);
    if (!entry) return;
    if (entry.ftsVersion !== table.fts_version || changes.cleared) {
      this.indexes.delete(table.id);
      if (!changes.cleared) return;
    }
    const mini = changes.cleared ? this.index(table).mini : entry.mini;
    for (const id of changes.removed ?? []) if (mini.has(id)) mini.discard(id);
    for (const row of changes.upserted ?? []) {
      if (mini.has(row.id)) mini.discard(row.id);
      mini.add(row);
    }
  }

  drop(tableId: string): void {
    this.indexes.delete(tableId);
  }
}
