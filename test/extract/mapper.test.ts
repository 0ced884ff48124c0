/** The column mapper's rules, each on a small table made here. */
import { describe, expect, test } from 'bun:test';
import { assignMax } from '../../src/extract/assign';
import { parseHumanNumber } from '../../src/extract/coerce';
import type { TableCandidate } from '../../src/extract/document';
import { alignLabels, mapDocument, nameScore, valueHints } from '../../src/extract/mapper';
import type { Column } from '../../src/domain/columns';
import { documentFit } from '../../src/services/extract.service';

const col = (id: string, name: string, type: Column['type'] = 'string', extra: Partial<Column> = {}): Column => ({ id, name, type, required: false, ...extra }) as Column;
const table = (grid: unknown[][], extra: Partial<TableCandidate> = {}): TableCandidate => ({ label: 'table 1', context: '', grid, ...extra });
const values = (rows: Array<{ values: Record<string, unknown> }>) => rows.map((r) => r.values);

describe('assignment', () => {
  test('finds the largest total, not the greedy one', () => {
    // Greedy takes 0.9 first and is left with 0.1; the best total is 0.8 + 0.8.
    expect(assignMax([[0.9, 0.8], [0.8, 0.1]])).toEqual([1, 0]);
  });

  test('equals brute force on random matrices, rectangular ones too', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const total = (m: number[][], a: number[]) => a.reduce((s, j, i) => s + (j >= 0 ? m[i]![j]! : 0), 0);
    const brute = (m: number[][]): number => {
      const best = (i: number, used: Set<number>): number => {
        if (i === m.length) return 0;
        let b = best(i + 1, used);
        m[i]!.forEach((v, j) => {
          if (used.has(j) || v <= 0) return;
          used.add(j);
          b = Math.max(b, v + best(i + 1, used));
          used.delete(j);
        });
        return b;
      };
      return best(0, new Set());
    };
    for (let k = 0; k < 60; k++) {
      const rows = 1 + Math.floor(random() * 4);
      const cols = 1 + Math.floor(random() * 5);
      const m = Array.from({ length: rows }, () => Array.from({ length: cols }, () => (random() < 0.3 ? 0 : Math.round(random() * 100) / 100)));
      const a = assignMax(m);
      expect(new Set(a.filter((j) => j >= 0)).size).toBe(a.filter((j) => j >= 0).length);
      expect(total(m, a)).toBeCloseTo(brute(m), 6);
    }
  });
});

describe('header rows', () => {
  const columns = [col('country', 'Country'), col('y2019', '2019', 'number'), col('y2020', '2020', 'number')];

  test('a header of years is a header when the columns are years', () => {
    const rows = mapDocument({ tables: [table([['Country', '2019', '2020'], ['France', '1.5', '1.7']])], groups: [] }, columns, 'balanced');
    expect(values(rows)).toEqual([{ country: 'France', y2019: 1.5, y2020: 1.7 }]);
  });

  test('title rows above the header are skipped', () => {
    const grid = [['Inflation by country', '', ''], ['', '', ''], ['Country', '2019', '2020'], ['Spain', '0.7', '-0.3']];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, columns, 'balanced'))).toEqual([{ country: 'Spain', y2019: 0.7, y2020: -0.3 }]);
  });

  test('two header rows stack: a spanning group label over its sub-labels', () => {
    const grid = [
      ['', 'Capital', 'Capital', 'Revenue'],
      ['State', 'Family Welfare', 'Health', 'Family Welfare'],
      ['Kerala', '10', '20', '30'],
    ];
    const cols = [col('state', 'State'), col('cap_fw', 'Capital family welfare', 'number'), col('rev_fw', 'Revenue family welfare', 'number')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))).toEqual([{ state: 'Kerala', cap_fw: 10, rev_fw: 30 }]);
  });

  test('a row of amounts is never a header', () => {
    const grid = [['Acme', '1,200.00'], ['Globex', '300.50']];
    const cols = [col('vendor', 'Vendor'), col('amount', 'Amount', 'number')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))).toEqual([
      { vendor: 'Acme', amount: 1200 },
      { vendor: 'Globex', amount: 300.5 },
    ]);
  });

  test('a label over an empty column moves to the values beside it', () => {
    expect(alignLabels(['Name', 'Shares', '', '%', ''], [['Ann', '', '1,000', '', '5']])).toEqual(['Name', '', 'Shares', '', '%']);
  });

  test('sign cells join their amounts: "$" before, ")" and "%" after', () => {
    const grid = [['Item', '', '2021', '', ''], ['Foreign rate', '$', '(540,670', ')', ''], ['Share', '', '12.5', '%', '']];
    const cols = [col('item', 'Item'), col('y', '2021', 'number')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))).toEqual([
      { item: 'Foreign rate', y: -540670 },
      { item: 'Share', y: 12.5 },
    ]);
  });
});

describe('columns without labels, group rows and summary rows', () => {
  test('a column without a header is taken by its values, in column order among equals', () => {
    const grid = [['SECTION A', '', ''], ['Step 1.', 'Unpacking', '4'], ['Step 1B.', 'Safety checks', '9']];
    const cols = [col('part', 'Section', 'string', { description: 'the group row above' }), col('item', 'Step'), col('title', 'Title'), col('page', 'Page', 'number')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))).toEqual([
      { part: 'SECTION A', item: 'Step 1.', title: 'Unpacking', page: 4 },
      { part: 'SECTION A', item: 'Step 1B.', title: 'Safety checks', page: 9 },
    ]);
  });

  test('a first-column header that names the group rows goes to the column asking for groups', () => {
    const grid = [['Class', 'Rate'], ['Metals', ''], ['Iron', 'High'], ['Zinc', 'Low'], ['Gases', ''], ['Neon', 'Low']];
    const cols = [col('class', 'Class', 'string', { description: 'the group row above the element' }), col('element', 'Element'), col('rate', 'Rate')];
    // Only one value column: group rows need three filled cells to be told from data, so add one.
    const wide = grid.map((r, i) => [...r, i === 0 ? 'Score' : r[1] ? String(i) : '']);
    expect(values(mapDocument({ tables: [table(wide)], groups: [] }, cols, 'balanced'))).toEqual([
      { class: 'Metals', element: 'Iron', rate: 'High' },
      { class: 'Metals', element: 'Zinc', rate: 'Low' },
      { class: 'Gases', element: 'Neon', rate: 'Low' },
    ]);
  });

  test('summary rows are left out unless a column asks for totals', () => {
    const grid = [['Vendor', 'Amount'], ['Acme', '1'], ['Sous-total', '1'], ['Globex', '2'], ['Razem', '3'], ['', '3']];
    const cols = [col('vendor', 'Vendor'), col('amount', 'Amount', 'number')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced')).map((v) => v.vendor)).toEqual(['Acme', 'Globex']);
    const asking = [col('vendor', 'Vendor', 'string', { description: 'including totals' }), cols[1]!];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, asking, 'balanced')).map((v) => v.vendor)).toEqual(['Acme', 'Sous-total', 'Globex', 'Razem', undefined]);
  });
});

describe('names', () => {
  test("a column's description that names the header in so many words beats a synonym", () => {
    const cols = [col('qty', 'Quantity', 'number', { description: 'Amount column (the pieces)' }), col('total', 'Line total', 'number', { description: 'Total' })];
    const grid = [['Amount', 'Product', 'Total'], ['400', 'Balloons', '316.00']];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))).toEqual([{ qty: 400, total: 316 }]);
    expect(nameScore(col('s', 'Revenue', 'number', { description: 'Revenue in thousands (header: Revenue (EUR k))' }), 'Revenue (EUR k)')).toBeGreaterThanOrEqual(0.97);
  });
});

describe('choosing the table', () => {
  const cols = [col('name', 'Name'), col('qty', 'Quantity', 'number')];
  const grid = (n: string) => [['Name', 'Qty'], [n, '1']];

  test('the table that matches the columns, not the first', () => {
    const nav = table([['Home', 'About'], ['Docs', 'Blog']]);
    expect(values(mapDocument({ tables: [nav, table(grid('bolt'))], groups: [] }, cols, 'balanced'))).toEqual([{ name: 'bolt', qty: 1 }]);
  });

  test('among tables of the same columns, the one whose title fits the table name', () => {
    const tables = [table(grid('apple'), { context: 'Fruit in stock' }), table(grid('bolt'), { context: 'Hardware in stock' })];
    expect(values(mapDocument({ tables, groups: [], topic: 'Hardware' }, cols, 'balanced'))).toEqual([{ name: 'bolt', qty: 1 }]);
  });

  test('tables of the same columns that nothing tells apart are parts of one (sheets); pages are not', () => {
    const tables = [table(grid('a')), table(grid('b'))];
    expect(values(mapDocument({ tables, groups: [] }, cols, 'balanced')).map((v) => v.name)).toEqual(['a', 'b']);
    const paged = tables.map((t, i) => ({ ...t, page: i + 1 }));
    expect(values(mapDocument({ tables: paged, groups: [] }, cols, 'balanced')).map((v) => v.name)).toEqual(['a']);
  });
});

describe('confidence of a row of document fields', () => {
  const cols = [col('number', 'Invoice number'), col('total', 'Total', 'number'), col('vendor', 'Vendor')];
  const fields = (values: Record<string, unknown>) => ({ values, scores: Object.fromEntries(Object.keys(values).map((k) => [k, 0.9])) });

  test('falls with the share of columns found and with a doubtful scan', () => {
    const all = mapDocument({ tables: [], groups: [], fields: fields({ number: 'A-1', total: '5.00', vendor: 'Acme' }) }, cols, 'balanced')[0]!;
    const one = mapDocument({ tables: [], groups: [], fields: fields({ number: 'A-1' }) }, cols, 'balanced')[0]!;
    const scan = mapDocument({ tables: [], groups: [], fields: fields({ number: 'A-1', total: '5.00', vendor: 'Acme' }), sureness: 0.6 }, cols, 'balanced')[0]!;
    expect(one.confidence).toBeLessThan(all.confidence);
    expect(scan.confidence).toBeCloseTo(all.confidence * 0.6, 2);
  });

  test("the learned model's confidence and fit are each the row's, scaled by a doubtful scan; the document's fit is its rows' fit", () => {
    const learned = { ...fields({ number: 'A-1', total: '5.00', vendor: 'Acme' }), confidence: 0.3, fit: 0.7 };
    const row = mapDocument({ tables: [], groups: [], fields: learned, sureness: 0.9 }, cols, 'balanced')[0]!;
    expect(row.confidence).toBeCloseTo(0.27, 3);
    expect(row.fit!).toBeCloseTo(0.63, 3);
    expect(documentFit([row, { ...row, fit: 0.53 }])).toBeCloseTo(0.58, 3);
    // Rows of tables have no fit of their own: their confidence is it.
    expect(documentFit([{ values: { a: 1 }, confidence: 0.4, problems: [] }])).toBe(0.4);
  });
});

describe('how a column writes its values', () => {
  test('day-first and month-first evidence, decimal commas, thousands groups', () => {
    expect(valueHints(['01/02/2024', '13/02/2024']).dayFirst).toBe(true);
    expect(valueHints(['01/02/2024', '02/13/2024']).dayFirst).toBe(false);
    expect(valueHints(['01/02/2024']).dayFirst).toBeUndefined();
    expect(valueHints(['1.234,50', '12']).decimalComma).toBe(true);
    expect(valueHints(['1,234.50']).decimalComma).toBe(false);
    expect(valueHints(['453,694']).decimalComma).toBe(false);
    // Money without decimals grouped by dots (rupiah): "40.500" groups, unless decimals show elsewhere.
    expect(valueHints(['40.500', '3.500', '9.500']).decimalComma).toBe(true);
    expect(valueHints(['12.403', '42.90', '50.00']).decimalComma).toBe(false);
    // Four decimals or more, or a lone 0 before the point, are decimals whatever else has three.
    expect(valueHints(['121.440', '42.121', '0.0335', '-0.9393']).decimalComma).toBe(false);
  });

  test('numbers read with the hints; percentages as their number', () => {
    expect(parseHumanNumber('1.234', { decimalComma: true })).toEqual({ value: 1234 });
    expect(parseHumanNumber('1,234', { decimalComma: true })).toEqual({ value: 1.234 });
    expect(parseHumanNumber('0.025', { decimalComma: true })).toEqual({ value: 0.025 });
    expect(parseHumanNumber('12,5 %')).toEqual({ value: 12.5 });
    expect(parseHumanNumber('$(591,113)', { decimalComma: false })).toEqual({ value: -591113 });
  });

  test('a later value decides an earlier ambiguous date of the same column', () => {
    const grid = [['What', 'When'], ['A', '01/02/2024'], ['B', '13/02/2024']];
    const cols = [col('what', 'What'), col('when', 'When', 'date')];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced')).map((v) => v.when)).toEqual(['2024-02-01', '2024-02-13']);
  });
});

describe('line items', () => {
  const items = [col('description', 'Description'), col('qty', 'Quantity', 'number'), col('price', 'Unit price', 'number'), col('total', 'Line total', 'number')];
  const map = (tables: TableCandidate[]) => mapDocument({ tables, groups: [] }, items, 'balanced');

  test('a totals block under the items (net, VAT, total) is not items, with or without a summary word', () => {
    const body = [['Description', 'Qty', 'Unit price', 'Amount'], ['Blue widget', '3', '191.00', '573.00'], ['Red gadget', '2', '10.50', '21.00']];
    // Labels set under the price column, where the items have numbers: none of them says "total".
    const underPrices = [...body, ['', '', 'Net', '594.00'], ['', '', 'VAT 19%', '112.86'], ['', '', 'Gross', '706.86']];
    expect(values(map([table(underPrices)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget']);
    const labelled = [...body, ['Subtotal', '', '', '594.00'], ['VAT 19%', '', '', '112.86'], ['Total due', '', '', '706.86']];
    expect(values(map([table(labelled)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget']);
    // Amounts printed with their currency sign after them, and a rate in a cell of its own, as well.
    const euros = [['Description', 'Qty', 'Unit price', 'Amount'], ['Blue widget', '3', '191,00 €', '573,00 €'], ['Red gadget', '2', '10,50 €', '21,00 €']];
    const signed = [...euros, ['', 'Net', '', '594,00 €'], ['', 'plus VAT', '', '112,86 €'], ['', 'Total', '', '706,86 €']];
    expect(values(map([table(signed)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget']);
    const rated = [...body, ['Subtotal', '', '', '594.00'], ['VAT', '', '19%', '112.86'], ['Total due', '', '', '706.86']];
    expect(values(map([table(rated)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget']);
    // A label spanning the row's cells is one label; a discount above the subtotal is an item the net adds up.
    const spanned = [...body, ['Discount 5%', '', '', '-29.70'], ['Subtotal', 'Subtotal', 'Subtotal', '564.30'], ['VAT 19%', 'VAT 19%', 'VAT 19%', '107.22'], ['Invoice amount', 'Invoice amount', 'Invoice amount', '671.52']];
    expect(values(map([table(spanned)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget', 'Discount 5%']);
    // A last line with a description and an amount of its own is an item.
    const shipping = [...body, ['Shipping', '', '', '9.90']];
    expect(values(map([table(shipping)])).map((v) => v.description)).toEqual(['Blue widget', 'Red gadget', 'Shipping']);
  });

  test('dates are no text: a column of dates under a header naming something else does not fill a description', () => {
    const grid = [['Amount paid', 'Date paid', 'Reference'], ['49.00', 'May 3, 2024', 'Pro plan'], ['12.00', 'June 3, 2024', 'Add-on']];
    expect(values(map([table(grid)])).map((v) => v.description)).toEqual(['Pro plan', 'Add-on']);
  });

  test('quantity × unit price = amount picks the columns when the header does not tell them', () => {
    const grid = [['Item', 'A', 'B', 'C'], ['Bolt', '12.50', '4', '50.00'], ['Nut', '2.00', '10', '20.00'], ['Washer', '0.10', '100', '10.00']];
    expect(values(map([table(grid)]))).toEqual([
      { description: 'Bolt', qty: 4, price: 12.5, total: 50 },
      { description: 'Nut', qty: 10, price: 2, total: 20 },
      { description: 'Washer', qty: 100, price: 0.1, total: 10 },
    ]);
  });

  test('a header naming its column outright is kept, whatever other columns multiply out', () => {
    const cols = [col('qty', 'Quantity', 'number'), col('bill', 'Bill amount', 'number'), col('rate', 'Handling rate', 'number')];
    const grid = [['Quantity', 'Bill amount', 'Accrued amount', 'Handling rate'], ['637', '0.61', '388.57', '0.0000'], ['688', '0.61', '419.68', '0.0000']];
    expect(values(mapDocument({ tables: [table(grid)], groups: [] }, cols, 'balanced'))[0]).toEqual({ qty: 637, bill: 0.61, rate: 0 });
  });

  test('among tables naming the same columns, the one whose rows multiply out is the item table', () => {
    const schedule = table([['Description', 'Quantity', 'Unit price', 'Line total'], ['First instalment', '1', '300.00', '150.00'], ['Second instalment', '1', '300.00', '150.00']]);
    const lines = table([['Description', 'Qty', 'Price', 'Total'], ['Bolt', '4', '12.50', '50.00'], ['Nut', '10', '2.00', '20.00']]);
    expect(values(map([schedule, lines])).map((v) => v.description)).toEqual(['Bolt', 'Nut']);
  });

  test('a table that is not one of items gives no quantities or prices taken by value alone, and less sure rows', () => {
    const invoice = map([table([['Description', 'Qty', 'Price', 'Amount'], ['Card payment', '1', '40.00', '40.00'], ['Transfer', '2', '250.00', '500.00']])]);
    const sure = Math.min(...invoice.map((r) => r.confidence));
    // A specification: numbers under headers that name no item column.
    const specification = map([table([['Parameter', 'Value', 'Limit', 'Tolerance'], ['Voltage', '230', '253', '10'], ['Current', '16', '20', '2'], ['Frequency', '50', '51', '1']])]);
    expect(specification.every((r) => r.values.qty === undefined && r.values.price === undefined)).toBe(true);
    expect(Math.max(...specification.map((r) => r.confidence))).toBeLessThan(sure * 0.8);
    // A statement: an amount and a balance, no prices; its rows cannot be checked as items.
    const statement = map([table([['Date', 'Description', 'Amount', 'Balance'], ['2026-03-01', 'Card payment', '-40.00', '1,210.00'], ['2026-03-02', 'Transfer in', '500.00', '1,710.00']])]);
    expect(Math.max(...statement.map((r) => r.confidence))).toBeLessThan(sure * 0.9);
  });

  test("a running balance makes a table an account's entries: the balance is no line amount, and a balanced table does not take the rows", () => {
    const cols = [col('description', 'Description'), col('qty', 'Quantity', 'number'), col('price', 'Unit price', 'currency'), col('total', 'Line total', 'currency')];
    const statement = table([
      ['Date', 'Description', 'Paid out', 'Paid in', 'Balance'],
      ['02 Mar 2026', 'Card payment', '40.00', '', '1,210.00'],
      ['05 Mar 2026', 'Salary', '', '2,100.00', '3,310.00'],
      ['09 Mar 2026', 'Direct debit', '95.50', '', '3,214.50'],
      ['15 Mar 2026', 'Transfer to savings', '500.00', '', '2,714.50'],
    ]);
    const rows = mapDocument({ tables: [statement], groups: [] }, cols, 'flexible');
    expect(values(rows).map((v) => v.description)).toEqual(['Card payment', 'Salary', 'Direct debit', 'Transfer to savings']);
    expect(rows.every((r) => r.values.total === undefined && r.values.qty === undefined && r.values.price === undefined)).toBe(true);
    expect(documentFit(rows)!).toBeLessThan(0.45);
    // Items at one price whose quantities rise by one step like a balance, but multiply out: items.
    const items = mapDocument({ tables: [table([['Description', 'Qty', 'Price', 'Total'], ['Bolt', '1', '10.00', '10.00'], ['Nut', '2', '10.00', '20.00'], ['Washer', '3', '10.00', '30.00']])], groups: [] }, cols, 'flexible');
    expect(values(items).map((v) => v.total)).toEqual([10, 20, 30]);
    expect(documentFit(items)!).toBeGreaterThan(0.7);
  });
});
