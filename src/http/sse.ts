/** Server-sent event streams (extract-stream, a batch's events). */
import { ApiError } from '../lib/errors';

const KEEP_ALIVE_MS = 15_000;

/**
 * Runs work as server-sent events: every event has an `id:` (counted here, or the one the work
 * gives, such as a batch event's place in its log, which a client's Last-Event-ID resumes from), a comment line every `keepAliveMs`
 * keeps proxies from closing a quiet stream, a failure ends it with an `error` event holding the
 * error envelope, and the work goes on if the client leaves.
 */
export function eventStream(run: (listen: (event: string, data: unknown, id?: number) => void) => Promise<unknown>, keepAliveMs = KEEP_ALIVE_MS): Response {
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
      const send = (event: string, data: unknown, given?: number) => {
        id = given ?? id + 1;
        write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
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
