/**
 * Full-text `q`: one MiniSearch index per table over its searchable columns. It is derived data:
 * built from LMDB on the first search that needs it after a start (or after the searchable columns
 * change), then kept in step with every committed write. LMDB stays the source of truth.
 *
 * A query term matches a word of a row that equals it, starts with it, or (for terms longer than
 * 4 characters) is within MiniSearch's fuzzy distance of it; every term must match. `matcher`
 * applies exactly these rules to one row, so a list can check rows it walks without the index,
 * and both ways give the same rows.
 */
import MiniSearch from 'minisearch';
import { isSearchable } from '../services/row-fields';
import type { RowRecord, RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];
const processTerm = MiniSearch.getDefault('processTerm') as (term: string) => string | null | undefined;
const FUZZY = 0.2;
const MAX_FUZZY = MiniSearch.getDefault('searchOptions')?.maxFuzzy ?? 6;

/** How far a word may be from a term and still match it (0 for short terms). */
export function maxDistance(term: string): number {
  return term.length > 4 ? Math.min(MAX_FUZZY, Math.round(term.length * FUZZY)) : 0;
}

/** The terms of a query, as MiniSearch reads them. */
export function queryTerms(q: string): string[] {
  return tokenize(q)
    .map((t) => processTerm(t))
    .filter((t): t is string => !!t);
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(' ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
function distanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

interface TableIndex {
  ftsVersion: number;
  mini: MiniSearch<RowRecord>;
}

export class SearchIndexes {
  private readonly indexes = new Map<string, TableIndex>();

  constructor(private readonly rows: RowsStore) {}

  /** The searchable text of a row: its searchable columns' values, as one field (fewer postings). */
  private rowText(table: TableRecord): (row: RowRecord) => string {
    const slots = table.columns_json.filter(isSearchable).map((c) => table.slots[c.id]!);
    return (row) => slots.map((s) => text(row.values[s])).join('\n');
  }

  /** A check of one row against the terms, with the rules the index applies. */
  matcher(table: TableRecord, terms: string[]): (row: RowRecord) => boolean {
    const rowText = this.rowText(table);
    return (row) => {
      const words = new Set(queryTerms(rowText(row)));
      return terms.every((term) => {
        if (words.has(term)) return true;
        const max = maxDistance(term);
        for (const word of words) {
          if (word.startsWith(term)) return true;
          if (max && distanceWithin(word, term, max) <= max) return true;
        }
        return false;
      });
    };
  }

  /** The table's index, built from the store when missing or made for other searchable columns. */
  private index(table: TableRecord): TableIndex {
    const existing = this.indexes.get(table.id);
    if (existing && existing.ftsVersion === table.fts_version) return existing;
    const rowText = this.rowText(table);
    const mini = new MiniSearch<RowRecord>({
      fields: ['text'],
      idField: 'id',
      extractField: (row, field) => (field === 'id' ? row.id : rowText(row)),
    });
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

  /** Ids of rows matching every term. */
  search(table: TableRecord, terms: string[]): Set<string> {
    if (table.columns_json.filter(isSearchable).length === 0) return new Set();
    const results = this.index(table).mini.search(terms.join(' '), {
      combineWith: 'AND',
      prefix: true,
      fuzzy: (term) => (term.length > 4 ? FUZZY : false),
      maxFuzzy: MAX_FUZZY,
    });
    return new Set(results.map((r) => r.id as string));
  }

  /** Brings a built index in step with committed row changes; an index not built yet is left alone. */
  apply(table: TableRecord, changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }): void {
    const entry = this.indexes.get(table.id);
    if (!entry) return;
    if (entry.ftsVersion !== table.fts_version || changes.cleared) {
      // Rebuilt from the store on the next search that needs it.
      this.indexes.delete(table.id);
      return;
    }
    for (const id of changes.removed ?? []) if (entry.mini.has(id)) entry.mini.discard(id);
    for (const row of changes.upserted ?? []) {
      if (entry.mini.has(row.id)) entry.mini.discard(row.id);
      entry.mini.add(row);
    }
  }

  drop(tableId: string): void {
    this.indexes.delete(tableId);
  }
}
