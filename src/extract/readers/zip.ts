/**
 * ZIP archives of documents: the central directory is read first, and the archive refused before
 * anything is inflated when it holds too many files or declares a bomb's sizes; each entry is then
 * inflated with its declared size as a hard cap, so an archive that lies about its sizes stops
 * at the lie. An entry that cannot be read (encrypted, an unknown compression, larger than a file
 * may be) fails alone.
 */
import { inflateRawSync } from 'node:zlib';
import { UnreadableDocument } from '../document';
import { checkArchive, MAX_CONTAINER_FILES } from '../limits';

export type ArchiveEntry = { name: string; bytes: Uint8Array } | { name: string; error: string };

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_DIRECTORY = 0x06054b50;

interface DirectoryEntry {
  name: string;
  flags: number;
  method: number;
  compressed: number;
  size: number;
  offset: number;
}

function directory(bytes: Uint8Array): DirectoryEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 bytes plus a comment of up to 64 KiB.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new UnreadableDocument('not a readable ZIP archive: it has no central directory');
  const count = view.getUint16(end + 10, true);
  if (count > MAX_CONTAINER_FILES) throw new UnreadableDocument(`the archive holds ${count} files; at most ${MAX_CONTAINER_FILES} are read from one archive`);
  let offset = view.getUint32(end + 16, true);
  const entries: DirectoryEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== CENTRAL_HEADER) throw new UnreadableDocument('not a readable ZIP archive: its central directory is damaged');
    const nameLength = view.getUint16(offset + 28, true);
    const flags = view.getUint16(offset + 8, true);
    // Bit 11: the name is UTF-8; otherwise it is in the DOS code page, read here as Latin-1.
    const nameBytes = bytes.subarray(offset + 46, offset + 46 + nameLength);
    const name = new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(nameBytes);
    entries.push({
      name,
      flags,
      method: view.getUint16(offset + 10, true),
      compressed: view.getUint32(offset + 20, true),
      size: view.getUint32(offset + 24, true),
      offset: view.getUint32(offset + 42, true),
    });
    offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return entries;
}

/** Folders and the metadata that archivers add (macOS resource forks, hidden files) are no documents. */
const skipped = (name: string) => name.endsWith('/') || /(^|\/)(__MACOSX|\.[^/]*)(\/|$)/.test(name);

function inflateEntry(bytes: Uint8Array, entry: DirectoryEntry, maxFileBytes: number): Uint8Array | string {
  if (entry.flags & 0x1) return 'the file is encrypted in the archive; add it without a password';
  if (entry.size === 0xffffffff || entry.compressed === 0xffffffff) return 'the file is stored as ZIP64 (over 4 GiB), larger than a file may be';
  if (entry.size > maxFileBytes) return `the file is larger than the limit of ${maxFileBytes} bytes per file`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (entry.offset + 30 > bytes.length || view.getUint32(entry.offset, true) !== LOCAL_HEADER) return 'the archive is damaged where this file is stored';
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
  const data = bytes.subarray(start, start + entry.compressed);
  if (entry.method === 0) return data.length === entry.size ? data : 'the archive is damaged where this file is stored';
  if (entry.method !== 8) return `the file is compressed with a method rowsmith does not read (ZIP method ${entry.method})`;
  try {
    // The declared size is a hard cap: a file that inflates past it is a bomb, not a document.
    const out = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size) });
    return out.length === entry.size ? new Uint8Array(out.buffer, out.byteOffset, out.length) : 'the file inflates to another size than the archive declares';
  } catch (error) {
    return /larger than|maxOutputLength|buffer/i.test((error as Error).message)
      ? `the file inflates past the ${entry.size} bytes the archive declares for it (a decompression bomb?)`
      : `the file cannot be inflated: ${(error as Error).message}`;
  }
}

/** The archive's files (folders and archiver metadata left out); unreadable as a whole when it breaks the limits. */
export function unzip(bytes: Uint8Array, maxFileBytes: number): ArchiveEntry[] {
  checkArchive(bytes, 'ZIP archive');
  return directory(bytes)
    .filter((entry) => !skipped(entry.name))
    .map((entry) => {
      const result = inflateEntry(bytes, entry, maxFileBytes);
      return typeof result === 'string' ? { name: entry.name, error: result } : { name: entry.name, bytes: result };
    });
}
