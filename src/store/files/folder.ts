/** Files in a folder: DATA_DIR, or on PostgreSQL one that every node mounts. Each is written to a temporary name beside it, then renamed. */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FilesUnavailable, refusedWrite, removeTemporaries, removeTemporariesOf, temporaryName, type FileContent, type FileStorage } from './storage';

export class FolderStorage implements FileStorage {
  readonly where: string;

  constructor(private readonly dir: string) {
    this.where = dir;
  }

  private path(key: string): string {
    return join(this.dir, key);
  }

  async check(): Promise<void> {
    try {
      mkdirSync(this.dir, { recursive: true });
      accessSync(this.dir, constants.W_OK);
    } catch (error) {
      throw new FilesUnavailable(`the files folder ${this.dir} cannot be written: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  async exists(key: string): Promise<boolean> {
    return existsSync(this.path(key));
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    await this.writeFrom(key, async (temp) => writeFileSync(temp, bytes, { flush: true }));
  }

  async writeFrom<T>(key: string, fill: (path: string) => Promise<T>): Promise<T> {
    const path = this.path(key);
    const temp = temporaryName(path);
    try {
      mkdirSync(dirname(path), { recursive: true });
      const result = await fill(temp);
      renameSync(temp, path);
      return result;
    } catch (error) {
      throw refusedWrite(error);
    } finally {
      rmSync(temp, { force: true });
    }
  }

  async read(key: string): Promise<Uint8Array | null> {
    try {
      return readFileSync(this.path(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async open(key: string): Promise<FileContent | null> {
    const file = Bun.file(this.path(key));
    return (await file.exists()) ? { body: file, size: file.size } : null;
  }

  async remove(key: string): Promise<void> {
    rmSync(this.path(key), { force: true });
  }

  async removeLeftovers(key: string): Promise<void> {
    removeTemporariesOf(this.path(key));
  }

  async removeIdleLeftovers(folder: string, idleMs: number): Promise<void> {
    removeTemporaries(this.path(folder), '', idleMs);
  }
}
