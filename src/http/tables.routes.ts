import { Elysia, t } from 'elysia';
import { etagOf, toTable, type TablesService } from '../services/tables.service';
import type { TableRecord } from '../store/tables.store';
import type { authPlugin } from './auth';
import { ListQuery } from './list.schema';
import { CreateTableBody, Deleted, DuplicateTableBody, RestoreTableBody, Table, TableList, UpdateTableBody } from './tables.schema';

const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
const ProjectParams = t.Object({ project_id: t.String() });

/** Every table response carries its ETag, for If-Match on column changes. */
export function tableReply(set: { headers: Record<string, string | number> }, record: TableRecord) {
  set.headers.etag = etagOf(record);
  return toTable(record);
}

export function tablesRoutes(auth: ReturnType<typeof authPlugin>, tables: TablesService) {
  const detail = (summary: string) => ({ summary, tags: ['Tables'] });
  return new Elysia({ prefix: '/v1/projects/:project_id/tables' })
    .use(auth)
    .get('', ({ params, query }) => tables.list(params.project_id, query), {
      params: ProjectParams,
      query: ListQuery,
      response: { 200: TableList },
      detail: detail('List tables'),
    })
    .post(
      '',
      async ({ params, body, set }) => {
        set.status = 201;
        return tableReply(set, await tables.create(params.project_id, body));
      },
      { params: ProjectParams, body: CreateTableBody, response: { 201: Table }, detail: detail('Create a table') },
    )
    .get('/:table_id', async ({ params, set }) => tableReply(set, await tables.get(params.project_id, params.table_id)), {
      params: TableParams,
      response: { 200: Table },
      detail: detail('Get a table'),
    })
    .patch('/:table_id', async ({ params, body, set }) => tableReply(set, await tables.update(params.project_id, params.table_id, body)), {
      params: TableParams,
      body: UpdateTableBody,
      response: { 200: Table },
      detail: detail('Update a table'),
    })
    .delete('/:table_id', ({ params }) => tables.remove(params.project_id, params.table_id), {
      params: TableParams,
      response: { 200: Deleted },
      detail: detail('Delete a table (restorable for 72 hours)'),
    })
    .post(
      '/:table_id/duplicate',
      async ({ params, body, set }) => {
        set.status = 201;
        return tableReply(set, await tables.duplicate(params.project_id, params.table_id, body));
      },
      { params: TableParams, body: DuplicateTableBody, response: { 201: Table }, detail: detail('Duplicate a table (structure only)') },
    )
    .post(
      '/:table_id/restore',
      async ({ params, body, set }) => tableReply(set, await tables.restore(params.project_id, params.table_id, body?.slug)),
      { params: TableParams, body: RestoreTableBody, response: { 200: Table }, detail: detail('Restore a deleted table') },
    );
}
