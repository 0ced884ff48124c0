import { Elysia, t } from 'elysia';
import type { ExportsService } from '../services/exports.service';
import type { SuggestService } from '../services/suggest.service';
import type { authPlugin } from './auth';
import { fileResponse } from './batches.routes';
import { Export, ExportQuery, Suggestion, SuggestJsonBody } from './templates.schema';
import { uploadInput } from './uploads';

const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
const ExportParams = t.Object({ project_id: t.String(), export_id: t.String() });
const ProjectParams = t.Object({ project_id: t.String() });

export function exportsRoutes(auth: ReturnType<typeof authPlugin>, exports: ExportsService, suggest: SuggestService) {
  return new Elysia({ prefix: '/v1/projects/:project_id' })
    .use(auth)
    .get('/tables/:table_id/export', ({ params, query, principal }) => exports.start(params.project_id, params.table_id, principal.key.id, query), {
      params: TableParams,
      query: ExportQuery,
      response: { 200: Export },
      detail: { summary: 'Start an export of a table (written in the background; poll the export, then download it)', tags: ['Export'] },
    })
    .get('/exports/:export_id', ({ params }) => exports.get(params.project_id, params.export_id), {
      params: ExportParams,
      response: { 200: Export },
      detail: { summary: 'Get the status of an export', tags: ['Export'] },
    })
    .get('/exports/:export_id/download', async ({ params }) => fileResponse(await exports.download(params.project_id, params.export_id)), {
      params: ExportParams,
      detail: { summary: "Download an export's file once it is complete (rowsmith addition)", tags: ['Export'] },
    })
    .post(
      '/suggest-schema',
      async ({ body }) => {
        const input = await uploadInput(body, SuggestJsonBody);
        return suggest.suggest({ documents: input.documents, text: input.text });
      },
      {
        params: ProjectParams,
        response: { 200: Suggestion },
        detail: { summary: 'Suggest table columns from a sample (multipart `file` or `text`, urlencoded or JSON `{ text }`)', tags: ['Schema suggestion'] },
      },
    );
}
