/**
 * Backups that restore: a snapshot of the LMDB environment plus every file it refers to (uploaded
 * sources under files/, export files under exports/), laid out as a DATA_DIR of its own, with a
 * manifest of checksums; and the restore that verifies a backup and brings it into a DATA_DIR.
 *
 * Consistency, while the server goes on writing: the snapshot is LMDB's own copy (one read
 * transaction), and the files copied are exactly those the snapshot's records name. That is sound
 * because a file is in place (written under a temporary name, then renamed) before the record
 * naming it commits, and is never rewritten (uploads are named by their SHA-256, an export's file
 * by the export's id). The one thing that removes such files, the purge of expired exports, is
 * held off while a backup copies: the backup commits a hold before its snapshot, and the purge
 * checks for holds in the same write transaction that drops the records. LMDB serialises the two,
 * so a purge either committed before the hold (its records are not in the snapshot) or sees the
 * hold and waits for a later run. Files are copied, not hard-linked: a backup must survive damage
 * to the live disk, and it is often on another filesystem.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open as openFile, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { open as openEnvironment } from 'lmdb';
import { openStore, type Store, type SubDatabaseName } from './db';
import { exportFileKey, type ExportRecord } from './exports.store';
import { HOLD_PREFIX, MetaStore, type Hold } from './meta.store';

export const BACKUP_FORMAT = 'rowsmith-backup';
export const BACKUP_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';
const DATA_FILE = 'db/data.mdb';

export interface ManifestFile {
  /** Relative to the backup folder, and to DATA_DIR once restored. */
  path: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  rowsmith_version: string;
  created_at: string;
  /** The DATA_DIR backed up. */
  source: string;
  /** Records in the snapshot, by kind, and the files copied with it. */
  counts: Record<string, number>;
  files: ManifestFile[];
  /** Files the snapshot names that the live DATA_DIR had lost or damaged: not in the backup. */
  missing: Array<{ path: string; problem: string }>;
}

export interface BackupResult {
  dir: string;
  /** An earlier backup in the folder was replaced. */
  replaced: boolean;
  manifest: BackupManifest;
}

export interface RestoreResult {
  dataDir: string;
  manifest: BackupManifest;
  /** Where the store that was in DATA_DIR was moved (with --force), or null. */
  previous: string | null;
}

/** The records counted in a manifest: its name there, and the sub-database. */
const COUNTED: Array<[string, SubDatabaseName]> = [
  ['organizations', 'orgs'],
  ['projects', 'projects'],
  ['api_keys', 'api_keys'],
  ['tables', 'tables'],
  ['rows', 'rows'],
  ['batches', 'batches'],
  ['extractions', 'extractions'],
  ['exports', 'exports'],
  ['templates', 'templates'],
  ['webhooks', 'webhooks'],
];

// ---------------------------------------------------------------------------------------------
// Holds: deletions of files wait while a backup copies them.

/** A hold lapses on its own this long after its last renewal, so a killed backup blocks nothing for long. */
const HOLD_MS = 10 * 60_000;
const HOLD_RENEW_MS = 60_000;

const holds = (store: Store) => new MetaStore(store).holds();

/** A backup's hold on the files: placed before its snapshot, renewed while it copies, released at the end. */
export class FileHold {
  private renewedAt = Date.now();

  private constructor(
    private readonly store: Store,
    private readonly key: string,
  ) {}

  static async place(store: Store): Promise<FileHold> {
    const hold = new FileHold(store, `${HOLD_PREFIX}${randomBytes(8).toString('hex')}`);
    await store.transaction(() => {
      const meta = store.db<Hold, string>('meta');
      // Holds of backups that were killed have lapsed: they go.
      for (const { key, value } of holds(store)) if (value.until <= Date.now()) meta.removeSync(key);
      meta.putSync(hold.key, { until: Date.now() + HOLD_MS, pid: process.pid });
    });
    return hold;
  }

  async renewIfDue(): Promise<void> {
    if (Date.now() - this.renewedAt < HOLD_RENEW_MS) return;
    this.renewedAt = Date.now();
    await this.store.transaction(() => this.store.db<Hold, string>('meta').putSync(this.key, { until: Date.now() + HOLD_MS, pid: process.pid }));
  }

  async release(): Promise<void> {
    await this.store.transaction(() => this.store.db('meta').removeSync(this.key));
  }
}

// ---------------------------------------------------------------------------------------------
// Files: copied (or read) with their SHA-256 computed on the way, and flushed to disk.

const CHUNK = 1 << 20;

/** Reads `from` (writing it to `to` if given, a new file), returning its size and SHA-256. */
async function pass(from: string, to: string | null): Promise<{ size: number; sha256: string }> {
  const source = await openFile(from, 'r');
  try {
    if (to) await mkdir(dirname(to), { recursive: true });
    const target = to ? await openFile(to, 'wx') : null;
    try {
      const hash = createHash('sha256');
      const buffer = Buffer.allocUnsafe(CHUNK);
      let size = 0;
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        if (target) for (let written = 0; written < bytesRead; ) written += (await target.write(buffer, written, bytesRead - written)).bytesWritten;
        size += bytesRead;
      }
      await target?.sync();
      return { size, sha256: hash.digest('hex') };
    } finally {
      await target?.close();
    }
  } finally {
    await source.close();
  }
}

async function syncPath(path: string): Promise<void> {
  const handle = await openFile(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Every folder under `root` (itself included), deepest first, so renames and new entries are on disk. */
async function syncFolders(root: string): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true });
  for (const entry of entries) if (entry.isDirectory()) await syncFolders(join(root, entry.name));
  await syncPath(root);
}

/** A temporary folder beside `dir` (same filesystem, so it can be renamed into place). */
function beside(dir: string, what: string): string {
  return join(dirname(dir), `.${basename(dir)}.${what}-${randomBytes(4).toString('hex')}`);
}

/** A folder that is a mount point cannot be renamed or replaced; the message says what to do instead. */
async function refuseMountPoint(dir: string, what: string): Promise<void> {
  const [self, parent] = await Promise.all([stat(dir), stat(dirname(dir))]);
  if (self.dev !== parent.dev) throw new Error(`${dir} is a mount point, which cannot be replaced; ${what} into a folder inside it`);
}

/** Puts the finished `staging` folder where `dir` is (absent or an empty folder). */
async function moveIntoPlace(staging: string, dir: string): Promise<void> {
  if (existsSync(dir)) await rmdir(dir);
  await rename(staging, dir);
  await syncPath(dirname(dir));
}

// ---------------------------------------------------------------------------------------------
// Backup

type TargetState = 'new' | 'empty' | 'backup';

/** A backup made before manifests: LMDB's copy alone. */
function isLegacyBackup(entries: string[]): boolean {
  return entries.includes('data.mdb') && entries.every((e) => e === 'data.mdb' || e === 'lock.mdb');
}

async function readManifest(dir: string): Promise<BackupManifest | null> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch {
    return null;
  }
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new Error(`${join(dir, MANIFEST)} is not valid JSON: the backup is damaged`);
  }
  if (manifest?.format !== BACKUP_FORMAT) throw new Error(`${join(dir, MANIFEST)} is not the manifest of a rowsmith backup`);
  return manifest as BackupManifest;
}

async function targetState(dir: string): Promise<TargetState> {
  if (!existsSync(dir)) return 'new';
  if (!(await stat(dir)).isDirectory()) throw new Error(`${dir} is not a folder`);
  const entries = await readdir(dir);
  if (entries.length === 0) return 'empty';
  const isBackup = await readManifest(dir).then(
    (m) => m !== null,
    () => false,
  );
  if (isBackup || isLegacyBackup(entries)) return 'backup';
  throw new Error(`${dir} is not empty and holds no rowsmith backup; back up into a new or empty folder (or one holding an earlier backup, which is replaced)`);
}

/** What the snapshot refers to, and its counts; the copy's own holds are dropped (they belong to the live store). */
async function snapshotContents(staging: string): Promise<{ counts: Record<string, number>; files: Array<{ path: string; sha256: string | null }> }> {
  const copy = openStore(staging);
  try {
    await copy.transaction(() => {
      for (const { key } of holds(copy)) copy.db('meta').removeSync(key);
    });
    const counts = Object.fromEntries(COUNTED.map(([name, db]) => [name, copy.db(db).getKeysCount()]));
    const files = new Map<string, string | null>();
    for (const { value } of copy.db<{ file_key: string }, string>('extractions').getRange()) {
      // An upload's key is its SHA-256.
      files.set(value.file_key, value.file_key.slice(value.file_key.lastIndexOf('/') + 1));
    }
    for (const { value } of copy.db<ExportRecord, string>('exports').getRange()) {
      if (value.status === 'complete') files.set(exportFileKey(value), value.checksum || null);
    }
    return { counts, files: [...files].map(([path, sha256]) => ({ path, sha256 })).sort((a, b) => a.path.localeCompare(b.path)) };
  } finally {
    await copy.close();
  }
}

/**
 * Writes a backup of `store` into `target`: a new or empty folder, or one holding an earlier
 * backup (replaced once the new one is complete). Built in a folder beside it and renamed into
 * place, so the target never holds half a backup.
 */
export async function backup(store: Store, target: string, version: string): Promise<BackupResult> {
  const dir = resolve(target);
  const state = await targetState(dir);
  if (state !== 'new') await refuseMountPoint(dir, 'back up');
  await mkdir(dirname(dir), { recursive: true });
  const staging = beside(dir, 'partial');
  try {
    await mkdir(join(staging, 'db'), { recursive: true });
    const createdAt = new Date().toISOString();
    const files: ManifestFile[] = [];
    const missing: BackupManifest['missing'] = [];
    let counts: Record<string, number>;
    const hold = await FileHold.place(store);
    try {
      // The environment has a folder of its own, so LMDB writes data.mdb inside the given folder.
      await store.env.backup(join(staging, 'db'), false);
      const contents = await snapshotContents(staging);
      counts = contents.counts;
      for (const file of contents.files) {
        await hold.renewIfDue();
        try {
          const copied = await pass(join(store.dataDir, file.path), join(staging, file.path));
          if (file.sha256 && copied.sha256 !== file.sha256) {
            await rm(join(staging, file.path));
            missing.push({ path: file.path, problem: 'damaged: its SHA-256 is not the one recorded' });
          } else files.push({ path: file.path, ...copied });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          missing.push({ path: file.path, problem: 'missing from DATA_DIR' });
        }
      }
    } finally {
      await hold.release();
    }
    await rm(join(staging, 'db', 'lock.mdb'), { force: true });
    await syncPath(join(staging, DATA_FILE));
    files.unshift({ path: DATA_FILE, ...(await pass(join(staging, DATA_FILE), null)) });
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      rowsmith_version: version,
      created_at: createdAt,
      source: store.dataDir,
      counts: { ...counts, files: files.length - 1, bytes: files.reduce((sum, f) => sum + f.size, 0) },
      files,
      missing,
    };
    const handle = await openFile(join(staging, MANIFEST), 'wx');
    try {
      await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncFolders(staging);
    if (state === 'backup') {
      const old = beside(dir, 'old');
      await rename(dir, old);
      await moveIntoPlace(staging, dir);
      await rm(old, { recursive: true, force: true });
    } else await moveIntoPlace(staging, dir);
    return { dir, replaced: state === 'backup', manifest };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Restore

/** Only paths of the DATA_DIR layout, with no way out of the folder. */
function safePath(path: unknown): path is string {
  return typeof path === 'string' && /^(db|files|exports)\/[\w.\/-]+$/.test(path) && !path.split('/').some((part) => part === '' || part === '.' || part === '..');
}

async function checkedManifest(dir: string): Promise<BackupManifest> {
  const entries = await readdir(dir).catch(() => null);
  if (!entries) throw new Error(`${dir} does not exist or cannot be read`);
  const manifest = await readManifest(dir);
  if (!manifest) {
    if (isLegacyBackup(entries)) {
      throw new Error(
        `${dir} is a backup made before backups had manifests: it holds the store alone, without the files it refers to, and cannot be verified. To use it anyway, stop the server and copy its data.mdb into DATA_DIR/db/`,
      );
    }
    throw new Error(`${dir} is not a rowsmith backup (it has no ${MANIFEST})`);
  }
  if (!Number.isInteger(manifest.format_version) || manifest.format_version > BACKUP_FORMAT_VERSION) {
    throw new Error(`${dir} was made by a newer rowsmith (backup format ${manifest.format_version}, ${manifest.rowsmith_version}); restore it with that version`);
  }
  const files = Array.isArray(manifest.files) ? manifest.files : [];
  const bad = files.find((f) => !safePath(f?.path) || !Number.isInteger(f.size) || !/^[0-9a-f]{64}$/.test(String(f.sha256)));
  if (bad || !files.some((f) => f.path === DATA_FILE) || new Set(files.map((f) => f.path)).size !== files.length || typeof manifest.counts !== 'object' || manifest.counts === null) {
    throw new Error(`${join(dir, MANIFEST)} is damaged: ${bad ? `bad entry ${JSON.stringify(bad)}` : `it must list ${DATA_FILE} and each file once, and the counts`}`);
  }
  return manifest;
}

/** Processes other than this one that have the LMDB environment under `dataDir` open. */
async function storeUsers(dataDir: string): Promise<number[]> {
  const env = openEnvironment({ path: join(dataDir, 'db'), readOnly: true });
  try {
    // Slots left by processes that died are cleared first.
    env.readerCheck();
    const pids = String(env.readerList())
      .split('\n')
      .slice(1)
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    return [...new Set(pids.filter((pid) => Number.isInteger(pid) && pid > 0 && pid !== process.pid))];
  } finally {
    await env.close();
  }
}

/**
 * Restores the backup in `source` into `dataDir`. Each file is copied into a folder beside
 * `dataDir` and checked against the manifest on the way; only when all match is that folder
 * renamed into place. `dataDir` must be absent or empty unless `force`: then the folder that was
 * there is kept beside it, renamed `<DATA_DIR>.replaced-<time>`.
 */
export async function restore(source: string, dataDir: string, options: { force: boolean }): Promise<RestoreResult> {
  const from = resolve(source);
  const to = resolve(dataDir);
  const manifest = await checkedManifest(from);
  if (from === to) throw new Error('the backup and DATA_DIR are the same folder');

  let previous: string | null = null;
  if (existsSync(to)) {
    if (!(await stat(to)).isDirectory()) throw new Error(`${to} is not a folder`);
    const entries = await readdir(to);
    if (entries.length) {
      const holdsStore = existsSync(join(to, DATA_FILE));
      if (!options.force) {
        throw new Error(
          holdsStore
            ? `${to} already holds a store; restore into an empty or new folder, or pass --force to replace it (the folder is kept beside, renamed ${basename(to)}.replaced-<time>)`
            : `${to} is not empty; restore into an empty or new folder, or pass --force to replace it (the folder is kept beside, renamed ${basename(to)}.replaced-<time>)`,
        );
      }
      if (holdsStore) {
        const users = await storeUsers(to);
        if (users.length) throw new Error(`${to} is in use by process ${users.join(', ')} (a running server?); stop it before restoring`);
      }
      await refuseMountPoint(to, 'restore');
      previous = `${to}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    } else await refuseMountPoint(to, 'restore');
  }

  await mkdir(dirname(to), { recursive: true });
  const staging = beside(to, 'restoring');
  try {
    await mkdir(staging);
    const problems: string[] = [];
    for (const file of manifest.files) {
      try {
        const copied = await pass(join(from, file.path), join(staging, file.path));
        if (copied.size !== file.size || copied.sha256 !== file.sha256) problems.push(`${file.path}: its content is not the one recorded (${copied.size} bytes, SHA-256 ${copied.sha256.slice(0, 12)}...)`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        problems.push(`${file.path}: missing`);
      }
    }
    if (problems.length) {
      const shown = problems.slice(0, 10).join('\n  ');
      throw new Error(`the backup in ${from} does not match its manifest; nothing was restored:\n  ${shown}${problems.length > 10 ? `\n  ... and ${problems.length - 10} more` : ''}`);
    }
    await syncFolders(staging);
    if (previous) {
      await rename(to, previous);
      await syncPath(dirname(to));
    }
    await moveIntoPlace(staging, to);
    return { dataDir: to, manifest, previous };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
