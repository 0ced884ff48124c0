/** The formats rows are downloaded and exported in, and an export's states, defined once. */

export const EXPORT_FORMATS = ['csv', 'json', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['processing', 'complete', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
