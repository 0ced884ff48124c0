/**
 * What every adapter of the store port must mean, as one set of tests that each adapter's test
 * file runs on a real store of its own (port-contract.lmdb.test.ts, port-contract.postgres.test.ts).
 * The expected values are written out here, from the LMDB store modules' meaning (src/store/*.store.ts),
 * so an adapter that differs fails.
 *
 * The merge mark and the unmerged tail are LMDB's way to load rows in bulk: an adapter without
 * them (`tail: false`) keeps no mark and has no index entries to build or drop. Where the two
 * differ on the way, the test checks each on its own and then the state both must reach.
 */
import { describe, expect, test } from 'bun:test';
import type { Reading } from '../../src/extract';
import { newId } from '../../src/lib/ids';
import type { ApiKeyRecord, OrgRecord, ProjectRecord } from '../../src/store/accounts.store';
import type { BatchRecord, BatchRow, ExtractionRecord } from '../../src/store/batches.store';
import type { ExampleRecord } from '../../src/store/examples.store';
import type { ExportRecord } from '../../src/store/exports.store';
import type { IdempotencyRecord } from '../../src/store/idempotency.store';
import { HOLD_PREFIX } from '../../src/store/meta.store';
import type { StorePort } from '../../src/store/port';
import { MAX_READING_BYTES } from '../../src/store/readings.store';
import type { RowRecord, SlotSpec } from '../../src/store/rows.store';
import type { TableRecord } from '../../src/store/tables.store';
import type { TemplateRecord } from '../../src/store/templates.store';
import type { DeliveryRecord, WebhookRecord } from '../../src/store/webhooks.store';

export interface ContractOptions {
  /** The adapter keeps LMDB's merge mark and index entries (rows.store.ts). */
  tail: boolean;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** A promise and the function that resolves it: to hold a transaction open while others look. */
function gate(): [Promise<void>, () => void] {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return [promise, open];
}

export const tableRecord = (id: string, slug: string, seq: number, extra: Partial<TableRecord> = {}): TableRecord => ({
  id,
  project_id: 'proj_1',
  name: slug,
  slug,
  columns_json: [
    { id: 'name', name: 'Name', type: 'string', required: false },
    { id: 'amount', name: 'Amount', type: 'number', required: false },
    { id: 'tags', name: 'Tags', type: 'array', required: false },
  ],
  instruction: null,
  strictness: 'balanced',
  insert_mode: 'append',
  merge_columns_json: null,
  default_sort: null,
  row_count: 0,
  usage_count: 0,
  data_version: 0,
  fts_version: 0,
  last_used_at: null,
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_000_000,
  deleted_at: null,
  revision: 1,
  seq,
  slots: { name: 1, amount: 2, tags: 3 },
  next_slot: 4,
  dropped_slots: [],
  pending_slots: [],
  ...extra,
});

/** The index of `tableRecord`'s rows: system fields, then its columns (tags is a list). */
export const SLOTS: SlotSpec[] = [
  { slot: -1, multi: false },
  { slot: -2, multi: false },
  { slot: -3, multi: false },
  { slot: 1, multi: false },
  { slot: 2, multi: false },
  { slot: 3, multi: true },
];

export const rowRecord = (n: number, values: Record<number, unknown>, extra: Partial<RowRecord> = {}): RowRecord => ({
  id: `row_${String(n).padStart(4, '0')}`,
  created_at: 1_700_000_000_000 + n,
  updated_at: 1_700_000_000_000 + n,
  batch_id: null,
  confidence: null,
  values,
  ...extra,
});

const org = (id: string, extra: Partial<OrgRecord> = {}): OrgRecord => ({ id, name: id, suspended_at: null, monthly_request_quota: null, created_at: 1, updated_at: 1, ...extra });
const project = (id: string, organizationId: string): ProjectRecord => ({ id, organization_id: organizationId, name: id, created_at: 1, updated_at: 1 });
const apiKey = (id: string, organizationId: string, hash: string): ApiKeyRecord => ({
  id,
  organization_id: organizationId,
  name: id,
  role: 'write',
  project_ids: ['proj_1'],
  hash,
  prefix: 'rs_abc',
  created_at: 1,
  expires_at: null,
  revoked_at: null,
});

const batch = (id: string, projectId: string, status: BatchRecord['status']): BatchRecord => ({
  id,
  project_id: projectId,
  table_id: 'tbl_a',
  actor_type: 'api_key',
  actor_id: 'key_1',
  schema_json: { columns: [{ id: 'name', name: 'Name', type: 'string', required: false }], instruction: null, strictness: 'balanced' },
  insert_mode: 'append',
  status,
  file_count: 2,
  files_done: 0,
  current_file: null,
  csv_key: null,
  json_key: null,
  xlsx_key: null,
  total_rows: null,
  confidence: 0.75,
  duration_ms: null,
  error: null,
  created_at: 1,
  updated_at: 2,
  extraction_ids: ['ext_1', 'ext_2'],
  file_names: ['a.pdf', 'b.png'],
});

const extraction = (id: string): ExtractionRecord => ({
  id,
  batch_id: 'bat_1',
  table_id: null,
  file_key: 'files/ab/cd',
  file_name: 'Rechnung März.pdf',
  file_type: 'text_pdf',
  file_checksum: 'abc123',
  status: 'complete',
  rows_key: null,
  row_count: 3,
  confidence: 0.5,
  error: null,
  created_at: 1,
  content_type: 'application/pdf',
});

const webhook = (id: string, organizationId: string): WebhookRecord => ({
  id,
  organization_id: organizationId,
  name: null,
  url: 'https://example.com/hook',
  events: ['batch.complete', 'ping'],
  active: true,
  failure_count: 0,
  last_triggered_at: null,
  secret_rotated_at: null,
  created_at: 1,
  updated_at: 1,
  secret: 'whsec_x',
  previous_secret: null,
  previous_secret_until: null,
  failing_since: null,
});

const delivery = (id: string, webhookId: string, queuedAt: number | null, status: DeliveryRecord['status'] = 'pending'): DeliveryRecord => ({
  id,
  webhook_id: webhookId,
  organization_id: 'org_1',
  message_id: `msg_${id}`,
  event: 'batch.complete',
  payload_json: '{"a":1}',
  status,
  http_status: null,
  response_body: null,
  attempt: 0,
  next_retry_at: queuedAt,
  delivered_at: null,
  created_at: 1,
  queued_at: queuedAt,
});

const example = (id: string, tableId: string, rowId: string): ExampleRecord => ({
  id,
  project_id: 'proj_1',
  table_id: tableId,
  row_id: rowId,
  extraction_id: 'ext_1',
  batch_id: 'bat_1',
  file_name: 'a.pdf',
  file_checksum: null,
  fields: [{ column_id: 'name', value: 'Acme', corrected: true, page: 1, box: { x0: 1, y0: 2, x1: 3, y1: 4 }, label: 'Name', text: 'Acme', lines: 1, order: 'dmy' }],
  identifiers: ['INV-1'],
  words: ['acme'],
  pages: [{ number: 1, width: 595, height: 842 }],
  created_at: 1,
  updated_at: 1,
});

const exportRecord = (id: string): ExportRecord => ({
  id,
  project_id: 'proj_1',
  table_id: 'tbl_a',
  actor_id: 'key_1',
  checksum: '',
  status: 'processing',
  filter_json: '{"filter":"amount gt 1"}',
  row_count: null,
  json_key: null,
  csv_key: null,
  xlsx_key: null,
  error: null,
  expires_at: null,
  created_at: 1,
  updated_at: 1,
  format: 'csv',
});

const template = (id: string, organizationId: string | null): TemplateRecord => ({
  id,
  organization_id: organizationId,
  name: id,
  category: 'finance',
  description: null,
  instruction: 'Invoices',
  strictness: 'balanced',
  insert_mode: 'append',
  merge_columns_json: null,
  columns_json: [{ id: 'name', name: 'Name', type: 'string', required: true }],
  creator_display_name: null,
  creator_user_id: null,
  usage_count: 0,
  created_at: 1,
  updated_at: 1,
});

const idempotency = (createdAt: number, body: string): IdempotencyRecord => ({
  fingerprint: `fp_${createdAt}`,
  status: 201,
  headers: { 'content-type': 'application/json', etag: '"1"' },
  body: new TextEncoder().encode(body),
  created_at: createdAt,
});

/** A reading as extraction keeps one (its shape only matters to the readers). */
const reading = (text: string) => ({ format: 'text', fileType: 'text', tables: [], groups: [], lines: [], text }) as unknown as Reading;

export function portContract(name: string, makePort: () => Promise<StorePort>, options: ContractOptions): void {
  describe(`${name}: transactions`, () => {
    test('a transaction reads its own writes; others see them only once it has committed', async () => {
      const port = await makePort();
      await port.tables.put(tableRecord('tbl_a', 'a', 1));
      const [wrote, written] = gate();
      const [released, release] = gate();
      const done = port.transaction(async (tx) => {
        const before = (await tx.tables.get('tbl_a'))!;
        await tx.tables.put({ ...before, slug: 'renamed', revision: 2 }, before);
        await tx.rows.insert(1, [{ row: rowRecord(1, { 1: 'Acme' }), indexed: true }], SLOTS);
        await tx.meta.put('mark', 'inside');
        expect((await tx.tables.get('tbl_a'))?.slug).toBe('renamed');
        expect(await tx.tables.slugOwner('proj_1', 'renamed')).toBe('tbl_a');
        expect(await tx.tables.slugOwner('proj_1', 'a')).toBeUndefined();
        expect((await tx.rows.get(1, 'row_0001'))?.values).toEqual({ 1: 'Acme' });
        expect((await tx.rows.findEqual(1, [1], { 1: 'Acme' }))?.id).toBe('row_0001');
        expect(await tx.meta.get('mark')).toBe('inside');
        written();
        await released;
      });
      await wrote;
      // Another request, while the transaction is open, sees the committed store.
      const during = {
        slug: (await port.tables.get('tbl_a'))?.slug,
        owner: await port.tables.slugOwner('proj_1', 'a'),
        row: await port.rows.get(1, 'row_0001'),
        all: await port.rows.all(1),
        mark: await port.meta.get('mark'),
      };
      release();
      await done;
      expect(during).toEqual({ slug: 'a', owner: 'tbl_a', row: undefined, all: [], mark: undefined });
      expect((await port.tables.get('tbl_a'))?.slug).toBe('renamed');
      expect(await port.tables.slugOwner('proj_1', 'a')).toBeUndefined();
      expect((await port.rows.all(1)).map((r) => r.id)).toEqual(['row_0001']);
      expect(await port.meta.get('mark')).toBe('inside');
    });

    test('a transaction that throws keeps nothing, and its error is the caller’s', async () => {
      const port = await makePort();
      await port.tables.put(tableRecord('tbl_a', 'a', 1));
      const failed = port.transaction(async (tx) => {
        await tx.tables.put(tableRecord('tbl_b', 'b', 2));
        await tx.rows.insert(1, [{ row: rowRecord(1, { 1: 'x' }), indexed: true }], SLOTS);
        await tx.meta.put('counter', 5);
        await tx.templates.countUse('ttmpl_1');
        await tx.accounts.putOrg(org('org_1'));
        await tick();
        throw new Error('rule broken');
      });
      await expect(failed).rejects.toThrow('rule broken');
      expect(await port.tables.get('tbl_b')).toBeUndefined();
      expect(await port.tables.slugOwner('proj_1', 'b')).toBeUndefined();
      expect((await port.tables.listProject('proj_1')).map((t) => t.id)).toEqual(['tbl_a']);
      expect(await port.rows.all(1)).toEqual([]);
      expect(await port.meta.get('counter')).toBeUndefined();
      expect(await port.templates.usage('ttmpl_1')).toBe(0);
      expect(await port.accounts.getOrg('org_1')).toBeUndefined();
      expect(await port.accounts.version()).toBe(0);
    });

    test('a transaction inside another joins it: both are kept or neither', async () => {
      const port = await makePort();
      await port.transaction(async (tx) => {
        await tx.meta.put('outer', 1);
        await port.transaction(async (inner) => {
          expect(await inner.meta.get('outer')).toBe(1);
          await inner.meta.put('inner', 2);
        });
        // A bare repository call inside the transaction is part of it too.
        await port.meta.put('bare', ((await port.meta.get<number>('inner')) ?? 0) + 1);
      });
      expect([await port.meta.get('outer'), await port.meta.get('inner'), await port.meta.get('bare')]).toEqual([1, 2, 3]);
      await port
        .transaction(async (tx) => {
          await port.transaction(async (inner) => inner.meta.put('lost', true));
          await port.meta.put('lost too', true);
          await tx.meta.put('also lost', true);
          throw new Error('no');
        })
        .catch(() => undefined);
      expect([await port.meta.get('lost'), await port.meta.get('lost too'), await port.meta.get('also lost')]).toEqual([undefined, undefined, undefined]);
    });

    test('20 concurrent read-wait-write transactions lose no update', async () => {
      const port = await makePort();
      const bump = () =>
        port.transaction(async (tx) => {
          const n = (await tx.meta.get<number>('n')) ?? 0;
          await tick();
          await tx.meta.put('n', n + 1);
        });
      await Promise.all(range(20).map(bump));
      expect(await port.meta.get<number>('n')).toBe(20);
    });

    test('40 transactions naming locks, in either order, some throwing: no update lost, none stuck', async () => {
      const port = await makePort();
      const bump = (i: number) =>
        port.transaction(
          async (tx) => {
            const n = (await tx.meta.get<number>('n')) ?? 0;
            await tick();
            if (i % 10 === 3) throw new Error('no');
            await tx.meta.put('n', n + 1);
          },
          { lock: i % 2 ? ['table:a', 'table:b'] : ['table:b', 'table:a', 'table:b'] },
        );
      const results = await Promise.allSettled(range(40).map(bump));
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['no', 'no', 'no', 'no']);
      expect(await port.meta.get<number>('n')).toBe(36);
    });

    test('a repository write outside a transaction is one of its own: it neither slips into another nor is lost', async () => {
      const port = await makePort();
      const seen: boolean[] = [];
      const viaTransaction = () =>
        port.transaction(async (tx) => {
          const before = await tx.templates.usage('ttmpl_1');
          await tick();
          await tx.templates.countUse('ttmpl_1');
          seen.push((await tx.templates.usage('ttmpl_1')) === before + 1);
        });
      await Promise.all(range(12).map((i) => (i % 2 ? port.templates.countUse('ttmpl_1') : viaTransaction())));
      expect(seen).toEqual(Array(6).fill(true));
      expect(await port.templates.usage('ttmpl_1')).toBe(12);
    });
  });

  describe(`${name}: counters under 20 concurrent transactions`, () => {
    test('meta.nextSeq gives each caller its own number, 1 to 20', async () => {
      const port = await makePort();
      const numbers = await Promise.all(
        range(20).map((i) =>
          i % 2
            ? port.meta.nextSeq('table_seq')
            : port.transaction(async (tx) => {
                const n = await tx.meta.nextSeq('table_seq');
                await tick();
                return n;
              }),
        ),
      );
      expect(numbers.sort((a, b) => a - b)).toEqual(range(20).map((i) => i + 1));
      expect(await port.meta.get('table_seq')).toBe(20);
      // Counters are per name, and a number a rolled-back transaction took is given again.
      expect(await port.meta.nextSeq('other')).toBe(1);
      await port.transaction(async (tx) => {
        expect(await tx.meta.nextSeq('table_seq')).toBe(21);
        throw new Error('undo');
      }).catch(() => undefined);
      expect(await port.meta.nextSeq('table_seq')).toBe(21);
    });

    test('templates.countUse counts every use', async () => {
      const port = await makePort();
      await Promise.all(
        range(20).map((i) =>
          i % 2
            ? port.templates.countUse('ttmpl_a')
            : port.transaction(async (tx) => {
                await tx.templates.usage('ttmpl_a');
                await tick();
                await tx.templates.countUse('ttmpl_a');
              }),
        ),
      );
      expect(await port.templates.usage('ttmpl_a')).toBe(20);
      expect(await port.templates.usage('ttmpl_b')).toBe(0);
    });

    test('usage.add adds to what other writers added', async () => {
      const port = await makePort();
      await Promise.all(
        range(20).map((i) => {
          const counts = new Map([
            ['org_1', 1],
            ['org_2', i],
          ]);
          return i % 2 ? port.usage.add(counts, '2026-11') : port.transaction(async (tx) => (await tick(), tx.usage.add(counts, '2026-11')));
        }),
      );
      expect(await port.usage.get('org_1', '2026-11')).toBe(20);
      expect(await port.usage.get('org_2', '2026-11')).toBe(190);
      expect(await port.usage.get('org_1', '2026-12')).toBe(0);
    });

    test('accounts.version counts every change of an organization, project or key', async () => {
      const port = await makePort();
      await Promise.all(range(20).map((i) => (i % 2 ? port.accounts.putOrg(org(`org_${i}`)) : port.transaction(async (tx) => (await tick(), tx.accounts.putProject(project(`proj_${i}`, 'org_1')))))));
      expect(await port.accounts.version()).toBe(20);
      expect((await port.accounts.listOrgs()).length).toBe(10);
      expect((await port.accounts.listProjects()).length).toBe(10);
    });
  });

  describe(`${name}: tables`, () => {
    test('round trip, listing by id, slugs and soft deletion moved with `previous`', async () => {
      const port = await makePort();
      const b = tableRecord('tbl_b', 'beta', 2, { columns_json: [{ id: 'note', name: 'Note', type: 'text', required: true, searchable: false, options: ['a', 'b'] }], slots: { note: 7 } });
      await port.tables.put(b);
      await port.tables.put(tableRecord('tbl_a', 'alpha', 1));
      await port.tables.put(tableRecord('tbl_c', 'gamma', 3, { project_id: 'proj_2' }));
      expect(await port.tables.get('tbl_b')).toEqual(b);
      expect(await port.tables.get('tbl_x')).toBeUndefined();
      expect((await port.tables.listProject('proj_1')).map((t) => t.id)).toEqual(['tbl_a', 'tbl_b']);
      expect((await port.tables.listProject('proj_2')).map((t) => t.id)).toEqual(['tbl_c']);
      expect(await port.tables.slugOwner('proj_1', 'alpha')).toBe('tbl_a');
      expect(await port.tables.slugOwner('proj_2', 'alpha')).toBeUndefined();

      // A rename moves the slug.
      const a = (await port.tables.get('tbl_a'))!;
      const renamed = { ...a, slug: 'alpha2', revision: 2 };
      await port.tables.put(renamed, a);
      expect(await port.tables.slugOwner('proj_1', 'alpha')).toBeUndefined();
      expect(await port.tables.slugOwner('proj_1', 'alpha2')).toBe('tbl_a');

      // Deletion frees the slug and lists the table for the purge, by deletion time then id.
      const deletedA = { ...renamed, deleted_at: 5000 };
      await port.tables.put(deletedA, renamed);
      const deletedB = { ...b, deleted_at: 3000 };
      await port.tables.put(deletedB, b);
      const deletedC = { ...(await port.tables.get('tbl_c'))!, deleted_at: 5000 };
      await port.tables.put(deletedC, (await port.tables.get('tbl_c'))!);
      expect(await port.tables.slugOwner('proj_1', 'alpha2')).toBeUndefined();
      expect(await port.tables.deletedBefore(2999)).toEqual([]);
      expect(await port.tables.deletedBefore(3000)).toEqual(['tbl_b']);
      expect(await port.tables.deletedBefore(5000)).toEqual(['tbl_b', 'tbl_a', 'tbl_c']);
      // A deleted table is still listed and read.
      expect((await port.tables.listProject('proj_1')).map((t) => t.deleted_at)).toEqual([5000, 3000]);

      // Restored: its slug is back, and it is no longer purged.
      await port.tables.put(renamed, deletedA);
      expect(await port.tables.slugOwner('proj_1', 'alpha2')).toBe('tbl_a');
      expect(await port.tables.deletedBefore(9999)).toEqual(['tbl_b', 'tbl_c']);

      await port.tables.remove(deletedB);
      expect(await port.tables.get('tbl_b')).toBeUndefined();
      expect(await port.tables.deletedBefore(9999)).toEqual(['tbl_c']);
      expect((await port.tables.listProject('proj_1')).map((t) => t.id)).toEqual(['tbl_a']);
      await port.tables.remove(renamed);
      expect(await port.tables.slugOwner('proj_1', 'alpha2')).toBeUndefined();
      expect(await port.tables.listProject('proj_1')).toEqual([]);
    });

    test('putRecord rewrites counters; activeLargerThan and withSlotWork pick by the record, in id order', async () => {
      const port = await makePort();
      for (const [id, seq, rows] of [
        ['tbl_c', 3, 50],
        ['tbl_a', 1, 500],
        ['tbl_b', 2, 501],
        ['tbl_d', 4, 9000],
      ] as const) {
        await port.tables.put(tableRecord(id, id, seq));
        await port.tables.putRecord({ ...(await port.tables.get(id))!, row_count: rows });
      }
      await port.tables.put({ ...(await port.tables.get('tbl_d'))!, deleted_at: 10 }, await port.tables.get('tbl_d'));
      expect((await port.tables.get('tbl_b'))?.row_count).toBe(501);
      expect((await port.tables.activeLargerThan(500)).map((t) => t.id)).toEqual(['tbl_b']);
      expect((await port.tables.activeLargerThan(49)).map((t) => t.id)).toEqual(['tbl_a', 'tbl_b', 'tbl_c']);
      expect(await port.tables.withSlotWork()).toEqual([]);
      await port.tables.putRecord({ ...(await port.tables.get('tbl_c'))!, pending_slots: [4] });
      await port.tables.putRecord({ ...(await port.tables.get('tbl_a'))!, dropped_slots: [2] });
      expect((await port.tables.withSlotWork()).map((t) => [t.id, t.dropped_slots, t.pending_slots])).toEqual([
        ['tbl_a', [2], []],
        ['tbl_c', [], [4]],
      ]);
    });
  });

  describe(`${name}: rows`, () => {
    async function withTables(port: StorePort) {
      await port.tables.put(tableRecord('tbl_a', 'a', 1));
      await port.tables.put(tableRecord('tbl_b', 'b', 2));
    }

    test('round trips, creation order, replace, remove and the newest id', async () => {
      const port = await makePort();
      await withTables(port);
      expect(await port.rows.lastRowId(1)).toBe('');
      expect(await port.rows.get(1, 'row_0001')).toBeUndefined();
      const rows = [
        rowRecord(3, { 1: 'Ünïcödé 😀', 2: 12.5, 3: ['red', 'blue'] }, { batch_id: 'bat_1', extraction_id: 'ext_1', confidence: 0.42 }),
        rowRecord(1, { 1: 'Acme', 2: -7 }),
        rowRecord(2, { 2: 0, 3: [] }, { confidence: 1 }),
        rowRecord(10, { 1: 'a'.repeat(500), 2: 1e21, 3: ['a', null] }),
      ];
      await port.rows.insert(1, rows.map((row) => ({ row, indexed: true })), SLOTS);
      await port.rows.insert(2, [{ row: rowRecord(5, { 1: 'other table' }), indexed: true }], SLOTS);
      for (const row of rows) expect(await port.rows.get(1, row.id)).toEqual(row);
      expect((await port.rows.all(1)).map((r) => r.id)).toEqual(['row_0001', 'row_0002', 'row_0003', 'row_0010']);
      expect(await port.rows.all(1)).toEqual([1, 2, 0, 3].map((i) => rows[i]!));
      expect(await port.rows.lastRowId(1)).toBe('row_0010');
      expect(await port.rows.lastRowId(2)).toBe('row_0005');
      expect(await port.rows.get(2, 'row_0001')).toBeUndefined();
      expect(await port.rows.get(1, 'x'.repeat(300))).toBeUndefined();

      const previous = rows[1]!;
      const next = { ...previous, values: { 1: 'Acme GmbH', 3: ['x'] }, updated_at: previous.updated_at + 5, confidence: 1 };
      await port.rows.put(1, next, SLOTS, previous);
      expect(await port.rows.get(1, 'row_0001')).toEqual(next);
      await port.rows.remove(1, rows[3]!, SLOTS);
      expect(await port.rows.get(1, 'row_0010')).toBeUndefined();
      expect(await port.rows.lastRowId(1)).toBe('row_0003');
      expect((await port.rows.all(1)).map((r) => r.id)).toEqual(['row_0001', 'row_0002', 'row_0003']);
      expect((await port.rows.all(2)).map((r) => r.id)).toEqual(['row_0005']);
    });

    test('findEqual: equal on every slot, by type, nulls equal absent values, the first by id, and only in its table', async () => {
      const port = await makePort();
      await withTables(port);
      const rows = [
        rowRecord(1, { 1: 'Acme', 2: 5 }),
        rowRecord(2, { 1: 'Acme', 2: '5' }),
        rowRecord(3, { 1: 'Acme' }),
        rowRecord(4, { 1: 'Acme', 2: 5 }),
        rowRecord(5, { 2: 5 }),
        rowRecord(6, { 1: `${'L'.repeat(250)}1`, 2: 1 }),
        rowRecord(7, { 1: `${'L'.repeat(250)}2`, 2: 1 }),
      ];
      await port.rows.insert(1, rows.map((row) => ({ row, indexed: true })), SLOTS);
      await port.rows.insert(2, [{ row: rowRecord(0, { 1: 'Acme', 2: 5 }), indexed: true }], SLOTS);
      const find = async (values: Record<number, unknown>, slots = [1, 2]) => (await port.rows.findEqual(1, slots, values))?.id;
      expect(await find({ 1: 'Acme', 2: 5 })).toBe('row_0001');
      expect(await find({ 1: 'Acme', 2: '5' })).toBe('row_0002');
      expect(await find({ 1: 'Acme', 2: null })).toBe('row_0003');
      expect(await find({ 1: 'Acme' })).toBe('row_0003');
      expect(await find({ 1: null, 2: 5 })).toBe('row_0005');
      expect(await find({ 2: 5 }, [2])).toBe('row_0001');
      expect(await find({ 1: 'acme', 2: 5 })).toBeUndefined();
      expect(await find({ 1: 'Acme', 2: 6 })).toBeUndefined();
      // Long values alike in their first 200 characters are told apart.
      expect(await find({ 1: `${'L'.repeat(250)}2`, 2: 1 })).toBe('row_0007');
      expect(await find({ 1: `${'L'.repeat(250)}3`, 2: 1 })).toBeUndefined();
      // A removed row is no longer found; the next one is.
      await port.rows.remove(1, rows[0]!, SLOTS);
      expect(await find({ 1: 'Acme', 2: 5 })).toBe('row_0004');
      // A changed row is found by its new values only.
      await port.rows.put(1, { ...rows[3]!, values: { 1: 'Beta', 2: 5 } }, SLOTS, rows[3]);
      expect(await find({ 1: 'Acme', 2: 5 })).toBeUndefined();
      expect(await find({ 1: 'Beta', 2: 5 })).toBe('row_0004');
      expect((await port.rows.findEqual(2, [1, 2], { 1: 'Acme', 2: 5 }))?.id).toBe('row_0000');
    });

    test('the merge mark and the unmerged tail: rows are found once the tail is merged, and no mark is left', async () => {
      const port = await makePort();
      await withTables(port);
      await port.rows.insert(1, [{ row: rowRecord(1, { 1: 'head' }), indexed: true }], SLOTS);
      await port.transaction(async (tx) => {
        await tx.rows.setMark(1, { mark: 'row_0001' });
        await tx.rows.insert(1, [2, 3].map((n) => ({ row: rowRecord(n, { 1: 'tail' }), indexed: false })), SLOTS);
      });
      if (options.tail) {
        expect(await port.rows.markRecord(1)).toEqual({ mark: 'row_0001' });
        expect(await port.rows.findEqual(1, [1], { 1: 'tail' })).toBeUndefined();
      } else {
        expect(await port.rows.markRecord(1)).toBeUndefined();
        expect((await port.rows.findEqual(1, [1], { 1: 'tail' }))?.id).toBe('row_0002');
      }
      // Either way the rows themselves are there.
      expect((await port.rows.all(1)).map((r) => r.id)).toEqual(['row_0001', 'row_0002', 'row_0003']);
      await port.transaction((tx) => tx.rows.mergeAll(1, SLOTS));
      expect(await port.rows.markRecord(1)).toBeUndefined();
      expect((await port.rows.findEqual(1, [1], { 1: 'tail' }))?.id).toBe('row_0002');
      expect((await port.rows.findEqual(1, [1], { 1: 'head' }))?.id).toBe('row_0001');
      await port.rows.setMark(1, { mark: 'row_0003', runTo: 'row_0003' });
      await port.rows.setMark(1, undefined);
      expect(await port.rows.markRecord(1)).toBeUndefined();
    });

    test('a new slot is built in batches; dropping a slot leaves the rows as they are', async () => {
      const port = await makePort();
      await withTables(port);
      const rows = range(7).map((n) => rowRecord(n, { 1: `r${n}`, 4: n % 3 }));
      // Written before slot 4 was indexed, as a column added to a table with rows.
      await port.rows.insert(1, rows.map((row) => ({ row, indexed: true })), SLOTS);
      const spec = { slot: 4, multi: false };
      const done: Array<string | undefined> = [];
      let after: string | undefined;
      do done.push((after = await port.transaction((tx) => tx.rows.indexSlot(1, spec, after, 3))));
      while (after !== undefined);
      expect(done).toEqual(options.tail ? ['row_0002', 'row_0005', 'row_0006', undefined] : [undefined]);
      expect((await port.rows.findEqual(1, [4], { 4: 2 }))?.id).toBe('row_0002');
      expect((await port.rows.findEqual(1, [4, 1], { 4: 1, 1: 'r4' }))?.id).toBe('row_0004');

      const dropped: number[] = [];
      let n: number;
      while ((n = await port.transaction((tx) => tx.rows.dropSlotEntries(1, 4, 3))) > 0) dropped.push(n);
      expect(dropped).toEqual(options.tail ? [3, 3, 1] : []);
      expect(await port.rows.all(1)).toEqual(rows);
    });

    test('dropTableEntries deletes a table’s rows in batches, and no other table’s', async () => {
      const port = await makePort();
      await withTables(port);
      await port.rows.insert(1, range(7).map((n) => ({ row: rowRecord(n, { 1: `r${n}`, 3: ['a', 'b'] }), indexed: true })), SLOTS);
      await port.rows.insert(2, [{ row: rowRecord(9, { 1: 'kept' }), indexed: true }], SLOTS);
      const counts: number[] = [];
      let n: number;
      while ((n = await port.transaction((tx) => tx.rows.dropTableEntries(1, 5))) > 0) {
        expect(n).toBeLessThanOrEqual(5);
        counts.push(n);
        expect(counts.length).toBeLessThan(100);
      }
      // LMDB counts index entries with the rows (7 entries per row here); PostgreSQL only rows.
      expect(counts.reduce((a, b) => a + b, 0)).toBe(options.tail ? 7 * 8 : 7);
      expect(await port.rows.all(1)).toEqual([]);
      expect(await port.rows.lastRowId(1)).toBe('');
      expect(await port.rows.findEqual(1, [1], { 1: 'r1' })).toBeUndefined();
      expect((await port.rows.all(2)).map((r) => r.values)).toEqual([{ 1: 'kept' }]);
    });
  });

  describe(`${name}: meta`, () => {
    test('values round trip; backups’ holds on the files count while they last', async () => {
      const port = await makePort();
      expect(await port.meta.get('x')).toBeUndefined();
      const values = { n: 42, f: 0.125, s: 'text "quoted" é', b: false, list: [1, 'two', null, { three: 3 }], object: { a: { b: [true] } } };
      for (const [name, value] of Object.entries(values)) await port.meta.put(name, value);
      for (const [name, value] of Object.entries(values)) expect(await port.meta.get(name)).toEqual(value);
      await port.meta.put('n', 43);
      expect(await port.meta.get('n')).toBe(43);

      expect(await port.meta.filesHeld()).toBe(false);
      await port.meta.put(`${HOLD_PREFIX}a`, { until: Date.now() - 1000, pid: 1 });
      // A name outside the holds' prefix holds nothing.
      await port.meta.put('backup_hol', { until: Date.now() + 60_000, pid: 1 });
      expect(await port.meta.filesHeld()).toBe(false);
      await port.meta.put(`${HOLD_PREFIX}b`, { until: Date.now() + 60_000, pid: 2 });
      expect(await port.meta.filesHeld()).toBe(true);
      await port.transaction(async (tx) => expect(await tx.meta.filesHeld()).toBe(true));
    });
  });

  describe(`${name}: accounts`, () => {
    test('organizations, projects and keys: round trips, listings in id order, filters, lookup by hash, and the change count', async () => {
      const port = await makePort();
      expect(await port.accounts.version()).toBe(0);
      await port.accounts.putOrg(org('org_b', { monthly_request_quota: 1000 }));
      await port.accounts.putOrg(org('org_a', { suspended_at: 5 }));
      expect(await port.accounts.version()).toBe(2);
      expect(await port.accounts.getOrg('org_b')).toEqual(org('org_b', { monthly_request_quota: 1000 }));
      expect(await port.accounts.getOrg('org_c')).toBeUndefined();
      expect((await port.accounts.listOrgs()).map((o) => o.id)).toEqual(['org_a', 'org_b']);

      await port.accounts.putProject(project('proj_3', 'org_b'));
      await port.accounts.putProject(project('proj_1', 'org_a'));
      await port.accounts.putProject(project('proj_2', 'org_b'));
      expect(await port.accounts.getProject('proj_3')).toEqual(project('proj_3', 'org_b'));
      expect((await port.accounts.listProjects()).map((p) => p.id)).toEqual(['proj_1', 'proj_2', 'proj_3']);
      expect((await port.accounts.listProjects('org_b')).map((p) => p.id)).toEqual(['proj_2', 'proj_3']);
      expect(await port.accounts.listProjects('org_z')).toEqual([]);

      await port.accounts.putKey(apiKey('key_2', 'org_a', 'hash_2'));
      await port.accounts.putKey(apiKey('key_1', 'org_b', 'hash_1'));
      expect(await port.accounts.getKey('key_1')).toEqual(apiKey('key_1', 'org_b', 'hash_1'));
      expect(await port.accounts.getKeyByHash('hash_2')).toEqual(apiKey('key_2', 'org_a', 'hash_2'));
      expect(await port.accounts.getKeyByHash('hash_3')).toBeUndefined();
      expect((await port.accounts.listKeys()).map((k) => k.id)).toEqual(['key_1', 'key_2']);
      expect((await port.accounts.listKeys('org_a')).map((k) => k.id)).toEqual(['key_2']);
      const revoked = { ...apiKey('key_2', 'org_a', 'hash_2'), revoked_at: 99 };
      await port.accounts.putKey(revoked);
      expect(await port.accounts.getKeyByHash('hash_2')).toEqual(revoked);
      expect(await port.accounts.version()).toBe(8);
      // Reads count nothing; a transaction's changes count once it commits.
      await port.transaction(async (tx) => {
        await tx.accounts.putOrg(org('org_c'));
        expect(await tx.accounts.version()).toBe(9);
        expect(await port.accounts.version()).toBe(9);
      });
      expect(await port.accounts.version()).toBe(9);
    });
  });

  describe(`${name}: usage and idempotency`, () => {
    test('usage counts per organization and month', async () => {
      const port = await makePort();
      await port.usage.add(new Map(), '2026-11');
      expect(await port.usage.get('org_1', '2026-11')).toBe(0);
      await port.usage.add(new Map([['org_1', 3]]), '2026-11');
      await port.usage.add(
        new Map([
          ['org_1', 4],
          ['org_2', 1],
        ]),
        '2026-11',
      );
      await port.usage.add(new Map([['org_1', 10]]), '2026-12');
      expect([await port.usage.get('org_1', '2026-11'), await port.usage.get('org_2', '2026-11'), await port.usage.get('org_1', '2026-12')]).toEqual([7, 1, 10]);
    });

    test('idempotency records round trip with their bytes, are replaced, and are purged when made before the cutoff', async () => {
      const port = await makePort();
      expect(await port.idempotency.get('key_1', 'abc')).toBeUndefined();
      await port.idempotency.put('key_1', 'abc', idempotency(100, '{"id":1}'));
      await port.idempotency.put('key_1', 'def', idempotency(200, ''));
      await port.idempotency.put('key_2', 'abc', idempotency(300, 'é\u0001'));
      const got = await port.idempotency.get('key_1', 'abc');
      expect({ ...got, body: [...got!.body] }).toEqual({ ...idempotency(100, ''), body: [...new TextEncoder().encode('{"id":1}')] });
      expect(new TextDecoder().decode((await port.idempotency.get('key_2', 'abc'))!.body)).toBe('é\u0001');
      expect((await port.idempotency.get('key_1', 'def'))!.body.length).toBe(0);
      await port.idempotency.put('key_1', 'abc', idempotency(150, 'again'));
      expect((await port.idempotency.get('key_1', 'abc'))?.created_at).toBe(150);
      expect(await port.idempotency.purgeBefore(150)).toBe(0);
      expect(await port.idempotency.purgeBefore(201)).toBe(2);
      expect(await port.idempotency.get('key_1', 'abc')).toBeUndefined();
      expect(await port.idempotency.get('key_1', 'def')).toBeUndefined();
      expect((await port.idempotency.get('key_2', 'abc'))?.created_at).toBe(300);
    });
  });

  describe(`${name}: batches`, () => {
    test('batches, extractions and batch rows: round trips, listings, unfinished batches, rows appended in order', async () => {
      const port = await makePort();
      await port.batches.put(batch('bat_3', 'proj_1', 'complete'));
      await port.batches.put(batch('bat_1', 'proj_1', 'processing'));
      await port.batches.put(batch('bat_2', 'proj_2', 'uploading'));
      await port.batches.put(batch('bat_4', 'proj_1', 'failed'));
      await port.batches.put(batch('bat_5', 'proj_1', 'merging'));
      expect(await port.batches.get('bat_1')).toEqual(batch('bat_1', 'proj_1', 'processing'));
      expect(await port.batches.get('bat_9')).toBeUndefined();
      expect((await port.batches.listProject('proj_1')).map((b) => b.id)).toEqual(['bat_1', 'bat_3', 'bat_4', 'bat_5']);
      expect((await port.batches.unfinished()).map((b) => b.id)).toEqual(['bat_1', 'bat_2', 'bat_5']);
      await port.batches.put({ ...batch('bat_1', 'proj_1', 'partial'), files_done: 2 });
      expect((await port.batches.unfinished()).map((b) => b.id)).toEqual(['bat_2', 'bat_5']);
      expect((await port.batches.get('bat_1'))?.files_done).toBe(2);

      expect(await port.batches.getExtraction('ext_1')).toBeUndefined();
      await port.batches.putExtraction(extraction('ext_1'));
      expect(await port.batches.getExtraction('ext_1')).toEqual(extraction('ext_1'));

      const batchRow = (n: number, extractionId = 'ext_1'): BatchRow => ({ extraction_id: extractionId, values: { name: `n${n}`, amount: n, empty: null }, confidence: n / 10 });
      expect(await port.batches.batchRows('bat_1')).toEqual([]);
      await port.batches.addRows('bat_1', [batchRow(1), batchRow(2)]);
      await port.batches.addRows('bat_2', [batchRow(9)]);
      await port.transaction(async (tx) => {
        await tx.batches.addRows('bat_1', [batchRow(3, 'ext_2')]);
        await tx.batches.addRows('bat_1', []);
        await tx.batches.addRows('bat_1', [batchRow(4), batchRow(5)]);
        expect((await tx.batches.batchRows('bat_1')).length).toBe(5);
      });
      expect(await port.batches.batchRows('bat_1')).toEqual([batchRow(1), batchRow(2), batchRow(3, 'ext_2'), batchRow(4), batchRow(5)]);
      expect(await port.batches.batchRows('bat_2')).toEqual([batchRow(9)]);
    });
  });

  describe(`${name}: webhooks and the delivery queue`, () => {
    test('webhooks by organization, deliveries by webhook, in id order', async () => {
      const port = await makePort();
      await port.webhooks.put(webhook('whook_b', 'org_1'));
      await port.webhooks.put(webhook('whook_a', 'org_1'));
      await port.webhooks.put(webhook('whook_c', 'org_2'));
      expect(await port.webhooks.get('whook_a')).toEqual(webhook('whook_a', 'org_1'));
      expect(await port.webhooks.get('whook_x')).toBeUndefined();
      expect((await port.webhooks.listOrg('org_1')).map((w) => w.id)).toEqual(['whook_a', 'whook_b']);
      await port.webhooks.put({ ...webhook('whook_a', 'org_1'), active: false, failure_count: 3 });
      expect((await port.webhooks.get('whook_a'))?.failure_count).toBe(3);

      await port.webhooks.putDelivery(delivery('whdlv_2', 'whook_a', 100));
      await port.webhooks.putDelivery(delivery('whdlv_1', 'whook_a', null, 'success'));
      await port.webhooks.putDelivery(delivery('whdlv_3', 'whook_b', 50));
      expect(await port.webhooks.getDelivery('whdlv_2')).toEqual(delivery('whdlv_2', 'whook_a', 100));
      expect(await port.webhooks.deliveryIds('whook_a')).toEqual(['whdlv_1', 'whdlv_2']);
      expect((await port.webhooks.listDeliveries('whook_a')).map((d) => d.id)).toEqual(['whdlv_1', 'whdlv_2']);
      expect(await port.webhooks.listDeliveries('whook_c')).toEqual([]);

      await port.webhooks.removeDelivery((await port.webhooks.getDelivery('whdlv_1'))!);
      expect(await port.webhooks.deliveryIds('whook_a')).toEqual(['whdlv_2']);
      // A webhook goes with its deliveries, and they leave the queue.
      await port.webhooks.remove((await port.webhooks.get('whook_a'))!);
      expect(await port.webhooks.get('whook_a')).toBeUndefined();
      expect(await port.webhooks.getDelivery('whdlv_2')).toBeUndefined();
      expect(await port.webhooks.deliveryIds('whook_a')).toEqual([]);
      expect(await port.webhooks.queuedUntil(1e15, 10)).toEqual(['whdlv_3']);
      expect((await port.webhooks.listOrg('org_1')).map((w) => w.id)).toEqual(['whook_b']);
    });

    test('the queue: earliest first, by time then id, moved with `previous`, left when finished', async () => {
      const port = await makePort();
      expect(await port.webhooks.nextQueued()).toBeNull();
      expect(await port.webhooks.queuedUntil(1e15, 10)).toEqual([]);
      await port.webhooks.putDelivery(delivery('whdlv_d', 'whook_a', 300));
      await port.webhooks.putDelivery(delivery('whdlv_c', 'whook_b', 200));
      await port.webhooks.putDelivery(delivery('whdlv_b', 'whook_a', 200));
      await port.webhooks.putDelivery(delivery('whdlv_a', 'whook_a', 400));
      await port.webhooks.putDelivery(delivery('whdlv_e', 'whook_a', null, 'failed'));
      expect(await port.webhooks.nextQueued()).toBe(200);
      expect(await port.webhooks.queuedUntil(300, 10)).toEqual(['whdlv_b', 'whdlv_c', 'whdlv_d']);
      expect(await port.webhooks.queuedUntil(299, 10)).toEqual(['whdlv_b', 'whdlv_c']);
      expect(await port.webhooks.queuedUntil(1000, 2)).toEqual(['whdlv_b', 'whdlv_c']);
      expect(await port.webhooks.queuedUntil(199, 10)).toEqual([]);
      expect(await port.webhooks.queuedFor('whook_a')).toEqual(['whdlv_b', 'whdlv_d', 'whdlv_a']);

      // A send leases b until 500: it moves to the back of the queue.
      const b = (await port.webhooks.getDelivery('whdlv_b'))!;
      const leased = { ...b, queued_at: 500, leased_until: 500, attempt: 1 };
      await port.webhooks.putDelivery(leased, b);
      expect(await port.webhooks.queuedUntil(1000, 10)).toEqual(['whdlv_c', 'whdlv_d', 'whdlv_a', 'whdlv_b']);
      expect(await port.webhooks.getDelivery('whdlv_b')).toEqual(leased);
      // Delivered: it leaves the queue.
      await port.webhooks.putDelivery({ ...leased, status: 'success', queued_at: null, leased_until: null, delivered_at: 510 }, leased);
      expect(await port.webhooks.queuedFor('whook_a')).toEqual(['whdlv_d', 'whdlv_a']);
      expect(await port.webhooks.nextQueued()).toBe(200);
      await port.transaction(async (tx) => {
        const c = (await tx.webhooks.getDelivery('whdlv_c'))!;
        await tx.webhooks.putDelivery({ ...c, queued_at: 250, next_retry_at: 250 }, c);
        expect(await tx.webhooks.nextQueued()).toBe(250);
      });
      expect(await port.webhooks.nextQueued()).toBe(250);
    });

    test('finishedBefore: finished deliveries made before the cutoff, oldest first, up to the limit', async () => {
      const port = await makePort();
      const made = new Map([1, 2, 3, 4, 10].map((t) => [t, newId('whdlv', 1_700_000_000_000 + t)]));
      const at = (t: number) => made.get(t)!;
      const statuses: Record<number, DeliveryRecord['status']> = { 1: 'success', 2: 'pending', 3: 'failed', 4: 'success', 10: 'success' };
      for (const [t, id] of [...made].reverse()) {
        const status = statuses[t]!;
        await port.webhooks.putDelivery(delivery(id, 'whook_a', status === 'pending' ? 5 : null, status));
      }
      const ids = async (cutoff: number, limit: number) => (await port.webhooks.finishedBefore(1_700_000_000_000 + cutoff, limit)).map((d) => d.id);
      expect(await ids(5, 10)).toEqual([at(1), at(3), at(4)]);
      expect(await ids(5, 2)).toEqual([at(1), at(3)]);
      expect(await ids(1, 10)).toEqual([]);
      expect(await ids(11, 10)).toEqual([at(1), at(3), at(4), at(10)]);
    });
  });

  describe(`${name}: examples, readings, exports and templates`, () => {
    test('examples by id, by table and by reviewed row', async () => {
      const port = await makePort();
      await port.examples.put(example('ex_2', 'tbl_a', 'row_1'));
      await port.examples.put(example('ex_1', 'tbl_a', 'row_2'));
      await port.examples.put(example('ex_3', 'tbl_b', 'row_1'));
      expect(await port.examples.get('ex_1')).toEqual(example('ex_1', 'tbl_a', 'row_2'));
      expect(await port.examples.get('ex_9')).toBeUndefined();
      expect((await port.examples.ofRow('tbl_a', 'row_1'))?.id).toBe('ex_2');
      expect((await port.examples.ofRow('tbl_b', 'row_1'))?.id).toBe('ex_3');
      expect(await port.examples.ofRow('tbl_b', 'row_2')).toBeUndefined();
      expect((await port.examples.listTable('tbl_a')).map((e) => e.id)).toEqual(['ex_1', 'ex_2']);
      await port.examples.remove(example('ex_2', 'tbl_a', 'row_1'));
      expect(await port.examples.ofRow('tbl_a', 'row_1')).toBeUndefined();
      expect((await port.examples.listTable('tbl_a')).map((e) => e.id)).toEqual(['ex_1']);
    });

    test('readings round trip by checksum; one too large is not kept', async () => {
      const port = await makePort();
      expect(await port.readings.get('sum_1')).toBeUndefined();
      expect(await port.readings.has('sum_1')).toBe(false);
      const value = { ...reading('Invoice 42\nTotal 10.00 €'), lines: [{ text: 'Invoice 42', page: 1 }], tables: [{ rows: [['a', 1, null]] }] } as unknown as Reading;
      expect(await port.readings.put('sum_1', value)).toBe(true);
      expect(await port.readings.get('sum_1')).toEqual(value);
      expect(await port.readings.has('sum_1')).toBe(true);
      expect(await port.readings.put('sum_2', reading('x'.repeat(MAX_READING_BYTES + 1)))).toBe(false);
      expect(await port.readings.has('sum_2')).toBe(false);
    });

    test('exports round trip and are listed in id order', async () => {
      const port = await makePort();
      await port.exports.put(exportRecord('exp_2'));
      await port.exports.put(exportRecord('exp_1'));
      expect(await port.exports.get('exp_2')).toEqual(exportRecord('exp_2'));
      expect(await port.exports.get('exp_3')).toBeUndefined();
      const done = { ...exportRecord('exp_2'), status: 'complete' as const, checksum: 'abc', row_count: 3 };
      await port.exports.put(done);
      expect(await port.exports.all()).toEqual([exportRecord('exp_1'), done]);
      await port.exports.remove(exportRecord('exp_1'));
      expect(await port.exports.all()).toEqual([done]);
    });

    test('templates of an organization, and the uses of any template', async () => {
      const port = await makePort();
      await port.templates.put(template('ttmpl_b', 'org_1'));
      await port.templates.put(template('ttmpl_a', 'org_1'));
      await port.templates.put(template('ttmpl_c', 'org_2'));
      // Only organizations' templates (ids `ttmpl_…`) are listed.
      await port.templates.put(template('tmpl_invoice', 'org_1'));
      expect(await port.templates.get('ttmpl_a')).toEqual(template('ttmpl_a', 'org_1'));
      expect(await port.templates.get('ttmpl_x')).toBeUndefined();
      expect((await port.templates.listOrg('org_1')).map((t) => t.id)).toEqual(['ttmpl_a', 'ttmpl_b']);
      await port.templates.countUse('ttmpl_a');
      await port.templates.countUse('ttmpl_a');
      await port.templates.countUse('tmpl_builtin');
      expect([await port.templates.usage('ttmpl_a'), await port.templates.usage('tmpl_builtin'), await port.templates.usage('ttmpl_b')]).toEqual([2, 1, 0]);
      // A removal takes the template and its count together.
      await port.templates.remove('ttmpl_a');
      expect(await port.templates.get('ttmpl_a')).toBeUndefined();
      expect(await port.templates.usage('ttmpl_a')).toBe(0);
      expect((await port.templates.listOrg('org_1')).map((t) => t.id)).toEqual(['ttmpl_b']);
    });
  });
}
