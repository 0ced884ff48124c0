import { Elysia, t } from 'elysia';
import type { ExamplesService } from '../services/examples.service';
import type { authPlugin } from './auth';
import { Evaluation, Example, ExampleDeleted, ExampleList, ExamplesDeleted, Provenance } from './examples.schema';
import { ListQuery } from './list.schema';

const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
const ExampleParams = t.Object({ project_id: t.String(), table_id: t.String(), example_id: t.String() });
const RowParams = t.Object({ project_id: t.String(), table_id: t.String(), row_id: t.String() });
const PageParams = t.Object({ project_id: t.String(), table_id: t.String(), row_id: t.String(), page: t.Integer({ minimum: 1, maximum: 100000 }) });

export function examplesRoutes(auth: ReturnType<typeof authPlugin>, examples: ExamplesService) {
  const detail = (summary: string, tag = 'Examples') => ({ summary, tags: [tag] });
  return new Elysia({ prefix: '/v1/projects/:project_id/tables/:table_id' })
    .use(auth)
    .get('/examples', ({ params, query }) => examples.list(params.project_id, params.table_id, query), {
      params: TableParams,
      query: ListQuery,
      response: { 200: ExampleList },
      detail: detail("List the table's examples: documents a person corrected, which later documents of their issuers are read by"),
    })
    .delete('/examples', ({ params }) => examples.removeAll(params.project_id, params.table_id), {
      params: TableParams,
      response: { 200: ExamplesDeleted },
      detail: detail("Remove all of the table's examples"),
    })
    .get('/examples/:example_id', ({ params }) => examples.get(params.project_id, params.table_id, params.example_id), {
      params: ExampleParams,
      response: { 200: Example },
      detail: detail('Get an example'),
    })
    .delete('/examples/:example_id', ({ params }) => examples.remove(params.project_id, params.table_id, params.example_id), {
      params: ExampleParams,
      response: { 200: ExampleDeleted },
      detail: detail('Remove an example: its layout no longer guides extraction'),
    })
    .post('/evaluate', ({ params }) => examples.evaluate(params.project_id, params.table_id), {
      params: TableParams,
      response: { 200: Evaluation },
      detail: detail("Re-extract the table's corrected documents (each without its own example) and score them against their corrected rows"),
    })
    .get('/rows/:row_id/provenance', ({ params }) => examples.provenance(params.project_id, params.table_id, params.row_id), {
      params: RowParams,
      response: { 200: Provenance },
      detail: detail('Where the document prints each of the row’s values: page and box', 'Rows'),
    })
    .get(
      '/rows/:row_id/source/pages/:page',
      async ({ params }) =>
        new Response(await examples.pageImage(params.project_id, params.table_id, params.row_id, params.page), {
          headers: { 'content-type': 'image/png', 'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff' },
        }),
      { params: PageParams, detail: detail("A page of the row's source document as a PNG", 'Rows') },
    );
}
