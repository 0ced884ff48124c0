/**
 * The one entry point of extraction for the rest of the service: reading a document, detecting its
 * format, unpacking containers into files, mapping a reading onto columns, inferring columns,
 * the LLM extractor, and the coercion that API writes share. Everything else in src/extract is
 * extraction's own and may change without the services noticing.
 */
export { coerce } from './coerce';
export { batchFiles } from './containers';
export { detectFormat, FILE_TYPES, UnreadableDocument, type Format, type Reading, type SourceDocument } from './document';
export { exampleFingerprint, hasValue, locateRow, sameValue, pagesFromLines, type Fingerprint, type LearnedField, type LearnedLayout, type Location } from './learn';
export { inferColumns, inferDetailed, mainGroup } from './infer';
export { extractWithLlm, LlmError } from './llm';
export { mapReading, mapRecord, type MappedRow } from './mapper';
export { readDocument } from './read';
export { renderPage } from './render';
export type { DayOrder } from './dates';
export type { Box, PageModel } from './layout/page';
export { exactRows } from './readers/einvoice';
export { recordGroups } from './tables';
