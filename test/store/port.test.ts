/**
 * The store port on LMDB: an async transaction reads its own writes on top of the committed store
 * (single keys and ranges, with offset, limit and reverse, checked against LMDB itself), keeps
 * nothing when it throws, runs after and before other transactions (no lost update), joins a
 * transaction it runs in, and turns a commit the disk refuses into a 503. A repository's write
 * outside a transaction is one of its own.
 */
import { afterAll, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { ApiError } from '../../src/lib/errors';
import { openStore, type Store } from '../../src/store/db';
import { lmdbPort } from '../../src/store/lmdb.port';
import { tempDir } from '../helpers/app';
import { tableRecord } from './port-contract';

const dirs: string[] = [];
const stores: Store[] = [];
function fresh(): Store {
  const dir = tempDir();
  dirs.push(dir);
  const store = openStore(dir);
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The contract suite's table record, at seq 1. */
const table = (id: string, slug: string) => tableRecord(id, slug, 1);

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

test('a transaction reads its own writes; others see them only once it has committed', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  await port.tables.put(table('tbl_a', 'a'));
  let written!: () => void;
  let release!: () => void;
  const wrote = new Promise<void>((resolve) => (written = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = port.transaction(async (tx) => {
    const before = await tx.tables.get('tbl_a');
    await tx.tables.put({ ...before!, slug: 'renamed', revision: 2 }, before);
    expect((await tx.tables.get('tbl_a'))?.slug).toBe('renamed');
    expect(await tx.tables.slugOwner('proj_1', 'renamed')).toBe('tbl_a');
    expect(await tx.tables.slugOwner('proj_1', 'a')).toBeUndefined();
    expect((await tx.tables.listProject('proj_1')).map((t) => t.slug)).toEqual(['renamed']);
    written();
    await released;
  });
  // Another request, while the transaction is open, still sees the committed store.
  await wrote;
  const outsideDuring = await port.tables.get('tbl_a');
  release();
  await done;
  expect(outsideDuring?.slug).toBe('a');
  expect((await port.tables.get('tbl_a'))?.slug).toBe('renamed');
  expect(await port.tables.slugOwner('proj_1', 'a')).toBeUndefined();
});

test('a transaction that throws keeps nothing', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  await port.tables.put(table('tbl_a', 'a'));
  const failed = port.transaction(async (tx) => {
    await tx.tables.put(table('tbl_b', 'b'));
    await tx.meta.put('counter', 5);
    await tick();
    throw new Error('rule broken');
  });
  expect(failed).rejects.toThrow('rule broken');
  await failed.catch(() => undefined);
  expect(await port.tables.get('tbl_b')).toBeUndefined();
  expect(await port.tables.slugOwner('proj_1', 'b')).toBeUndefined();
  expect(await port.meta.get('counter')).toBeUndefined();
  expect((await port.tables.listProject('proj_1')).map((t) => t.id)).toEqual(['tbl_a']);
});

test('concurrent transactions run one after another, so no update is lost', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  // Each reads, waits (another request could run), then writes what it read plus one.
  const bump = () =>
    port.transaction(async (tx) => {
      const n = (await tx.meta.get<number>('n')) ?? 0;
      await tick();
      await tx.meta.put('n', n + 1);
    });
  // A synchronous transaction of a module not on the port yet waits its turn the same way.
  const bumpSync = () => store.transaction(() => store.db<number, string>('meta').putSync('n', (store.db<number, string>('meta').get('n') ?? 0) + 1));
  await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? bumpSync() : bump())));
  expect(await port.meta.get<number>('n')).toBe(20);
});

test('a repository write outside a transaction is a transaction of its own: atomic, and no update lost', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  // countUse reads and writes. Run bare, beside transactions that read the count, wait, and count
  // once more, it must neither slip into one of them nor be lost.
  const seen: boolean[] = [];
  const viaTransaction = () =>
    port.transaction(async (tx) => {
      const before = await tx.templates.usage('ttmpl_1');
      await tick();
      await tx.templates.countUse('ttmpl_1');
      seen.push((await tx.templates.usage('ttmpl_1')) === before + 1);
    });
  await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? port.templates.countUse('ttmpl_1') : viaTransaction())));
  expect(seen).toEqual(Array(6).fill(true));
  expect(await port.templates.usage('ttmpl_1')).toBe(12);
  // A removal of several keys is all or nothing too: the template and its count go together.
  await port.templates.remove('ttmpl_1');
  expect(await port.templates.usage('ttmpl_1')).toBe(0);
});

test('outside a transaction, a store method that reads back its own write stops its trial run at the write and runs again in a transaction', async () => {
  const store = fresh();
  let runs = 0;
  // Without its write the read-back finds nothing: a trial run that went on past the write would throw.
  const putAndRead = () => {
    runs++;
    const meta = store.db('meta');
    meta.putSync('probe', runs);
    const back = meta.get('probe');
    if (back === undefined) throw new Error('own write not read back');
    return back;
  };
  expect(await store.call(putAndRead)).toBe(2);
  expect(runs).toBe(2);
  expect(store.db('meta').get('probe')).toBe(2);
  // A method that only reads runs once, straight on the store.
  expect(await store.call(() => (runs++, store.db('meta').get('probe')))).toBe(2);
  expect(runs).toBe(3);
});

test('a synchronous transaction whose body returns a promise is refused (its awaits would run after the commit)', async () => {
  const store = fresh();
  expect(store.transaction(() => Promise.resolve(1))).rejects.toThrow('use transactionAsync');
  expect(await store.transaction(() => 1)).toBe(1);
});

test('a transaction inside another joins it: both are kept or neither', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  await port.transaction(async (tx) => {
    await tx.meta.put('outer', 1);
    await port.transaction(async (inner) => {
      expect(await inner.meta.get('outer')).toBe(1);
      await inner.meta.put('inner', 2);
    });
    // A module still on synchronous transactions joins it too, and reads through it.
    await store.transaction(() => store.db('meta').putSync('sync', (store.db<number, string>('meta').get('inner') ?? 0) + 1));
  });
  expect([await port.meta.get('outer'), await port.meta.get('inner'), await port.meta.get('sync')]).toEqual([1, 2, 3]);
  await port
    .transaction(async (tx) => {
      await port.transaction(async (inner) => inner.meta.put('lost', true));
      await tx.meta.put('also lost', true);
      throw new Error('no');
    })
    .catch(() => undefined);
  expect([await port.meta.get('lost'), await port.meta.get('also lost')]).toEqual([undefined, undefined]);
});

test('ranges inside a transaction merge its puts and removes in key order, with offset, limit and reverse', async () => {
  // Keys shaped like the row index's ([seq, slot, value, id]) with every kind of value; the same
  // writes go through a transaction and straight into a second store, whose LMDB ranges are
  // the reference.
  const store = fresh();
  const reference = fresh();
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const values = [null, false, true, -5, 0, 2.5, 17, 1e9, '', 'a', 'ab', 'b', 'zz', 'é', '\u4e00'];
  const key = () => [1 + rand(2), rand(3) - 1, values[rand(values.length)], `row_${rand(40)}`];
  const committed = Array.from({ length: 400 }, key);
  const fill = (s: Store) => s.transaction(() => committed.forEach((k, i) => s.db('meta').putSync(k as never, i)));
  await fill(store);
  await fill(reference);
  const ops = Array.from({ length: 300 }, (_, i) => ({ key: rand(3) === 0 ? committed[rand(committed.length)]! : key(), remove: rand(3) === 0, value: 1000 + i }));

  const bounds = [undefined, [1], [1, 0], [1, 0, 'a'], [1, 0, 'a', 'row_9'], [1, 1, false], [2], [2, -1, 17], [2, 1, '\uffff'], [3]];
  const ranges = bounds.flatMap((start) => bounds.flatMap((end) => [false, true].map((reverse) => ({ start, end, reverse }))));
  const pagings = [{}, { limit: 3 }, { offset: 4 }, { offset: 2, limit: 5 }, { offset: 1000 }];
  const read = (s: Store) => {
    const db = s.db<number, any>('meta');
    return ranges.flatMap((range) =>
      pagings.flatMap((paging) => {
        const options = { ...range, ...paging };
        return [JSON.stringify([...db.getRange(options)]), JSON.stringify([...db.getKeys(options)]), db.getKeysCount(options)];
      }),
    );
  };

  let inside: unknown[] = [];
  let single: unknown[] = [];
  await store.transactionAsync(async () => {
    const db = store.db<number, any>('meta');
    // Reads between the writes, so the buffer's sorted keys are rebuilt as it grows.
    for (const [i, op] of ops.entries()) {
      if (op.remove) db.removeSync(op.key);
      else db.putSync(op.key, op.value);
      if (i % 50 === 0) [...db.getRange({ start: [1], end: [2] })];
    }
    await tick();
    inside = read(store);
    single = ops.map((op) => db.get(op.key));
  });
  await reference.transaction(() => {
    for (const op of ops) {
      if (op.remove) reference.db('meta').removeSync(op.key as never);
      else reference.db('meta').putSync(op.key as never, op.value);
    }
  });
  expect(inside).toEqual(read(reference));
  expect(single).toEqual(ops.map((op) => reference.db('meta').get(op.key as never)));
  // And what was committed is what the reference holds.
  expect(read(store)).toEqual(read(reference));
});

test('the row index keeps its entries through buffered writes (key-only values)', async () => {
  const store = fresh();
  const port = lmdbPort(store);
  const slots = [{ slot: 1, multi: false }];
  const row = (i: number, v: unknown) => ({ id: `row_${String(i).padStart(4, '0')}`, created_at: i, updated_at: i, batch_id: null, confidence: null, values: { 1: v } });
  await port.transaction(async (tx) => {
    for (let i = 0; i < 10; i++) await tx.rows.put(3, row(i, i % 3), slots);
    // Found through index entries written earlier in the same transaction.
    expect((await tx.rows.findEqual(3, [1], { 1: 2 }))?.id).toBe('row_0002');
    await tx.rows.remove(3, row(2, 2), slots);
    expect((await tx.rows.findEqual(3, [1], { 1: 2 }))?.id).toBe('row_0005');
  });
  expect((await port.rows.findEqual(3, [1], { 1: 2 }))?.id).toBe('row_0005');
  expect((await port.rows.all(3)).map((r) => r.id)).toEqual(['row_0000', 'row_0001', 'row_0003', 'row_0004', 'row_0005', 'row_0006', 'row_0007', 'row_0008', 'row_0009']);
});

const canMount = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

test.skipIf(!canMount)('a commit the disk refuses is a 503, keeps nothing, and later transactions work', async () => {
  const mountPoint = tempDir('rowsmith-port-full-');
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountPoint]).status === 0;
  if (!mounted) {
    rmSync(mountPoint, { recursive: true, force: true });
    throw new Error('tmpfs could not be mounted');
  }
  const store = openStore(mountPoint);
  try {
    const port = lmdbPort(store);
    await port.tables.put(table('tbl_a', 'a'));
    const big = 'x'.repeat(64 * 1024);
    let refused: unknown;
    for (let i = 0; i < 200 && !refused; i++) {
      await port
        .transaction(async (tx) => {
          for (let j = 0; j < 8; j++) await tx.meta.put(`big_${i}_${j}`, big);
          const current = await tx.tables.get('tbl_a');
          await tx.tables.putRecord({ ...current!, row_count: current!.row_count + 1 });
        })
        .catch((error: unknown) => (refused = error));
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    // The table's count is that of the transactions kept: the refused one left nothing.
    const kept = (await port.tables.get('tbl_a'))!.row_count;
    let bigKept = 0;
    for (let i = 0; i < 200; i++) if ((await port.meta.get(`big_${i}_0`)) !== undefined) bigKept++;
    expect(bigKept).toBe(kept);
    // Room again: the next transaction commits.
    spawnSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    await port.transaction(async (tx) => tx.meta.put('after', 1));
    expect(await port.meta.get('after')).toBe(1);
  } finally {
    await store.close();
    spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
});
