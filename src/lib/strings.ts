/**
 * A copy of a string that holds no reference to the larger string it may have been cut from.
 * Strings decoded from LMDB records are slices of one string per record, so keeping one small
 * value (a row id, an e-mail) in memory would otherwise keep the whole record's text alive:
 * at a million rows that is hundreds of megabytes for the caches derived from the store.
 */
export function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** A text's letters and figures alone, in lower case: what stays of it whatever its spacing and punctuation. */
export const lettersAndFigures = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
