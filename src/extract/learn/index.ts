/** Learning from a person's corrections: where values are printed, documents' fingerprints, layouts learned from examples. */
export { exampleFingerprint, fingerprintMatch, fingerprintOf, LAYOUT_MATCH, LEARNED_SCORE, learnedFields, matchingLayout, type Fingerprint, type LearnedField, type LearnedLayout } from './layouts';
export { locateAll, locateRow, type Location } from './locate';
export { pagesFromLines } from './spans';
export { hasValue, sameValue } from './match';
