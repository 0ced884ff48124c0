import { Elysia, t } from 'elysia';
import type { ColumnsService } from '../services/columns.service';
import type { RowsService } from '../services/rows.service';
import type { authPlugin } from './auth';
import { AddColumnBody, ReorderColumnsBody, Table, UpdateColumnBody } from './tables.schema';
import { tableReply } from './tables.routes';

const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
const ColumnParams = t.Object({ project_id: t.String(), table_id: t.String(), col_id: t.String() });
const IfMatch = t.Object({ 'if-match': t.Optional(t.String({ description: 'ETag of the table; a stale one is 409 optimistic_lock_conflict.' })) });

export function columnsRoutes(auth: ReturnType<typeof authPlugin>, columns: ColumnsService, rows: RowsService) {
  const detail = (summary: string) => ({ summary, tags: ['Columns'] });
  return new Elysia({ prefix: '/v1/projects/:project_id/tables/:table_id/columns' })
    .use(auth)
    .post('', async ({ params, body, headers, set }) => tableReply(set, await columns.add(params.project_id, params.table_id, body, headers['if-match'] ?? null)), {
      params: TableParams,
      headers: IfMatch,
      body: AddColumnBody,
      response: { 200: Table },
      detail: detail('Add a column'),
    })
    .put(
      '/order',
      async ({ params, body, headers, set }) => tableReply(set, await columns.reorder(params.project_id, params.table_id, body.order, headers['if-match'] ?? null)),
      { params: TableParams, headers: IfMatch, body: ReorderColumnsBody, response: { 200: Table }, detail: detail('Reorder columns (the full list of column ids)') },
    )
    .patch(
      '/:col_id',
      async ({ params, body, headers, set }) =>
        tableReply(set, await columns.update(params.project_id, params.table_id, params.col_id, body, headers['if-match'] ?? null)),
      { params: ColumnParams, headers: IfMatch, body: UpdateColumnBody, response: { 200: Table }, detail: detail('Update a column') },
    )
    .get(
      '/:col_id/distinct',
      ({ params, query }) => rows.distinct(params.project_id, params.table_id, params.col_id, query.limit ?? 100, query.q),
      {
        params: ColumnParams,
        query: t.Object({
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 100 })),
          q: t.Optional(t.String({ maxLength: 200, description: 'Only values containing this text (case-insensitive).' })),
        }),
        response: { 200: t.Object({ values: t.Array(t.Union([t.String(), t.Number(), t.Boolean()])) }) },
        detail: detail('Distinct values of a column, most frequent first'),
      },
    )
    .delete(
      '/:col_id',
      async ({ params, headers, set }) => tableReply(set, await columns.remove(params.project_id, params.table_id, params.col_id, headers['if-match'] ?? null)),
      { params: ColumnParams, headers: IfMatch, response: { 200: Table }, detail: detail('Remove a column and its values') },
    );
}
