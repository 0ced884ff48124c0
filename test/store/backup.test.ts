/** The store side of backups: holds that defer file deletions, and files the live store has lost. */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/lib/clock';
import { backup, FileHold } from '../../src/store/backup';
import { MetaStore } from '../../src/store/meta.store';
import { openStore } from '../../src/store/db';
import { startApp, tempDir } from '../helpers/app';

const P = '/v1/projects/proj_default';

async function exportedTable(app: Awaited<ReturnType<typeof startApp>>): Promise<string> {
  const table = (await app.request('POST', `${P}/tables`, { body: { name: 'T', columns_json: [{ id: 'a', name: 'A' }] } })).body.id;
  await app.request('POST', `${P}/tables/${table}/rows`, { body: { a: 'x' } });
  const started = (await app.request('GET', `${P}/tables/${table}/export?format=csv`)).body;
  await app.services.exports.settle();
  expect((await app.request('GET', `${P}/exports/${started.id}`)).body.status).toBe('complete');
  return started.id;
}

test('expired exports are not purged while a backup holds the files, and are once it lets go', async () => {
  const clock = new ManualClock();
  const app = await startApp({ clock, config: { exportTtlMs: 3_600_000 } });
  try {
    const id = await exportedTable(app);
    const file = join(app.dataDir, 'exports', `${id}.csv`);
    clock.advance(3_600_001);

    const hold = await FileHold.place(app.store);
    expect(new MetaStore(app.store).filesHeld()).toBe(true);
    expect(await app.services.exports.purgeExpired()).toBe(0);
    expect(existsSync(file)).toBe(true);
    await hold.release();
    expect(new MetaStore(app.store).filesHeld()).toBe(false);

    // The hold a killed backup left lapses on its own.
    await app.store.transaction(() => app.store.db('meta').putSync('backup_hold:killed', { until: Date.now() - 1, pid: 1 }));
    expect(new MetaStore(app.store).filesHeld()).toBe(false);
    expect(await app.services.exports.purgeExpired()).toBe(1);
    expect(existsSync(file)).toBe(false);
  } finally {
    await app.close();
  }
});

test('a backup lists the files the store names but DATA_DIR lost, and leaves no hold in either store', async () => {
  const app = await startApp();
  const target = join(tempDir('rowsmith-backup-'), 'b');
  try {
    const id = await exportedTable(app);
    rmSync(join(app.dataDir, 'exports', `${id}.csv`));
    const { manifest } = await backup(app.store, target, 'test');
    expect(manifest.missing).toEqual([{ path: `exports/${id}.csv`, problem: 'missing from DATA_DIR' }]);
    expect(manifest.files.map((f) => f.path)).toEqual(['db/data.mdb']);
    expect(JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(new MetaStore(app.store).filesHeld()).toBe(false);
    expect([...app.store.db('meta').getKeys({ start: 'backup_hold:', end: 'backup_hold:\uffff' })]).toEqual([]);

    const copy = openStore(target);
    try {
      expect([...copy.db('meta').getKeys({ start: 'backup_hold:', end: 'backup_hold:\uffff' })]).toEqual([]);
      expect(copy.db('exports').get(id)).toMatchObject({ id, status: 'complete' });
    } finally {
      await copy.close();
    }
  } finally {
    await app.close();
    rmSync(join(target, '..'), { recursive: true, force: true });
  }
});
