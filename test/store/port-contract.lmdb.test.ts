/** The store port's contract (port-contract.ts) on LMDB, each test on a store of its own in a temp folder. */
import { afterAll } from 'bun:test';
import { rmSync } from 'node:fs';
import { openStore, type Store } from '../../src/store/db';
import { lmdbPort } from '../../src/store/lmdb.port';
import { tempDir } from '../helpers/app';
import { portContract } from './port-contract';

const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

portContract(
  'LMDB',
  async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = openStore(dir);
    stores.push(store);
    return lmdbPort(store);
  },
  { tail: true },
);
