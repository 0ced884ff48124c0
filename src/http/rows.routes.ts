import { Elysia, t } from 'elysia';
import { rowEtag } from '../services/row-values';
import { BULK_LIMIT, type RowsService } from '../services/rows.service';
import type { authPlugin } from './auth';
import { ListEnvelopeFields, ListQuery } from './list.schema';
import { Deleted } from './tables.schema';

const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
const RowParams = t.Object({ project_id: t.String(), table_id: t.String(), row_id: t.String() });
// An open object rather than t.Record: a record is checked key by key, which cost a bulk request of
// 1000 rows about 2.5 ms; the service checks every value itself.
const RowObject = t.Object({}, { additionalProperties: true, description: 'Values keyed by column id (or name, on writes), plus the system fields id, created_at, updated_at, batch_id, confidence, needs_review (read only: a person’s write to an extracted row makes its confidence 1).' });

export const BulkBody = t.Object({
  creates: t.Optional(t.Array(RowObject, { maxItems: BULK_LIMIT })),
  deletes: t.Optional(t.Array(t.String(), { maxItems: BULK_LIMIT })),
  updates: t.Optional(t.Array(t.Object({ id: t.String(), data: RowObject }), { maxItems: BULK_LIMIT })),
});

const IfMatch = t.Object({ 'if-match': t.Optional(t.String({ description: "ETag of the row; a stale one is 409 optimistic_lock_conflict." })) });

/** A row answer carries the row's ETag. */
function withEtag(set: { headers: Record<string, string | number> }, row: Record<string, unknown>) {
  set.headers.etag = rowEtag(row as { id: unknown; updated_at: unknown });
  return row;
}

export function rowsRoutes(auth: ReturnType<typeof authPlugin>, rows: RowsService) {
  const detail = (summary: string) => ({ summary, tags: ['Rows'] });
  return new Elysia({ prefix: '/v1/projects/:project_id/tables/:table_id/rows' })
    .use(auth)
    .get('', ({ params, query }) => rows.list(params.project_id, params.table_id, query), {
      params: TableParams,
      query: ListQuery,
      response: { 200: t.Object({ ...ListEnvelopeFields, rows: t.Array(RowObject) }) },
      detail: detail('List rows'),
    })
    .post(
      '',
      async ({ params, body, set }) => {
        set.status = 201;
        return rows.create(params.project_id, params.table_id, body);
      },
      { params: TableParams, body: RowObject, response: { 201: RowObject }, detail: detail('Create a row') },
    )
    .get('/aggregate', ({ params, query }) => rows.aggregate(params.project_id, params.table_id, query.aggs, query.filter), {
      params: TableParams,
      query: t.Object({
        aggs: t.String({ minLength: 1, maxLength: 1000, description: 'count, count:col, sum:col, avg:col, min:col, max:col, count_distinct:col; each optionally alias=...' }),
        filter: t.Optional(t.String({ maxLength: 8192 })),
      }),
      response: { 200: t.Record(t.String(), t.Nullable(t.Number())) },
      detail: detail('Aggregate rows'),
    })
    .post('/bulk', ({ params, body }) => rows.bulk(params.project_id, params.table_id, body), {
      params: TableParams,
      body: BulkBody,
      response: { 200: t.Object({ created: t.Array(RowObject), updated: t.Array(RowObject), deleted: t.Array(t.String()) }) },
      detail: detail('Create, update and delete rows in one transaction'),
    })
    .get('/:row_id', async ({ params, set }) => withEtag(set, await rows.get(params.project_id, params.table_id, params.row_id)), {
      params: RowParams,
      response: { 200: RowObject },
      detail: detail('Get a row (its ETag, for If-Match on updates)'),
    })
    .patch(
      '/:row_id',
      async ({ params, body, headers, set }) => withEtag(set, await rows.update(params.project_id, params.table_id, params.row_id, body, headers['if-match'] ?? null)),
      {
        params: RowParams,
        body: RowObject,
        headers: IfMatch,
        response: { 200: RowObject },
        detail: detail('Update a row (merges the given values; null clears one); a stale If-Match is 409 optimistic_lock_conflict'),
      },
    )
    .delete('/:row_id', ({ params }) => rows.remove(params.project_id, params.table_id, params.row_id), {
      params: RowParams,
      response: { 200: Deleted },
      detail: detail('Delete a row'),
    });
}
