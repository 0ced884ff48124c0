/**
 * Documents inside documents. An e-mail is its body plus its attachments, a ZIP archive its files:
 * each becomes a file of the batch of its own, named by its path (`message.eml/invoice.pdf`,
 * `march.zip/receipts/1.jpg`), with its own progress, result and row source. Containers nest (a
 * ZIP attached to an e-mail) up to MAX_CONTAINER_DEPTH; all that one request unpacks shares one
 * budget of files and inflated bytes, so neither nesting nor many uploads multiply the limits.
 * What cannot be unpacked fails as a file of its own, with the reason; the rest of the batch goes on.
 */
import { detectFormat, UnreadableDocument, type Format, type SourceDocument } from './document';
import { inflatedSize, MAX_CONTAINER_DEPTH, MAX_CONTAINER_FILES, MAX_INFLATED } from './limits';
import { messageAttachments, parseEmail } from './readers/email';
import { unzip } from './readers/zip';

/** A file of the batch: a document to read, or one that failed before it could be (`error`). */
export interface BatchFile {
  doc: SourceDocument;
  format: Format;
  error?: string;
}

interface Budget {
  files: number;
  bytes: number;
}

const failed = (doc: SourceDocument, format: Format, error: string): BatchFile => ({ doc, format, error });

function spend(budget: Budget, bytes: number): string | null {
  budget.files++;
  budget.bytes += bytes;
  if (budget.files > MAX_CONTAINER_FILES) return `more than ${MAX_CONTAINER_FILES} files unpacked from one request; the rest are not read`;
  if (budget.bytes > MAX_INFLATED) return `more than ${MAX_INFLATED / 1024 / 1024} MiB unpacked from one request; the rest are not read`;
  return null;
}

async function unpack(doc: SourceDocument, format: Format, depth: number, budget: Budget, maxFileBytes: number): Promise<BatchFile[]> {
  if (format !== 'zip' && format !== 'email') return [{ doc, format }];
  if (depth >= MAX_CONTAINER_DEPTH) return [failed(doc, format, `containers nested more than ${MAX_CONTAINER_DEPTH} deep are not unpacked`)];
  const inner = async (child: SourceDocument, childFormat: Format | null, error?: string): Promise<BatchFile[]> => {
    const named = { ...child, name: `${doc.name}/${child.name}` };
    const over = spend(budget, child.bytes.byteLength);
    // Past the budget nothing of the file is kept, not even to store it.
    if (over) return [failed({ ...named, bytes: new Uint8Array() }, childFormat ?? 'text', over)];
    if (error) return [failed(named, childFormat ?? 'text', error)];
    if (!childFormat) return [failed(named, 'text', 'not a format rowsmith reads')];
    if (child.bytes.byteLength > maxFileBytes) return [failed(named, childFormat, `larger than the limit of ${maxFileBytes} bytes per file`)];
    if (child.bytes.byteLength === 0) return [failed(named, childFormat, 'the file is empty')];
    return unpack(named, childFormat, depth + 1, budget, maxFileBytes);
  };
  try {
    if (format === 'email') {
      // The message's body is a file of its own, read by the e-mail reader; its attachments follow it.
      const { documents } = messageAttachments(await parseEmail(doc.bytes));
      const files: BatchFile[] = [{ doc, format }];
      for (const a of documents) files.push(...(await inner(a.doc, a.format)));
      return files;
    }
    // What the archive declares is checked against the request's budget before anything is inflated.
    if (budget.bytes + (inflatedSize(doc.bytes) ?? 0) > MAX_INFLATED) return [failed(doc, format, `unpacking this archive would take more than ${MAX_INFLATED / 1024 / 1024} MiB for the request`)];
    const files: BatchFile[] = [];
    for (const entry of unzip(doc.bytes, maxFileBytes)) {
      const child = { name: entry.name, contentType: '', bytes: 'bytes' in entry ? entry.bytes : new Uint8Array() };
      files.push(...(await inner(child, 'bytes' in entry ? detectFormat(child) : null, 'error' in entry ? entry.error : undefined)));
    }
    return files.length ? files : [failed(doc, format, 'the archive holds no files')];
  } catch (error) {
    // A hostile container may break a parser in ways of its own: it fails, the batch goes on.
    const reason = error instanceof UnreadableDocument ? error.message : `the ${format === 'zip' ? 'archive' : 'message'} could not be unpacked: ${(error as Error).message}`;
    return [failed(doc, format, reason)];
  }
}

/**
 * The files of a batch: documents as they came, containers replaced by what they hold (an e-mail
 * by its body and its attachments). Never throws for a bad container: it is a failed file.
 */
export async function batchFiles(documents: SourceDocument[], formats: Format[], maxFileBytes: number): Promise<BatchFile[]> {
  const files: BatchFile[] = [];
  const budget: Budget = { files: 0, bytes: 0 };
  for (const [i, doc] of documents.entries()) files.push(...(await unpack(doc, formats[i]!, 0, budget, maxFileBytes)));
  return files;
}
