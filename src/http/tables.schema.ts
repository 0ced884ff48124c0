/** Request and response shapes of tables and columns, as the spec and reference OpenAPI give them. */
import { t } from 'elysia';
import { COLUMN_TYPES } from '../domain/columns';
import { INSERT_MODES, STRICTNESS_LEVELS } from '../domain/tables';
import { ListEnvelopeFields, oneOf, Timestamp } from './list.schema';

export const ColumnType = oneOf(COLUMN_TYPES, { default: 'string' });
export const Strictness = oneOf(STRICTNESS_LEVELS);
export const InsertMode = oneOf(INSERT_MODES);

const ColumnName = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\w\\s.-]+$',
  error: 'must be 1 to 64 characters of letters, digits, spaces, _ . or -',
});
const ColumnId = t.String({ minLength: 1, maxLength: 36 });
const Description = t.Nullable(t.String({ maxLength: 256 }));
const Instruction = t.Nullable(t.String({ maxLength: 512 }));
const Options = t.Array(t.String({ maxLength: 256 }), { maxItems: 500 });

const columnFields = {
  type: t.Optional(ColumnType),
  required: t.Optional(t.Boolean({ default: false })),
  currency_code: t.Optional(t.String({ minLength: 3, maxLength: 3 })),
  default: t.Optional(t.Any()),
  description: t.Optional(Description),
  instruction: t.Optional(Instruction),
  options: t.Optional(Options),
  searchable: t.Optional(t.Boolean()),
};

/** A column as clients send it: `id` and `name` required, everything else optional. */
export const ColumnInput = t.Object({ id: ColumnId, name: ColumnName, ...columnFields });

/** A column as the service returns it: `type` and `required` always present. */
export const Column = t.Object({
  id: ColumnId,
  name: ColumnName,
  ...columnFields,
  type: ColumnType,
  required: t.Boolean(),
});


export const Table = t.Object({
  id: t.String({ minLength: 1, maxLength: 48 }),
  project_id: t.String({ minLength: 1, maxLength: 48 }),
  name: t.String({ minLength: 1, maxLength: 128 }),
  slug: t.String({ minLength: 1, maxLength: 50 }),
  columns_json: t.Array(Column, { minItems: 1, maxItems: 100 }),
  instruction: Instruction,
  strictness: Strictness,
  insert_mode: InsertMode,
  merge_columns_json: t.Nullable(t.Array(t.String(), { minItems: 1 })),
  default_sort: t.Nullable(t.String()),
  row_count: t.Integer({ minimum: 0 }),
  usage_count: t.Integer({ minimum: 0 }),
  data_version: t.Integer({ minimum: 0 }),
  fts_version: t.Integer({ minimum: 0 }),
  last_used_at: t.Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: t.Nullable(Timestamp),
});

/** With `select`, list items carry only the fields asked for. */
export const TableList = t.Object({ ...ListEnvelopeFields, tables: t.Array(t.Partial(Table)) });

export const CreateTableBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 128 }),
  columns_json: t.Array(ColumnInput, { minItems: 1, maxItems: 100 }),
  insert_mode: t.Optional(InsertMode),
  strictness: t.Optional(Strictness),
  instruction: t.Optional(Instruction),
  merge_columns_json: t.Optional(t.Nullable(t.Array(t.String(), { minItems: 1 }))),
  default_sort: t.Optional(t.Nullable(t.String({ maxLength: 256 }))),
});

export const UpdateTableBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  slug: t.Optional(t.String({ minLength: 1, maxLength: 50 })),
  insert_mode: t.Optional(InsertMode),
  strictness: t.Optional(Strictness),
  instruction: t.Optional(Instruction),
  merge_columns_json: t.Optional(t.Nullable(t.Array(t.String(), { minItems: 1 }))),
  default_sort: t.Optional(t.Nullable(t.String({ maxLength: 256 }))),
});

export const DuplicateTableBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 128 }),
  slug: t.String({ minLength: 1, maxLength: 50 }),
});

export const RestoreTableBody = t.Optional(t.Nullable(t.Object({ slug: t.Optional(t.String({ minLength: 1, maxLength: 50 })) })));

export const AddColumnBody = t.Object({ id: t.Optional(ColumnId), name: ColumnName, ...columnFields });

export const UpdateColumnBody = t.Object({
  name: t.Optional(ColumnName),
  type: t.Optional(ColumnType),
  required: t.Optional(t.Boolean()),
  searchable: t.Optional(t.Boolean()),
  description: t.Optional(Description),
  instruction: t.Optional(Instruction),
  options: t.Optional(Options),
});

export const ReorderColumnsBody = t.Object({ order: t.Array(t.String(), { minItems: 1 }) });

export const Deleted = t.Object({ id: t.String() });
