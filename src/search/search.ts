/**
 * Full-text `q`: one index per table over its searchable columns, built on MiniSearch's own
 * inverted-index structure (its radix tree, `minisearch/SearchableMap`), tokenizer and term
 * processing, and matched by MiniSearch's rules: a query term matches a word that equals it,
 * starts with it, or (for terms longer than 4 characters without a digit) lies within MiniSearch's
 * fuzzy distance of it; every term must match.
 *
 * The postings are row ordinals (one number, or an ascending array) instead of the MiniSearch
 * class's per-term maps of document ids, frequencies and field lengths: lists are ordered by
 * `order`, never by relevance, so scores are not needed, and at a million rows with a unique word
 * each (e-mails, order numbers) those maps took about 3.5 GB. Words no typo-tolerant term can
 * reach (see `fuzzyReachable`) are kept apart in a sorted array (`SortedWords`), which needs no
 * object per word. A later term only raises the rows the earlier ones matched, so `q` costs about
 * the postings it touches and a byte per row.
 *
 * It is derived data: built from LMDB on the first search that needs it after a start (or after the
 * searchable columns change), then kept in step with every committed write. A removed or rewritten
 * row leaves its old ordinal behind as a tombstone; the postings are compacted once tombstones
 * outnumber live rows.
 */
import MiniSearch from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';
import { isSearchable } from '../domain/columns';
import { BUILD_AT_ONCE_ROWS, type BuildQueue } from './builds';
import { ApiError } from '../lib/errors';
import { queryTerms } from '../query/terms';
import { ownString } from '../lib/strings';
import { fuzzyReachable, SortedWords } from './sorted-words';
import type { RowRecord, RowsStore } from '../store/rows.store';
import type { TableRecord } from '../store/tables.store';

const FUZZY = 0.2;
const MAX_FUZZY = MiniSearch.getDefault('searchOptions')?.maxFuzzy ?? 6;

/** How far a word may be from a query term of this length without digits and still match it. */
function distanceForLength(length: number): number {
  return length > 4 ? Math.min(MAX_FUZZY, Math.round(length * FUZZY)) : 0;
}

/**
 * How far a word may be from a term and still match it: 0 for short terms, and for terms with a
 * digit (a typo-tolerant match of an invoice number, amount or date finds the wrong ones).
 */
export function maxDistance(term: string): number {
  return /\d/.test(term) ? 0 : distanceForLength(term.length);
}

/** Whether some typo-tolerant query term could match a word; those that cannot live in `SortedWords`. */
function reachable(word: string): boolean {
  return fuzzyReachable(word, distanceForLength, MAX_FUZZY);
}


function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(text).join(' ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Row ordinals holding one word: one ordinal, or several in ascending order. */
type Posting = number | number[];

/** What the radix tree and the sorted words have in common: postings by word. */
type PostingStore = { get(word: string): Posting | undefined; set(word: string, posting: Posting): unknown };

interface TableIndex {
  ftsVersion: number;
  /** The scan of the rows has reached the end; until then writes are followed but searches wait. */
  ready: boolean;
  /** The last row id scanned. */
  after?: string;
  waiters: Array<() => void>;
  /** Words a typo-tolerant term can reach, in MiniSearch's radix tree; the others in `words`. */
  terms: SearchableMap<Posting>;
  words: SortedWords<Posting>;
  /** Row ids by ordinal; null where a row was removed or rewritten (a tombstone). */
  ids: Array<string | null>;
  ordinals: Map<string, number>;
  dead: number;
  /**
   * Ordinals given to a row with a lower id than an earlier ordinal's (a rewritten row, or one
   * written while the build ran); every other ordinal follows id order, so hits can be listed in
   * id order from the postings themselves.
   */
  late: number[];
  maxId: string;
}

/** The rows matching a search. */
export interface SearchHits {
  /** How many rows match (for many matches, tombstones of rewritten rows may be counted too). */
  readonly size: number;
  has(id: string): boolean;
  /** Matching row ids, in no particular order. */
  ids(): string[];
  /**
   * Matching row ids in id (= creation) order, read lazily from the postings, when the index can
   * list them so (its ordinals follow id order but for a few); undefined otherwise.
   */
  inOrder?(desc: boolean): Generator<string>;
}

/** Every row ordinal of some postings (an ordinal in two of them comes twice). */
function eachOrdinal(postings: Posting[], visit: (ordinal: number) => void): void {
  for (const p of postings) {
    if (typeof p === 'number') visit(p);
    else for (let i = 0; i < p.length; i++) visit(p[i]!);
  }
}


const NO_HITS: SearchHits = { size: 0, has: () => false, ids: () => [] };

/** Out-of-order ordinals and postings of one term beyond which hits are not listed in id order. */
const MAX_LATE = 256;
const MAX_MERGED_POSTINGS = 64;

/**
 * The hits as a byte per ordinal: the number of terms matched so far, in term order, so each
 * later term only raises the rows still in (one pass over its postings, no bitmap of its own).
 * Few candidates are also listed (`found`, each once, tombstones left out).
 */
function markHits(ids: Array<string | null>, first: { postings: Posting[]; total: number }, others: Array<{ postings: Posting[] }>) {
  const hit = new Uint8Array(ids.length);
  let level = 1;
  let size = 0;
  eachOrdinal(first.postings, (o) => {
    if (hit[o] === 0) {
      hit[o] = 1;
      size++;
    }
  });
  for (const other of others) {
    const [from, to] = [level, level + 1];
    size = 0;
    eachOrdinal(other.postings, (o) => {
      if (hit[o] === from) {
        hit[o] = to;
        size++;
      }
    });
    level = to;
  }
  let found: number[] | null = null;
  if (first.total * 8 < ids.length) {
    found = [];
    const [final, taken] = [level, level + 1];
    eachOrdinal(first.postings, (o) => {
      if (hit[o] !== final) return;
      hit[o] = taken;
      if (ids[o] !== null) found!.push(o);
    });
    // Tombstones may stay marked taken: no current row id has their ordinal.
    for (const o of found) hit[o] = final;
  }
  return { hit, level, size, found };
}

/** Whether some posting holds an ordinal (postings are ascending: binary search). */
function holds(postings: Posting[], o: number): boolean {
  for (const p of postings) {
    if (typeof p === 'number') {
      if (p === o) return true;
      continue;
    }
    let lo = 0;
    let hi = p.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = p[mid]!;
      if (v === o) return true;
      if (v < o) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return false;
}

/** The ordinals of some postings, each once, descending or ascending (a merge from their ends). */
function* unionInOrder(postings: Posting[], desc: boolean): Generator<number> {
  const lists = postings.map((p) => (typeof p === 'number' ? [p] : p));
  const at = lists.map((l) => (desc ? l.length - 1 : 0));
  let last = -1;
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const i = at[k]!;
      if (i < 0 || i >= lists[k]!.length) continue;
      const v = lists[k]![i]!;
      if (best < 0 || (desc ? v > lists[best]![at[best]!]! : v < lists[best]![at[best]!]!)) best = k;
    }
    if (best < 0) return;
    const v = lists[best]![at[best]!]!;
    at[best] = at[best]! + (desc ? -1 : 1);
    if (v !== last) yield v;
    last = v;
  }
}

/**
 * Row ids matching every term in id order: the rarest term's ordinals in order (which follow id
 * order), each confirmed in the other terms' postings, merged with the few late ordinals.
 */
function* inIdOrder(entry: TableIndex, first: Posting[], others: Posting[][], desc: boolean): Generator<string> {
  const { ids } = entry;
  const late = new Set(entry.late);
  const matches = (o: number) => ids[o] !== null && holds(first, o) && others.every((p) => holds(p, o));
  const lateIds = entry.late.filter(matches).map((o) => ids[o]!);
  lateIds.sort();
  if (desc) lateIds.reverse();
  let next = 0;
  for (const o of unionInOrder(first, desc)) {
    const id = ids[o];
    if (id === null || id === undefined || late.has(o) || !others.every((p) => holds(p, o))) continue;
    while (next < lateIds.length && (desc ? lateIds[next]! > id : lateIds[next]! < id)) yield lateIds[next++]!;
    yield id;
  }
  while (next < lateIds.length) yield lateIds[next++]!;
}

/** Tombstones tolerated before the postings are compacted (and then only when they outnumber live rows). */
const COMPACT_AFTER = 1024;

export class SearchIndexes {
  private readonly indexes = new Map<string, TableIndex>();

  private serial = 0;

  constructor(
    private readonly rows: RowsStore,
    private readonly builds: BuildQueue,
    private readonly current: (tableId: string) => TableRecord | undefined,
    /** The column cache's copy of a row id, shared rather than copied again (a million ids are some 60 MB). */
    private readonly sharedId: (tableId: string, id: string) => string | undefined = () => undefined,
  ) {}

  /** The searchable text of a row: its searchable columns' values, as one text. */
  private rowText(table: TableRecord): (row: RowRecord) => string {
    const slots = table.columns_json.filter(isSearchable).map((c) => table.slots[c.id]!);
    return (row) => slots.map((s) => text(row.values[s])).join('\n');
  }

  /** Indexes a row (again: an earlier ordinal of it becomes a tombstone). */
  private add(entry: TableIndex, row: RowRecord, rowText: (row: RowRecord) => string, tableId: string): void {
    this.remove(entry, row.id);
    const ordinal = entry.ids.length;
    const id = this.sharedId(tableId, row.id) ?? ownString(row.id);
    entry.ids.push(id);
    entry.ordinals.set(id, ordinal);
    if (id > entry.maxId) entry.maxId = id;
    else entry.late.push(ordinal);
    for (const term of new Set(queryTerms(rowText(row)))) {
      const store: PostingStore = reachable(term) ? entry.terms : entry.words;
      const p = store.get(term);
      // A new word is kept as a copy of its own, not as a slice of the row's whole text.
      if (p === undefined) store.set(ownString(term), ordinal);
      else if (typeof p === 'number') store.set(term, [p, ordinal]);
      else p.push(ordinal);
    }
  }

  private remove(entry: TableIndex, id: string): void {
    const ordinal = entry.ordinals.get(id);
    if (ordinal === undefined) return;
    entry.ordinals.delete(id);
    entry.ids[ordinal] = null;
    entry.dead++;
  }

  /** Renumbers the live rows and drops tombstones from every posting. */
  private compact(entry: TableIndex): void {
    const renumber = new Int32Array(entry.ids.length).fill(-1);
    const ids: string[] = [];
    entry.ids.forEach((id, i) => {
      if (id === null) return;
      renumber[i] = ids.length;
      entry.ordinals.set(id, ids.length);
      ids.push(id);
    });
    const renumbered = (p: Posting): Posting | null => {
      const live = (typeof p === 'number' ? [p] : p).map((o) => renumber[o]!).filter((o) => o >= 0);
      return live.length === 0 ? null : live.length === 1 ? live[0]! : live;
    };
    const terms = new SearchableMap<Posting>();
    entry.terms.forEach((term, p) => {
      const live = renumbered(p);
      if (live !== null) terms.set(term, live);
    });
    entry.terms = terms;
    entry.words = entry.words.map(renumbered);
    entry.ids = ids;
    entry.dead = 0;
    entry.late = [];
    entry.maxId = '';
    ids.forEach((id, o) => {
      if (id > entry.maxId) entry.maxId = id;
      else entry.late.push(o);
    });
  }

  private newEntry(table: TableRecord): TableIndex {
    const entry: TableIndex = { ftsVersion: table.fts_version, ready: false, waiters: [], terms: new SearchableMap(), words: new SortedWords(), ids: [], ordinals: new Map(), dead: 0, late: [], maxId: '' };
    this.indexes.set(table.id, entry);
    return entry;
  }

  /** Starts indexing the table (a small one at once, others in the background), unless its index is built or under way. */
  request(table: TableRecord): void {
    if (this.indexes.get(table.id)?.ftsVersion === table.fts_version) return;
    const entry = this.newEntry(table);
    // Keys are per build: a build given up may still sit in the queue until its next step.
    const task = { key: `search:${table.id}:${++this.serial}`, step: (deadline: number) => this.step(table, entry, deadline), done: (error?: unknown) => this.finish(table.id, entry, error !== undefined) };
    if (!this.builds.add(task, table.row_count <= BUILD_AT_ONCE_ROWS)) this.indexes.delete(table.id);
  }

  /** Waits until the table's index is built. */
  async load(table: TableRecord): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = this.indexes.get(table.id);
      if (existing?.ready && existing.ftsVersion === table.fts_version) return;
      this.request(table);
      const entry = this.indexes.get(table.id);
      if (entry && !entry.ready) await new Promise<void>((resolve) => entry.waiters.push(resolve));
      table = this.current(table.id) ?? table;
    }
    // The searchable columns kept changing under the build (or the service is shutting down).
    throw new ApiError(503, 'service_unavailable', 'The search index of this table is being rebuilt; try again shortly', {}, { 'Retry-After': '1' });
  }

  /** Indexes rows in id order from where it stopped until the deadline; true once at the end (or given up). */
  private step(table: TableRecord, entry: TableIndex, deadline: number): boolean {
    if (this.indexes.get(table.id) !== entry) return true;
    const rowText = this.rowText(table);
    let n = 0;
    for (const row of this.rows.scanRows(table.seq, false, entry.after)) {
      entry.after = row.id;
      // A row a write already indexed is current: the write committed before this read.
      if (!entry.ordinals.has(row.id)) this.add(entry, row, rowText, table.id);
      if ((++n & 255) === 0 && performance.now() >= deadline) return false;
    }
    return true;
  }

  /** Ends a build: a complete index is ready; a failed one (or one closed early) is dropped, and searches waiting on it try again. */
  private finish(tableId: string, entry: TableIndex, failed = false): void {
    if (failed && this.indexes.get(tableId) === entry) this.indexes.delete(tableId);
    if (!failed && this.indexes.get(tableId) === entry) entry.ready = true;
    for (const resolve of entry.waiters) resolve();
    entry.waiters = [];
  }

  /**
   * The postings of every word one query term matches (equal, prefix, or within fuzzy distance),
   * each word once: the fuzzy matches that start with the term are among the prefix matches.
   */
  private postingsOf(entry: TableIndex, term: string): { postings: Posting[]; total: number } {
    const postings = [...entry.terms.atPrefix(term).values(), ...entry.words.withPrefix(term)];
    const max = maxDistance(term);
    if (max) for (const [word, [p]] of entry.terms.fuzzyGet(term, max)) if (!word.startsWith(term)) postings.push(p);
    let total = 0;
    for (const p of postings) total += typeof p === 'number' ? 1 : p.length;
    return { postings, total };
  }

  /** The rows matching every term; `load` the table's index first. */
  search(table: TableRecord, terms: string[]): SearchHits {
    if (terms.length === 0 || table.columns_json.filter(isSearchable).length === 0) return NO_HITS;
    const entry = this.indexes.get(table.id);
    if (!entry?.ready || entry.ftsVersion !== table.fts_version) throw new Error(`search index of ${table.id} is not loaded`);
    const { ids, ordinals } = entry;
    // The rarest term first: the others only have to confirm its rows.
    const [first, ...others] = [...new Set(terms)].map((t) => this.postingsOf(entry, t)).sort((a, b) => a.total - b.total);
    if (others.length > 250) throw new Error('too many search terms');
    let marked: { hit: Uint8Array; level: number; size: number; found: number[] | null } | null = null;
    const mark = () => (marked ??= markHits(ids, first!, others));
    const hits: SearchHits = {
      get size() {
        const m = mark();
        return m.found ? m.found.length : m.size;
      },
      has: (id) => {
        const m = mark();
        const o = ordinals.get(id);
        return o !== undefined && m.hit[o] === m.level;
      },
      ids: () => {
        const m = mark();
        if (m.found) return m.found.map((o) => ids[o]!);
        const out: string[] = [];
        for (let o = 0; o < ids.length; o++) if (m.hit[o] === m.level && ids[o] !== null) out.push(ids[o]!);
        return out;
      },
    };
    // Listed in id order straight from the postings while few ordinals are out of id order and the
    // rarest term has few postings to merge (a short prefix can match thousands of words).
    if (entry.late.length <= MAX_LATE && first!.postings.length <= MAX_MERGED_POSTINGS) {
      hits.inOrder = (desc) => inIdOrder(entry, first!.postings, others.map((o) => o.postings), desc);
    }
    return hits;
  }

  /** Brings a built index in step with committed row changes; an index not built yet is left alone. */
  apply(table: TableRecord, changes: { upserted?: RowRecord[]; removed?: string[]; cleared?: boolean }): void {
    const entry = this.indexes.get(table.id);
    if (!entry) return;
    if (entry.ftsVersion !== table.fts_version || changes.cleared) {
      // Rebuilt from the store on the next search that needs it; a build under way stops.
      this.dropEntry(table.id);
      return;
    }
    const rowText = this.rowText(table);
    for (const id of changes.removed ?? []) this.remove(entry, id);
    for (const row of changes.upserted ?? []) {
      this.remove(entry, row.id);
      this.add(entry, row, rowText, table.id);
    }
    if (entry.dead > COMPACT_AFTER && entry.dead > entry.ids.length - entry.dead) this.compact(entry);
  }

  drop(tableId: string): void {
    this.dropEntry(tableId);
  }

  private dropEntry(tableId: string): void {
    const entry = this.indexes.get(tableId);
    this.indexes.delete(tableId);
    // Searches waiting on a build that was given up look again (and start a new one).
    if (entry && !entry.ready) this.finish(tableId, entry);
  }
}
