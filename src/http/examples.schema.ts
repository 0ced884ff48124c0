/** Examples, evaluation and provenance: the shapes of review and learn, defined once. */
import { t } from 'elysia';
import { Id, ListEnvelopeFields, Timestamp } from './list.schema';

export const Box = t.Object({ x0: t.Number(), y0: t.Number(), x1: t.Number(), y1: t.Number() }, { description: 'Points (text: characters and lines), origin top-left.' });

export const ExampleField = t.Object({
  column_id: t.String(),
  value: t.Unknown({ description: 'The reviewed value.' }),
  corrected: t.Boolean({ description: 'The person changed it; false: left as extracted when the row was reviewed.' }),
  page: t.Nullable(t.Integer({ minimum: 1 })),
  box: t.Nullable(Box),
  label: t.Nullable(t.String()),
});

export const Example = t.Object({
  id: Id,
  table_id: Id,
  row_id: Id,
  extraction_id: Id,
  batch_id: Id,
  file_name: t.String(),
  fields: t.Array(ExampleField),
  identifiers: t.Array(t.String(), { description: "What the document's issuer prints on every document: tax ids, IBANs, e-mail addresses, web sites, phone numbers." }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ExampleList = t.Object({ ...ListEnvelopeFields, examples: t.Array(t.Partial(Example)) });
export const ExampleDeleted = t.Object({ id: Id, deleted: t.Literal(true) });
export const ExamplesDeleted = t.Object({ deleted: t.Integer({ minimum: 0 }) });

const Score = t.Nullable(t.Number({ minimum: 0, maximum: 1 }));

export const Evaluation = t.Object({
  table_id: Id,
  documents: t.Integer({ minimum: 0, description: 'Corrected documents re-extracted.' }),
  precision: Score,
  recall: Score,
  f1: Score,
  columns: t.Array(t.Object({ column_id: t.String(), name: t.String(), precision: Score, recall: Score, f1: Score, support: t.Integer({ minimum: 0 }) })),
  worst: t.Array(t.Object({ example_id: Id, row_id: Id, extraction_id: Id, file_name: t.String(), f1: Score, wrong: t.Array(t.String()) })),
  duration_ms: t.Integer({ minimum: 0 }),
});

export const Provenance = t.Object({
  row_id: Id,
  extraction_id: Id,
  batch_id: Id,
  file_name: t.String(),
  pages: t.Array(t.Object({ number: t.Integer({ minimum: 1 }), width: t.Number(), height: t.Number(), image: t.Boolean({ description: 'GET .../source/pages/{number} renders it.' }) })),
  fields: t.Array(t.Object({ column_id: t.String(), page: t.Integer({ minimum: 1 }), box: Box, text: t.String({ description: 'The words as printed (recognised).' }), label: t.Nullable(t.String()) })),
});
