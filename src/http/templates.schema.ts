/** Shapes of exports, schema suggestions and table templates, as the reference OpenAPI gives them. */
import { t } from 'elysia';
import { EXPORT_FORMATS, EXPORT_STATUSES } from '../domain/exports';
import { Id, ListEnvelopeFields, oneOf, Timestamp } from './list.schema';
import { Column, ColumnInput, ColumnType, InsertMode, Strictness } from './tables.schema';

export const ExportQuery = t.Object({
  format: oneOf(EXPORT_FORMATS),
  filter: t.Optional(t.String({ maxLength: 8192 })),
  order: t.Optional(t.String({ maxLength: 256 })),
  search: t.Optional(t.String({ maxLength: 200 })),
  since: t.Optional(t.String({ maxLength: 64 })),
  schema: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
});

const KeyOrNull = t.Nullable(t.String({ maxLength: 512 }));
export const Export = t.Object({
  id: Id,
  project_id: Id,
  table_id: t.Nullable(Id),
  actor_id: t.String({ maxLength: 36 }),
  checksum: t.String({ maxLength: 64 }),
  status: oneOf(EXPORT_STATUSES),
  filter_json: t.Nullable(t.String({ maxLength: 4096 })),
  row_count: t.Nullable(t.Integer({ minimum: 0 })),
  json_key: KeyOrNull,
  csv_key: KeyOrNull,
  xlsx_key: KeyOrNull,
  error: t.Nullable(t.String({ maxLength: 2048 })),
  expires_at: t.Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SuggestJsonBody = t.Object({ text: t.String() });

export const Suggestion = t.Object({
  columns: t.Array(
    t.Object({
      name: t.String(),
      type: ColumnType,
      description: t.String(),
    }),
  ),
  confidence: t.Number(),
  instruction: t.String(),
});

const templateFields = {
  category: t.String({ minLength: 1, maxLength: 64 }),
  columns_json: t.Array(ColumnInput, { minItems: 1, maxItems: 100 }),
  description: t.Nullable(t.String({ maxLength: 512 })),
  insert_mode: InsertMode,
  instruction: t.Nullable(t.String({ maxLength: 512 })),
  merge_columns_json: t.Nullable(t.Array(t.String(), { minItems: 1 })),
  name: t.String({ minLength: 1, maxLength: 128 }),
  strictness: Strictness,
};

export const CreateTemplateBody = t.Object({
  category: templateFields.category,
  columns_json: templateFields.columns_json,
  name: templateFields.name,
  description: t.Optional(templateFields.description),
  insert_mode: t.Optional(InsertMode),
  instruction: t.Optional(templateFields.instruction),
  merge_columns_json: t.Optional(templateFields.merge_columns_json),
  strictness: t.Optional(Strictness),
});

export const UpdateTemplateBody = t.Partial(CreateTemplateBody);

export const Template = t.Object({
  id: Id,
  ...templateFields,
  columns_json: t.Array(Column, { minItems: 1, maxItems: 100 }),
  creator_display_name: t.Nullable(t.String({ maxLength: 101 })),
  creator_user_id: t.Nullable(t.String({ maxLength: 48 })),
  usage_count: t.Integer({ minimum: 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const TemplateList = t.Object({ ...ListEnvelopeFields, templates: t.Array(t.Partial(Template)) });

export const UseTemplateBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 128 }),
  slug: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
});
