/** Shapes of extraction requests and answers, batches and their extractions, as the reference OpenAPI gives them. */
import { t, type Static } from 'elysia';
import { ACTOR_TYPES, BATCH_STATUSES, EXTRACTION_FILE_TYPES, EXTRACTION_STATUSES } from '../domain/batches';
import { Id, ListEnvelopeFields, ListQuery, oneOf, Timestamp } from './list.schema';
import { ColumnType, InsertMode, Strictness } from './tables.schema';


/** A project-level extract's `schema`: the batch's `schema_json` shape. */
export const SchemaInput = t.Object({
  columns: t.Array(
    t.Object({
      name: t.String({ minLength: 1, maxLength: 64, pattern: '^[\\w\\s.-]+$' }),
      type: t.Optional(ColumnType),
      description: t.Optional(t.Nullable(t.String({ maxLength: 256 }))),
      instruction: t.Optional(t.Nullable(t.String({ maxLength: 512 }))),
      required: t.Optional(t.Boolean()),
      options: t.Optional(t.Array(t.String({ maxLength: 256 }), { maxItems: 500 })),
      currency_code: t.Optional(t.String({ minLength: 3, maxLength: 3 })),
    }),
    { minItems: 1, maxItems: 50 },
  ),
  instruction: t.Optional(t.Nullable(t.String({ maxLength: 512 }))),
  strictness: t.Optional(Strictness),
});

/** The JSON form of an extract request (multipart sends the same as form fields, plus `file`). */
export const ExtractJsonBody = t.Object({
  text: t.Optional(t.String()),
  url: t.Optional(t.String({ maxLength: 2048 })),
  schema: t.Optional(SchemaInput),
});
export type ExtractJsonBody = Static<typeof ExtractJsonBody>;

export const ExtractResponse = t.Object({
  batch_id: t.String(),
  status: t.String(),
  confidence: t.Nullable(t.Number()),
  duration_ms: t.Nullable(t.Number()),
  fail_count: t.Number(),
  success_count: t.Number(),
  total_rows: t.Number(),
  files: t.Array(
    t.Object({
      file_name: t.Nullable(t.String()),
      status: t.String(),
      rows: t.Nullable(t.Number()),
      confidence: t.Nullable(t.Number()),
      error: t.Nullable(t.String()),
    }),
  ),
  result: t.Record(t.String(), t.Any()),
});

const BatchStatus = oneOf(BATCH_STATUSES);

/** Closed in the reference: a batch's columns carry these four fields and nothing else. */
const SchemaJsonColumn = t.Object(
  {
    name: t.String(),
    type: ColumnType,
    description: t.Optional(t.Nullable(t.String())),
    instruction: t.Optional(t.Nullable(t.String())),
  },
  { additionalProperties: false },
);

const SchemaJson = t.Object({
  columns: t.Array(SchemaJsonColumn),
  instruction: t.Nullable(t.String()),
  strictness: Strictness,
});

const batchFields = {
  id: Id,
  project_id: Id,
  table_id: t.Nullable(Id),
  actor_type: oneOf(ACTOR_TYPES),
  actor_id: t.String({ maxLength: 36 }),
  schema_json: SchemaJson,
  insert_mode: t.Nullable(InsertMode),
  status: BatchStatus,
  file_count: t.Integer({ minimum: 1 }),
  files_done: t.Integer({ minimum: 0 }),
  current_file: t.Nullable(t.String({ maxLength: 255 })),
  csv_key: t.Nullable(t.String({ maxLength: 512 })),
  json_key: t.Nullable(t.String({ maxLength: 512 })),
  xlsx_key: t.Nullable(t.String({ maxLength: 512 })),
  total_rows: t.Nullable(t.Integer({ minimum: 0 })),
  confidence: t.Nullable(t.Number()),
  duration_ms: t.Nullable(t.Integer({ minimum: 0 })),
  error: t.Nullable(t.String({ maxLength: 2048 })),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Extraction = t.Object({
  id: Id,
  batch_id: Id,
  table_id: t.Nullable(Id),
  file_key: t.String({ maxLength: 512 }),
  file_name: t.String({ maxLength: 255 }),
  file_type: t.Nullable(oneOf(EXTRACTION_FILE_TYPES)),
  file_checksum: t.Nullable(t.String({ maxLength: 64 })),
  status: oneOf(EXTRACTION_STATUSES),
  rows_key: t.Nullable(t.String({ maxLength: 512 })),
  row_count: t.Nullable(t.Integer({ minimum: 0 })),
  confidence: t.Nullable(t.Number()),
  error: t.Nullable(t.String({ maxLength: 2048 })),
  created_at: Timestamp,
});

export const Batch = t.Object({ ...batchFields, extractions: t.Array(Extraction) });
export const BatchList = t.Object({ ...ListEnvelopeFields, batches: t.Array(t.Partial(t.Object(batchFields))) });
export const BatchQuery = t.Composite([ListQuery, t.Object({ status: t.Optional(BatchStatus) })]);
