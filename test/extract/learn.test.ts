/** Finding where values are printed, fingerprints, and reading a document the way an example shows. */
import { describe, expect, test } from 'bun:test';
import type { Column } from '../../src/domain/columns';
import type { PageModel } from '../../src/extract/layout/page';
import { fingerprintMatch, fingerprintOf, LAYOUT_MATCH, learnedFields, type LearnedField, type LearnedLayout } from '../../src/extract/learn/layouts';
import { locateAll, locateRow } from '../../src/extract/learn/locate';
import { containedSimilarity, dateOrderOf, fitOf, numberReadings, similarity } from '../../src/extract/learn/match';
import { pagesFromLines, spansOf } from '../../src/extract/learn/spans';
import { mapReading } from '../../src/extract/mapper';

const column = (id: string, type: Column['type']): Column => ({ id, name: id, type, required: false });

/** A page of words laid out from lines of `[x, y, text]`, words 6 points a letter, 10 points high. */
function page(items: Array<[number, number, string]>, height = 800): PageModel {
  const words: PageModel['words'] = [];
  for (const [x, y, text] of items) {
    let at = x;
    for (const word of text.split(' ')) {
      words.push({ text: word, x0: at, y0: y, x1: at + word.length * 6, y1: y + 10 });
      at += word.length * 6 + 4;
    }
  }
  return { number: 1, width: 600, height, words };
}

describe('values in printed text', () => {
  test('an amount reads in either decimal convention, with its currency around it, and nothing more', () => {
    expect(numberReadings('1.234,50')).toContain(1234.5);
    expect(numberReadings('1,234.50')).toContain(1234.5);
    expect(numberReadings('RM 12.50')).toContain(12.5);
    expect(numberReadings('(7.00)')).toContain(-7);
    expect(numberReadings('Total 12.50')).toEqual([]);
  });

  test('a date knows the day order it was printed in', () => {
    expect(dateOrderOf('03/04/2024', '2024-04-03')).toBe('dmy');
    expect(dateOrderOf('03/04/2024', '2024-03-04')).toBe('mdy');
    expect(dateOrderOf('Date 03/04/2024 issued at the counter', '2024-04-03')).toBeUndefined();
  });

  test('text fits within a few letters, numbers exactly', () => {
    expect(similarity('kedai runcit maju', 'kedai runcit maju')).toBe(1);
    expect(fitOf('SYARIKAT 8ESTARI', 'Syarikat Bestari', column('c', 'string'))).toBeGreaterThan(0.9);
    expect(fitOf('12.51', 12.5, column('t', 'number'))).toBe(0);
  });

  test('a text inside a longer one is as alike as the stretch most like it', () => {
    expect(containedSimilarity('reg555x unit4tanneryard ostwick', 'unit4tanneryardostwick')).toBe(1 - 1 / 22);
    expect(containedSimilarity('unit4tanneryard', 'unit4tanneryard')).toBe(1);
    // Whole-text likeness does not see it.
    expect(similarity('reg555x unit4tanneryard ostwick', 'unit4tanneryardostwick')).toBeLessThan(0.9);
    expect(containedSimilarity('delivered to fenbury', 'unit4tanneryardostwick')).toBeLessThan(0.5);
  });
});

describe('spans and locations', () => {
  test('labels are the words before a value, or a short line above it, without their figures', () => {
    const p = page([
      [50, 100, 'Amount due: 99.10'],
      [50, 150, 'Total incl. tax@6% 7.20'],
      [300, 100, 'Ref 7781'],
      [300, 112, '05/06/2024'],
      [50, 200, 'Ship to'],
      [50, 212, 'Nordby Cartage'],
    ]);
    const spans = spansOf(p);
    expect(spans.find((s) => s.text === '99.10')?.label).toBe('Amount due');
    expect(spans.find((s) => s.text === '05/06/2024')?.label).toBe('Ref');
    expect(spans.find((s) => s.text === 'Nordby Cartage')?.label).toBe('Ship to');
    expect(spans.find((s) => s.text === '7.20')?.label).toBe('Total incl. tax');
  });

  test('a line cut by a wide gap is also one span, so a letter-spaced name is found whole', () => {
    const p = page([
      [50, 30, 'KEDAI RUNCIT'],
      [170, 30, 'MAJU JAYA'],
    ]);
    expect(locateAll([p], column('c', 'string'), 'KEDAI RUNCIT MAJU JAYA')[0]).toMatchObject({ lines: 1, fit: 1, box: { x0: 50, x1: 222 } });
  });

  test('a block of lines is one span (an address)', () => {
    const p = page([
      [50, 100, 'Unit 4, Tannery Yard'],
      [50, 112, 'Ostwick OW2 1AB'],
    ]);
    const found = locateAll([p], column('a', 'string'), 'Unit 4, Tannery Yard Ostwick OW2 1AB');
    expect(found[0]).toMatchObject({ lines: 2, fit: 1 });
  });

  test("a row's value printed on several lines is taken from the line holding the row's other values", () => {
    const p = page([
      [50, 100, 'Hinges 4.00 2'],
      [50, 120, 'Brackets 4.00 6'],
    ]);
    const located = locateRow([p], [column('item', 'string'), column('price', 'number'), column('qty', 'number')], { item: 'Brackets', price: 4, qty: 6 });
    expect(located.get('price')?.box.y0).toBe(120);
  });

  test("a value printed at two labels is placed at its own column's; printed once, another column does not take its place", () => {
    const dates = [
      { id: 'issue', name: 'Issue date', type: 'date', required: false },
      { id: 'due', name: 'Due date', type: 'date', required: false },
    ] satisfies Column[];
    const values = { issue: '2024-04-03', due: '2024-04-03' };
    const twice = page([[50, 100, 'Rechnungsdatum: 03.04.2024'], [50, 140, 'Fälligkeitsdatum: 03.04.2024']]);
    const placed = locateRow([twice], dates, values);
    expect([placed.get('issue')?.box.y0, placed.get('due')?.box.y0]).toEqual([100, 140]);
    // Printed once, at the issue date's label: shown there for both, but an example places only the issue date there.
    const once = page([[50, 100, 'Invoice date: 03.04.2024'], [50, 140, 'Terms: payable on receipt']]);
    expect(locateRow([once], dates, values).get('due')?.box.y0).toBe(100);
    const exclusive = locateRow([once], dates, values, { exclusive: true });
    expect([exclusive.get('issue')?.box.y0, exclusive.has('due')]).toEqual([100, false]);
    // Unlabelled, nothing tells the two apart: the place stays with both.
    const bare = locateRow([page([[50, 100, '03/04/2024']])], dates, values, { exclusive: true });
    expect([bare.get('issue')?.box.y0, bare.get('due')?.box.y0]).toEqual([100, 100]);
  });

  test("a value its own label names outright is placed there, not on the line the row's other values share", () => {
    const header = [
      { id: 'number', name: 'Invoice number', type: 'string', required: false },
      { id: 'issue', name: 'Issue date', type: 'date', required: false },
      { id: 'due', name: 'Due date', type: 'date', required: false },
    ] satisfies Column[];
    // The due date equals the issue date, printed on the invoice number's line and again at its own label.
    const p = page([[50, 60, 'Invoice 4711 of 03.04.2024'], [50, 400, 'Fälligkeit 03.04.2024']]);
    const placed = locateRow([p], header, { number: '4711', issue: '2024-04-03', due: '2024-04-03' }, { exclusive: true });
    expect([placed.get('issue')?.box.y0, placed.get('due')?.box.y0]).toEqual([60, 400]);
  });

  test('of places showing an amount, the one printing its minus; a zero amount anchors no line', () => {
    const amounts = [
      { id: 'net', name: 'Net amount', type: 'number', required: false },
      { id: 'tax', name: 'Tax amount', type: 'number', required: false },
      { id: 'total', name: 'Total', type: 'number', required: false },
    ] satisfies Column[];
    const credit = page([[50, 100, 'VAT 1.12'], [300, 500, 'VAT amount -1.12']]);
    expect(locateRow([credit], [amounts[1]!], { tax: -1.12 }).get('tax')?.box.y0).toBe(500);
    // An item line holds a rate of 0 beside an amount equal to the net: the totals block's net is the net.
    const zeroRated = page([[50, 100, 'Cover 0 50.00'], [300, 500, 'Net amount 50.00'], [300, 520, 'Tax amount 0.00'], [300, 540, 'Grand total 50.00']]);
    expect(locateRow([zeroRated], amounts, { net: 50, tax: 0, total: 50 }).get('net')?.box.y0).toBe(500);
  });

  test('text documents become pages of characters and lines', () => {
    const pages = pagesFromLines([
      { page: 1, y: 0, size: 1, segments: [{ text: 'Total: 12.00', x0: 0, x1: 12 }], text: 'Total: 12.00' },
    ]);
    expect(locateAll(pages, column('t', 'number'), 12)[0]).toMatchObject({ label: 'Total', lines: 1 });
  });
});

/** The layout a one-page example (of `page`'s size) teaches. */
const taught = (id: string, example: PageModel, fields: LearnedField[]): LearnedLayout => ({ id, fingerprint: fingerprintOf([example]), pages: [{ number: 1, width: 600, height: 800 }], fields });

describe('learned layouts', () => {
  const letterhead: Array<[number, number, string]> = [
    [50, 30, 'Brightwater Joinery'],
    [50, 44, 'VAT GB 555 1234 99'],
  ];
  const columns = [column('vendor', 'string'), column('total', 'number'), column('date', 'date')];
  const example = page([...letterhead, [50, 120, '03/04/2024'], [300, 600, 'Pay this'], [450, 600, '310.00']]);
  const layout: LearnedLayout = taught('exmp_1', example, [
    // A person added the legal form the letterhead leaves out.
    { column_id: 'vendor', value: 'Brightwater Joinery Ltd', page: 1, box: { x0: 50, y0: 30, x1: 160, y1: 40 }, label: null, lines: 1, text: 'Brightwater Joinery' },
    { column_id: 'total', value: 310, page: 1, box: { x0: 450, y0: 600, x1: 480, y1: 610 }, label: 'Pay this', lines: 1 },
    { column_id: 'date', value: '2024-04-03', page: 1, box: { x0: 50, y0: 120, x1: 110, y1: 130 }, label: null, lines: 1, order: 'dmy' },
  ]);

  /** The layout a one-page example teaches: its issuer's name atop the page, a total of 310.00 at `label` low on it. */
  const vendorAndTotal = (id: string, example: PageModel, vendor: string, label: string): LearnedLayout =>
    taught(id, example, [
      { column_id: 'vendor', value: vendor, page: 1, box: { x0: 50, y0: 30, x1: 50 + vendor.length * 6, y1: 40 }, label: null, lines: 1 },
      { column_id: 'total', value: 310, page: 1, box: { x0: 450, y0: 600, x1: 480, y1: 610 }, label, lines: 1, text: '310.00' },
    ]);

  test('fingerprints of one issuer match, of another do not', () => {
    const same = fingerprintOf([page([...letterhead, [50, 120, '17/05/2024']])]);
    const other = fingerprintOf([page([[50, 30, 'Copperleaf Studio'], [50, 44, 'VAT GB 222 9876 11']])]);
    expect(layout.fingerprint.identifiers).toContain('GB555123499');
    expect(fingerprintMatch(same, layout.fingerprint)).toBeGreaterThanOrEqual(LAYOUT_MATCH);
    expect(fingerprintMatch(other, layout.fingerprint)).toBeLessThan(LAYOUT_MATCH);
  });

  test("the issuer's next document is read at the example's label and place, its own name as corrected", () => {
    // A longer document: the amount due moved down, with another amount near where it stood.
    const next = page([...letterhead, [50, 120, '05/06/2024'], [300, 600, 'Subtotal'], [450, 600, '95.00'], [300, 640, 'Pay this'], [450, 640, '118.75']]);
    expect(learnedFields([next], columns, [layout]).values).toEqual({ vendor: 'Brightwater Joinery Ltd', total: '118.75', date: '2024-06-05' });
  });

  test("another issuer's document takes nothing from the layout", () => {
    const other = page([[50, 30, 'Copperleaf Studio'], [50, 120, '05/06/2024'], [300, 600, 'Pay this'], [450, 600, '40.00']]);
    expect(learnedFields([other], columns, [layout])).toEqual({ layout: null, values: {}, byPlace: [], addsUp: [] });
  });

  test("another supplier's invoice to the same customer, printing the customer's tax id, takes nothing from the layout", () => {
    const invoice = (supplier: Array<[number, number, string]>, total: [number, number, string]) =>
      page([...supplier, [50, 120, 'Bill to'], [50, 132, 'Nordby Cartage'], [50, 144, 'VAT GB 999 8888 77'], [300, total[1], 'Amount due'], total]);
    const alder: Array<[number, number, string]> = [[50, 30, 'Alder Timber Supplies'], [50, 44, 'VAT GB 111 2222 33']];
    const example = invoice(alder, [450, 600, '310.00']);
    const supplierLayout = vendorAndTotal('exmp_4', example, 'Alder Timber Supplies', 'Amount due');
    // The same supplier's next invoice is read its way; another supplier's is not, though both print the customer's tax id.
    expect(learnedFields([invoice(alder, [450, 640, '95.00'])], columns, [supplierLayout]).values).toEqual({ vendor: 'Alder Timber Supplies', total: '95.00' });
    const birch = invoice([[50, 30, 'Birch Paper Mill'], [50, 44, 'VAT GB 444 5555 66']], [450, 640, '52.00']);
    expect(learnedFields([birch], columns, [supplierLayout])).toEqual({ layout: null, values: {}, byPlace: [], addsUp: [] });
  });

  test("where the example's very label is printed, a near label's amount is not taken, even when the right one does not read", () => {
    const receipt = (total: string) => page([[50, 30, 'Kestrel Hardware'], [50, 44, 'Reg 55501234-X'], [40, 300, 'Total excl tax'], [240, 300, '20.00'], [40, 330, 'Total incl tax'], [240, 330, total]]);
    const example = receipt('21.20');
    const receiptLayout: LearnedLayout = taught('exmp_2', example, [{ column_id: 'total', value: 21.2, page: 1, box: { x0: 240, y0: 330, x1: 270, y1: 340 }, label: 'Total incl tax', lines: 1, text: '21.20' }]);
    expect(learnedFields([receipt('31.80')], columns, [receiptLayout]).values).toEqual({ total: '31.80' });
    // The recogniser lost the decimal point: nothing is learned, rather than the amount beside the other label.
    expect(learnedFields([receipt('3180')], columns, [receiptLayout]).values).toEqual({});
  });

  test("an amount the general model is sure of stays its own; a doubtful one takes the layout's", () => {
    const next = page([...letterhead, [50, 120, '05/06/2024'], [300, 600, 'Subtotal'], [450, 600, '95.00'], [300, 640, 'Pay this'], [450, 640, '118.75']]);
    const reading = { tables: [], groups: [], lines: [], text: '', pages: [next] };
    const total = (score: number) => mapReading(reading, columns, 'balanced', { fields: { values: { total: '95.00' }, scores: { total: score } }, layouts: [layout] })[0]?.values.total;
    expect(total(0.95)).toBe(95);
    expect(total(0.5)).toBe(118.75);
  });

  test("the general model's total rounded to the cash step stays, where the example's label reads the exact one", () => {
    // The example needed no rounding; the next receipt prints its exact total at the same label and a rounded one below.
    const receipt = (exact: string, rounded?: string) =>
      page([[50, 30, 'Kestrel Hardware'], [50, 44, 'Reg 55501234-X'], [40, 300, 'Total incl tax'], [240, 300, exact], ...(rounded ? ([[40, 330, 'Total rounded'], [240, 330, rounded]] as Array<[number, number, string]>) : [])]);
    const receiptLayout: LearnedLayout = taught('exmp_6', receipt('28.00'), [{ column_id: 'total', value: 28, page: 1, box: { x0: 240, y0: 300, x1: 270, y1: 310 }, label: 'Total incl tax', lines: 1, text: '28.00' }]);
    const next = receipt('7.16', '7.15');
    expect(learnedFields([next], columns, [receiptLayout], { total: '7.15' }).values).toEqual({});
    // A general total that is no rounding of it (another amount) still gives way.
    expect(learnedFields([next], columns, [receiptLayout], { total: '3.90' }).values).toEqual({ total: '7.16' });
  });

  test('an amount the document rules out is not taken from the example\'s place', () => {
    // The next receipt's total misread with a digit too many, more than the cash handed over.
    const receipt = (total: string) => page([[50, 30, 'Kestrel Hardware'], [50, 44, 'Reg 55501234-X'], [40, 300, 'Total incl tax'], [240, 300, total], [40, 330, 'Cash'], [240, 330, '50.00'], [40, 350, 'Change'], [240, 350, '27.10']]);
    const receiptLayout: LearnedLayout = taught('exmp_7', receipt('28.00'), [{ column_id: 'total', value: 28, page: 1, box: { x0: 240, y0: 300, x1: 270, y1: 310 }, label: 'Total incl tax', lines: 1, text: '28.00' }]);
    const next = receipt('122.91');
    expect(learnedFields([next], columns, [receiptLayout], { total: '22.90' }).values).toEqual({ total: '122.91' });
    expect(learnedFields([next], columns, [receiptLayout], { total: '22.90' }, { total: ['122.91'] }).values).toEqual({});
    // Through the mapping: the general model's total stays when the layout's is ruled out.
    const reading = { tables: [], groups: [], lines: [], text: '', pages: [next] };
    const total = (ruledOut?: Record<string, string[]>) => mapReading(reading, columns, 'balanced', { fields: { values: { total: '22.90' }, scores: { total: 0.5 }, ...(ruledOut ? { ruledOut } : {}) }, layouts: [receiptLayout] })[0]?.values.total;
    expect(total()).toBe(122.91);
    expect(total({ total: ['122.91'] })).toBe(22.9);
  });

  test("amounts the layout reads that add up replace the general model's that do not, however sure it is", () => {
    const amounts = [column('net', 'number'), column('tax', 'number'), column('total', 'number')];
    const block = (lines: Array<[string, string]>) => lines.flatMap(([label, value], i): Array<[number, number, string]> => [[300, 560 + i * 20, label], [450, 560 + i * 20, value]]);
    const example = page([...letterhead, ...block([['Net', '80.00'], ['VAT', '15.20'], ['Total', '95.20']])]);
    const field = (id: string, label: string, value: number, i: number, text: string) => ({ column_id: id, value, page: 1, box: { x0: 450, y0: 560 + i * 20, x1: 450 + text.length * 6, y1: 570 + i * 20 }, label, lines: 1, text });
    const totals: LearnedLayout = taught('exmp_5', example, [field('net', 'Net', 80, 0, '80.00'), field('tax', 'VAT', 15.2, 1, '15.20'), field('total', 'Total', 95.2, 2, '95.20')]);
    // This document's discount moved the net down a line; the general model took the amount before it.
    const next = page([...letterhead, ...block([['Subtotal', '100.00'], ['Net', '95.00'], ['VAT', '18.05'], ['Total', '113.05']]).map(([x, y, t]): [number, number, string] => [x, y - 20, t])]);
    const reading = { tables: [], groups: [], lines: [], text: '', pages: [next] };
    const general = (net: string) => ({ values: { net, tax: '18.05', total: '113.05' }, scores: { net: 0.9, tax: 0.9, total: 0.9 } });
    const read = (net: string) => mapReading(reading, amounts, 'balanced', { fields: general(net), layouts: [totals] })[0]?.values;
    expect(learnedFields([next], amounts, [totals], general('100.00').values).addsUp).toEqual(['net']);
    expect(read('100.00')).toMatchObject({ net: 95, tax: 18.05, total: 113.05 });
    // The general model's own amounts add up: they stay.
    expect(learnedFields([next], amounts, [totals], general('95.00').values).addsUp).toEqual([]);
  });

  test("a date the layout finds by its place alone does not replace one the general model is sure of; a labelled one does", () => {
    // The example's date stood unlabelled (a sentence's, or a line of its own); this document's is elsewhere, another date where it stood.
    const next = page([...letterhead, [50, 120, '05/06/2024'], [50, 400, 'Please pay by 20/06/2024'], [300, 600, 'Pay this'], [450, 600, '118.75']]);
    const reading = { tables: [], groups: [], lines: [], text: '', pages: [next] };
    const read = (id: string, score: number, value: string, with_: LearnedLayout) =>
      mapReading(reading, columns, 'balanced', { fields: { values: { [id]: value }, scores: { [id]: score } }, layouts: [with_] })[0]?.values[id];
    expect(learnedFields([next], columns, [layout]).byPlace).toEqual(['date']);
    expect(read('date', 0.9, '2024-06-20', layout)).toBe('2024-06-20');
    expect(read('date', 0.5, '2024-06-20', layout)).toBe('2024-06-05');
    // The example's label printed again is stronger evidence than the general model's choice.
    const labelled: LearnedLayout = { ...layout, fields: layout.fields.map((f) => (f.column_id === 'date' ? { ...f, label: 'Please pay by', box: { x0: 128, y0: 400, x1: 188, y1: 410 } } : f)) };
    expect(learnedFields([next], columns, [labelled]).byPlace).toEqual([]);
    expect(read('date', 0.9, '2024-06-05', labelled)).toBe('2024-06-20');
  });

  test("of two dates at the example's label, the one the general model chose is taken", () => {
    const dated: LearnedLayout = {
      ...layout,
      fields: [{ column_id: 'date', value: '2024-04-20', page: 1, box: { x0: 122, y0: 400, x1: 182, y1: 410 }, label: 'Zahlbar bis', lines: 1, order: 'dmy' }],
    };
    // A discount's date where the example's stood, the full amount's a line below.
    const next = page([...letterhead, [50, 400, 'Zahlbar bis 01.12.2024 mit 2% Skonto'], [50, 414, 'Zahlbar bis 15.12.2024 ohne Abzug']]);
    expect(learnedFields([next], columns, [dated], { date: '15.12.2024' }).values).toEqual({ date: '2024-12-15' });
    expect(learnedFields([next], columns, [dated], { date: '2024-12-15' }).values).toEqual({ date: '2024-12-15' });
    // Without the general model's word, the example's place decides.
    expect(learnedFields([next], columns, [dated]).values).toEqual({ date: '2024-12-01' });
  });

  test("the issuer's address is its corrected one wherever its lines are printed again, a glyph misread", () => {
    const shop = (lines: Array<[number, number, string]>) => page([[50, 30, 'Kestrel Hardware'], [50, 44, 'Reg 55501234-X'], ...lines, [40, 300, 'Total'], [240, 300, '9.00']]);
    const example = shop([[50, 60, 'Unit 4, Tannery Yard,'], [50, 72, 'Ostwick OW2 1AB']]);
    const addressLayout: LearnedLayout = taught('exmp_3', example, [{ column_id: 'address', value: 'Unit 4, Tannery Yard, Ostwick OW2 1AB', page: 1, box: { x0: 50, y0: 60, x1: 176, y1: 82 }, label: null, lines: 2, text: 'Unit 4, Tannery Yard, Ostwick OW2 1AB' }]);
    // Centred lines that do not stack into one block, one letter misread.
    const next = shop([[120, 60, 'Unit 4, Tannery Yard,'], [20, 72, 'Ostwlck OW2 1AB']]);
    expect(learnedFields([next], [column('address', 'string')], [addressLayout]).values).toEqual({ address: 'Unit 4, Tannery Yard, Ostwick OW2 1AB' });
    // Another branch's address is its own.
    const branch = shop([[120, 60, 'Unit 9, Mill Lane,'], [20, 72, 'Fenbury FB1 9ZZ']]);
    expect(learnedFields([branch], [column('address', 'string')], [addressLayout]).values.address).not.toBe('Unit 4, Tannery Yard, Ostwick OW2 1AB');
  });

  test("the issuer's address misread in several glyphs is its corrected one when its numbers read the same; another branch's numbers are its own", () => {
    const shop = (lines: Array<[number, number, string]>) => page([[50, 30, 'Kestrel Hardware'], [50, 44, 'Reg 55501234-X'], ...lines, [40, 300, 'Total'], [240, 300, '9.00']]);
    const address = 'Lot 12, Jalan Mawar 3, Taman Bluegate, 47100 Marrowby';
    const example = shop([[50, 60, 'Lot 12, Jalan Mawar 3,'], [50, 72, 'Taman Bluegate, 47100 Marrowby']]);
    const addressLayout: LearnedLayout = taught('exmp_12', example, [{ column_id: 'address', value: address, page: 1, box: { x0: 50, y0: 60, x1: 200, y1: 82 }, label: null, lines: 2, text: address }]);
    const columns = [column('address', 'string')];
    // Five glyphs misread in forty: more than one in ten, the numbers intact.
    const next = shop([[50, 60, 'Lot 12, Jaian Mawer 3,'], [50, 72, 'Tamen Biuegate, 47100 Marrowhy']]);
    expect(learnedFields([next], columns, [addressLayout]).values.address).toBe(address);
    // As alike, but another house number and postal code: another branch's.
    const branch = shop([[50, 60, 'Lot 15, Jaian Mawer 3,'], [50, 72, 'Tamen Biuegate, 47300 Marrowhy']]);
    expect(learnedFields([branch], columns, [addressLayout]).values.address).not.toBe(address);
  });

  test("the issuer's address read onto one line with other words (its registration number) is its corrected one", () => {
    const shop = (lines: Array<[number, number, string]>) => page([[50, 30, 'Kestrel Hardware'], ...lines, [40, 300, 'Total'], [240, 300, '9.00']]);
    const example = shop([[50, 44, 'Reg 55501234-X'], [50, 60, 'Unit 4, Tannery Yard,'], [50, 72, 'Ostwick OW2 1AB']]);
    const address = 'Unit 4, Tannery Yard, Ostwick OW2 1AB';
    const addressLayout: LearnedLayout = taught('exmp_11', example, [
      { column_id: 'company', value: 'Kestrel Hardware', page: 1, box: { x0: 50, y0: 30, x1: 146, y1: 40 }, label: null, lines: 1, text: 'Kestrel Hardware' },
      { column_id: 'address', value: address, page: 1, box: { x0: 50, y0: 60, x1: 176, y1: 82 }, label: null, lines: 2, text: address },
    ]);
    const columns = [column('company', 'string'), column('address', 'string')];
    // The recogniser ran the registration number and the address's first line together, and misread a letter.
    const next = shop([[50, 52, '(Reg 55501234-X) Unit 4, Tannery Yard,'], [50, 66, 'Ostwlck OW2 1AB']]);
    expect(learnedFields([next], columns, [addressLayout]).values.address).toBe(address);
    // Another branch on the same yard is its own.
    const branch = shop([[50, 52, '(Reg 55501234-X) Unit 9, Tannery Yard,'], [50, 66, 'Fenbury FB1 9ZZ']]);
    expect(learnedFields([branch], columns, [addressLayout]).values.address).not.toBe(address);
  });

  test("another issuer filling in the same document tool's template takes nothing from the layout", () => {
    const template = (issuer: string): Array<[number, number, string]> => [
      [50, 30, issuer],
      [50, 60, 'Invoice Standard Edition Payment Terms'],
      [50, 72, 'Customer Number Order Reference Delivery Address'],
    ];
    const columnsOf = [column('vendor', 'string'), column('total', 'number')];
    const example = page([...template('Brightwater Joinery'), [300, 600, 'Pay this'], [450, 600, '310.00']]);
    const templateLayout = vendorAndTotal('exmp_5', example, 'Brightwater Joinery', 'Pay this');
    const other = page([...template('Copperleaf Studio'), [300, 600, 'Pay this'], [450, 600, '40.00']]);
    // The letterheads share nearly all their words: only the issuer's name tells them apart.
    expect(fingerprintMatch(fingerprintOf([other]), templateLayout.fingerprint)).toBeGreaterThanOrEqual(0.7);
    expect(learnedFields([other], columnsOf, [templateLayout])).toEqual({ layout: null, values: {}, byPlace: [], addsUp: [] });
    const same = page([...template('Brightwater Joinery'), [300, 600, 'Pay this'], [450, 600, '95.00']]);
    expect(learnedFields([same], columnsOf, [templateLayout]).values).toEqual({ vendor: 'Brightwater Joinery', total: '95.00' });
  });

  test("a one-page example's total is read on the last page of the issuer's longer document", () => {
    const first = page([...letterhead, [50, 120, '05/06/2024'], [50, 300, 'Item one'], [450, 300, '40.00'], [450, 780, 'continued']]);
    const last: PageModel = { ...page([[50, 100, 'Item two'], [450, 100, '78.75'], [300, 200, 'Pay this'], [450, 200, '118.75']]), number: 2 };
    expect(learnedFields([first, last], columns, [layout]).values).toEqual({ vendor: 'Brightwater Joinery Ltd', total: '118.75', date: '2024-06-05' });
  });

  test("a credit note's amount the layout reads unsigned takes the sign of the negative amounts it adds up with", () => {
    const amounts = [column('net', 'number'), column('tax', 'number'), column('total', 'number')];
    const block = (net: string, tax: string, total: string) => page([...letterhead, [300, 560, 'Net'], [450, 560, net], [300, 580, 'VAT'], [450, 580, tax], [300, 600, 'Total'], [450, 600, total]]);
    const example = block('-80.00', '15.20', '-95.20');
    const taxField = { column_id: 'tax', value: -15.2, page: 1, box: { x0: 450, y0: 580, x1: 480, y1: 590 }, label: 'VAT', lines: 1, text: '15.20' };
    const credit = taught('exmp_6', example, [taxField]);
    const next = block('-100.00', '19.00', '-119.00');
    expect(learnedFields([next], amounts, [credit], { net: '-100.00', total: '-119.00' }).values.tax).toBe(-19);
    // Beside positive amounts it stays as printed.
    expect(learnedFields([block('100.00', '19.00', '119.00')], amounts, [credit], { net: '100.00', total: '119.00' }).values.tax).toBe('19.00');
  });

  test('of two runs of words over one place, the whole: a minus set apart after the amount is kept', () => {
    const amounts = [column('tax', 'number')];
    const example = page([...letterhead, [300, 580, 'VAT'], [450, 580, '15.20']]);
    const learned: LearnedLayout = taught('exmp_7', example, [{ column_id: 'tax', value: 15.2, page: 1, box: { x0: 450, y0: 580, x1: 480, y1: 590 }, label: 'VAT', lines: 1, text: '15.20' }]);
    // The minus stands inside the amount's box (a narrow column), so both runs cover one place.
    const next = page([...letterhead, [300, 580, 'VAT']]);
    next.words.push({ text: '1.12', x0: 450, y0: 580, x1: 474, y1: 590 }, { text: '-', x0: 470, y0: 580, x1: 474, y1: 590 });
    expect(learnedFields([next], amounts, [learned]).values.tax).toBe('1.12 -');
  });

  test("the invoice number of the example, cited by the issuer's next document (a credit note's original), is not taken as constant text", () => {
    const ids = [column('number', 'string')];
    const example = page([...letterhead, [50, 80, 'Invoice no. 20240017']]);
    const numbered: LearnedLayout = taught('exmp_8', example, [{ column_id: 'number', value: '20240017', page: 1, box: { x0: 122, y0: 80, x1: 170, y1: 90 }, label: 'Invoice no.', lines: 1, text: '20240017' }]);
    const next = page([...letterhead, [50, 80, 'Invoice no. 20240031'], [50, 300, 'Corrects invoice 20240017']]);
    expect(learnedFields([next], ids, [numbered]).values.number).toBe('20240031');
  });

  /** A shop's learned layout: its name atop the page (KEDAI MAJU S/B) and its address, `lines` lines from y = `top`. */
  const shopLayout = (id: string, example: PageModel, address: string, top: number, lines: number, x1: number): LearnedLayout =>
    taught(id, example, [
      { column_id: 'company', value: 'KEDAI MAJU S/B', page: 1, box: { x0: 50, y0: 30, x1: 134, y1: 40 }, label: null, lines: 1, text: 'KEDAI MAJU S/B' },
      { column_id: 'address', value: address, page: 1, box: { x0: 50, y0: top, x1, y1: top + 14 * (lines - 1) + 10 }, label: null, lines, text: address },
    ]);
  const shopColumns = [column('company', 'string'), column('address', 'string')];

  test("another branch's address, a line longer than the example's and wordier, is read whole where the general model reads it so", () => {
    const shop = (lines: Array<[number, number, string]>) => page([[50, 30, 'KEDAI MAJU S/B'], [50, 44, 'Reg 55501234-X'], ...lines, [40, 300, 'Total'], [240, 300, '9.00']]);
    const example = shop([[50, 58, 'LOT 7, JALAN MAWAR,'], [50, 72, 'TAMAN INDAH JAYA,'], [50, 86, '41150 KLANG']]);
    const learned = shopLayout('exmp_10', example, 'LOT 7, JALAN MAWAR, TAMAN INDAH JAYA, 41150 KLANG', 58, 3, 164);
    const branch = shop([[50, 58, 'LOT 12, BATU JALAN BESAR,'], [50, 72, 'MUKIM KAPAR 42100 KLANG,'], [50, 86, 'SELANGOR'], [50, 100, '1181-TMN SRI SINAR']]);
    const whole = 'LOT 12, BATU JALAN BESAR, MUKIM KAPAR 42100 KLANG, SELANGOR 1181-TMN SRI SINAR';
    expect(learnedFields([branch], shopColumns, [learned], { address: whole }).values.address).toBe(whole);
  });

  test("a name found by its place alone is not a run of the example's address words (a misread name line merged into the address)", () => {
    const example = page([[50, 30, 'KEDAI MAJU S/B'], [50, 44, 'LOT 7, JALAN MAWAR'], [50, 58, '41150 KLANG']]);
    const learned = shopLayout('exmp_9', example, 'LOT 7, JALAN MAWAR 41150 KLANG', 44, 2, 158);
    // The next receipt's name line was misread and sits lower: where the name stood, the address begins.
    const next = page([[50, 30, 'LOT 7, JALAN MAWAR'], [50, 44, '41150 KLANG'], [50, 80, 'KEDA1 MAJU S/8']]);
    expect(learnedFields([next], shopColumns, [learned]).values.company).toBeUndefined();
  });

  test('a field the document does not show where the example has it is left to the general model', () => {
    const next = page([...letterhead, [300, 600, 'Balance'], [450, 600, '118.75']]);
    expect(learnedFields([next], columns, [layout]).values).toEqual({ vendor: 'Brightwater Joinery Ltd' });
  });
});
