/**
 * Extraction endpoints: JSON answers and server-sent event streams, project-level and into a table.
 * The routes turn JSON or multipart bodies into plain documents; the service does the rest.
 */
import { Elysia, t } from 'elysia';
import type { ExtractService, SchemaInput as SchemaInputValue } from '../services/extract.service';
import type { Principal } from '../services/accounts.service';
import type { authPlugin } from './auth';
import { ExtractJsonBody, ExtractResponse } from './extract.schema';
import { eventStream } from './sse';
import { uploadInput } from './uploads';

const ProjectParams = t.Object({ project_id: t.String() });
const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });

export function extractRoutes(auth: ReturnType<typeof authPlugin>, extract: ExtractService) {
  const detail = (summary: string, description: string) => ({ summary, description, tags: ['Extract'] });
  const request = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => {
    const input = await uploadInput(body, ExtractJsonBody);
    return extract.prepare({ organizationId: principal.org.id, projectId, tableId, actorId: principal.key.id, ...input, schema: input.schema as SchemaInputValue | null });
  };
  const once = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => extract.run(await request(principal, projectId, tableId, body));
  const stream = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => {
    const prepared = await request(principal, projectId, tableId, body);
    return eventStream((listen) => extract.run(prepared, listen));
  };
  const bodyNote =
    'Send multipart/form-data with one or more `file` parts and/or `text`, `url` and `schema` (a JSON string) fields; the same fields urlencoded; or JSON `{ text, url, schema }`.';
  return new Elysia({ prefix: '/v1/projects/:project_id' })
    .use(auth)
    .post('/extract', ({ principal, params, body }) => once(principal, params.project_id, null, body), {
      params: ProjectParams,
      response: { 200: ExtractResponse },
      detail: detail('Extract rows from documents with a given or inferred schema', bodyNote),
    })
    .post('/extract-stream', ({ principal, params, body }) => stream(principal, params.project_id, null, body), {
      params: ProjectParams,
      detail: detail('Extract, reporting progress as server-sent events', `${bodyNote} Events: batch, file, rows, progress, file_error, done, error.`),
    })
    .post('/tables/:table_id/extract', ({ principal, params, body }) => once(principal, params.project_id, params.table_id, body), {
      params: TableParams,
      response: { 200: ExtractResponse },
      detail: detail("Extract rows into a table, through its insert mode", bodyNote),
    })
    .post('/tables/:table_id/extract-stream', ({ principal, params, body }) => stream(principal, params.project_id, params.table_id, body), {
      params: TableParams,
      detail: detail('Extract rows into a table, reporting progress as server-sent events', bodyNote),
    });
}
