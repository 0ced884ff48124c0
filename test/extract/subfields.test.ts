/** Sub-fields printed inside cells, each rule on a made-up cell. */
import { describe, expect, test } from 'bun:test';
import type { TableCandidate } from '../../src/extract/document';
import { mapDocument } from '../../src/extract/mapper';
import { splitSubFields } from '../../src/extract/subfields';
import type { Column } from '../../src/domain/columns';

const none = () => false;

describe('splitting a cell', () => {
  test('a parenthesized Label: value the caller asks for', () => {
    expect(splitSubFields('Winter Gala (Duration: 98 min)', (l) => l === 'Duration')).toEqual({
      main: 'Winter Gala',
      parts: [{ label: 'Duration', value: '98 min', raw: '(Duration: 98 min)' }],
    });
  });

  test('a code followed by its label in parentheses, and Label: code lines of known business fields', () => {
    const { main, parts } = splitSubFields('Paper clips Art.-Nr.: PC-77 4006381333931 (EAN)', none);
    expect(main).toBe('Paper clips');
    expect(parts.map((p) => [p.label, p.value])).toEqual([['EAN', '4006381333931'], ['Art.-Nr.', 'PC-77']]);
  });

  test('a known field with a number under a description is not part of it', () => {
    expect(splitSubFields('Stapler heavy duty Bruttopreis: 12,50', none).main).toBe('Stapler heavy duty');
  });

  test('words after a colon, labels nobody knows, and parentheses without a label stay text', () => {
    for (const text of ['Consulting (days): For the spring workshop', 'Screws M4 (pack of 100)', 'Note: call before noon', 'Ratio 3:2 frame']) {
      expect(splitSubFields(text, none)).toEqual({ main: text, parts: [] });
    }
  });
});

describe('in the mapper', () => {
  const col = (id: string, name: string, type: Column['type'] = 'string'): Column => ({ id, name, type, required: false }) as Column;
  const grid = [['Pos', 'Description', 'Qty'], ['1', 'Paper clips Art.-Nr.: PC-77 4006381333931 (EAN)', '3'], ['2', 'Stapler Art.-Nr.: ST-2', '1']];
  const table: TableCandidate = { label: 'table 1', context: '', grid };

  test('sub-fields fill the columns they name; the cell keeps its own text', () => {
    const columns = [col('description', 'Description'), col('article', 'Article number'), col('ean', 'EAN'), col('qty', 'Qty', 'number')];
    const rows = mapDocument({ tables: [table], groups: [] }, columns, 'balanced').map((r) => r.values);
    expect(rows).toEqual([
      { description: 'Paper clips', article: 'PC-77', ean: '4006381333931', qty: 3 },
      { description: 'Stapler', article: 'ST-2', qty: 1 },
    ]);
  });
});
