/**
 * Documents that cost far more to read than their size says are refused before a parser sees
 * them: archives (XLSX, DOCX, ZIP) that inflate a hundredfold into more than a few megabytes (a
 * decompression bomb), HTML nested thousands of elements deep (parsers slow down with the square
 * of the depth), and containers (ZIP archives, e-mails) holding more files, or nested deeper, than
 * a batch of documents does.
 */
import { UnreadableDocument } from './document';

const MiB = 1024 * 1024;
/** Office files compress their XML some ten to twenty times; a hundredfold over 5 MiB is a bomb. */
const MAX_RATIO = 100;
const RATIO_FLOOR = 5 * MiB;
/** No office document or archive of documents rowsmith should read inflates past this. */
export const MAX_INFLATED = 200 * MiB;

/** Files one archive, or all the containers of one request, may hold: a month's invoices, not a file server's backup. */
export const MAX_CONTAINER_FILES = 100;
/** Containers inside containers (a ZIP attached to an e-mail is 2 deep); deeper is refused. */
export const MAX_CONTAINER_DEPTH = 3;

/** The total uncompressed size the ZIP's central directory declares, or null when it has none. */
export function inflatedSize(bytes: Uint8Array): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record sits in the last 22 bytes plus a comment of up to 64 KiB.
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (view.getUint32(at, true) !== 0x06054b50) continue;
    const entries = view.getUint16(at + 10, true);
    let offset = view.getUint32(at + 16, true);
    let total = 0;
    for (let i = 0; i < entries && offset + 46 <= bytes.length; i++) {
      if (view.getUint32(offset, true) !== 0x02014b50) return null;
      total += view.getUint32(offset + 24, true);
      offset += 46 + view.getUint16(offset + 28, true) + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
    }
    return total;
  }
  return null;
}

/** Refuses an archive that inflates like a bomb; `what` names the format in the message. */
export function checkArchive(bytes: Uint8Array, what: string): void {
  const inflated = inflatedSize(bytes);
  if (inflated === null) return;
  const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
  if (inflated > MAX_INFLATED || (inflated > RATIO_FLOOR && inflated > bytes.length * MAX_RATIO)) {
    throw new UnreadableDocument(`this ${what} inflates from ${mib(bytes.length)} to ${mib(inflated)}, more than a document of its size can hold (a decompression bomb?)`);
  }
}

const MAX_DEPTH = 2000;
/** Elements that always close (so their nesting is real), unlike p, li or td, which HTML lets end by themselves. */
const CONTAINERS = new Set(['div', 'span', 'section', 'article', 'table', 'tbody', 'ul', 'ol', 'blockquote', 'form', 'main', 'aside', 'header', 'footer', 'nav']);

/** Refuses HTML nested deeper than any page needs. */
export function checkHtmlDepth(html: string): void {
  let depth = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)\b[^>]*?(\/?)>/g)) {
    const name = m[2]!.toLowerCase();
    if (!CONTAINERS.has(name) || m[3]) continue;
    depth += m[1] ? -1 : 1;
    if (depth > MAX_DEPTH) throw new UnreadableDocument(`the HTML nests elements more than ${MAX_DEPTH} deep; no page needs that many`);
  }
}
