import { describe, expect, test } from 'bun:test';
import { readPdf } from '../../../src/extract/readers/pdf';
import { makePdf, pdfDocument, type Drawing } from './pdf-fixtures';

const read = async (pages: Array<(d: Drawing) => void>) => readPdf(pdfDocument(await makePdf(pages)));

/** Column cells of the header: left and right edges. */
const CELLS: Array<[number, number]> = [[50, 80], [82, 250], [252, 320], [322, 400], [402, 470], [472, 560]];
const LABELS = ['Pos', 'Description', 'Qty', 'Unit price', 'VAT', 'Amount'];

/** A header band drawn cell by cell, dark with white labels or light with black ones. */
function band(d: Drawing, top: number, dark: boolean) {
  CELLS.forEach(([x0, x1], k) => {
    d.fill(x0, top, x1, top + 18, { grey: dark ? 0.2 : 0.85 });
    d.text(LABELS[k]!, x0 + 3, top + 4, { white: dark });
  });
}

/** Cells of one printed line, each at its column's left edge (numbers set at the right edge). */
function line(d: Drawing, y: number, cells: Array<string | null>) {
  cells.forEach((text, k) => {
    if (!text) return;
    const [x0, x1] = CELLS[k]!;
    if (/^[\d.,% ]+$/.test(text)) d.text(text, x1 - 3 - text.length * 5.6, y);
    else d.text(text, x0 + 3, y);
  });
}

describe('item tables under a drawn header', () => {
  test('a dark header band of filled cells with white labels gives the columns; wrapped descriptions join, notes stay in their item', async () => {
    const result = await read([
      (d) => {
        d.text('Invoice 1042', 50, 50, { size: 14, bold: true });
        band(d, 100, true);
        line(d, 124, ['1', 'Blue widget', '3', '191.00', '19%', '573.00']);
        line(d, 135, [null, 'extra large, boxed']);
        // Set apart and written "label: value": a note of the item, not part of its description.
        d.text('Serial no.: 4711-2', 85, 154);
        line(d, 180, ['2', 'Installation', '2', '40.00', '19%', null]);
        // The amount printed on the line under its item.
        line(d, 191, [null, null, null, null, null, '80.00']);
        line(d, 214, ['3', 'Cable set', '10', '2.50', '7%', '25.00']);
      },
    ]);
    const table = result.tables.find((t) => t.grid[0]![0] === 'Pos');
    expect(table?.grid).toEqual([
      [...LABELS, ''],
      ['1', 'Blue widget extra large, boxed', '3', '191.00', '19%', '573.00', 'Serial no.: 4711-2'],
      ['2', 'Installation', '2', '40.00', '19%', '80.00', ''],
      ['3', 'Cable set', '10', '2.50', '7%', '25.00', ''],
    ]);
    expect(table?.headerRows).toBe(1);
  });

  test('items set far apart stay one table; a sub-line with an amount of its own is an item of its own', async () => {
    const result = await read([
      (d) => {
        band(d, 100, false);
        line(d, 124, ['1', 'Consulting', '8', '120.00', '19%', '960.00']);
        line(d, 135, [null, 'Travel costs', null, null, null, '84.00']);
        line(d, 170, ['2', 'Workshop', '1', '900.00', '19%', '900.00']);
        line(d, 205, ['3', 'Licence', '1', '300.00', '19%', '300.00']);
        d.text('Payment within 14 days to the account below.', 50, 260);
      },
    ]);
    const table = result.tables.find((t) => t.grid[0]![0] === 'Pos');
    expect(table?.grid.slice(1)).toEqual([
      ['1', 'Consulting', '8', '120.00', '19%', '960.00', ''],
      ['', 'Travel costs', '', '', '', '84.00', ''],
      ['2', 'Workshop', '1', '900.00', '19%', '900.00', ''],
      ['3', 'Licence', '1', '300.00', '19%', '300.00', ''],
    ]);
    expect(result.lines.map((l) => l.text)).toContain('Payment within 14 days to the account below.');
  });

  test('a rule under the header drawn cell by cell gives the columns, even where the text leaves no gap', async () => {
    const result = await read([
      (d) => {
        CELLS.forEach(([x0, x1], k) => {
          d.text(LABELS[k]!, x0 + 3, 104);
          // Each cell draws its own bottom border: pieces end to end, of different lengths.
          d.line(x0, 118, k + 1 < CELLS.length ? CELLS[k + 1]![0] : x1, 118);
        });
        for (const [y, pos, item, qty, price, vat, amount] of [
          [124, '1', 'Blue widget', '3', '191.00', '19%', '573.00'],
          [150, '2', 'Red gadget', '2', '10.50', '19%', '21.00'],
        ] as const) {
          line(d, y, [pos, item, qty, price]);
          // The rate set flush right in its cell, the amount flush left in the next: one run of text.
          d.text(vat, 470 - vat.length * 6, y);
          d.text(amount, 474, y);
        }
        d.text('A-77', 52, 135);
        d.text('boxed', 85, 135);
      },
    ]);
    const table = result.tables.find((t) => t.grid[0]![0] === 'Pos');
    expect(table?.grid.slice(1)).toEqual([
      ['1 A-77', 'Blue widget boxed', '3', '191.00', '19%', '573.00', ''],
      ['2', 'Red gadget', '2', '10.50', '19%', '21.00', ''],
    ]);
  });

  test("a form's lines above a rule-drawn header stay the document's; a totals line under the items ends them", async () => {
    const result = await read([
      (d) => {
        d.text('Credit note number: CN-17', 50, 60);
        d.text('Customer: Whitby Dental Practice', 50, 74);
        CELLS.forEach(([x0, x1], k) => {
          d.text(LABELS[k]!, x0 + 3, 104);
          d.line(x0, 118, k + 1 < CELLS.length ? CELLS[k + 1]![0] : x1, 118);
        });
        line(d, 124, ['1', 'Blue widget', '3', '191.00', '19%', '573.00']);
        line(d, 140, ['2', 'Red gadget', '2', '10.50', '19%', '21.00']);
        d.text('Net: 594.00', 480, 165);
        d.text('VAT 19%: 112.86', 460, 179);
      },
    ]);
    const table = result.tables.find((t) => t.grid[0]![1] === 'Description');
    expect(table?.grid).toEqual([
      [...LABELS, ''],
      ['1', 'Blue widget', '3', '191.00', '19%', '573.00', ''],
      ['2', 'Red gadget', '2', '10.50', '19%', '21.00', ''],
    ]);
    const free = result.lines.map((l) => l.text);
    expect(free).toContain('Credit note number: CN-17');
    expect(free).toContain('Customer: Whitby Dental Practice');
    expect(free).toContain('Net: 594.00');
  });

  test('the item table continued on the next page under the same band is one table, notes on one page or not', async () => {
    const result = await read([
      (d) => {
        band(d, 100, true);
        line(d, 124, ['1', 'Blue widget', '3', '191.00', '19%', '573.00']);
        d.text('Serial no.: 4711-2', 85, 143);
        line(d, 170, ['2', 'Red gadget', '2', '10.50', '19%', '21.00']);
        d.text('Bank: Example Bank, account 123 456 789', 50, 740);
      },
      (d) => {
        band(d, 60, true);
        line(d, 84, ['3', 'Cable set', '10', '2.50', '7%', '25.00']);
        line(d, 104, ['4', 'Grey box', '5', '4.00', '19%', '20.00']);
      },
    ]);
    const tables = result.tables.filter((t) => t.grid[0]![0] === 'Pos');
    expect(tables).toHaveLength(1);
    expect(tables[0]!.grid.map((r) => r[0])).toEqual(['Pos', '1', '2', '3', '4']);
  });

  test('zebra rows (filled boxes behind every other item) are neither header nor rules', async () => {
    const result = await read([
      (d) => {
        band(d, 100, true);
        const items = [
          ['1', 'Blue widget', '3', '191.00', '19%', '573.00'],
          ['2', 'Red gadget', '2', '10.50', '19%', '21.00'],
          ['3', 'Green thing', '1', '80.00', '19%', '80.00'],
          ['4', 'Grey box', '5', '4.00', '19%', '20.00'],
        ];
        items.forEach((cells, k) => {
          const y = 124 + k * 16;
          // Filled cell by cell, as a printed web page draws each cell's background.
          if (k % 2 === 1) for (const [x0, x1] of CELLS) d.fill(x0, y - 3, x1, y + 13, { grey: 0.93 });
          line(d, y, cells);
        });
      },
    ]);
    const table = result.tables.find((t) => t.grid[0]![0] === 'Pos');
    expect(table?.grid).toHaveLength(5);
    expect(table?.grid[4]).toEqual(['4', 'Grey box', '5', '4.00', '19%', '20.00', '']);
  });
});

describe('layout defects of printed invoices', () => {
  const items = [['Blue widget', '3', '191.00', '19%', '573.00'], ['Red gadget', '2', '10.50', '19%', '21.00'], ['Setup', '1', '80.00', '7%', '80.00']];
  const xs = [50, 250, 320, 420, 500];

  test('header cells filled and outlined in their own colour are a header band, not a ruled grid of one row', async () => {
    const result = await read([
      (d) => {
        for (const [a, b] of [[45, 245], [245, 315], [315, 415], [415, 495], [495, 560]] as const) d.fill(a, 96, b, 114, { grey: 0.25, outline: true });
        ['Description', 'Qty', 'Unit price', 'VAT', 'Amount'].forEach((t, i) => d.text(t, xs[i]!, 100, { white: true }));
        items.forEach((r, k) => r.forEach((t, i) => d.text(t, xs[i]!, 122 + k * 16)));
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.headerRows).toBe(1);
    expect(result.tables[0]!.grid).toEqual([['Description', 'Qty', 'Unit price', 'VAT', 'Amount', ''], ...items.map((r) => [...r, ''])]);
  });

  test('a dark band across the whole header and zebra rows, one box each, leave an ordinary table with its header', async () => {
    const result = await read([
      (d) => {
        d.fill(45, 96, 560, 114, { grey: 0.2 });
        ['Description', 'Qty', 'Unit price', 'VAT', 'Amount'].forEach((t, i) => d.text(t, xs[i]!, 100, { white: true }));
        items.forEach((r, k) => {
          if (k % 2 === 0) d.fill(45, 118 + k * 16, 560, 134 + k * 16, { grey: 0.92 });
          r.forEach((t, i) => d.text(t, xs[i]!, 122 + k * 16));
        });
        d.text('Total', 420, 180, { bold: true });
        d.text('674.00', 500, 180, { bold: true });
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid.slice(0, 4)).toEqual([['Description', 'Qty', 'Unit price', 'VAT', 'Amount'], ...items]);
    expect(result.tables[0]!.headerRows).toBe(1);
  });

  test('a cell of two numbers set a space apart, under two labels, splits at its own gap', async () => {
    const result = await read([
      (d) => {
        ['Description', 'Qty', 'Unit price', 'VAT', 'Amount'].forEach((t, i) => d.text(t, [50, 250, 320, 400, 440][i]!, 100, { bold: true }));
        items.forEach((r, k) => {
          r.slice(0, 3).forEach((t, i) => d.text(t, xs[i]!, 120 + k * 16));
          d.text(`${r[3]} ${r[4]}`, 400, 120 + k * 16);
        });
        // "1 234.50" is one number, never two.
        d.text('Big item', 50, 168);
        d.text('1', 250, 168);
        d.text('1 234.50', 320, 168);
        d.text('19% 1 234.50', 400, 168);
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([['Description', 'Qty', 'Unit price', 'VAT', 'Amount'], ...items, ['Big item', '1', '1 234.50', '19%', '1 234.50']]);
  });

  test('a fixed-pitch print lines up by characters: labels a space apart and numbers flush right', async () => {
    const text = [
      'Pos Article   Description                  Quantity Unit price     Amount',
      '  1 100234    Hex bolt M8 x 40                  250       0.12      30.00',
      '  2 100871    Washer 8 mm                       500       0.03      15.00',
      '  3 204410    Wall plug 10 mm                    40       0.35      14.00',
      '  4 310002    Mounting rail 2 m                   3      12.90      38.70',
    ];
    const result = await read([(d) => text.forEach((t, k) => d.text(t, 30, 100 + k * 11, { mono: true, size: 8 }))]);
    expect(result.tables[0]!.grid).toEqual([
      ['Pos', 'Article', 'Description', 'Quantity', 'Unit price', 'Amount'],
      ['1', '100234', 'Hex bolt M8 x 40', '250', '0.12', '30.00'],
      ['2', '100871', 'Washer 8 mm', '500', '0.03', '15.00'],
      ['3', '204410', 'Wall plug 10 mm', '40', '0.35', '14.00'],
      ['4', '310002', 'Mounting rail 2 m', '3', '12.90', '38.70'],
    ]);
  });
});
