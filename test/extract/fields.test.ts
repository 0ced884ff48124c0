import { describe, expect, test } from 'bun:test';
import { documentFields, linesFromText, ruleFields, tableLines } from '../../src/extract/fields';
import { buildLayout } from '../../src/extract/fields/layout';
import { nameLike, partyCandidates, titleOnly } from '../../src/extract/fields/parties';
import { findAmounts, REGISTRATION_LINE } from '../../src/extract/fields/values';
import { labelMatch, taxQualifier, wantOf } from '../../src/extract/fields/wants';
import type { TextLine } from '../../src/extract/layout/page';
import type { Column, ColumnType } from '../../src/domain/columns';

const col = (id: string, name: string, type: ColumnType, extra: Partial<Column> = {}): Column => ({ id, name, type, required: false, ...extra });

/** A PDF-like line: segments at x positions (points), text about half a point wide per character and point of size. */
function line(y: number, segments: Array<[number, string]>, size = 10, bold = false, page = 1): TextLine {
  const segs = segments.map(([x, text]) => ({ text, x0: x, x1: x + text.length * size * 0.5 }));
  return { page, y, size, bold, segments: segs, text: segs.map((s) => s.text).join(' ') };
}

const fieldsOfText = (text: string, columns: Column[]) => documentFields(linesFromText(text), columns).values;

describe('linesFromText', () => {
  test('segments split at tabs, runs of spaces and pipes, x in characters, y the line index', () => {
    const lines = linesFromText('Invoice no:\tA-1\n\nQty  Price | Total\n   indented');
    expect(lines.map((l) => l.y)).toEqual([0, 2, 3]);
    expect(lines[0]!.segments.map((s) => s.text)).toEqual(['Invoice no:', 'A-1']);
    expect(lines[1]!.segments.map((s) => [s.text, s.x0])).toEqual([
      ['Qty', 0],
      ['Price', 5],
      ['Total', 13],
    ]);
    expect(lines[2]!.segments[0]!.x0).toBe(3);
    expect(lines.every((l) => l.size === 1 && l.page === 1)).toBe(true);
  });
});

describe('label and value pairs', () => {
  const columns = [col('number', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('total', 'Total', 'currency')];

  test('value after a colon in the same segment', () => {
    const values = fieldsOfText('Invoice number: INV-2041\nInvoice date: 2024-03-05\nTotal: $1,250.00', columns);
    expect(values).toEqual({ number: 'INV-2041', date: '2024-03-05', total: '$1,250.00' });
  });

  test('value in the next segment of the line', () => {
    const values = documentFields([line(100, [[50, 'Invoice No.'], [200, 'X-77']]), line(115, [[50, 'Total'], [400, '99.50']])], columns).values;
    expect(values).toEqual({ number: 'X-77', total: '99.50' });
  });

  test('value under its label, aligned by x', () => {
    const lines = [line(100, [[50, 'Invoice No.'], [180, 'Invoice Date'], [320, 'Terms']], 9), line(112, [[50, 'A-100'], [180, '2024-07-01'], [320, 'Net 30']], 10)];
    expect(documentFields(lines, columns).values).toEqual({ number: 'A-100', date: '2024-07-01' });
  });

  test('a label that names another field does not give its value ("No." is not an invoice number)', () => {
    const lines = [line(100, [[50, 'No.'], [100, 'Description']]), line(112, [[50, '1'], [100, 'Consulting']])];
    expect(documentFields(lines, [col('number', 'Invoice number', 'string')]).values).toEqual({});
  });

  test('a column the document does not have gets no value', () => {
    const values = fieldsOfText('Invoice number: 7\nTotal: 10.00', [col('iban', 'IBAN', 'string'), col('sales', 'Sales rep', 'string'), col('due', 'Due date', 'date')]);
    expect(values).toEqual({});
  });
});

describe('labels in other languages', () => {
  test('German', () => {
    const text = 'Rechnungsnummer:   RE-2024-17\nRechnungsdatum:   05.03.2024\nLeistungsdatum:   28.02.2024\nNettobetrag:   100,00 €\nMwSt. 19 %:   19,00 €\nGesamtbetrag:   119,00 €';
    const values = fieldsOfText(text, [
      col('no', 'Invoice number', 'string'),
      col('date', 'Invoice date', 'date'),
      col('delivery', 'Delivery date', 'date'),
      col('net', 'Net amount', 'currency'),
      col('tax', 'VAT', 'currency'),
      col('total', 'Total', 'currency'),
    ]);
    expect(values).toEqual({ no: 'RE-2024-17', date: '2024-03-05', delivery: '2024-02-28', net: '100,00 €', tax: '19,00 €', total: '119,00 €' });
  });

  test('French', () => {
    const text = "Facture n° : F-2024-001\nDate de facture : 12/03/2024\nDate d'échéance : 11/04/2024\nTotal HT : 1 000,00 €\nTVA : 200,00 €\nTotal TTC : 1 200,00 €";
    const values = fieldsOfText(text, [col('no', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('net', 'Net', 'currency'), col('total', 'Total', 'currency')]);
    expect(values).toEqual({ no: 'F-2024-001', date: '2024-03-12', due: '2024-04-11', net: '1 000,00 €', total: '1 200,00 €' });
  });

  test('Dutch', () => {
    const text = 'Factuurnummer: 2024-55\nFactuurdatum: 5-3-2024\nVervaldatum: 19-3-2024\nTotaal incl. btw: € 121,00';
    const values = fieldsOfText(text, [col('no', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('total', 'Total', 'currency')]);
    expect(values).toEqual({ no: '2024-55', date: '2024-03-05', due: '2024-03-19', total: '€ 121,00' });
  });

  test('Spanish', () => {
    const text = 'Nº factura: A/2024/310\nFecha de emisión: 3 de marzo de 2024\nBase imponible: 500,00\nIVA 21%: 105,00\nImporte total: 605,00 EUR';
    const values = fieldsOfText(text, [col('no', 'Invoice number', 'string'), col('date', 'Date', 'date'), col('net', 'Net amount', 'currency'), col('tax', 'Tax', 'currency'), col('total', 'Total', 'currency'), col('cur', 'Currency', 'string')]);
    expect(values).toEqual({ no: 'A/2024/310', date: '2024-03-03', net: '500,00', tax: '105,00', total: '605,00 EUR', cur: 'EUR' });
  });

  test('Polish', () => {
    const text = 'Faktura VAT nr FV/12/2024\nData wystawienia: 2024-04-02\nTermin płatności: 2024-04-16\nRazem do zapłaty: 1 230,00 zł';
    const values = fieldsOfText(text, [col('no', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('total', 'Total', 'number')]);
    expect(values).toEqual({ no: 'FV/12/2024', date: '2024-04-02', due: '2024-04-16', total: '1 230,00' });
  });
});

describe('dates told apart', () => {
  const columns = [col('inv', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('del', 'Delivery date', 'date'), col('date', 'Date', 'date')];

  test('by their labels; a plain "Date" column takes the invoice date', () => {
    const text = 'Delivery date: 2024-01-28\nDue date: 2024-02-28\nInvoice date: 2024-01-29';
    expect(fieldsOfText(text, columns)).toEqual({ inv: '2024-01-29', due: '2024-02-28', del: '2024-01-28', date: '2024-01-29' });
  });

  test('due dates from phrases in several languages', () => {
    for (const sentence of ['Please pay by 30.05.2024.', 'Bitte überweisen Sie den Betrag bis zum 30.05.2024.', 'Montant à payer avant le 30/05/2024', 'This invoice is payable by 30.05.2024']) {
      expect(fieldsOfText(`Invoice no: 5\n${sentence}`, [col('due', 'Due date', 'date')])).toEqual({ due: '2024-05-30' });
    }
  });

  test('a date printed next to a place is the document date', () => {
    expect(fieldsOfText('Erika Beispiel\nBerlin, den 07.05.2023\nSehr geehrte Damen und Herren,', [col('date', 'Invoice date', 'date')])).toEqual({ date: '2023-05-07' });
    expect(fieldsOfText('Paris, le 3 mars 2024\nObjet : facture', [col('date', 'Date', 'date')])).toEqual({ date: '2024-03-03' });
  });

  test('a period is split into start and end when the columns ask for both', () => {
    const columns2 = [col('start', 'Period start', 'date'), col('end', 'Period end', 'date')];
    expect(fieldsOfText('Service period: 04/15/2021 – 05/14/2021', columns2)).toEqual({ start: '2021-04-15', end: '2021-05-14' });
    expect(fieldsOfText('Leistungszeitraum: 01.01.2024 bis 31.01.2024', [col('period', 'Service period', 'string')])).toEqual({ period: '01.01.2024 bis 31.01.2024' });
  });

  test("the document's own dates decide the day/month order", () => {
    const text = 'Invoice date: 01/02/2024\nDelivery date: 13/01/2024';
    expect(fieldsOfText(text, [col('date', 'Invoice date', 'date')])).toEqual({ date: '2024-02-01' });
    expect(fieldsOfText('Invoice date: 01/02/2024\nDelivery date: 01/13/2024', [col('date', 'Invoice date', 'date')])).toEqual({ date: '2024-01-02' });
  });

  test('a date in the bottom strip of the page yields to the document date', () => {
    const lines = [line(50, [[50, 'Hamburg, den'], [150, '07.05.2023']]), line(300, [[50, 'Some text']]), line(800, [[400, 'Gedruckt: 02.05.2023'], [500, 'um 11:20']])];
    expect(documentFields(lines, [col('date', 'Invoice date', 'date')]).values).toEqual({ date: '2023-05-07' });
  });
});

describe('amounts', () => {
  const columns = [col('net', 'Net amount', 'currency'), col('tax', 'Tax amount', 'currency'), col('total', 'Total', 'currency')];

  test('a minus before the currency sign is the amount\'s ("-£189.00"); a range\'s hyphen between two figures is no sign', () => {
    expect(findAmounts('Net: -£189.00').map((a) => a.value)).toEqual([-189]);
    expect(findAmounts('Amount -€ 5,00').map((a) => a.value)).toEqual([-5]);
    expect(findAmounts('Total $-5.00').map((a) => a.value)).toEqual([-5]);
    expect(findAmounts('Price 12-£20').map((a) => a.value)).not.toContain(-20);
  });

  test("an invoice without a currency mark takes the currency of its tax id's country or of the country it names", () => {
    const currency = (text: string) => documentFields(linesFromText(text), [col('total', 'Total', 'number'), col('currency', 'Currency', 'string')]).values.currency;
    expect(currency('INVOICE\nAcme Tools Ltd\nVAT Reg: GB 987 6543 21\nSub Total 220.00\nVAT 44.00\nInvoice Total 264.00')).toBe('GBP');
    expect(currency('INVOICE\nAcme Tools AG\nZurich, Switzerland\nTotal 264.00')).toBe('CHF');
    expect(currency('INVOICE\nAcme Tools\nTotal 264.00')).toBeUndefined();
    // "No" after a tax label is no country's prefix.
    expect(currency('INVOICE\nAcme Tools\nVAT NO 123456789\nTotal 264.00')).toBeUndefined();
  });

  test("a receipt's date is not the date its points or its returns run until", () => {
    const date = (text: string) => documentFields(linesFromText(text), [col('date', 'Date', 'date')]).values.date;
    expect(date('CORNER MARKET\nValid until 12/31/2019\nMILK 3.49\nTOTAL 3.49\n03/14/2019 17:42')).toBe('2019-03-14');
    expect(date('CORNER MARKET\nMILK 3.49\nTOTAL 3.49\nPOINTS EXPIRE 12/31/2019\nTRANS 1234 03/14/2019 17:42')).toBe('2019-03-14');
  });

  test("a Malay or Indonesian receipt's total is read beside its labels, not the cash handed over", () => {
    const total = (text: string) => documentFields(linesFromText(text), [col('total', 'Total', 'number')]).values.total;
    expect(total('BERAS 15.90\nGULA 2.50\nJUMLAH 18.40\nTUNAI 20.00\nBAKI 1.60')).toBe('18.40');
    expect(total('BERAS Rp 15.900\nGULA Rp 2.500\nTOTAL BELANJA Rp 18.400\nTUNAI Rp 20.000\nKEMBALI Rp 1.600')).toBe('Rp 18.400');
  });

  test('an amount after dot leaders is read; the decimals after a lone full stop are no amount of their own', () => {
    const raws = (text: string) => findAmounts(text).map((a) => a.raw);
    expect(raws('TOTAL.......6.48')).toEqual(['6.48']);
    expect(raws('Subtotal........$12.00')).toEqual(['$12.00']);
    expect(raws('1.50')).toEqual(['1.50']);
    expect(raws('No.12')).toEqual([]);
    const { values } = documentFields(linesFromText('MILK 3.49\nBREAD 2.99\nTOTAL.......6.48\nCASH 10.00'), [col('total', 'Total', 'number')]);
    expect(values.total).toBe('6.48');
  });

  test('a currency code or a sign of letters glued to the figure is part of the amount', () => {
    const read = (text: string) => findAmounts(text).map((a) => [a.raw, a.value, a.currency]);
    expect(read('SUBTOTAL RM96.20')).toEqual([['RM96.20', 96.2, 'MYR']]);
    expect(read('Total USD12.00')).toEqual([['USD12.00', 12, 'USD']]);
    expect(read('Total Rs. 300.00')).toEqual([['Rs. 300.00', 300, 'INR']]);
    // Inside a word the same letters are no sign, and the figure is no amount.
    expect(read('FORM12.00')).toEqual([]);
    const { values } = documentFields(linesFromText('TOTAL   RM96.20\nCASH   RM100.00\nCHANGE   RM3.80'), [col('total', 'Total', 'number')]);
    expect(values.total).toBe('RM96.20');
  });

  test('net + tax = total decides among several labelled amounts', () => {
    const lines = [
      line(100, [[50, 'Rate'], [150, 'Net'], [250, 'VAT']]),
      line(112, [[50, '20%'], [150, '150.00'], [250, '30.00']]),
      line(124, [[50, '10%'], [150, '50.00'], [250, '5.00']]),
      line(150, [[300, 'Net total'], [450, '200.00']]),
      line(162, [[300, 'VAT total'], [450, '35.00']]),
      line(174, [[300, 'Total'], [450, '235.00']]),
    ];
    expect(documentFields(lines, columns).values).toEqual({ net: '200.00', tax: '35.00', total: '235.00' });
  });

  test('a subtotal stands in for the net amount', () => {
    expect(fieldsOfText('Subtotal: 80.00\nSales tax: 8.00\nTotal: 88.00', columns)).toEqual({ net: '80.00', tax: '8.00', total: '88.00' });
  });

  test('total and amount due are told apart by the column', () => {
    const text = 'Total:  110.00\nPrevious unpaid balance:  500.00\nAmount due:  610.00';
    expect(fieldsOfText(text, [col('total', 'Total', 'currency'), col('due', 'Amount due', 'currency')])).toEqual({ total: '110.00', due: '610.00' });
  });

  test('a tax rate from the percentage beside the tax word; several rates leave it empty', () => {
    const rate = [col('rate', 'VAT rate', 'number')];
    expect(fieldsOfText('Net: 100,00\n19 % MwSt.: 19,00\nTotal: 119,00', rate)).toEqual({ rate: '19' });
    expect(fieldsOfText('7% MwSt.: 7,00\n19% MwSt.: 19,00', rate)).toEqual({});
  });

  test('the currency from the symbols near the amounts, mapped to an option', () => {
    const text = 'Subtotal: £40.00\nVAT: £8.00\nTotal: £48.00';
    expect(fieldsOfText(text, [col('cur', 'Currency', 'string')])).toEqual({ cur: 'GBP' });
    expect(fieldsOfText(text, [col('cur', 'Currency', 'enum', { options: ['EUR', 'GBP', 'USD'] })])).toEqual({ cur: 'GBP' });
  });
});

describe('parties', () => {
  const parties = [col('vendor', 'Vendor', 'string'), col('customer', 'Customer', 'string')];

  test('the plain-text invoice: the issuer is the company in the first lines', () => {
    const text = 'ACME GmbH\nHauptstrasse 1, 10115 Berlin\nInvoice date: 2024-03-01\nTotal due: 119.00 EUR';
    const values = fieldsOfText(text, [...parties, col('date', 'Invoice date', 'date'), col('total', 'Total', 'currency')]);
    expect(values).toEqual({ vendor: 'ACME GmbH', date: '2024-03-01', total: '119.00 EUR' });
  });

  test('the customer from a bill-to block, its first line (not the street)', () => {
    const text = 'Northwind Traders Ltd\n12 Harbour Road\nBristol BS1 4DJ\n\nBill to:\nBlue Finch Studio\n4 Mill Lane\nLeeds LS2 7EW\n\nInvoice no: 881';
    expect(fieldsOfText(text, parties)).toEqual({ vendor: 'Northwind Traders Ltd', customer: 'Blue Finch Studio' });
  });

  test('letterhead in large print on the right, recipient under the sender line on the left', () => {
    const lines = [
      line(40, [[380, 'Nordlicht Handel GmbH']], 16, true),
      line(60, [[380, 'Seestraße 5']], 8),
      line(70, [[380, '20095 Hamburg']], 8),
      line(80, [[380, 'USt-IdNr. DE123456789']], 8),
      line(120, [[60, 'Nordlicht Handel GmbH · Seestraße 5 · 20095 Hamburg']], 6),
      line(135, [[60, 'Firma']], 10),
      line(147, [[60, 'Kaffeehaus Sonne']], 10),
      line(159, [[60, 'Bahnhofstr. 3']], 10),
      line(171, [[60, '80331 München']], 10),
      line(220, [[60, 'Rechnung Nr. 2024-118']], 14, true),
    ];
    expect(documentFields(lines, parties).values).toEqual({ vendor: 'Nordlicht Handel GmbH', customer: 'Kaffeehaus Sonne' });
  });

  test('two address blocks side by side: the left is the recipient, the right the issuer', () => {
    const lines = [
      line(30, [[50, 'INVOICE 5521']], 18),
      line(100, [[50, 'Greenleaf Bakery'], [420, 'Ostara Supplies']]),
      line(114, [[50, '9 Elm Street'], [420, 'Industrieweg 12']]),
      line(128, [[50, '3011 AB Rotterdam'], [420, '1013 CV Amsterdam']]),
      line(300, [[50, 'Total'], [400, '42.00']]),
    ];
    expect(documentFields(lines, [...parties, col('no', 'Invoice number', 'string')]).values).toEqual({ vendor: 'Ostara Supplies', customer: 'Greenleaf Bakery', no: '5521' });
  });

  test('labelled parties in other languages', () => {
    expect(fieldsOfText('Lieferant: Holzwerk Berger KG\nKunde: Anna Schmidt', parties)).toEqual({ vendor: 'Holzwerk Berger KG', customer: 'Anna Schmidt' });
    expect(fieldsOfText('Fournisseur : Atelier Lune SARL\nClient : Café du Port', parties)).toEqual({ vendor: 'Atelier Lune SARL', customer: 'Café du Port' });
  });
});

describe('other typed values', () => {
  test('IBAN (checked), e-mail and phone', () => {
    const text = 'Bank: GB82 WEST 1234 5698 7654 32\nE-mail: billing@example.org\nPhone: +44 20 7946 0958';
    const values = fieldsOfText(text, [col('iban', 'IBAN', 'string'), col('mail', 'Email', 'email'), col('phone', 'Phone', 'string')]);
    expect(values).toEqual({ iban: 'GB82 WEST 1234 5698 7654 32', mail: 'billing@example.org', phone: '+44 20 7946 0958' });
    expect(fieldsOfText('Account: GB00 WEST 1234 5698 7654 32', [col('iban', 'IBAN', 'string')])).toEqual({});
  });

  test('a column outside the lexicon matches its own label', () => {
    expect(fieldsOfText('Table: 12\nWaiter: Sam', [col('table', 'Table', 'number'), col('server', 'Server', 'string', { description: 'Waiter' })])).toEqual({ table: '12', server: 'Sam' });
  });

  test('scores are between 0 and 1 for every value given', () => {
    const { values, scores } = documentFields(linesFromText('Invoice number: 12\nTotal: 5.00'), [col('no', 'Invoice number', 'string'), col('total', 'Total', 'currency')]);
    expect(Object.keys(scores).sort()).toEqual(Object.keys(values).sort());
    for (const s of Object.values(scores)) expect(s > 0 && s <= 1).toBe(true);
  });

  test('an empty column that names no field documents have counts against the row; one a document may lack (an IBAN) does not', () => {
    const lines = linesFromText('Invoice number: 12\nTotal: 5.00');
    const fitting = [col('no', 'Invoice number', 'string'), col('total', 'Total', 'currency')];
    const confidenceWith = (extra: Column) => documentFields(lines, [...fitting, extra]).confidence!;
    const alone = documentFields(lines, fitting);
    expect(confidenceWith(col('iban', 'IBAN', 'string'))).toBe(alone.confidence!);
    // The row's confidence is the fields' geometric mean, an empty field counting 0.01; its fit, their plain mean.
    const handgun = documentFields(lines, [...fitting, col('handgun', 'Handgun', 'number')]);
    expect(handgun.confidence!).toBeCloseTo(Math.cbrt(alone.confidence! ** 2 * 0.01), 2);
    expect(handgun.fit!).toBeCloseTo((alone.fit! * 2) / 3, 2);
  });

  test("one doubtful field makes the row doubtful; the document still fits", () => {
    const lines = linesFromText('Invoice number: 12\nTotal: 5.00');
    const fitting = [col('no', 'Invoice number', 'string'), col('total', 'Total', 'currency')];
    const { confidence, fit, scores } = documentFields(lines, [...fitting, col('due', 'Due date', 'date')]);
    // A due date is usually printed: left empty it counts as unsure, the row less sure than its fields' mean.
    expect(scores.due).toBeUndefined();
    expect(confidence!).toBeLessThan(fit!);
    expect(fit!).toBeLessThan(Math.min(scores.no!, scores.total!));
  });
});

describe('layouts of tables and blocks', () => {
  test('key/value tables given as lines (tableLines)', () => {
    const lines = tableLines([{ grid: [['Shop', 'Harbour Books'], ['Counter', '14'], ['Receipt date', '2027-08-05']] }]);
    const values = documentFields(lines, [col('place', 'Shop', 'string'), col('table', 'Till', 'number', { description: 'Counter' }), col('date', 'Date', 'date')]).values;
    expect(values).toEqual({ place: 'Harbour Books', table: '14', date: '2027-08-05' });
  });

  test('tableLines puts each table on a page of its own, one segment per cell', () => {
    const lines = tableLines([{ grid: [['a', 'b']] }, { grid: [['Total', 'Total', '5']] }]);
    expect(lines.map((l) => l.page)).toEqual([10000, 10001]);
    expect(lines[1]!.segments.map((s) => s.text)).toEqual(['Total', '5']);
  });

  test('a header over a column of several values is a table column, not a field', () => {
    const lines = [line(100, [[50, 'Description'], [300, 'Total']]), line(112, [[50, 'Widget'], [300, '10.00']]), line(124, [[50, 'Gadget'], [300, '20.00']])];
    expect(documentFields(lines, [col('total', 'Total', 'currency')]).values).toEqual({});
  });

  test('values under labels, with a row of labels below them, are still fields', () => {
    const lines = [line(100, [[50, 'Sales rep'], [200, 'Due Date']]), line(112, [[50, 'Dana Lee'], [200, 'June 9, 2027']]), line(130, [[50, 'Carrier'], [200, 'Incoterms']])];
    expect(documentFields(lines, [col('am', 'Sales rep', 'string'), col('due', 'Due date', 'date')]).values).toEqual({ am: 'Dana Lee', due: '2027-06-09' });
  });

  test('a run of labels printed as one names no single field', () => {
    expect(fieldsOfText('Subtotal Sales tax Total Amount due: 100.00', [col('tax', 'Sales tax', 'currency')])).toEqual({});
  });

  test('the column name at the start of a segment, its value right after it', () => {
    expect(fieldsOfText('Counter 13\nClerk Quinn Baker', [col('seat', 'Counter', 'number'), col('server', 'Clerk', 'string')])).toEqual({ seat: '13', server: 'Quinn Baker' });
  });
});

describe('more party rules', () => {
  const parties = [col('vendor', 'Vendor', 'string'), col('customer', 'Customer', 'string')];

  test('of two blocks side by side, the one with phone and web site is the issuer', () => {
    const lines = [
      line(100, [[50, 'Ostara Supplies'], [420, 'Greenleaf Bakery']]),
      line(114, [[50, 'Industrieweg 12'], [420, '9 Elm Street']]),
      line(128, [[50, '1013 CV Amsterdam'], [420, '3011 AB Rotterdam']]),
      line(142, [[50, 'Tel. +31 20 555 0101']]),
      line(156, [[50, 'www.ostara.example']]),
      line(500, [[50, 'Total'], [400, '42.00']]),
    ];
    expect(documentFields(lines, parties).values).toEqual({ vendor: 'Ostara Supplies', customer: 'Greenleaf Bakery' });
  });

  test('a legal form in capitals marks the letterhead; the bill-to block gives the customer', () => {
    const lines = [
      line(40, [[50, 'NORTHWIND LTD.'], [450, 'INVOICE']], 20),
      line(70, [[50, '1 Quay Street']], 11),
      line(84, [[50, 'Cardiff CF10 1EP']], 11),
      line(150, [[50, 'BILL TO:'], [250, 'SHIP TO:']], 10),
      line(164, [[50, 'Riverside Books'], [250, 'Riverside Warehouse']], 11),
      line(178, [[50, '5 Bridge Road'], [250, '7 Dock Lane']], 11),
    ];
    expect(documentFields(lines, parties).values).toEqual({ vendor: 'NORTHWIND LTD.', customer: 'Riverside Books' });
  });

  test('a sender line in small print with commas', () => {
    const lines = [
      line(40, [[300, 'Kranich Leasing GmbH']], 12, true),
      line(52, [[300, 'Am Hafen 2, 28195 Bremen']], 7),
      line(130, [[60, 'Kranich, Am Hafen 2, 28195 Bremen']], 6),
      line(150, [[60, 'Otto Beispiel']], 10),
      line(162, [[60, 'Lindenweg 4']], 10),
      line(174, [[60, '04109 Leipzig']], 10),
      line(700, [[60, 'Seite 1 von 1']], 8),
      line(710, [[60, 'Text']], 10),
      line(720, [[60, 'Text']], 10),
      line(730, [[60, 'Text']], 10),
    ];
    expect(documentFields(lines, parties).values).toEqual({ vendor: 'Kranich Leasing GmbH', customer: 'Otto Beispiel' });
  });
});

describe('more value rules', () => {
  test('a missing part of net + tax = total is taken from a printed amount that completes the sum', () => {
    const text = 'Net amount: 100.00\nIncluded 19.00\nGrand total: 119.00';
    expect(fieldsOfText(text, [col('net', 'Net amount', 'currency'), col('tax', 'Tax', 'currency'), col('total', 'Total', 'currency')])).toEqual({ net: '100.00', tax: '19.00', total: '119.00' });
  });

  test('an ambiguous English date stays as printed', () => {
    expect(fieldsOfText('Invoice date: 03/04/2024', [col('date', 'Invoice date', 'date')])).toEqual({ date: '03/04/2024' });
  });

  test('an id is figures, or a short code before figures, never the next label', () => {
    expect(fieldsOfText('Invoice date: 2024-03-01', [col('no', 'Invoice number', 'string')])).toEqual({});
    expect(fieldsOfText('Invoice No. RE 2024-17', [col('no', 'Invoice number', 'string')])).toEqual({ no: 'RE 2024-17' });
  });
});

describe('letters, e-mails and receipts', () => {
  test('an e-mail: number and date in a sentence, due phrase, signing company, never the salutation', () => {
    const text = 'Sehr geehrte Damen und Herren,\nanbei erhalten Sie die Rechnung Nr. 2024-0815 vom 12.03.2024.\nBitte überweisen Sie den Betrag bis zum 26.03.2024.\nMit freundlichen Grüßen\nMüller & Söhne GmbH';
    const values = fieldsOfText(text, [col('no', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('vendor', 'Vendor', 'string')]);
    expect(values).toEqual({ no: '2024-0815', date: '2024-03-12', due: '2024-03-26', vendor: 'Müller & Söhne GmbH' });
  });

  test('a receipt whose subtotal already includes the tax gives no net amount', () => {
    const text = 'CORNER CAFE\n03/02/2024 08:14\nFlat white        2   6.40\nSUBTOTAL              9.30\nVAT 20%               1.55\nTOTAL                 9.30';
    const values = fieldsOfText(text, [col('net', 'Net amount', 'currency'), col('tax', 'Tax amount', 'currency'), col('total', 'Total', 'currency'), col('date', 'Date', 'date'), col('vendor', 'Vendor', 'string')]);
    expect(values).toEqual({ tax: '1.55', total: '9.30', date: '03/02/2024', vendor: 'CORNER CAFE' });
  });
});

describe('receipt details', () => {
  const receipt = 'Harbour Books\n7 Quay Road\nPortsmouth PO1 3AB\n023-9200-1234\n14/06/2024 17:05\nNovel    1    9.99\nTotal    9.99';

  test('the time printed beside the date', () => {
    expect(fieldsOfText(receipt, [col('time', 'Time', 'string'), col('date', 'Date', 'date')])).toEqual({ time: '17:05', date: '2024-06-14' });
  });

  test("an unlabelled phone number in the letterhead is the issuer's, never the customer's", () => {
    expect(fieldsOfText(receipt, [col('phone', 'Merchant phone', 'string')])).toEqual({ phone: '023-9200-1234' });
    expect(fieldsOfText(receipt, [col('phone', 'Customer phone', 'string')])).toEqual({});
  });
});

describe('prose is not fields', () => {
  test('a URL is no label, a sentence is no label, a figure in a sentence is no amount', () => {
    const text = 'See http://localhost:8080/v1 for details\nThe service keeps every table of more than 10,000 rows in memory:   5 minutes\nNet: about 200 people came to the opening of the new building';
    expect(fieldsOfText(text, [col('net', 'Net amount', 'currency'), col('total', 'Total', 'currency')])).toEqual({});
  });

  test('a date is no phone number; a lowercase word is no letterhead', () => {
    expect(fieldsOfText('Phone: 6/10/2019', [col('phone', 'Phone', 'string')])).toEqual({});
    expect(fieldsOfText('pdf\n12 Main Street\nSpringfield 12345', [col('vendor', 'Vendor', 'string')])).toEqual({});
  });

  test('a one-line column takes no sentence; a currency code without amounts is no currency', () => {
    expect(fieldsOfText('Name: the name of the table. It is unique in a project and may be changed', [col('name', 'Name', 'string')])).toEqual({});
    expect(fieldsOfText('Prices are converted to EUR when shown', [col('cur', 'Currency', 'string')])).toEqual({});
  });
});

describe('dates that are not what they seem', () => {
  test('the end of a period is no due date', () => {
    expect(fieldsOfText('Leistung vom 01.05.2024 bis zum 31.05.2024', [col('due', 'Due date', 'date')])).toEqual({});
  });

  test('a due date on the line of the number is not the invoice date', () => {
    expect(fieldsOfText('Invoice No. 12, due 05/05/2024', [col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date')])).toEqual({ due: '2024-05-05' });
  });
});

describe('run-together labels', () => {
  test('several "Label: value" pairs in one segment', () => {
    const values = fieldsOfText('Invoice No.: 123 Date: 2024-02-01 Due: 2024-03-01 Total: 50.00', [col('no', 'Invoice number', 'string'), col('date', 'Invoice date', 'date'), col('due', 'Due date', 'date'), col('total', 'Total', 'currency')]);
    expect(values).toEqual({ no: '123', date: '2024-02-01', due: '2024-03-01', total: '50.00' });
  });

  test('a colon inside a value that names no field stays in the value', () => {
    expect(fieldsOfText('Notes: call before delivery at gate: north side', [col('notes', 'Notes', 'string')])).toEqual({ notes: 'call before delivery at gate: north side' });
  });
});

describe('lists are not fields', () => {
  test('a label that starts many rows with different values is a list', () => {
    const lines = tableLines([{ grid: [['Step 1.', 'Unpacking', '4'], ['Step 1B.', 'Safety checks', '9'], ['Step 2.', 'Assembly', '12'], ['Step 3.', 'Testing', '15']] }]);
    expect(documentFields(lines, [col('step', 'Step', 'string'), col('title', 'Title', 'string')]).values).toEqual({});
  });

  test('figures are never a label', () => {
    const lines = tableLines([{ grid: [['', '2021', '2020'], ['Tax at the base rate', '120', '-75']] }]);
    expect(documentFields(lines, [col('y2021', '2021', 'currency')]).values).toEqual({});
  });

  test('a field printed twice with the same value is still a field', () => {
    expect(fieldsOfText('Invoice number: A-7\nDate: 2024-01-02\nInvoice number: A-7', [col('no', 'Invoice number', 'string')])).toEqual({ no: 'A-7' });
  });
});

describe('whole invoices in more languages', () => {
  const columns = [
    col('no', 'Invoice number', 'string'),
    col('date', 'Invoice date', 'date'),
    col('due', 'Due date', 'date'),
    col('vendor', 'Vendor', 'string'),
    col('customer', 'Customer', 'string'),
    col('net', 'Net amount', 'currency'),
    col('tax', 'VAT', 'currency'),
    col('total', 'Total', 'currency'),
    col('taxid', 'VAT ID', 'string'),
  ];

  test('Italian', () => {
    const text = 'Ferramenta Rossi S.r.l.\nVia Roma 12, 20121 Milano\nP.IVA 01234567890\nFATTURA N. 45/2024\nData: 05/03/2024\nScadenza: 04/04/2024\nSpett.le Bar Centrale\nImponibile   € 200,00\nIVA 22%   € 44,00\nTotale documento   € 244,00';
    expect(fieldsOfText(text, columns)).toEqual({
      no: '45/2024',
      date: '2024-03-05',
      due: '2024-04-04',
      vendor: 'Ferramenta Rossi S.r.l.',
      customer: 'Bar Centrale',
      net: '€ 200,00',
      tax: '€ 44,00',
      total: '€ 244,00',
      taxid: '01234567890',
    });
  });

  test('Portuguese', () => {
    const text = 'Papelaria Lisboa, Lda.\nRua Augusta 100, 1100-053 Lisboa\nNIF: 501234567\nFatura n.º FT 2024/118\nData de emissão: 12-03-2024\nData de vencimento: 11-04-2024\nCliente: Café Central\nTotal sem IVA: 100,00 €\nIVA 23%: 23,00 €\nTotal a pagar: 123,00 €';
    expect(fieldsOfText(text, columns)).toEqual({
      no: 'FT 2024/118',
      date: '2024-03-12',
      due: '2024-04-11',
      vendor: 'Papelaria Lisboa, Lda.',
      customer: 'Café Central',
      net: '100,00 €',
      tax: '23,00 €',
      total: '123,00 €',
      taxid: '501234567',
    });
  });

  test('Dutch, with a month written out', () => {
    const text = 'Bakkerij de Vries B.V.\nKerkstraat 5\n1017 GB Amsterdam\nBTW-nummer: NL123456789B01\nFactuur\nFactuurnummer: 2024-031\nFactuurdatum: 7 maart 2024\nKlant: Hotel Zonneveld\nSubtotaal: € 500,00\nBTW 21%: € 105,00\nTotaal: € 605,00';
    expect(fieldsOfText(text, columns)).toEqual({
      no: '2024-031',
      date: '2024-03-07',
      vendor: 'Bakkerij de Vries B.V.',
      customer: 'Hotel Zonneveld',
      net: '€ 500,00',
      tax: '€ 105,00',
      total: '€ 605,00',
      taxid: 'NL123456789B01',
    });
  });
});

describe('e-mail headers', () => {
  test('the name of a From: or To: header, without its address', () => {
    const text = 'From: "Nordhafen Logistics Ltd" <billing@nordhafen.example>\nTo: Carla Mendes <carla@example.org>\nSubject: Invoice 2024-88\n\nInvoice date: 2024-05-02\nTotal: 310.00 EUR';
    expect(fieldsOfText(text, [col('vendor', 'Vendor', 'string'), col('customer', 'Customer', 'string'), col('no', 'Invoice number', 'string')])).toEqual({
      vendor: 'Nordhafen Logistics Ltd',
      customer: 'Carla Mendes',
      no: '2024-88',
    });
  });
});

describe('item-level columns', () => {
  test("a line total is not the document's total; a bare Amount is", () => {
    const text = 'Subtotal: 90.00\nTotal: 100.00';
    expect(fieldsOfText(text, [col('line', 'Line total', 'currency')])).toEqual({});
    expect(fieldsOfText(text, [col('amount', 'Amount', 'currency')])).toEqual({ amount: '100.00' });
  });

  test('an item field comes from a document only when plainly labelled, and never from a label that names another field as well', () => {
    expect(fieldsOfText('Ref: ORD-2024-77', [col('sku', 'SKU', 'string')])).toEqual({});
    expect(fieldsOfText('SKU: AB-1234', [col('sku', 'SKU', 'string')])).toEqual({ sku: 'AB-1234' });
  });
});

describe('parties in sections and receipts', () => {
  const SELLER = [col('seller', 'Seller', 'string', { description: "the seller's (issuer's) name" })];

  test('the name under a party heading, past labelled details before it', () => {
    const { result } = ruleFields(linesFromText('Seller:\nGlobal number: 4000001123452\nAcme Supplies GmbH\nMain Street 20\n80333 Munich'), SELLER);
    expect(result.get('seller')?.value).toBe('Acme Supplies GmbH');
  });

  test('"Name:" in a section headed by the party', () => {
    const { result } = ruleFields(linesFromText('Invoice 12\nSeller\nNumber:    318402\nName:    Acme Supplies GmbH\nAddress:    Main Street 1'), SELLER);
    expect(result.get('seller')?.value).toBe('Acme Supplies GmbH');
  });

  test('a title with its type code is no party', () => {
    expect(titleOnly('Handelsrechnung (380)')).toBe(true);
    expect(titleOnly('TAX INVOICE')).toBe(true);
    expect(titleOnly('Acme Rechnungsservice GmbH')).toBe(false);
    expect(nameLike('Handelsrechnung (380)')).toBe(false);
  });

  test('a title after words of the dictionary that qualify it is a title; after a name it is not', () => {
    // A qualifier in a verb's past form ("SIMPLIFIED", of "simplify") is a word of the dictionary too.
    for (const title of ['OFFICIAL RECEIPT', 'Payment Receipt', 'SALES TAX INVOICE', 'SIMPLIFIED TAX INVOICE']) expect(titleOnly(title)).toBe(true);
    for (const name of ['Northwind Invoice', 'Corner Receipt Ltd', 'OFFICIAL']) expect(titleOnly(name)).toBe(false);
    expect(nameLike('OFFICIAL RECEIPT')).toBe(false);
  });

  test("a company's registered name runs to twelve words before its legal form; a sender's line with figures stays no name", () => {
    expect(nameLike('SYARIKAT PERNIAGAAN DAN PENGANGKUTAN CORNER MAJU JAYA SDN BHD')).toBe(true);
    expect(nameLike('CORNER BAKERY AND CAKE HOUSE OF THE OLD MARKET SQUARE')).toBe(false);
    expect(nameLike('Nordlicht Handel GmbH · Seestraße 5 · 20095 Hamburg · Germany')).toBe(false);
    // A shop's name of ordinary words stays a name: the lexicon's phrases lend it no label's words.
    expect(nameLike('BEST SHOP')).toBe(true);
  });

  test("an addressee's title alone on its line is no party; the name under it is", () => {
    for (const title of ['Herrn', 'Mr.', 'Mme', 'Sig.ra']) expect(nameLike(title)).toBe(false);
    expect(nameLike('Herrn Max Beispiel')).toBe(true);
    const { values } = documentFields(linesFromText('Rechnung\n\nHerrn\nJan Beispiel\nMusterweg 3\n12345 Beispielstadt'), [col('buyer', 'Buyer', 'string', { description: "the buyer's (customer's) name" })]);
    expect(values.buyer).toBe('Jan Beispiel');
  });

  test("a shop's notice or an exclamation is no name; a name with one such word is", () => {
    for (const notice of ['Goods Sold Are Not Returnable.', 'Bitte bewahren Sie den Bon auf, Umtausch nur mit Bon', 'REDEEM POINTS BEFORE EXPIRY!', 'Barang yang dibeli tidak boleh dikembalikan']) expect(nameLike(notice)).toBe(false);
    for (const name of ['You & Me Cafe', 'Only Natural GmbH', 'ACME TRADING']) expect(nameLike(name)).toBe(true);
  });

  test('an unsure speck at the top of a scan is no letterhead', () => {
    const scanned = (y: number, text: string, confidence: number): TextLine => ({ ...line(y, [[20, text]], 12), confidence });
    const { vendor } = partyCandidates(buildLayout([scanned(10, 'Wr', 0.2), scanned(40, 'ACME TRADING', 0.93), scanned(60, 'No 5, Jalan Besar', 0.9)]), [wantOf(SELLER[0]!)]);
    expect(vendor.map((c) => c.value)).not.toContain('Wr');
    expect(vendor.map((c) => c.value)).toContain('ACME TRADING');
  });
});

describe('tax qualifiers of amount labels', () => {
  test('"excl." makes a total label a poorer match, "incl." a net label', () => {
    const total = wantOf(col('total', 'Total', 'number'));
    const net = wantOf(col('net', 'Net amount', 'number'));
    expect(labelMatch(total, 'Total Sales (Excluding GST)')).toBeLessThan(labelMatch(total, 'Total Sales'));
    expect(labelMatch(net, 'Net total incl. VAT')).toBeLessThan(labelMatch(net, 'Net total'));
    expect(taxQualifier('Total (inkl. MwSt.)')).toBe('included');
    expect(taxQualifier('Total HT')).toBe('excluded');
    expect(taxQualifier('Grand total')).toBeNull();
  });
});

describe('document numbers', () => {
  test("a document's type code after its title is no number; the original invoice's number on a credit note is no number of its own", () => {
    const columns = [col('no', 'Invoice number', 'string')];
    expect(fieldsOfText('Gutschrift (381) Nr. GS-2024-17 vom 05.03.2024', columns)).toEqual({ no: 'GS-2024-17' });
    expect(fieldsOfText('Gutschrift (381) Nr. GS-2024-17 vom 05.03.2024\nUrsprungsbeleg-Nr.: R-2023-991', columns)).toEqual({ no: 'GS-2024-17' });
  });
});

describe('registration numbers', () => {
  test('a line holding only a registration number, perhaps after a short label', () => {
    for (const line of ['(123456-A)', '002043319-W', '(CO.REG :704427-T )', 'Roc: 1026984-X', 'Company No. 01234567']) expect(REGISTRATION_LINE.test(line)).toBe(true);
    for (const line of ['27, MARKET ROAD,', '54321 SPRINGFIELD', 'ACME SDN BHD (123456-A)']) expect(REGISTRATION_LINE.test(line)).toBe(false);
  });
});
