import { expect, test } from 'bun:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { eventStream } from '../../src/http/sse';
import { ApiError } from '../../src/lib/errors';

async function read(response: Response) {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) parser.feed(decoder.decode(chunk, { stream: true }));
  return { events, comments };
}

test('a quiet stream gets keep-alive comments; a failure ends it with an error event holding the envelope', async () => {
  const response = eventStream(async (listen) => {
    listen('batch', { id: 'batch_1' });
    await Bun.sleep(120);
    throw new ApiError(404, 'table_not_found', 'Table tbl_x not found');
  }, 25);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const { events, comments } = await read(response);
  expect(comments.filter((c) => c.trim() === 'keep-alive').length).toBeGreaterThanOrEqual(2);
  expect(events.map((e) => [e.id, e.event])).toEqual([['1', 'batch'], ['2', 'error']]);
  expect(JSON.parse(events[1]!.data)).toMatchObject({ success: false, status: 404, error_key: 'table_not_found' });
});

test('an unexpected failure shows no internals', async () => {
  const { events } = await read(eventStream(async () => {
    throw new Error('secret internal detail');
  }));
  expect(events.map((e) => e.event)).toEqual(['error']);
  expect(events[0]!.data).not.toContain('secret');
  expect(JSON.parse(events[0]!.data)).toMatchObject({ status: 500, error_key: 'internal_server_error' });
});
