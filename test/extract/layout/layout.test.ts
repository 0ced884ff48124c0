import { describe, expect, test } from 'bun:test';
import { degrees } from 'pdf-lib';
import { UnreadableDocument } from '../../../src/extract/document';
import { readingFromPages } from '../../../src/extract/layout';
import { isSummaryRow } from '../../../src/extract/layout/grid';
import { cleanGlyphs } from '../../../src/extract/layout/pdf-page';
import type { Page, Word } from '../../../src/extract/layout/page';
import { readPdf } from '../../../src/extract/readers/pdf';
import { makePdf, pdfDocument, type Drawing } from './pdf-fixtures';

const read = async (pages: Array<(d: Drawing) => void>, options?: { width?: number; height?: number }) => readPdf(pdfDocument(await makePdf(pages, options)));

/** A stream table: rows of cells at fixed column positions, no rules. */
function rows(d: Drawing, top: number, xs: number[], cells: string[][], options: { size?: number; leading?: number; boldFirst?: boolean } = {}) {
  const leading = options.leading ?? 16;
  cells.forEach((row, r) => row.forEach((text, c) => text && d.text(text, xs[c]!, top + r * leading, { size: options.size ?? 10, bold: options.boldFirst && r === 0 })));
}

describe('lattice tables', () => {
  test('a ruled grid gives its cells; spanning cells repeat into the rows and columns they cover', async () => {
    const result = await read([
      (d) => {
        d.text('Table 3 Tasting scores', 50, 70, { size: 12 });
        // Name spans two header rows; Score spans the Sweet and Sour columns.
        for (const y of [100, 160, 180]) d.line(50, y, 400, y);
        d.line(200, 120, 400, 120);
        d.line(50, 140, 400, 140);
        for (const x of [50, 200, 400]) d.line(x, 100, x, 180);
        d.line(300, 120, 300, 180);
        d.text('Name', 55, 115);
        d.text('Score', 260, 104);
        d.text('Sweet', 205, 124);
        d.text('Sour', 305, 124);
        d.text('Lemon', 55, 144);
        d.text('2', 205, 144);
        d.text('9 pts', 305, 144);
        d.text('Mango', 55, 164);
        d.text('8', 205, 164);
        d.text('3 pts', 305, 164);
      },
    ]);
    expect(result.tables).toHaveLength(1);
    const table = result.tables[0]!;
    expect(table.grid).toEqual([
      ['Name', 'Score', 'Score'],
      ['Name', 'Sweet', 'Sour'],
      ['Lemon', '2', '9 pts'],
      ['Mango', '8', '3 pts'],
    ]);
    expect(table.headerRows).toBe(2);
    expect(table.label).toBe('Table 3 Tasting scores');
    expect(table.context).toContain('Tasting scores');
    // The table's text is not among the free lines; the title is.
    expect(result.lines.map((l) => l.text)).toEqual(['Table 3 Tasting scores']);
  });

  test('a cell spanning two rows is repeated on both', async () => {
    const spanned = await read([
      (d) => {
        for (const y of [100, 120, 160]) d.line(50, y, 350, y);
        d.line(150, 140, 350, 140);
        for (const x of [50, 150, 250, 350]) d.line(x, 100, x, 160);
        d.text('Group', 55, 104);
        d.text('Item', 155, 104);
        d.text('Count', 255, 104);
        d.text('Group A', 55, 134);
        d.text('Apples', 155, 124);
        d.text('4', 255, 124);
        d.text('Pears', 155, 144);
        d.text('7', 255, 144);
      },
    ]);
    expect(spanned.tables[0]!.grid).toEqual([
      ['Group', 'Item', 'Count'],
      ['Group A', 'Apples', '4'],
      ['Group A', 'Pears', '7'],
    ]);
  });

  test('rows drawn without rules between them inside one ruled band are split at their baselines', async () => {
    const result = await read([
      (d) => {
        d.grid([50, 150, 250], [100, 120, 170]);
        d.text('Warehouse', 55, 104);
        d.text('Count', 155, 104);
        ['Alpha', 'Beta', 'Gamma'].forEach((s, i) => d.text(s, 55, 124 + i * 14));
        ['1,200', '350', '47'].forEach((s, i) => d.text(s, 155, 124 + i * 14));
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Warehouse', 'Count'],
      ['Alpha', '1,200'],
      ['Beta', '350'],
      ['Gamma', '47'],
    ]);
  });

  test('two ruled tables side by side are two tables, each with the title above it', async () => {
    const result = await read([
      (d) => {
        d.text('Spring prices', 50, 80, { size: 12 });
        d.text('Autumn prices', 320, 80, { size: 12 });
        for (const [x0, name] of [[50, 'Tulip'], [320, 'Aster']] as const) {
          d.grid([x0, x0 + 120, x0 + 240], [100, 120, 140, 160]);
          d.text('Variety', x0 + 5, 104);
          d.text('Price', x0 + 125, 104);
          d.text(`${name} one`, x0 + 5, 124);
          d.text('3.20', x0 + 125, 124);
          d.text(`${name} two`, x0 + 5, 144);
          d.text('4.10', x0 + 125, 144);
        }
      },
    ]);
    expect(result.tables).toHaveLength(2);
    expect(result.tables.map((t) => t.grid[1]![0])).toEqual(['Tulip one', 'Aster one']);
    expect(result.tables[0]!.context).toBe('Spring prices');
    expect(result.tables[1]!.context).toBe('Autumn prices');
  });

  test('column headers written upwards keep their words', async () => {
    const result = await read([
      (d) => {
        d.grid([50, 200, 260, 320], [100, 180, 200, 220]);
        d.text('Feature', 55, 104);
        d.text('Night mode', 215, 175, { rotate: 90 });
        d.text('Dark theme', 275, 175, { rotate: 90 });
        d.text('Phone', 55, 184);
        d.text('X', 205, 184);
        d.text('Tablet', 55, 204);
        d.text('X', 265, 204);
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Feature', 'Night mode', 'Dark theme'],
      ['Phone', 'X', ''],
      ['Tablet', '', 'X'],
    ]);
  });
});

describe('lattice footnotes', () => {
  test('a footnote mark raised after a word in a ruled cell stays out of its value', async () => {
    const result = await read([
      (d) => {
        d.grid([50, 200, 300], [100, 120, 140, 160]);
        rows(d, 104, [55, 205], [['Planet', 'Moons'], ['Mars', 'Two'], ['Venus', 'None']], { leading: 20 });
        d.text('†', 83, 122, { size: 8 });
      },
    ]);
    expect(result.tables[0]!.grid[1]).toEqual(['Mars', 'Two']);
  });
});

describe('lattice tables in a frame', () => {
  test('a title in large type inside the border is the caption, not a cell; the space around the grid spans nothing', async () => {
    const result = await read([
      (d) => {
        // The border runs from the title down; the grid's rules start below the title.
        d.box(40, 40, 420, 200);
        for (const y of [100, 120, 140, 160]) d.line(40, y, 420, y);
        for (const x of [160, 300]) d.line(x, 100, x, 200);
        d.text('Monthly Report', 150, 55, { size: 20 });
        rows(d, 104, [45, 165, 305], [['Region', 'Visits', 'Sales'], ['North', '1,200', '300'], ['South', '900', '250']], { leading: 20 });
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Region', 'Visits', 'Sales'],
      ['North', '1,200', '300'],
      ['South', '900', '250'],
    ]);
    expect(result.tables[0]!.context).toContain('Monthly Report');
  });
});

describe('lattice tables, open and merged', () => {
  test('an open table (rules across, one rule between the columns) is a table', async () => {
    const result = await read([
      (d) => {
        for (const y of [100, 120, 140, 160]) d.line(50, y, 300, y);
        d.line(120, 100, 120, 160);
        rows(d, 104, [55, 125], [['Sport', 'Clubs'], ['Rowing', 'Blue Oars, River Eights'], ['Chess', 'Knights']], { leading: 20 });
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Sport', 'Clubs'],
      ['Rowing', 'Blue Oars, River Eights'],
      ['Chess', 'Knights'],
    ]);
  });

  test('in a body drawn without column rules, a line that does not fill the columns wraps the cell it starts under', async () => {
    const result = await read([
      (d) => {
        d.grid([50, 150, 300, 400], [100, 120]);
        d.line(50, 200, 400, 200);
        d.line(50, 120, 50, 200);
        d.line(400, 120, 400, 200);
        rows(d, 104, [55, 155, 305], [['Ref', 'Purpose', 'Cost']]);
        rows(d, 124, [55, 155, 305], [['R-1', 'GARDEN WORK', '410.00']]);
        d.text('HEDGES CUT ALONG THE FENCE', 155, 136);
        rows(d, 150, [55, 155, 305], [['R-2', 'WINDOW CLEANING', '75.00']]);
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Ref', 'Purpose', 'Cost'],
      ['R-1', 'GARDEN WORK HEDGES CUT ALONG THE FENCE', '410.00'],
      ['R-2', 'WINDOW CLEANING', '75.00'],
    ]);
  });
});

describe('tables in sections', () => {
  test('ruled tables with the same columns, apart only by a heading, are one table with a section row', async () => {
    const result = await read([
      (d) => {
        d.grid([50, 200, 300, 400], [100, 120, 140, 160]);
        rows(d, 104, [55, 205, 305], [['Course', 'Fee', 'Hours'], ['Painting', '120.00', '10'], ['Pottery', '95.00', '8']], { leading: 20 });
        d.text('Evening', 55, 166);
        d.grid([50, 200, 300, 400], [180, 200, 220]);
        rows(d, 184, [55, 205, 305], [['Drawing', '80.00', '6'], ['Sculpture', '150.00', '12']], { leading: 20 });
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid.map((r) => r[0])).toEqual(['Course', 'Painting', 'Pottery', 'Evening', 'Drawing', 'Sculpture']);
    expect(result.tables[0]!.grid[3]).toEqual(['Evening', '', '']);
  });
});

describe('stream tables', () => {
  test('columns come from aligned text; a wrapped description continues its row', async () => {
    const result = await read([
      (d) => {
        d.text('Invoice lines', 50, 60, { size: 14, bold: true });
        rows(d, 100, [50, 110, 330, 420], [['No', 'Description', 'Qty', 'Amount']]);
        d.text('1', 50, 120);
        d.text('Garden design for the front', 110, 120);
        d.text('2', 330, 120);
        d.text('1,200.00', 420, 120);
        d.text('yard and terrace', 110, 132);
        d.text('2', 50, 150);
        d.text('Licence fee', 110, 150);
        d.text('1', 330, 150);
        d.text('300.00', 420, 150);
        d.text('3', 50, 170);
        d.text('Support', 110, 170);
        d.text('12', 330, 170);
        d.text('50.00', 420, 170);
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid).toEqual([
      ['No', 'Description', 'Qty', 'Amount'],
      ['1', 'Garden design for the front yard and terrace', '2', '1,200.00'],
      ['2', 'Licence fee', '1', '300.00'],
      ['3', 'Support', '12', '50.00'],
    ]);
    expect(result.tables[0]!.context).toBe('Invoice lines');
  });

  test('rules across the table (no column rules) separate the rows, whatever the lines inside them hold', async () => {
    const result = await read([
      (d) => {
        for (const y of [96, 114, 150, 168, 186]) d.line(50, y, 450, y);
        rows(d, 100, [55, 250, 380], [['Task', 'Hours', 'Cost']]);
        rows(d, 118, [55, 250, 380], [['Paint the hall', '6', '240.00']]);
        d.text('2 coats, 12 litres', 55, 132);
        rows(d, 154, [55, 250, 380], [['Fix the gate', '2', '80.00']]);
        rows(d, 172, [55, 250, 380], [['Clean gutters', '3', '90.00']]);
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Task', 'Hours', 'Cost'],
      ['Paint the hall 2 coats, 12 litres', '6', '240.00'],
      ['Fix the gate', '2', '80.00'],
      ['Clean gutters', '3', '90.00'],
    ]);
    expect(result.tables[0]!.headerRows).toBe(1);
  });

  test('a spanning label over sub-labels gives stacked header rows, the label repeated', async () => {
    const result = await read([
      (d) => {
        d.text('Budget', 262, 100);
        rows(d, 114, [50, 200, 320, 440], [
          ['Town', 'Schools Roads', 'Parks', 'Total'],
          ['Alpha', '1,000', '200', '1,200'],
          ['Beta', '2,000', '300', '2,300'],
          ['Gamma', '500', '50', '550'],
        ]);
      },
    ]);
    const table = result.tables[0]!;
    expect(table.grid.slice(0, 2)).toEqual([
      ['', 'Budget', 'Budget', ''],
      ['Town', 'Schools Roads', 'Parks', 'Total'],
    ]);
    expect(table.headerRows).toBe(2);
    expect(table.grid[2]).toEqual(['Alpha', '1,000', '200', '1,200']);
  });

  test('a header set in another size than the body is known as the header', async () => {
    const result = await read([
      (d) => {
        rows(d, 100, [50, 200, 350], [['Region', 'Manager', 'Office']], { size: 8 });
        rows(d, 116, [50, 200, 350], [['North', 'Ann Lee', 'Oslo'], ['South', 'Bo Kim', 'Rome'], ['West', 'Cy Ray', 'Lima']]);
      },
    ]);
    expect(result.tables[0]!.headerRows).toBe(1);
  });

  test('summary rows are marked, section rows keep only their first cell', async () => {
    const result = await read([
      (d) => {
        rows(d, 100, [50, 250, 400], [['Region', 'Sales', 'Costs']], { boldFirst: true });
        d.text('Northern division and territories', 50, 120);
        rows(d, 136, [50, 250, 400], [
          ['North', '1,200', '800'],
          ['East', '900', '700'],
          ['Total', '2,100', '1,500'],
        ]);
      },
    ]);
    const table = result.tables[0]!;
    expect(table.grid).toEqual([
      ['Region', 'Sales', 'Costs'],
      ['Northern division and territories', '', ''],
      ['North', '1,200', '800'],
      ['East', '900', '700'],
      ['Total', '2,100', '1,500'],
    ]);
    expect(table.headerRows).toBe(1);
    expect(table.summary).toEqual([false, false, false, false, true]);
  });

  test('footnote marks set smaller and raised stay out of values', async () => {
    const result = await read([
      (d) => {
        rows(d, 100, [50, 250, 400], [['Bird', 'Habitat', 'Seen'], ['Heron', 'Marsh', '31'], ['Finch', 'Hedge', '4'], ['Owl', 'Barn', '2']]);
        d.text('a', 78, 116, { size: 6 });
      },
    ]);
    expect(result.tables[0]!.grid[1]).toEqual(['Heron', 'Marsh', '31']);
  });

  test('a table continued on the next page is joined and its repeated header skipped', async () => {
    const header = ['Date', 'Item', 'Amount'];
    const result = await read([
      (d) => rows(d, 600, [50, 200, 400], [header, ['2024-01-02', 'Paper', '12.00'], ['2024-01-03', 'Ink', '30.00'], ['2024-01-04', 'Pens', '4.50']]),
      (d) => rows(d, 60, [50, 200, 400], [header, ['2024-01-05', 'Stapler', '9.00'], ['2024-01-06', 'Folders', '6.00']]),
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid.map((r) => r[1])).toEqual(['Item', 'Paper', 'Ink', 'Pens', 'Stapler', 'Folders']);
  });

  test('a page with /Rotate 90 and its table drawn sideways comes out upright', async () => {
    const result = await read([
      (d) => {
        d.page.setRotation(degrees(90));
        rows(d, 100, [50, 200, 350], [['Country', 'Capital', 'Population'], ['France', 'Paris', '68,000,000'], ['Spain', 'Madrid', '48,000,000'], ['Italy', 'Rome', '59,000,000']]);
      },
    ]);
    expect(result.tables[0]!.grid[0]).toEqual(['Country', 'Capital', 'Population']);
    expect(result.tables[0]!.grid.map((r) => r[0])).toEqual(['Country', 'France', 'Spain', 'Italy']);
  });

  test('text turned on its page (a landscape table printed sideways) is read upright', async () => {
    const result = await read([
      (d) => {
        const cells = [['Country', 'Capital', 'Population'], ['France', 'Paris', '68,000,000'], ['Spain', 'Madrid', '48,000,000'], ['Italy', 'Rome', '59,000,000']];
        // Each row is a column of text reading upwards, rows going right.
        cells.forEach((row, r) => row.forEach((text, c) => d.text(text, 100 + r * 20, 700 - c * 150, { rotate: 90 })));
      },
    ]);
    expect(result.tables[0]!.grid.map((r) => r[0])).toEqual(['Country', 'France', 'Spain', 'Italy']);
  });
});

describe('stream tables, harder layouts', () => {
  test('two labels set close over two columns split the column they share ("No. Item" over "1 Apple")', async () => {
    const result = await read([
      (d) => {
        d.text('Pos.', 50, 100);
        d.text('Article', 82, 100);
        rows(d, 100, [50, 250, 350], [['', 'Qty', 'Amount']]);
        [['1', 'Apple', '2', '40,00'], ['2', 'Pear', '5', '200,00'], ['3', 'Quince', '1', '9,50']].forEach((row, i) => {
          d.text(row[0]!, 60, 120 + i * 16);
          d.text(row[1]!, 82, 120 + i * 16);
          d.text(row[2]!, 250, 120 + i * 16);
          d.text(row[3]!, 350, 120 + i * 16);
        });
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Pos.', 'Article', 'Qty', 'Amount'],
      ['1', 'Apple', '2', '40,00'],
      ['2', 'Pear', '5', '200,00'],
      ['3', 'Quince', '1', '9,50'],
    ]);
  });

  test("a receipt's shop, street and town set apart above its items are lines, not header rows of the items", async () => {
    // A fixed-pitch print: a space between words is a gap wide enough to part them, so every line has columns.
    const result = await read([
      (d) => {
        rows(d, 60, [50, 120], [
          ['KESTREL', 'BAKERY'],
          ['Mill', 'Lane 4'],
          ['1010', 'Vienna'],
        ]);
        rows(d, 124, [50, 120, 330], [
          ['Rolls', '4 x 0.50', '2.00'],
          ['Coffee', '', '3.20'],
          ['Pretzel', '', '1.10'],
          ['Total', '', '6.30'],
        ]);
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid[0]).toEqual(['Rolls', '4 x 0.50', '2.00']);
    expect(result.lines.map((l) => l.text)).toEqual(['KESTREL BAKERY', 'Mill Lane 4', '1010 Vienna']);
  });

  test('a header of two lines set apart from the body stays the header, units with figures and all', async () => {
    const result = await read([
      (d) => {
        rows(d, 60, [50, 150, 250, 350], [
          ['Sample', 'Current', 'Area', 'Rate'],
          ['size (g)', '(mA)', '(cm2)', '(mm/year)'],
        ]);
        rows(d, 104, [50, 150, 250, 350], [
          ['0', '0.0335', '1.20', '2.8163'],
          ['2', '1.9460', '1.10', '1.5054'],
          ['4', '0.0163', '1.30', '0.9476'],
        ]);
      },
    ]);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid[0]).toEqual(['Sample size (g)', 'Current (mA)', 'Area (cm2)', 'Rate (mm/year)']);
  });

  test('two unruled tables side by side are two tables; one wide table with a gap before its numbers is one', async () => {
    const sideBySide = await read([
      (d) => {
        rows(d, 100, [50, 150], [['Peak', 'Height'], ['Alder', '2,100'], ['Birch', '1,870'], ['Cedar', '1,650']]);
        rows(d, 100, [330, 430], [['Peak', 'Height'], ['Elm', '1,540'], ['Fir', '1,320'], ['Oak', '1,100']]);
      },
    ]);
    expect(sideBySide.tables.map((t) => t.grid[1])).toEqual([['Alder', '2,100'], ['Elm', '1,540']]);
    const wide = await read([
      (d) => rows(d, 100, [50, 90, 330, 400, 480], [['No', 'Item', 'Qty', 'Price', 'Amount'], ['1', 'Apple', '2', '20.00', '40.00'], ['2', 'Pear', '5', '40.00', '200.00'], ['3', 'Plum', '1', '9.50', '9.50']]),
    ]);
    expect(wide.tables).toHaveLength(1);
    expect(wide.tables[0]!.grid[1]).toEqual(['1', 'Apple', '2', '20.00', '40.00']);
  });

  test('a column of currency signs set apart joins the amounts beside it', async () => {
    const result = await read([
      (d) => rows(d, 100, [50, 200, 300, 380], [['Item', 'Qty', 'Amount'], ['Tea', '2', '3.50', '€'], ['Coffee', '1', '2.80', '€'], ['Juice', '4', '4.10', '€']]),
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Item', 'Qty', 'Amount'],
      ['Tea', '2', '3.50 €'],
      ['Coffee', '1', '2.80 €'],
      ['Juice', '4', '4.10 €'],
    ]);
  });

  test('a number and a word paired in every row under two labels are two cells, even set a space apart', async () => {
    const result = await read([
      (d) => {
        d.text('No.', 50, 100);
        d.text('Item', 70, 100);
        rows(d, 100, [50, 250, 350], [['', 'Qty', 'Amount']]);
        [['1', 'Apple', '2', '40,00'], ['2', 'Pear', '5', '200,00'], ['3', 'Quince', '1', '9,50']].forEach((row, i) => {
          d.text(row[0]!, 60, 120 + i * 16);
          d.text(row[1]!, 70, 120 + i * 16);
          d.text(row[2]!, 250, 120 + i * 16);
          d.text(row[3]!, 350, 120 + i * 16);
        });
      },
    ]);
    expect(result.tables[0]!.grid.slice(0, 2)).toEqual([
      ['No.', 'Item', 'Qty', 'Amount'],
      ['1', 'Apple', '2', '40,00'],
    ]);
  });

  test('a column of words with ordinary spaces is not split, even where the spaces line up', async () => {
    const result = await read([
      (d) => rows(d, 100, [50, 250, 350], [['Name of the river', 'Sea', 'Length'], ['Long river', 'North', '1,000'], ['7 Bridges river', 'Black', '200'], ['9 Mills river', 'Baltic', '300']]),
    ]);
    expect(result.tables[0]!.grid.map((r) => r[0])).toEqual(['Name of the river', 'Long river', '7 Bridges river', '9 Mills river']);
  });

  test('rows with more sub-lines than rows keep their sub-lines in their cells', async () => {
    const result = await read([
      (d) => {
        rows(d, 100, [50, 100, 250, 400], [['Line', 'Codes', 'Text', 'Total']], { size: 7 });
        rows(d, 118, [50, 100, 250, 400], [['1', 'Ref: AB-1', 'Folders', '64,00']], { size: 7 });
        ['Code 7700112233', 'Batch 7', 'Lot 12'].forEach((t, i) => d.text(t, 100, 126 + i * 8, { size: 7 }));
        rows(d, 160, [50, 100, 250, 400], [['2', 'Ref: CD-2', 'Staples', '12,00']], { size: 7 });
        ['Code 7700445566', 'Batch 9'].forEach((t, i) => d.text(t, 100, 168 + i * 8, { size: 7 }));
      },
    ]);
    expect(result.tables[0]!.grid).toEqual([
      ['Line', 'Codes', 'Text', 'Total'],
      ['1', 'Ref: AB-1 Code 7700112233 Batch 7 Lot 12', 'Folders', '64,00'],
      ['2', 'Ref: CD-2 Code 7700445566 Batch 9', 'Staples', '12,00'],
    ]);
  });

  test('a table on the next page with a header of its own is another table', async () => {
    const result = await read([
      (d) => rows(d, 600, [50, 200, 400], [['Ref', 'City', 'Visits'], ['A1', 'Lyon', '12'], ['B2', 'Turin', '30'], ['C3', 'Porto', '4']], { boldFirst: true }),
      (d) => rows(d, 60, [50, 200, 400], [['Ref', 'Colour', 'Weight'], ['A1', 'Red', '1,200'], ['B2', 'Blue', '300']], { boldFirst: true }),
    ]);
    expect(result.tables).toHaveLength(2);
    expect(result.tables[1]!.grid[0]).toEqual(['Ref', 'Colour', 'Weight']);
  });

  test('words set with wide spaces (as CJK text layers often are) still make one cell per phrase', () => {
    // Every word gap on this page is about 0.75 of the font size, twice a Latin space.
    const words: Word[] = [];
    const place = (texts: string[], x: number, y: number) => {
      let at = x;
      for (const t of texts) {
        words.push({ text: t, x0: at, y0: y, x1: at + t.length * 8, y1: y + 10, size: 10, rotation: 0 });
        at += t.length * 8 + 7.5;
      }
    };
    const data: Array<[string[], string[], string[]]> = [
      [['지역'], ['주요', '도시'], ['기온']],
      [['북부'], ['강가,', '산마을'], ['12.5']],
      [['남부'], ['바닷가', '마을'], ['18.0']],
      [['동부'], ['들판,', '호숫가'], ['15.5']],
      [['서부'], ['섬', '마을'], ['16.0']],
    ];
    data.forEach(([left, middle, right], i) => {
      place(left, 50, 100 + i * 16);
      place(middle, 200, 100 + i * 16);
      place(right, 400, 100 + i * 16);
    });
    for (let line = 0; line < 4; line++) place(['오늘', '날씨는', '맑고', '바람이', '약하게', '붑니다'], 50, 10 + line * 14);
    const page: Page = { number: 1, width: 600, height: 800, rules: [], rects: [], words };
    const table = readingFromPages([page]).tables[0]!;
    expect(table.grid[0]).toEqual(['지역', '주요 도시', '기온']);
    expect(table.grid[1]).toEqual(['북부', '강가, 산마을', '12.5']);
  });
});

describe('not tables', () => {
  test('recognised lines each read as one run of text are lines, however wide the gaps between their words', () => {
    // A fixed-pitch letterhead as a recogniser boxes it: gaps of two type heights between words.
    const words: Word[] = [];
    const lines: Array<Array<[string, number, number]>> = [
      [['PASTELARIA', 23, 145], ['KESTREL', 165, 247], ['LDA', 260, 298]],
      [['Rua', 21, 54], ['Marrowby', 70, 153], ['100', 169, 203]],
      [['1100-053', 21, 121], ['Bluegate', 135, 198]],
      [['NIF', 25, 52], ['501234567', 66, 182]],
    ];
    lines.forEach((line, i) => {
      for (const [text, x0, x1] of line) words.push({ text, x0, y0: 15 + i * 30, x1, y1: 30 + i * 30, size: 15, rotation: 0, run: i });
    });
    const page: Page = { number: 1, width: 560, height: 430, rules: [], rects: [], words };
    const reading = readingFromPages([page]);
    expect(reading.tables).toEqual([]);
    expect(reading.lines.map((l) => l.text)).toEqual(['PASTELARIA KESTREL LDA', 'Rua Marrowby 100', '1100-053 Bluegate', 'NIF 501234567']);
    // The same words with no runs to tell (a text layer) part at the gaps into columns.
    expect(readingFromPages([{ ...page, words: words.map(({ run, ...w }) => w) }]).tables).toHaveLength(1);
  });

  test('prose is lines, not a table', async () => {
    const prose = [
      'Extraction turns documents into rows. A paragraph of running text',
      'wraps from one line to the next and never lines up in columns, so',
      'it must come out as lines for the fields and the running text.',
    ];
    const result = await read([(d) => prose.forEach((text, i) => d.text(text, 50, 100 + i * 14))]);
    expect(result.tables).toEqual([]);
    expect(result.lines.map((l) => l.text)).toEqual(prose);
    expect(result.text).toContain('never lines up in columns');
  });

  test('a key: value block and a totals box are lines with their segments', async () => {
    const result = await read([
      (d) => {
        rows(d, 100, [50, 200], [['Order no.:', 'ORD-42'], ['Order date:', '2024-03-01'], ['Ship date:', '2024-03-31']]);
        rows(d, 200, [300, 450], [['Subtotal', '70.00'], ['VAT 20%', '14.00'], ['Total', '84.00']]);
      },
    ]);
    expect(result.tables).toEqual([]);
    const invoice = result.lines.find((l) => l.text.startsWith('Order no.'))!;
    expect(invoice.segments.map((s) => s.text)).toEqual(['Order no.:', 'ORD-42']);
    expect(invoice.segments[1]!.x0).toBeCloseTo(200, 0);
    expect(result.lines.map((l) => l.text)).toContain('Total 84.00');
  });

  test('a letterhead in two columns of text is lines, even with its first line in bold', async () => {
    const result = await read([
      (d) =>
        rows(d, 60, [50, 330], [
          ['Bakery Supplies Ltd', 'Branch Office West'],
          ['Mill Lane 4, 1010 Vienna', 'Mill Lane 4'],
          ['www.bakery.example', '1010 Vienna'],
          ['Director: A. Smith', 'Phone 01 1234'],
        ], { boldFirst: true }),
    ]);
    expect(result.tables).toEqual([]);
    expect(result.lines).toHaveLength(4);
  });

  test('address blocks under labels with colons are lines', async () => {
    const result = await read([
      (d) => rows(d, 100, [50, 220, 390], [['Invoice address:', 'Delivery address:', 'Site address:'], ['Acme Accounts', 'Acme Depot', 'Acme Works'], ['12 Oak St,', '12 Elm St,', '12 Ash St,'], ['Springfield 12345', 'Springfield 12345', 'Springfield 12345']]),
    ]);
    expect(result.tables).toEqual([]);
    expect(result.lines[0]!.segments.map((s) => s.text)).toEqual(['Invoice address:', 'Delivery address:', 'Site address:']);
  });

  test('a block with a column of labels ending in colons is a form, not a table', async () => {
    const result = await read([
      (d) => rows(d, 100, [50, 250, 380], [['Attn. Ms Berg', 'Date:', '05.06.2023'], ['Station Road 9', 'Sheet:', '1'], ['3000 Bern', 'Sheets:', '2'], ['', 'Statement', 'Copy']]),
    ]);
    expect(result.tables).toEqual([]);
    expect(result.lines.map((l) => l.segments.length)).toEqual([3, 3, 3, 2]);
  });

  test('a numbered list is lines, not a table', async () => {
    const result = await read([
      (d) => rows(d, 100, [50, 75], [['1.', 'Water the seedlings every morning.'], ['2.', 'Turn the trays once a week.'], ['3.', 'Move the pots outside in May.']]),
    ]);
    expect(result.tables).toEqual([]);
    expect(result.lines).toHaveLength(3);
  });

  test('a page header and footer are not a table', async () => {
    const result = await read([
      (d) => {
        rows(d, 30, [50, 480], [['Acme Corp', 'Page 1 of 2']]);
        d.text('Some running text on the page body.', 50, 300);
        rows(d, 750, [50, 480], [['Confidential', '2024-03-01']]);
      },
    ]);
    expect(result.tables).toEqual([]);
  });
});

describe('reading', () => {
  test('an unmapped glyph before a number is its minus sign; other control characters are not text', () => {
    expect(cleanGlyphs('\u0003 1.25')).toBe('- 1.25');
    expect(cleanGlyphs('\u00031.25')).toBe('-1.25');
    expect(cleanGlyphs('Total\u0002 due')).toBe('Total due');
  });

  test('summary rows are told by their label in several languages', () => {
    for (const label of ['Total', 'Subtotal', 'Grand total', 'Gesamtbetrag', 'Summe', 'Totaal', 'Razem', 'Total général', 'Sous-total', 'All states']) {
      expect({ label, summary: isSummaryRow([label, '12']) }).toEqual({ label, summary: true });
    }
    for (const label of ['Totalizer unit', 'All-season tyre', 'Summer tyre', 'Subtitle']) {
      expect({ label, summary: isSummaryRow([label, '12']) }).toEqual({ label, summary: false });
    }
  });

  test('pages from any source (OCR too) read the same way', () => {
    const word = (text: string, x0: number, y0: number): Word => ({ text, x0, y0, x1: x0 + text.length * 5, y1: y0 + 10, size: 10, rotation: 0 });
    const page: Page = {
      number: 1, width: 600, height: 800, rules: [], rects: [],
      words: [
        word('Product', 50, 100), word('Price', 300, 100),
        word('Tea', 50, 116), word('3.50', 300, 116),
        word('Coffee', 50, 132), word('2.80', 300, 132),
        word('Juice', 50, 148), word('4.10', 300, 148),
      ],
    };
    expect(readingFromPages([page]).tables[0]!.grid).toEqual([
      ['Product', 'Price'],
      ['Tea', '3.50'],
      ['Coffee', '2.80'],
      ['Juice', '4.10'],
    ]);
  });

  test('labels stacked in one ruled box, each level with an amount in a row of its own, are rows of their own', () => {
    const word = (text: string, x0: number, y0: number): Word => ({ text, x0, y0, x1: x0 + text.length * 5, y1: y0 + 10, size: 10, rotation: 0 });
    const across = (y: number, x0 = 40, x1 = 400) => ({ x0, y0: y, x1, y1: y + 0.5 });
    const down = (x: number, y0 = 100, y1 = 200) => ({ x0: x, y0, x1: x + 0.5, y1 });
    const page: Page = {
      number: 1, width: 600, height: 800, rects: [],
      // The totals block draws rules only under its amounts: its labels share one box over three rows.
      rules: [across(100), across(120), across(140), across(160, 300), across(180, 300), across(200), down(40), down(100, 100, 140), down(300), down(400)],
      words: [
        word('Qty', 50, 105), word('Description', 110, 105), word('Amount', 310, 105),
        word('2', 50, 125), word('Consulting', 110, 125), word('90.00', 310, 125),
        word('Subtotal', 110, 145), word('90.00', 310, 145),
        word('Tax', 110, 165), word('9.00', 310, 165),
        word('Total', 110, 185), word('99.00', 310, 185),
      ],
    };
    const grid = readingFromPages([page]).tables[0]!.grid as string[][];
    const amountOf = (label: string) => grid.find((row) => row.includes(label))?.at(-1);
    expect([amountOf('Subtotal'), amountOf('Tax'), amountOf('Total')]).toEqual(['90.00', '9.00', '99.00']);
    expect(grid.some((row) => row.some((cell) => /Subtotal.*Tax/.test(String(cell))))).toBe(false);
  });

  test('a PDF without text is reported as scanned', async () => {
    const result = await read([(d) => d.box(50, 50, 300, 300)]);
    expect(result).toEqual({ tables: [], lines: [], text: '', pages: [], scanned: true, embedded: [] });
  });

  test('a malformed PDF is unreadable with a clear message', async () => {
    const bytes = new TextEncoder().encode('%PDF-1.7\nthis is not a PDF at all');
    await expect(readPdf(pdfDocument(bytes))).rejects.toBeInstanceOf(UnreadableDocument);
  });

  test('ten pages read well under two seconds', async () => {
    const pages = Array.from({ length: 10 }, (_, p) => (d: Drawing) =>
      rows(d, 60, [50, 200, 400], [['Date', 'Item', 'Amount'], ...Array.from({ length: 40 }, (_, i) => [`2024-01-${(i % 28) + 1}`, `Item ${p}-${i}`, `${i}.00`])], { leading: 16 }));
    const bytes = await makePdf(pages);
    const start = performance.now();
    const result = await readPdf(pdfDocument(bytes));
    expect(performance.now() - start).toBeLessThan(2000);
    expect(result.tables).toHaveLength(1);
    expect(result.tables[0]!.grid).toHaveLength(401);
  });
});
