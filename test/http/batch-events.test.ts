/** GET /batches/{id}/events: a batch's progress for any client, from its first event or a Last-Event-ID. */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expectError, startApp, type TestApp } from '../helpers/app';
import { drawInvoice } from '../extract/ocr/draw';

const P = '/v1/projects/proj_default';
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

function parse(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (e) => events.push(e) }).feed(text);
  return events;
}

async function follow(batchId: string, headers: Record<string, string> = {}) {
  const reply = await app.request('GET', `${P}/batches/${batchId}/events`, { headers });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toStartWith('text/event-stream');
  return parse(reply.body as string);
}

function csv(name: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new File([text], name, { type: 'text/csv' }));
  return form;
}

async function table(columns: unknown[]): Promise<string> {
  const reply = await app.request('POST', `${P}/tables`, { body: { name: `Events ${Math.random()}`, columns_json: columns } });
  return reply.body.id;
}

test('an ended batch replays its events from the first, numbered, ending with the answer the extract request got', async () => {
  const id = await table([{ id: 'order_id', name: 'Order ID', required: true }, { id: 'total', name: 'Total', type: 'number' }]);
  const form = csv('a.csv', 'Order ID,Total\nA-1,10\nA-2,20\nA-3,30\n');
  form.append('file', new File(['{broken'], 'b.json', { type: 'application/json' }));
  const answer = await app.request('POST', `${P}/tables/${id}/extract`, { raw: form });
  expect(answer.body.status).toBe('partial');
  const events = await follow(answer.body.batch_id);
  expect(events.map((e) => e.event)).toEqual(['batch', 'file', 'rows', 'progress', 'file', 'file_error', 'progress', 'done']);
  expect(events.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
  expect(JSON.parse(events.at(-1)!.data)).toEqual(answer.body);
  expect(JSON.parse(events[2]!.data).rows.map((r: { order_id: string }) => r.order_id)).toEqual(['A-1', 'A-2', 'A-3']);

  // A client that reconnects with the last id it saw gets only what came after.
  const rest = await follow(answer.body.batch_id, { 'last-event-id': '6' });
  expect(rest.map((e) => [e.id, e.event])).toEqual([
    ['7', 'progress'],
    ['8', 'done'],
  ]);
});

test('a client following a batch while it runs gets every event live, and the stream ends at done', async () => {
  const id = await table([
    { id: 'item', name: 'Item', type: 'string' },
    { id: 'qty', name: 'Quantity', type: 'number' },
  ]);
  const form = new FormData();
  for (const name of ['one.png', 'two.png']) form.append('file', new File([drawInvoice().png], name, { type: 'image/png' }));
  const answer = app.request('POST', `${P}/tables/${id}/extract`, { raw: form });
  let batchId = '';
  while (!batchId) {
    const list = await app.request('GET', `${P}/batches?filter=table_id.eq.${id}`);
    batchId = list.body.batches[0]?.id ?? '';
    if (!batchId) await Bun.sleep(10);
  }
  const followed = follow(batchId);
  const [events, reply] = await Promise.all([followed, answer]);
  // Running when the client came, done when its stream ended.
  expect(reply.body.status).toBe('complete');
  expect(events.map((e) => e.event).filter((e) => e !== 'progress')).toEqual(['batch', 'file', 'rows', 'file', 'rows', 'done']);
  expect(JSON.parse(events.at(-1)!.data)).toEqual(reply.body);
}, 60_000);

test('a batch whose events are gone gives one batch event with its state; an unknown batch is a 404', async () => {
  const id = await table([{ id: 'order_id', name: 'Order ID', required: true }]);
  const answer = await app.request('POST', `${P}/tables/${id}/extract`, { raw: csv('c.csv', 'Order ID\nC-1\nC-2\n') });
  await app.services.events.purge(-1);
  const events = await follow(answer.body.batch_id);
  expect(events.map((e) => e.event)).toEqual(['batch']);
  const state = JSON.parse(events[0]!.data);
  expect(state).toMatchObject({ id: answer.body.batch_id, status: 'complete', total_rows: 2 });
  expect(state.extractions.map((e: { file_name: string }) => e.file_name)).toEqual(['c.csv']);
  expectError(await app.request('GET', `${P}/batches/batch_00000000000000000000000000/events`), 404, 'not_found');
}, 30_000);
