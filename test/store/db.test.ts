/** The store's encodings: rows written before shared structures were turned on must still read. */
import { expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStore } from '../../src/store/db';
import { RowsStore, type RowRecord } from '../../src/store/rows.store';
import { tempDir } from '../helpers/app';

const row = (i: number): RowRecord => ({
  id: `row_${String(i).padStart(26, '0')}`,
  created_at: 1_700_000_000_000 + i,
  updated_at: 1_700_000_000_000 + i,
  batch_id: i % 2 ? null : 'bat_1',
  confidence: i % 3 ? null : 0.5,
  values: { 1: `name ${i}`, 2: i * 1.5, 3: i % 4 === 0 ? null : ['a', 'b'] },
});

test('rows stored with inline layouts read alongside rows stored with shared ones', async () => {
  const dataDir = tempDir();
  try {
    // As an earlier version wrote them: msgpack records with their layout in every value.
    const old = open({ path: join(dataDir, 'db'), maxDbs: 64, encoding: 'msgpack' });
    const oldRows = old.openDB({ name: 'rows', encoding: 'msgpack' });
    await old.transaction(() => {
      for (let i = 0; i < 50; i++) oldRows.putSync([7, row(i).id], row(i));
    });
    await old.close();

    const store = openStore(dataDir);
    const rows = new RowsStore(store);
    await store.transaction(() => {
      for (let i = 50; i < 100; i++) rows.put(7, row(i), []);
    });
    const all = [...rows.scanRows(7, false)];
    expect(all).toEqual(Array.from({ length: 100 }, (_, i) => row(i)));
    expect(rows.get(7, row(3).id)).toEqual(row(3));
    expect(rows.get(7, row(77).id)).toEqual(row(77));
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
