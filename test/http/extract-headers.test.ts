/** Extraction through HTTP of a CSV whose headers are other words for the table's columns. */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startApp, type TestApp } from '../helpers/app';

const P = '/v1/projects/proj_default';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

describe('extract with renamed headers', () => {
  test('a CSV of synonyms and abbreviations fills every column from its own header', async () => {
    const columns = [
      { id: 'supervisor', name: 'Supervisor', type: 'string' },
      { id: 'building', name: 'Building', type: 'string' },
      { id: 'region', name: 'Region', type: 'string' },
      { id: 'temperature', name: 'Temperature', type: 'number' },
      { id: 'tenant', name: 'Tenant', type: 'string' },
      { id: 'started', name: 'Start date', type: 'date' },
    ];
    const created = await app.request('POST', `${P}/tables`, { body: { name: 'Renamed headers', columns_json: columns } });
    expect(created.status).toBe(201);
    const csv = ['Occupant,Bldg,Zone,Supvr,Temp,Commenced', 'Northwind,B-12,West,Ana Ruiz,21.5,2024-02-01', 'Fabrikam,C-3,East,Tom Berg,19,2024-03-15', ''].join('\n');
    const data = new FormData();
    data.append('file', new File([csv], 'sites.csv', { type: 'text/csv' }));
    const reply = await app.request('POST', `${P}/tables/${created.body.id}/extract`, { raw: data });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'complete', total_rows: 2 });
    const rows = (await app.request('GET', `${P}/tables/${created.body.id}/rows?limit=10&order=created_at.asc`)).body.rows;
    expect(rows.map((r: Record<string, unknown>) => [r.supervisor, r.building, r.region, r.temperature, r.tenant, r.started])).toEqual([
      ['Ana Ruiz', 'B-12', 'West', 21.5, 'Northwind', '2024-02-01'],
      ['Tom Berg', 'C-3', 'East', 19, 'Fabrikam', '2024-03-15'],
    ]);
    expect(rows.every((r: { confidence: number }) => r.confidence > 0.5)).toBe(true);
  });
});
