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
      ['1', 'Consulting', '8', '120.00', '19%', '960.00'],
      ['', 'Travel costs', '', '', '', '84.00'],
      ['2', 'Workshop', '1', '900.00', '19%', '900.00'],
      ['3', 'Licence', '1', '300.00', '19%', '300.00'],
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
      ['1 A-77', 'Blue widget boxed', '3', '191.00', '19%', '573.00'],
      ['2', 'Red gadget', '2', '10.50', '19%', '21.00'],
    ]);
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
    expect(table?.grid[4]).toEqual(['4', 'Grey box', '5', '4.00', '19%', '20.00']);
  });
});
