import { Elysia, t } from 'elysia';
import type { ExportFormat } from '../domain/exports';
import type { BatchesService, FileDownload } from '../services/batches.service';
import type { authPlugin } from './auth';
import { Batch, BatchList, BatchQuery } from './extract.schema';
import { eventStream } from './sse';

const ProjectParams = t.Object({ project_id: t.String() });
const BatchParams = t.Object({ project_id: t.String(), batch_id: t.String() });
const RowParams = t.Object({ project_id: t.String(), table_id: t.String(), row_id: t.String() });

export function fileResponse(file: FileDownload, inline = false): Response {
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    'content-disposition': file.disposition,
    'content-length': String(file.size),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-store',
  };
  // An uploaded file opened in a browser must not run scripts or reach anything in our origin.
  if (inline) headers['content-security-policy'] = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'";
  return new Response(file.body, { headers });
}

export function batchesRoutes(auth: ReturnType<typeof authPlugin>, batches: BatchesService) {
  const detail = (summary: string, tag = 'Batches') => ({ summary, tags: [tag] });
  const download = (format: ExportFormat) => async ({ params }: { params: { project_id: string; batch_id: string } }) =>
    fileResponse(await batches.download(params.project_id, params.batch_id, format));
  return new Elysia({ prefix: '/v1/projects/:project_id' })
    .use(auth)
    .get('/batches', ({ params, query }) => batches.list(params.project_id, query), {
      params: ProjectParams,
      query: BatchQuery,
      response: { 200: BatchList },
      detail: detail('List batches'),
    })
    .get('/batches/:batch_id', ({ params }) => batches.get(params.project_id, params.batch_id), {
      params: BatchParams,
      response: { 200: Batch },
      detail: detail('Get a batch with its extractions'),
    })
    .get(
      '/batches/:batch_id/events',
      async ({ params, headers }) => {
        await batches.get(params.project_id, params.batch_id);
        const last = headers['last-event-id']?.trim() ?? '';
        const after = /^\d{1,9}$/.test(last) ? Number(last) : 0;
        return eventStream((send) => batches.follow(params.batch_id, after, (event, data, id) => send(event, data, id)));
      },
      {
        params: BatchParams,
        detail: {
          ...detail("Follow a batch's progress as server-sent events"),
          description:
            'The events of extract-stream (batch, file, rows, progress, file_error, done), from the first on or after the Last-Event-ID header, whichever node runs the batch; the stream ends at done. A batch that ended a while ago gives one batch event with its state.',
        },
      },
    )
    .get('/batches/:batch_id/download/csv', download('csv'), { params: BatchParams, detail: detail("Download the batch's rows as CSV") })
    .get('/batches/:batch_id/download/json', download('json'), { params: BatchParams, detail: detail("Download the batch's rows as JSON") })
    .get('/batches/:batch_id/download/xlsx', download('xlsx'), { params: BatchParams, detail: detail("Download the batch's rows as XLSX") })
    .get(
      '/tables/:table_id/rows/:row_id/source',
      async ({ params, query }) => {
        const disposition = query.disposition ?? 'attachment';
        return fileResponse(await batches.rowSource(params.project_id, params.table_id, params.row_id, disposition), disposition === 'inline');
      },
      {
        params: RowParams,
        query: t.Object({ disposition: t.Optional(t.Union([t.Literal('attachment'), t.Literal('inline')])) }),
        detail: detail('Download the file a row was extracted from', 'Rows'),
      },
    );
}
