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
  expect(events.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
  expect([events[0]!.event, events.at(-1)!.event]).toEqual(['batch', 'done']);
  // Each file's events in their order; the files themselves may be read one after the other or at once (several workers).
  const ofFile = (name: string) => events.filter((e) => JSON.parse(e.data).file_name === name && e.event !== 'progress').map((e) => e.event);
  expect(ofFile('a.csv')).toEqual(['file', 'rows']);
  expect(ofFile('b.json')).toEqual(['file', 'file_error']);
  expect(events.filter((e) => e.event === 'progress').map((e) => JSON.parse(e.data).files_done)).toEqual([1, 2]);
  expect(JSON.parse(events.at(-1)!.data)).toEqual(answer.body);
  const rows = events.find((e) => e.event === 'rows')!;
  expect(JSON.parse(rows.data).rows.map((r: { order_id: string }) => r.order_id)).toEqual(['A-1', 'A-2', 'A-3']);

  // A client that reconnects with the last id it saw gets only what came after.
  const rest = await follow(answer.body.batch_id, { 'last-event-id': '6' });
  expect(rest.map((e) => [e.id, e.event])).toEqual(events.slice(6).map((e) => [e.id, e.event]));
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
  const kinds = events.map((e) => e.event).filter((e) => e !== 'progress');
  expect([kinds[0], kinds.at(-1)]).toEqual(['batch', 'done']);
  expect(kinds.slice(1, -1).sort()).toEqual(['file', 'file', 'rows', 'rows']);
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
