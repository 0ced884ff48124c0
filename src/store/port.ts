/**
 * The store as the services see it: one repository per kind of record, every method async, and
 * `transaction`, which runs a read-modify-write all or nothing. LMDB is the first adapter
 * (`lmdb.port.ts`); PostgreSQL is to be the second (docs/scale-out.md).
 *
 * A transaction's body reads and writes through the repositories it is given. A transaction
 * started inside another joins it, so services compose their writes. A repository method called
 * outside a transaction is a transaction of its own.
 */
import type { Reading } from '../extract';
import type { ApiKeyRecord, OrgRecord, ProjectRecord } from './accounts.store';
import type { BatchRecord, BatchRow, ExtractionRecord } from './batches.store';
import type { ExampleRecord } from './examples.store';
import type { ExportRecord } from './exports.store';
import type { IdempotencyRecord } from './idempotency.store';
import type { MarkRecord, RowRecord, SlotSpec } from './rows.store';
import type { TableRecord } from './tables.store';
import type { TemplateRecord } from './templates.store';
import type { DeliveryRecord, WebhookRecord } from './webhooks.store';

export interface TablesRepository {
  get(id: string): Promise<TableRecord | undefined>;
  /** The active table of a project holding `slug`, if any. */
  slugOwner(projectId: string, slug: string): Promise<string | undefined>;
  listProject(projectId: string): Promise<TableRecord[]>;
  /** Writes a table and moves its slug and deletion entries from `previous` (if any). */
  put(table: TableRecord, previous?: TableRecord): Promise<void>;
  /** Rewrites a table whose slug and deletion state are unchanged (counters). */
  putRecord(table: TableRecord): Promise<void>;
  /** Tables that are not deleted and hold more than `rows` rows. */
  activeLargerThan(rows: number): Promise<TableRecord[]>;
  /** Tables with index work left: removed columns to clean up or slots to build. */
  withSlotWork(): Promise<TableRecord[]>;
  /** Ids of tables soft-deleted at or before `cutoff`. */
  deletedBefore(cutoff: number): Promise<string[]>;
  remove(table: TableRecord): Promise<void>;
}

/**
 * Rows with their indexes. The rows of a table are known by the table's internal number (`seq`);
 * `slots` are the table's indexed fields (`slotSpecs`). The merge mark and the unmerged tail are
 * LMDB's way to load in bulk fast (rows.store.ts): a store without them keeps no mark.
 */
export interface RowsRepository {
  get(seq: number, rowId: string): Promise<RowRecord | undefined>;
  /** Writes new rows and their index entries (none for a row of the unmerged tail, `indexed` false). */
  insert(seq: number, rows: Array<{ row: RowRecord; indexed: boolean }>, slots: SlotSpec[]): Promise<void>;
  /** Writes a row and its index entries (from `previous`'s; none for a row of the unmerged tail, `indexed` false). */
  put(seq: number, row: RowRecord, slots: SlotSpec[], previous?: RowRecord, indexed?: boolean): Promise<void>;
  remove(seq: number, row: RowRecord, slots: SlotSpec[], indexed?: boolean): Promise<void>;
  /** Every row of a table, in creation order. */
  all(seq: number): Promise<RowRecord[]>;
  /** A row equal to `values` on every slot of `slots` (nulls equal nulls), found through the index. */
  /** `multi`: which of `slots` are list columns (one index entry per item, none for an empty list). */
  findEqual(seq: number, slots: number[], values: Record<number, unknown>, multi?: ReadonlySet<number>): Promise<RowRecord | undefined>;
  /** The table's newest row id ('' when it has no rows). */
  lastRowId(seq: number): Promise<string>;
  markRecord(seq: number): Promise<MarkRecord | undefined>;
  /** Sets (or, with undefined, removes) the merge state. */
  setMark(seq: number, record: MarkRecord | undefined): Promise<void>;
  /** Indexes the whole unmerged tail now and removes the mark. */
  mergeAll(seq: number, slots: SlotSpec[]): Promise<void>;
  /** Writes one slot's index entries for up to `batch` rows after `afterId`; returns the last row id done. */
  indexSlot(seq: number, spec: SlotSpec, afterId: string | undefined, batch: number): Promise<string | undefined>;
  /** Deletes up to `batch` index entries of one slot; returns how many went. */
  dropSlotEntries(seq: number, slot: number, batch: number): Promise<number>;
  /** Deletes up to `batch` rows and index entries of a table; returns how many went. */
  dropTableEntries(seq: number, batch: number): Promise<number>;
}

export interface MetaRepository {
  get<T>(name: string): Promise<T | undefined>;
  put(name: string, value: unknown): Promise<void>;
  /** The next number of a counter. */
  nextSeq(name: string): Promise<number>;
  /** True while a backup is copying the files: nothing may delete one. Ask inside the transaction that drops the record naming the file. */
  filesHeld(): Promise<boolean>;
}

export interface AccountsRepository {
  getOrg(id: string): Promise<OrgRecord | undefined>;
  /** Counts changes to organizations, projects and keys, from this process or the CLI's. */
  version(): Promise<number>;
  putOrg(org: OrgRecord): Promise<void>;
  listOrgs(): Promise<OrgRecord[]>;
  getProject(id: string): Promise<ProjectRecord | undefined>;
  putProject(project: ProjectRecord): Promise<void>;
  listProjects(organizationId?: string): Promise<ProjectRecord[]>;
  getKey(id: string): Promise<ApiKeyRecord | undefined>;
  getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  putKey(key: ApiKeyRecord): Promise<void>;
  listKeys(organizationId?: string): Promise<ApiKeyRecord[]>;
}

export interface UsageRepository {
  get(organizationId: string, month: string): Promise<number>;
  /** Adds to the stored counts, so other writers' counts are not lost. */
  add(counts: Map<string, number>, month: string): Promise<void>;
}

export interface IdempotencyRepository {
  get(scope: string, key: string): Promise<IdempotencyRecord | undefined>;
  put(scope: string, key: string, record: IdempotencyRecord): Promise<void>;
  /** Removes records made before `cutoff`; returns how many went. */
  purgeBefore(cutoff: number): Promise<number>;
}

export interface BatchesRepository {
  get(id: string): Promise<BatchRecord | undefined>;
  listProject(projectId: string): Promise<BatchRecord[]>;
  /** Batches that never reached an end state (the process stopped under them). */
  unfinished(): Promise<BatchRecord[]>;
  put(batch: BatchRecord): Promise<void>;
  getExtraction(id: string): Promise<ExtractionRecord | undefined>;
  putExtraction(extraction: ExtractionRecord): Promise<void>;
  /** Appends rows after the batch's last one. */
  addRows(batchId: string, rows: BatchRow[]): Promise<void>;
  batchRows(batchId: string): Promise<BatchRow[]>;
}

export interface WebhooksRepository {
  get(id: string): Promise<WebhookRecord | undefined>;
  listOrg(organizationId: string): Promise<WebhookRecord[]>;
  put(webhook: WebhookRecord): Promise<void>;
  remove(webhook: WebhookRecord): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  deliveryIds(webhookId: string): Promise<string[]>;
  listDeliveries(webhookId: string): Promise<DeliveryRecord[]>;
  putDelivery(delivery: DeliveryRecord, previous?: DeliveryRecord): Promise<void>;
  removeDelivery(delivery: DeliveryRecord): Promise<void>;
  nextQueued(): Promise<number | null>;
  queuedUntil(time: number, limit: number): Promise<string[]>;
  queuedFor(webhookId: string): Promise<string[]>;
  finishedBefore(cutoff: number, limit: number): Promise<DeliveryRecord[]>;
}

export interface ExamplesRepository {
  /** The example a reviewed row made. */
  ofRow(tableId: string, rowId: string): Promise<ExampleRecord | undefined>;
  get(id: string): Promise<ExampleRecord | undefined>;
  listTable(tableId: string): Promise<ExampleRecord[]>;
  put(example: ExampleRecord): Promise<void>;
  remove(example: ExampleRecord): Promise<void>;
}

/** What reading a file gave, keyed by the file's checksum. */
export interface ReadingsRepository {
  get(checksum: string): Promise<Reading | undefined>;
  has(checksum: string): Promise<boolean>;
  /** Keeps a reading unless it is too large; returns whether it was kept. */
  put(checksum: string, reading: Reading): Promise<boolean>;
}

export interface ExportsRepository {
  get(id: string): Promise<ExportRecord | undefined>;
  put(record: ExportRecord): Promise<void>;
  all(): Promise<ExportRecord[]>;
  remove(record: ExportRecord): Promise<void>;
}

export interface TemplatesRepository {
  get(id: string): Promise<TemplateRecord | undefined>;
  listOrg(organizationId: string): Promise<TemplateRecord[]>;
  put(template: TemplateRecord): Promise<void>;
  remove(id: string): Promise<void>;
  usage(id: string): Promise<number>;
  countUse(id: string): Promise<void>;
}

export interface Repositories {
  tables: TablesRepository;
  rows: RowsRepository;
  meta: MetaRepository;
  accounts: AccountsRepository;
  usage: UsageRepository;
  idempotency: IdempotencyRepository;
  batches: BatchesRepository;
  webhooks: WebhooksRepository;
  examples: ExamplesRepository;
  readings: ReadingsRepository;
  exports: ExportsRepository;
  templates: TemplatesRepository;
}

/** What a transaction may ask beyond all or nothing. */
export interface TransactionOptions {
  /**
   * Names that transactions take turns on, from before their first read, on every node. Writers
   * that all update one record (a table's counters) then wait for each other instead of
   * conflicting and running again. LMDB, with one writer at a time, has nothing to add. A
   * transaction inside another joins it and takes none: its first read was the outer one's.
   */
  lock?: readonly string[];
}

/** The lock of a table's record, taken by every write that changes its rows or counters. */
export const tableLock = (tableId: string): string => `table:${tableId}`;

export interface StorePort extends Repositories {
  /**
   * Runs `fn` as one transaction: all of its writes are kept or, when it throws, none. Concurrent
   * transactions never lose each other's updates. A commit the storage refuses rejects with a 503
   * `ApiError`.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>, options?: TransactionOptions): Promise<T>;
}
