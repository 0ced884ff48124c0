/** The states of extraction batches and of their files, and how a file was read, defined once. */

/** A batch is under way in these states; it ends `complete`, `partial` or `failed`. */
const UNDER_WAY = ['uploading', 'processing', 'merging'] as const;
export const BATCH_STATUSES = [...UNDER_WAY, 'complete', 'partial', 'failed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export function batchUnderWay(status: BatchStatus): boolean {
  return (UNDER_WAY as readonly BatchStatus[]).includes(status);
}

export const EXTRACTION_STATUSES = ['pending', 'processing', 'complete', 'failed'] as const;
export type ExtractionStatus = (typeof EXTRACTION_STATUSES)[number];

/** How a file was read: a PDF's text layer, OCR of a scan or image, plain text, or a structured document. */
export const EXTRACTION_FILE_TYPES = ['text_pdf', 'scanned', 'image', 'text', 'document', 'unknown'] as const;
export type FileType = (typeof EXTRACTION_FILE_TYPES)[number];

/** Who started a batch. */
export const ACTOR_TYPES = ['user', 'api_key'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
