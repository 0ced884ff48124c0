/**
 * Extraction endpoints: JSON answers and server-sent event streams, project-level and into a table.
 * The routes turn JSON or multipart bodies into plain documents; the service does the rest.
 */
import { Elysia, t } from 'elysia';
import { ApiError } from '../lib/errors';
import type { ExtractService, SchemaInput as SchemaInputValue } from '../services/extract.service';
import type { Principal } from '../services/accounts.service';
import type { authPlugin } from './auth';
import { ExtractJsonBody, ExtractResponse, SchemaInput } from './extract.schema';
import { uploadInput } from './uploads';

const ProjectParams = t.Object({ project_id: t.String() });
const TableParams = t.Object({ project_id: t.String(), table_id: t.String() });
/** A comment line that keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

/** Runs an extraction as server-sent events; the batch goes on if the client leaves. */
function eventStream(run: (listen: (event: string, data: unknown) => void) => Promise<unknown>): Response {
  const encoder = new TextEncoder();
  let id = 0;
  let open = true;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      const send = (event: string, data: unknown) => write(`id: ${++id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      keepAlive = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      run(send)
        .catch((error) => {
          const apiError = error instanceof ApiError ? error : new ApiError(500, 'internal_server_error', 'Something went wrong on our side');
          send('error', apiError.toBody());
        })
        .finally(() => {
          clearInterval(keepAlive);
          if (open) {
            open = false;
            controller.close();
          }
        });
    },
    cancel() {
      open = false;
      clearInterval(keepAlive);
    },
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  });
}

export function extractRoutes(auth: ReturnType<typeof authPlugin>, extract: ExtractService) {
  const detail = (summary: string, description: string) => ({ summary, description, tags: ['Extract'] });
  const request = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => {
    const input = await uploadInput(body, ExtractJsonBody, SchemaInput);
    return extract.prepare({ organizationId: principal.org.id, projectId, tableId, actorId: principal.key.id, ...input, schema: input.schema as SchemaInputValue | null });
  };
  const once = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => extract.run(await request(principal, projectId, tableId, body));
  const stream = async (principal: Principal, projectId: string, tableId: string | null, body: unknown) => {
    const prepared = await request(principal, projectId, tableId, body);
    return eventStream((listen) => extract.run(prepared, listen));
  };
  const bodyNote =
    'Send multipart/form-data with one or more `file` parts and/or a `text` field (and `schema` as a JSON string), or JSON `{ text }` or `{ url }`.';
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
