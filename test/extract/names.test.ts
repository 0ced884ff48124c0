/** Headers that name a column in other words: the thesaurus, abbreviations, initialisms and the learned score. */
import { describe, expect, test } from 'bun:test';
import type { Column } from '../../src/domain/columns';
import type { TableCandidate } from '../../src/extract/document';
import { mapDocument } from '../../src/extract/mapper';
import { abbreviates, headerScore, pairFeatures } from '../../src/extract/model/headers';
import WEIGHTS from '../../src/extract/model/headers.weights.json';
import { broaderWords, relate, senses, synonyms } from '../../src/extract/thesaurus';

const col = (id: string, name: string, type: Column['type'] = 'string', extra: Partial<Column> = {}): Column => ({ id, name, type, required: false, ...extra }) as Column;
const table = (grid: unknown[][]): TableCandidate => ({ label: 'table 1', context: '', grid });
const context = { fit: 1, textual: 1, position: 0.5 };

describe('thesaurus', () => {
  test('knows common words in their printed forms', () => {
    expect(senses('buildings').length).toBeGreaterThan(0);
    expect(senses('qwzx')).toEqual([]);
  });

  test('relates synonyms, kinds and derived words, and not unrelated ones', () => {
    expect(relate('occupant', 'resident').synonym).toBe(1);
    expect(relate('zone', 'region').broader).toBe(1);
    expect(relate('manufacturer', 'manufacture').derived).toBe(1);
    expect(relate('supervisor', 'weight')).toMatchObject({ synonym: 0, broader: 0, derived: 0, gloss: 0 });
    expect(relate('supervisor', 'weight').overlap).toBeLessThan(0.3);
    expect(synonyms('resident')).toContain('occupant');
    expect(broaderWords('zone')).toContain('region');
  });
});

describe('abbreviations', () => {
  test('a prefix or the letters of a word in order, from its first letter', () => {
    expect(abbreviates('bldg', 'building')).toBeGreaterThanOrEqual(0.7);
    expect(abbreviates('supvr', 'supervisor')).toBeGreaterThanOrEqual(0.7);
    expect(abbreviates('temp', 'temperature')).toBe(1);
    expect(abbreviates('dept', 'department')).toBeLessThan(1);
  });

  test('not when the first letter differs, the letters are out of order, or it is as long as the word', () => {
    expect(abbreviates('pvr', 'supervisor')).toBe(0);
    expect(abbreviates('svp', 'supervisor')).toBe(0);
    expect(abbreviates('supervisor', 'supervisor')).toBe(0);
  });
});

describe('the learned header score', () => {
  test('the committed weights were trained, and name every feature the score uses', () => {
    const model = (WEIGHTS as { model: { names: string[] } }).model;
    const features = Object.keys(pairFeatures(col('region', 'Region'), 'Zone', context));
    for (const name of ['rule', 'fit', 'position', 'name:synonym', 'name:abbreviation']) expect(model.names).toContain(name);
    expect(features.every((f) => model.names.includes(f))).toBe(true);
  });

  test('raises a header that is another word for the column above the match floor', () => {
    expect(headerScore(col('resident', 'Resident'), 'Occupant', context)).toBeGreaterThanOrEqual(0.45);
    expect(headerScore(col('supervisor', 'Supervisor'), 'Supvr', context)).toBeGreaterThanOrEqual(0.45);
    expect(headerScore(col('ytd', 'Year to date', 'number'), 'YTD', context)).toBeGreaterThanOrEqual(0.45);
  });

  test('keeps sure name matches as the rules scored them, and unrelated words below the match floor', () => {
    expect(headerScore(col('building', 'Building'), 'Building', context)).toBe(1);
    expect(headerScore(col('supervisor', 'Supervisor'), 'Zone', context)).toBe(0);
    expect(headerScore(col('weight', 'Weight', 'number'), 'Colour', { ...context, fit: 0 })).toBeLessThan(0.45);
  });
});

describe('mapping renamed headers', () => {
  test('every column finds its header when all of them are other words, in another order', () => {
    const columns = [col('building', 'Building'), col('department', 'Department'), col('supervisor', 'Supervisor'), col('temperature', 'Temperature', 'number'), col('tenant', 'Tenant'), col('region', 'Region')];
    const grid = [
      ['Occupant', 'Bldg', 'Zone', 'Supvr', 'Dept', 'Temp'],
      ['Northwind', 'B-12', 'West', 'Ana Ruiz', 'Logistics', 21.5],
      ['Fabrikam', 'C-3', 'East', 'Tom Berg', 'Finance', 19],
    ];
    const rows = mapDocument({ tables: [table(grid)], groups: [] }, columns, 'flexible');
    expect(rows.map((r) => r.values)).toEqual([
      { building: 'B-12', department: 'Logistics', supervisor: 'Ana Ruiz', temperature: 21.5, tenant: 'Northwind', region: 'West' },
      { building: 'C-3', department: 'Finance', supervisor: 'Tom Berg', temperature: 19, tenant: 'Fabrikam', region: 'East' },
    ]);
  });

  test('a table whose headers relate to none of the columns gives no rows', () => {
    const grid = [
      ['Shipper', 'Colour'],
      ['Northwind', 'red'],
      ['Lakeshore', 'blue'],
    ];
    expect(mapDocument({ tables: [table(grid)], groups: [] }, [col('carrier', 'Carrier'), col('weight', 'Weight', 'number')], 'flexible')).toEqual([]);
  });
});
