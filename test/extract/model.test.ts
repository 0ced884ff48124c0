import { describe, expect, test } from 'bun:test';
import type { Column } from '../../src/domain/columns';
import type { TextLine } from '../../src/extract/layout/page';
import { documentFields, linesFromText, ruleFields } from '../../src/extract/fields';
import { hasLegalForm, salutationOnly, sentFrom } from '../../src/extract/fields/parties';
import { decode, learnedFields, roleOptions, type Option, type RoleOptions } from '../../src/extract/model';
import { endsAddress, modelCandidates, recognisedAddress, roleOf, separatorLost, type Role } from '../../src/extract/model/features';
import { probabilities, train, type RoleWeights } from '../../src/extract/model/logit';
import { labelMatch } from '../../src/extract/fields/wants';

const col = (id: string, name: string, type: Column['type'], description?: string): Column => ({ id, name, type, ...(description ? { description } : {}) }) as Column;

const INVOICE_COLUMNS = [
  col('invoice_number', 'Invoice number', 'string'),
  col('issue_date', 'Issue date', 'date', 'the invoice date'),
  col('due_date', 'Due date', 'date'),
  col('seller', 'Seller', 'string', "the seller's (issuer's) name"),
  col('buyer', 'Buyer', 'string', "the buyer's (customer's) name"),
  col('net_amount', 'Net amount', 'number', 'invoice total without tax'),
  col('tax_amount', 'Tax amount', 'number', 'total tax (VAT) amount'),
  col('total_amount', 'Total amount', 'number', 'grand total including tax'),
  col('currency', 'Currency', 'string', 'ISO 4217 code of the invoice currency'),
];

/** The candidates of one column, without the rules' pick, in a small layout made from text, read as printed or as recognised from a scan. */
function readCandidatesOf(text: string, columnId: string, columns: Column[], scanned: boolean) {
  const lines = linesFromText(text).map((l) => (scanned ? { ...l, confidence: 0.9 } : l));
  const { layout, wants } = ruleFields(lines, columns);
  const want = wants.find((w) => w.column.id === columnId)!;
  return modelCandidates(roleOf(want)!, layout, want, wants, null, null);
}

/** The shop or seller names a small layout made from text offers. */
const sellerNames = (text: string) => candidatesOf(text, 'seller').map((c) => c.value);

/** The candidates of one column in a small layout made from text. */
function candidatesOf(text: string, columnId: string, columns = INVOICE_COLUMNS) {
  const { layout, wants, result } = ruleFields(linesFromText(text), columns);
  const want = wants.find((w) => w.column.id === columnId)!;
  const role = roleOf(want)!;
  const rule = result.get(columnId);
  return modelCandidates(role, layout, want, wants, rule ? { value: rule.value, score: rule.score } : null, null);
}

describe('roles of columns', () => {
  test('header columns get their roles, others none', () => {
    const { wants } = ruleFields(linesFromText('x'), [...INVOICE_COLUMNS, col('sku', 'SKU', 'string'), col('address', 'Address', 'string', "the issuer's address")]);
    expect(wants.map(roleOf)).toEqual(['number', 'issue_date', 'due_date', 'seller', 'buyer', 'net', 'tax', 'total', 'currency', null, 'address']);
  });
});

describe('candidate features', () => {
  test('an amount carries the label words beside it and above it, relative to the column', () => {
    const cands = candidatesOf('Net amount    100.00\nVAT 19 %      19.00\nTotal         119.00', 'total_amount');
    const total = cands.find((c) => c.value === '119.00')!;
    expect(total.features['label:concept']).toBeGreaterThan(0.8);
    expect(total.features['label:own']).toBeGreaterThan(0.8);
    expect(total.features['label:sibling']).toBe(0);
    // The tax names another amount than the column's.
    expect(cands.find((c) => c.value === '19.00')!.features['label:sibling']).toBeGreaterThan(0.5);
    expect(cands.find((c) => c.value === '19.00')!.features['label:percent']).toBe(1);
    expect(cands.find((c) => c.value === '19.00')!.features['amount:percent_line']).toBe(1);
    const above = candidatesOf('Grand total\n250.00', 'total_amount').find((c) => c.value === '250.00')!;
    expect(above.features['label:concept']).toBeGreaterThan(0.5);
    expect(above.features['label:above']).toBe(1);
  });

  test("a figure under another figure is no column's: a receipt's totals block printed in its items' column stays", () => {
    // Recognised lines, the figures in one column, each with its currency glued on ("RM26.50").
    const rows: Array<[string, string]> = [['FRIED RICE', 'RM13.50'], ['FISH HEAD', 'RM11.50'], ['GST 6%', 'RM1.50'], ['SUBTOTAL', 'RM26.50'], ['CASH', 'RM30.00'], ['CHANGE', 'RM3.50']];
    const lines: TextLine[] = [['CORNER CAFE', ''] as [string, string], ...rows].map(([label, figure], i) => {
      const segments = [{ text: label, x0: 0, x1: label.length * 5 }, ...(figure ? [{ text: figure, x0: 200, x1: 200 + figure.length * 5 }] : [])];
      return { page: 1, y: i * 20, size: 10, bold: false, segments, text: segments.map((x) => x.text).join(' '), confidence: 0.95 };
    });
    const columns = [col('total', 'Total', 'number', 'the amount paid')];
    const { layout, wants } = ruleFields(lines, columns);
    const values = modelCandidates('total', layout, wants[0]!, wants, null, null).map((c) => c.value);
    expect(values).toEqual(expect.arrayContaining(['RM26.50', 'RM30.00', 'RM1.50']));
  });

  test('arithmetic: the total is the sum of two amounts, net and tax parts of one', () => {
    const cands = candidatesOf('Subtotal   100.00\nTax   19.00\nTotal   119.00\nPaid   200.00', 'total_amount');
    const f = (v: string) => cands.find((c) => c.value === v)!.features;
    expect(f('119.00')['amount:sum_of_two']).toBe(1);
    expect(f('100.00')['amount:part_of_sum']).toBe(1);
    expect(f('200.00')['amount:max']).toBe(1);
    expect(f('200.00')['amount:sum_of_two']).toBe(0);
  });

  test("a date a word after the document's title and number is marked, in any of its languages; a date after another number is not", () => {
    const mark = (text: string, value: string) => candidatesOf(text, 'issue_date').find((c) => c.value === value)!.features['date:title_line'];
    expect(mark('Rechnung Nr. 2024-17 vom 05.03.2024\nZahlbar bis 31.03.2024', '2024-03-05')).toBe(1);
    expect(mark('Invoice no. 4711 dated 25/03/2024', '2024-03-25')).toBe(1);
    expect(mark('Rechnung Nr. 2024-17 vom 05.03.2024\nZahlbar bis 31.03.2024', '2024-03-31')).toBe(0);
    expect(mark('Order no. 4711 of 25/03/2024', '2024-03-25')).toBe(0);
    expect(mark('Invoice no. 4711, due 25/03/2024', '2024-03-25')).toBe(0);
  });

  test('a recognised date whose separator was lost is a candidate, marked; typed text is read as printed', () => {
    expect(separatorLost('Tax Invoice 2703/2018 No.:CS-1', 'dmy').map((d) => d.iso)).toEqual(['2018-03-27']);
    expect(separatorLost('01:34P 5680 05 02-18', 'dmy').map((d) => d.iso)).toEqual(['2018-02-05']);
    // No day 45, no month 13; a longer number is no date.
    expect(separatorLost('Ref 4513/2018 and 0513/2018 and 123112/2018', 'dmy')).toEqual([]);
    // A year of four figures is of this century or the last: an invoice number is no date of the year 729.
    expect(separatorLost('Invoice No. : CR 1806/0729', 'dmy')).toEqual([]);
    const text = 'Tax Invoice\n2703/2018 No.:CS-1\nTotal 5.00';
    const dates = (scanned: boolean) => readCandidatesOf(text, 'issue_date', INVOICE_COLUMNS, scanned);
    expect(dates(true).find((c) => c.value === '2018-03-27')!.features['date:repaired']).toBe(1);
    expect(dates(false).some((c) => c.value === '2018-03-27')).toBe(false);
  });

  test('a date after a due phrase is marked, the earliest and latest dates too', () => {
    const cands = candidatesOf('Invoice date: 01.03.2024\nPlease pay by 31.03.2024', 'due_date');
    const due = cands.find((c) => c.value === '2024-03-31')!;
    expect(due.features['date:due_phrase']).toBe(1);
    expect(due.features['date:latest']).toBe(1);
    const issue = cands.find((c) => c.value === '2024-03-01')!;
    expect(issue.features['date:earliest']).toBe(1);
    // For a due-date column the invoice date's label names a sibling.
    expect(issue.features['label:sibling']).toBeGreaterThan(0.8);
    expect(issue.features['label:concept']).toBe(0);
  });

  test('a party at the top with a legal form and an address under it', () => {
    const cands = candidatesOf('Acme Tools GmbH\nHauptstraße 5\n10115 Berlin\n\nInvoice 2024-17', 'seller');
    const acme = cands.find((c) => c.value === 'Acme Tools GmbH')!;
    expect(acme.features['party:legal_form']).toBe(1);
    expect(acme.features['party:address_below']).toBe(1);
    expect(acme.features['party:line_rank']).toBe(1);
  });

  test('a name wrapped before its legal form and registration number is a candidate without the number', () => {
    const values = sellerNames('ACME HARDWARE TRADING\nSDN BHD (123456-A)\n12 Market Road\n54321 Springfield');
    expect(values).toContain('ACME HARDWARE TRADING SDN BHD');
  });

  test('a name wrapped before its registration number is a candidate without it; a brand over a whole name is not joined', () => {
    const wrapped = sellerNames('ACME HARDWARE\nTRADING [123456-A]\n12 Market Road\n54321 Springfield');
    expect(wrapped).toContain('ACME HARDWARE TRADING');
    const brand = sellerNames('CORNER CAFE\nAcme Foods Sdn Bhd (123456-A)\n12 Market Road\n54321 Springfield');
    expect(brand).toContain('Acme Foods Sdn Bhd');
    expect(brand).not.toContain('CORNER CAFE Acme Foods Sdn Bhd');
  });

  test("a company's name before its telephone or tax number on its line, or in the shop's greeting, is a candidate alone", () => {
    const contact = sellerNames('ACME TRADING SDN BHD  Tel: 03-1234 5678\n12 Market Road\n54321 Springfield');
    expect(contact).toContain('ACME TRADING SDN BHD');
    const greeted = sellerNames('Welcome to Corner Mart!\n12 Market Road\n54321 Springfield');
    expect(greeted).toContain('Corner Mart');
    expect(greeted.some((v) => /welcome/i.test(v))).toBe(false);
  });

  test('a name after its registration number, labelled or bare, is a candidate alone; a town after its postal code is none', () => {
    const labelled = sellerNames('CO. REG: 123456-A ACME TRADING SDN BHD\n12 Market Road\n54321 Springfield');
    expect(labelled).toContain('ACME TRADING SDN BHD');
    const bare = sellerNames('AB0123456-X CORNER HARDWARE\n12 Market Road\n54321 Springfield');
    expect(bare).toContain('CORNER HARDWARE');
    const town = sellerNames('CORNER HARDWARE\n12 Market Road\n54321 SPRING FIELD');
    expect(town).not.toContain('SPRING FIELD');
  });

  test('a name wrapped before its legal form and an unbracketed registration number is joined without the number', () => {
    const values = sellerNames('ACME HOLDINGS\nBERHAD 123456-A\n12 Market Road\n54321 Springfield');
    expect(values).toContain('ACME HOLDINGS BERHAD');
    // A label before the number is no legal form: nothing is joined to the name.
    const labelled = sellerNames('ACME HOLDINGS\nCompany No: 123456-A\n12 Market Road');
    expect(labelled.some((v) => /company/i.test(v))).toBe(false);
  });

  test('a name with a date, time, telephone number or title run onto its line is a candidate alone', () => {
    for (const line of ['CORNER CAFE 18/03/2018', '18-03-2018 10:22 CORNER CAFE', 'CORNER CAFE 03-1234 5678', 'CORNER CAFE Tel 012-3456789', 'CORNER CAFE TAX INVOICE', 'OFFICIAL RECEIPT CORNER CAFE']) {
      expect(sellerNames(`${line}\n12 Market Road\n54321 Springfield`)).toContain('CORNER CAFE');
    }
    // A short number after a name is part of it, not a telephone's.
    expect(sellerNames('CORNER CAFE 2\n12 Market Road')).not.toContain('CORNER CAFE');
  });

  test('a shop named with a number before or after its words is a candidate whole; a street line is not', () => {
    expect(sellerNames('88 CORNER MART\n12 Market Road\n54321 Springfield')).toContain('88 CORNER MART');
    expect(sellerNames('KESTREL KOPITIAM 168\nNo 5, Jalan Mawar\n43000 Kajang')).toContain('KESTREL KOPITIAM 168');
    const street = sellerNames('CORNER MART\n12 Market Road\nJalan Mawar 5\n54321 Springfield');
    expect(street).not.toContain('12 Market Road');
    expect(street).not.toContain('Jalan Mawar 5');
    // Four figures are a postal code's or a year's, no shop's number.
    expect(sellerNames('CORNER MART\n5432 SPRINGFIELD')).not.toContain('5432 SPRINGFIELD');
  });

  test("a shop named after its estate, a name read with a comma after it, and a company printed at a long receipt's foot are candidates", () => {
    const estate = sellerNames('RESTORAN TAMAN JAYA\nNo 5, Jalan Mawar\n43000 Kajang');
    expect(estate).toContain('RESTORAN TAMAN JAYA');
    // An estate's or street's line, or one with a comma or figure, is an address's.
    const address = sellerNames('CORNER CAFE\nTAMAN JAYA\nJALAN MAWAR, TAMAN JAYA\n43000 Kajang');
    expect(address).not.toContain('TAMAN JAYA');
    expect(address).not.toContain('JALAN MAWAR, TAMAN JAYA');
    expect(sellerNames('CORNER TRADING,\n12 Market Road\n54321 Springfield')).toContain('CORNER TRADING');
    const items = Array.from({ length: 70 }, (_, k) => `Item ${k + 1}   1.00`);
    const long = sellerNames(['RECEIPT', ...items, 'Total 70.00', 'Thank you', 'Acme Stores Sdn Bhd'].join('\n'));
    expect(long).toContain('Acme Stores Sdn Bhd');
  });

  test("a shop's name before its tax or telephone number is a candidate alone without a legal form; a branch after a name too", () => {
    const taxed = sellerNames('CORNER GIFT SHOP GST REG NO: 001234567890\n12 Market Road\n54321 Springfield');
    expect(taxed).toContain('CORNER GIFT SHOP');
    // Without a number after it, a word of a notice before "invoice" is no name.
    const notice = sellerNames('Keep the invoice for returns\nCORNER GIFT SHOP\n12 Market Road');
    expect(notice).not.toContain('Keep the');
    const branch = sellerNames('CORNER MART (CITY CENTRE)\n12 Market Road\n54321 Springfield');
    expect(branch).toEqual(expect.arrayContaining(['CORNER MART (CITY CENTRE)', 'CORNER MART']));
    // A branch named by its estate reads as an address: the name alone is still a candidate.
    const estate = sellerNames('CORNER MART (TAMAN JAYA)\n12 Market Road\n54321 Springfield');
    expect(estate).toContain('CORNER MART');
    const dashed = sellerNames('CORNER MART - SPRINGFIELD\n12 Market Road\n54321 Springfield');
    expect(dashed).toContain('CORNER MART');
    // A short mark in brackets is part of a name ("(M)" for a country), not a branch.
    const marked = sellerNames('ACME (M)\n12 Market Road\n54321 Springfield');
    expect(marked).not.toContain('ACME');
  });

  test('a name wrapped onto three lines before its legal form is a candidate; three names stacked are not one', () => {
    const values = sellerNames('ACME\nHARDWARE TRADING\nSDN BHD (123456-A)\n12 Market Road\n54321 Springfield');
    expect(values).toContain('ACME HARDWARE TRADING SDN BHD');
    const stacked = sellerNames('CORNER CAFE\nCITY MALL\nAcme Foods Sdn Bhd\n12 Market Road');
    expect(stacked).not.toContain('CORNER CAFE CITY MALL Acme Foods Sdn Bhd');
  });

  test("a company's name after a label of its own is a candidate alone; a label before other words is not", () => {
    const values = sellerNames('CORNER CAFE\nOperated by: Acme Foods Sdn Bhd\nCashier: Mary Smith\n12 Market Road\n54321 Springfield');
    expect(values).toContain('Acme Foods Sdn Bhd');
    expect(values).not.toContain('Mary Smith');
  });

  test('an address is a run of lines ending in a postal line before the contacts', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Corner Store Ltd\n12 Market Street\nSpringfield 40170\nTel: 03-555 1234\nTotal 5.00', 'address', columns);
    const full = cands.find((c) => c.value === '12 Market Street Springfield 40170')!;
    expect(full.features['addr:postal_last']).toBe(1);
    expect(full.features['addr:contact_next']).toBe(1);
    expect(full.features['addr:legal_prev']).toBe(1);
    expect(full.features['addr:under_name']).toBe(1);
    // A run never takes the contacts, nor the name with its legal form.
    expect(cands.some((c) => /Tel|Ltd/.test(c.value))).toBe(false);
  });

  test("a Canadian town, province and postal code end an address as a postal line", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Bluegate Books\n455 Rue Sainte-Catherine O\nMontréal QC H3B 1A7\n(514) 555-0177\nTotal 5.00', 'address', columns);
    expect(cands.find((c) => c.value === '455 Rue Sainte-Catherine O Montréal QC H3B 1A7')!.features['addr:postal_last']).toBe(1);
  });

  test("a shop's number in a mall, its comma's space lost, is no amount; an Australian state and postcode a postal line", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Kestrel Cafe Pty Ltd\nShop 3,45 George Street\nSydney NSW 2000\nPh (02) 9555 0101\nTotal 5.00', 'address', columns);
    expect(cands.find((c) => c.value === 'Shop 3,45 George Street Sydney NSW 2000')!.features['addr:postal_last']).toBe(1);
  });

  test('a line ending in a telephone number ends an address; a ZIP+4 code does not', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const values = candidatesOf('Marrowby Market\n2200 W Lincoln Hwy\nMerrillville IN 46410-1234\nStore Mgr: J. Doe (219) 555-0120\nTotal 5.00', 'address', columns).map((c) => c.value);
    expect(values).toContain('2200 W Lincoln Hwy Merrillville IN 46410-1234');
    expect(values.some((v) => v.includes('555-0120'))).toBe(false);
  });

  test('a line with a time of day or a duration ends an address, though it ends in a figure', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Kestrel Parking Sdn Bhd\n12 Jalan Besar\n43000 Marrowby\nParking time 1:29\nType Rate A 1.00', 'address', columns);
    expect(cands.map((c) => c.value)).toContain('12 Jalan Besar 43000 Marrowby');
    expect(cands.some((c) => c.value.includes('1:29'))).toBe(false);
  });

  test('an address does not run on to a line far below it (past the items between them)', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Kestrel Market\nLinden Lane 5\n50667 Marrowby\n\n\n\n\nBon 8812', 'address', columns);
    expect(cands.map((c) => c.value)).toContain('Linden Lane 5 50667 Marrowby');
    expect(cands.some((c) => c.value.includes('Marrowby Bon'))).toBe(false);
    expect(cands.find((c) => c.value === 'Linden Lane 5 50667 Marrowby')!.features['addr:contact_next']).toBe(1);
  });

  test("a street's line is no label over the postcode's line under it, though its cells part the street's name from its number", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('Kestrel Bakery\nDorpsstraat        3\n1012 AB Marrowby\nTotal 5.00', 'address', columns);
    expect(cands.find((c) => c.value === '1012 AB Marrowby')!.features['label:own'] ?? 0).toBe(0);
  });

  test("a run holding a till's labelled fields is marked; a house number after a short label is no such field", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('CORNER STORE\nNo: 5, Market Road\n54321 Springfield\nTrans: 311140 Staff: 96728\nTotal 5.00', 'address', columns);
    expect(cands.find((c) => c.value === 'No: 5, Market Road 54321 Springfield')!.features['addr:labelled']).toBe(0);
    expect(cands.find((c) => c.value.includes('Trans: 311140'))!.features['addr:labelled']).toBe(1);
  });

  test("a recognised address's full stop after a whole word, a number or a code, more address after it, reads as the comma it lost; typed text as printed", () => {
    expect(recognisedAddress('12, JALAN MELATI 3, TAMAN SERI INDAH. 43000 KAJANG, SELANGOR.')).toBe('12, JALAN MELATI 3, TAMAN SERI INDAH, 43000 KAJANG, SELANGOR.');
    expect(recognisedAddress('LOT 12. JALAN MAWAR 3/2. BLOCK D1. TAMAN INDAH')).toBe('LOT 12, JALAN MAWAR 3/2, BLOCK D1, TAMAN INDAH');
    // A code ending in a letter is followed by a comma too; after a number or code, so is a stop before a word without a space.
    expect(recognisedAddress('No. 5, Jln. Mawar U3/G. Taman Indah')).toBe('No. 5, Jln. Mawar U3/G, Taman Indah');
    expect(recognisedAddress('JALAN MAWAR 1/9.SEKSYEN 9')).toBe('JALAN MAWAR 1/9,SEKSYEN 9');
    // Abbreviations, a decimal mark and a word's stop without a space after it stay.
    expect(recognisedAddress('No. 5, Jln. Mawar, KM 3.5 Taman Indah.Kajang')).toBe('No. 5, Jln. Mawar, KM 3.5 Taman Indah.Kajang');
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const text = 'CORNER STORE\n27, MARKET ROAD.\n54321 SPRINGFIELD\nTel: 03-555 1234\nTotal 5.00';
    const values = (scanned: boolean) => readCandidatesOf(text, 'address', columns, scanned).map((c) => c.value);
    expect(values(true)).toContain('27, MARKET ROAD, 54321 SPRINGFIELD');
    expect(values(false)).toContain('27, MARKET ROAD. 54321 SPRINGFIELD');
  });

  test("a figure glued after a letter sign the recogniser misread is an amount on a recognised page, marked; not on a text document's", () => {
    const columns = [col('company', 'Company', 'string'), col('total', 'Total', 'number')];
    const text = 'CORNER STORE\nSubtotal RM11.80\nRounding RM0.70\nTotal KM12.50\nPaid M20.00\nChange M7.50';
    const totals = (scanned: boolean) => readCandidatesOf(text, 'total', columns, scanned);
    const glued = totals(true).find((c) => c.amount === 12.5)!;
    expect(glued.features['amount:glued_sign']).toBe(1);
    expect(totals(true).find((c) => c.amount === 0.7)!.features['amount:glued_sign']).toBeUndefined();
    expect(totals(false).map((c) => c.amount)).not.toContain(12.5);
    const lines = linesFromText(text).map((l) => ({ ...l, confidence: 0.9 }));
    expect(String(documentFields(lines, columns).values.total)).toBe('12.50');
  });

  test('a value holding a word a second recogniser read otherwise is marked doubted', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address"), col('date', 'Date', 'date'), col('total', 'Total', 'number')];
    const text = 'CORNER STORE\n27, MARKET R0AD,\n54321 SPRINGFIELD\nDate 25/01/2018\nTotal 5.00';
    // The second line's misread word, the date, and nothing on the total's line.
    const doubts: Record<number, string[]> = { 1: ['R0AD,'], 3: ['25/01/2018'] };
    const lines = linesFromText(text).map((l, i) => ({ ...l, confidence: 0.9, ...(doubts[i] ? { doubted: doubts[i] } : {}) }));
    const { layout, wants } = ruleFields(lines, columns);
    const doubtedOf = (id: string) => {
      const want = wants.find((w) => w.column.id === id)!;
      return Object.fromEntries(modelCandidates(roleOf(want)!, layout, want, wants, null, null).map((c) => [c.value, c.features['read:doubted'] ?? 0]));
    };
    const addresses = doubtedOf('address');
    expect(addresses['27, MARKET R0AD, 54321 SPRINGFIELD']).toBe(1);
    expect(addresses['54321 SPRINGFIELD']).toBe(0);
    expect(doubtedOf('date')['2018-01-25']).toBe(1);
    expect(doubtedOf('total')['5.00']).toBe(0);
    expect(doubtedOf('company')['CORNER STORE']).toBe(0);
  });

  test("a name recognised twice, once with a glyph misread, is taken as the reading whose words are known; typed text as printed", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address"), col('total', 'Total', 'number')];
    const text = 'NORTH HARDWA E SUPPLY\n27, MARKET ROAD,\n54321 SPRINGFIELD\nTotal 5.00\nThank you\nNORTH HARDWARE SUPPLY';
    const namesOf = (lines: ReturnType<typeof linesFromText>) => {
      const { layout, wants } = ruleFields(lines, columns);
      const want = wants.find((w) => w.column.id === 'company')!;
      return modelCandidates(roleOf(want)!, layout, want, wants, null, null).filter((c) => c.line === 0).map((c) => c.value);
    };
    const recognised = namesOf(linesFromText(text).map((l) => ({ ...l, confidence: 0.9 })));
    expect(recognised).toContain('NORTH HARDWARE SUPPLY');
    expect(recognised).not.toContain('NORTH HARDWA E SUPPLY');
    expect(namesOf(linesFromText(text))).toContain('NORTH HARDWA E SUPPLY');
  });

  test('an address starts under the name and its registration number, and stops before labelled details', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const cands = candidatesOf('CORNER STORE\n(123456-A)\n27, MARKET ROAD,\n54321 SPRINGFIELD\nInvoice No # : 1052580\nTotal 5.00', 'address', columns);
    expect(cands.map((c) => c.value)).toEqual(['27, MARKET ROAD,', '27, MARKET ROAD, 54321 SPRINGFIELD', '54321 SPRINGFIELD']);
    const full = cands[1]!.features;
    expect(full['addr:under_name']).toBe(1);
    expect(full['addr:contact_next']).toBe(1);
    expect(full['addr:house_number']).toBe(1);
    expect(cands[0]!.features['addr:more_next']).toBe(1);
    expect(cands[2]!.features['addr:more_prev']).toBe(1);
  });

  test("an address runs to a line's telephone number, opens with a unit's label, and holds a lot's number with decimals", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const valuesOf = (text: string) => candidatesOf(text, 'address', columns).map((c) => c.value);
    const joined = candidatesOf('CORNER STORE\n27, MARKET ROAD,\n54321 SPRINGFIELD TEL: 03-555 1234\nTotal 5.00', 'address', columns);
    const full = joined.find((c) => c.value === '27, MARKET ROAD, 54321 SPRINGFIELD')!;
    expect(full.features['addr:contact_next']).toBe(1);
    expect(full.features['addr:more_next']).toBe(0);
    expect(valuesOf('CORNER STORE\nUnit: G-5, Ground Floor,\n54321 SPRINGFIELD\nTel: 03-555 1234')).toContain('Unit: G-5, Ground Floor, 54321 SPRINGFIELD');
    expect(valuesOf('CORNER STORE\nLOT 1.23, LEVEL 1,\n54321 SPRINGFIELD\nTel: 03-555 1234')).toContain('LOT 1.23, LEVEL 1, 54321 SPRINGFIELD');
    // A line that is all contact details adds nothing.
    expect(valuesOf('CORNER STORE\n27, MARKET ROAD,\nTel: 03-555 1234').some((v) => /Tel/.test(v))).toBe(false);
    expect(endsAddress('Unit: G-5, Ground Floor,')).toBe(false);
    expect(endsAddress('Unit price 12.50')).toBe(true);
  });

  test('an address after a label of its own is a candidate without the label, and runs on to the lines under it', () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    const one = candidatesOf('Corner Cafe\nAddress: 12 Main Street, Springfield\nTotal 5.00', 'address', columns);
    expect(one.find((c) => c.value === '12 Main Street, Springfield')!.features['label:own']).toBeGreaterThan(0);
    const two = candidatesOf('Corner Cafe\nAlamat: No 5, Jalan Besar,\n43000 Kajang, Selangor\nTel: 03-555 1234', 'address', columns);
    expect(two.map((c) => c.value)).toContain('No 5, Jalan Besar, 43000 Kajang, Selangor');
    // Another label under an address starts another field.
    const next = candidatesOf('Corner Cafe\n12 Main Street\nAddress: 3 Side Road, Springfield\nTel: 555-1234', 'address', columns);
    expect(next.map((c) => c.value)).not.toContain('12 Main Street 3 Side Road, Springfield');
  });

  test("a street's line above a town's labels nothing, though its words name an address", () => {
    const columns = [col('company', 'Company', 'string'), col('address', 'Address', 'string', "the issuer's address")];
    for (const [street, town] of [['12 Main Street', 'Springfield, IL 62701'], ['Hauptstraße 12', '10115 Berlin'], ['12 High Street', 'London SW1A 1AA']]) {
      const cands = candidatesOf(`Corner Cafe\n${street}\n${town}\nTel: 555-1234`, 'address', columns);
      expect(cands.find((c) => c.value === town)!.features['label:own'] ?? 0).toBe(0);
    }
    // A label above still labels: "Address" over the street.
    const labelled = candidatesOf('Corner Cafe\nAddress\n12 Main Street\nSpringfield, IL 62701\nTel: 555-1234', 'address', columns);
    expect(labelled.find((c) => c.value === '12 Main Street Springfield, IL 62701')!.features['label:own']).toBeGreaterThan(0);
  });

  test('a postal code before a town is no amount: the line stays in the address', () => {
    expect(endsAddress('54321 CHE TOWN.')).toBe(false);
    expect(endsAddress('Subtotal 12.50')).toBe(true);
    expect(endsAddress('Tel: 03-555 1234')).toBe(true);
    expect(endsAddress('(CO.REG :704427-T )')).toBe(true);
  });

  test('a line of nothing but a telephone number ends an address; a postal code or a house number does not', () => {
    expect(endsAddress('016-5498845,')).toBe(true);
    expect(endsAddress('+44 (0)20 7946 0958')).toBe(true);
    expect(endsAddress('40150 TOWN')).toBe(false);
    expect(endsAddress('1402-TMN SERI MAJU')).toBe(false);
  });

  test('a telephone number after a label of any word ends an address; a labelled house or postal number does not', () => {
    expect(endsAddress('Outlet:03-8062 6265 Careline:03-5638 1988')).toBe(true);
    expect(endsAddress('Hotline : (03) 1234 5678')).toBe(true);
    expect(endsAddress('H/P: 012-345 6789')).toBe(true);
    // A tax or registration number after its label without a colon, in the lexicon's languages.
    for (const line of ['P.IVA 01234567890', 'SIRET 123 456 789 00012', 'St.-Nr. 123/456/78901', 'NIF B12345678']) expect(endsAddress(line)).toBe(true);
    expect(endsAddress('Selangor Branch:1-300-88-1234')).toBe(true);
    expect(endsAddress('NO: B7, BLK C, JLN 4/2,')).toBe(false);
    // A house number after "No:" opens an address; after another word it is a document's number.
    expect(endsAddress('No:5, Jalan Besar,')).toBe(false);
    expect(endsAddress('Bill No:123')).toBe(true);
    expect(endsAddress('Lot: 12-3, Market Road 40150')).toBe(false);
  });

  test('currency: signs beside amounts, and the usual currency of the language as a weaker hint', () => {
    const { layout, wants, result } = ruleFields(linesFromText('Total   € 12,00'), INVOICE_COLUMNS);
    const want = wants.find((w) => w.column.id === 'currency')!;
    const withSign = modelCandidates('currency', layout, want, wants, result.get('currency') ?? null, 'de');
    expect(withSign.find((c) => c.value === 'EUR')!.features['cur:attached']).toBeGreaterThan(0);
    const plain = ruleFields(linesFromText('Gesamtbetrag   12,00'), INVOICE_COLUMNS);
    const fromLanguage = modelCandidates('currency', plain.layout, plain.wants.find((w) => w.column.id === 'currency')!, plain.wants, null, 'de');
    expect(fromLanguage.map((c) => [c.value, c.features['cur:language']])).toEqual([['EUR', 1]]);
  });

  test('a whole number that adds up with the money figures is an amount candidate; a count beside them is none', () => {
    const values = (text: string) => candidatesOf(text, 'net_amount').map((c) => c.value);
    expect(values('Net amount 886\nVAT 19% 168.34\nTotal 1054.34')).toContain('886');
    // A total typed whole, its net and tax with decimals.
    expect(candidatesOf('Net 840.50\nVAT 159.50\nTotal 1000', 'total_amount').map((c) => c.value)).toContain('1000');
    // Adding up by chance with small figures, or standing alone without a label, it is none.
    expect(values('Items 2\nPrice 1.50\nTotal 3.50')).not.toContain('2');
    expect(values('886\nVAT 19% 168.34\nTotal 1054.34')).not.toContain('886');
    expect(values('Order 1200\nVAT 19% 168.34\nTotal 1054.34')).not.toContain('1200');
  });

  test("currency: a postal line's shape names the country where no sign or country name does, the first postal line the issuer's", () => {
    const currencyOf = (text: string) => {
      const { layout, wants } = ruleFields(linesFromText(text), INVOICE_COLUMNS);
      return modelCandidates('currency', layout, wants.find((w) => w.column.id === 'currency')!, wants, null, 'en').map((c) => c.value);
    };
    const body = 'INVOICE\nInvoice # 2291\nTotal 681.98';
    expect(currencyOf(`Bluegate Supply Co.\n1200 Harbor Blvd\nOakland, CA 94607\n${body}`)).toEqual(['USD']);
    expect(currencyOf(`Erable Inc.\n455 Main Street\nMontreal QC H3B 1A7\n${body}`)).toEqual(['CAD']);
    expect(currencyOf(`Wattle Pty Ltd\n12 George St\nSydney NSW 2000\n${body}`)).toEqual(['AUD']);
    expect(currencyOf(`Kestrel Parts Ltd\n14 Mill Lane\nLeeds LS1 4AB\nBill to: Marlow LLC, Portland, OR 97204\n${body}`)).toEqual(['GBP']);
    // A number of five figures after two capitals is no ZIP code without its town before it.
    expect(currencyOf(`Kestrel Parts\nRef AB 12345\n${body}`)).toEqual([]);
  });
});

const model = (threshold = 0): RoleWeights => ({ names: [], mean: [], scale: [], weights: [], none: -5, threshold, presence: 1 });
const role = (role: Role, id: string, options: Array<Partial<Option> & { value: string; p: number }>, threshold = 0): RoleOptions => ({
  want: { column: col(id, id, 'number') } as RoleOptions['want'],
  role,
  options: options.map((o, i) => ({ line: i, lines: [o.line ?? i], ...o })),
  none: 0.001,
  model: model(threshold),
});

describe('joint decoding', () => {
  test('net + tax = total wins over the likeliest amounts one by one', () => {
    const chosen = decode([
      role('net', 'net', [{ value: '90.00', amount: 90, p: 0.5 }, { value: '100.00', amount: 100, p: 0.45 }]),
      role('tax', 'tax', [{ value: '19.00', amount: 19, p: 0.9 }]),
      role('total', 'total', [{ value: '119.00', amount: 119, p: 0.9 }]),
    ]);
    expect(chosen.get('net')?.value).toBe('100.00');
  });

  test('a net or tax above the total is not taken', () => {
    const chosen = decode([role('tax', 'tax', [{ value: '500.00', amount: 500, p: 0.6 }, { value: '19.00', amount: 19, p: 0.35 }]), role('total', 'total', [{ value: '119.00', amount: 119, p: 0.9 }])]);
    expect(chosen.get('tax')?.value).toBe('19.00');
  });

  test("a credit note's net, unsigned tax and negative total are written together, the tax with the total's sign", () => {
    const chosen = decode([
      role('net', 'net', [{ value: '-7,67', amount: -7.67, p: 0.9 }]),
      role('tax', 'tax', [{ value: '1,12', amount: 1.12, p: 0.9 }]),
      role('total', 'total', [{ value: '-8,79', amount: -8.79, p: 0.9 }]),
    ]);
    expect([chosen.get('net')?.value, chosen.get('tax')?.value, chosen.get('total')?.value]).toEqual(['-7,67', '-1,12', '-8,79']);
    // A part larger than a credit note's total is still no part of it.
    const over = decode([role('tax', 'tax', [{ value: '20,00', amount: 20, p: 0.6 }, { value: '1,12', amount: 1.12, p: 0.35 }]), role('total', 'total', [{ value: '-8,79', amount: -8.79, p: 0.9 }])]);
    expect(over.get('tax')?.value).toBe('1,12');
  });

  test('an amount below its threshold is written only as part of three that add up', () => {
    const amounts = (tax: Array<{ value: string; amount: number; p: number }>) =>
      decode([
        role('net', 'net', [{ value: '100.00', amount: 100, p: 0.9 }], 0.3),
        role('tax', 'tax', tax, 0.3),
        role('total', 'total', [{ value: '119.00', amount: 119, p: 0.9 }], 0.3),
      ]).get('tax')?.value ?? null;
    expect(amounts([{ value: '7.00', amount: 7, p: 0.5 }, { value: '19.00', amount: 19, p: 0.02 }])).toBe('19.00');
    // Alone, or not adding up, it stays below its threshold: the field is left empty.
    expect(amounts([{ value: '7.00', amount: 7, p: 0.1 }, { value: '18.00', amount: 18, p: 0.02 }])).toBeNull();
    const zeros = decode([role('net', 'net', [{ value: '0.00', amount: 0, p: 0.02 }], 0.3), role('tax', 'tax', [{ value: '0.00', amount: 0, p: 0.02 }], 0.3), role('total', 'total', [{ value: '0.00', amount: 0, p: 0.02 }], 0.3)]);
    expect([...zeros.values()]).toEqual([null, null, null]);
  });

  test('the due date is never before the issue date', () => {
    const chosen = decode([
      role('issue_date', 'issue', [{ value: '2024-03-10', p: 0.6 }, { value: '2024-03-01', p: 0.35 }]),
      role('due_date', 'due', [{ value: '2024-03-05', p: 0.9 }]),
    ]);
    expect([chosen.get('issue')?.value, chosen.get('due')?.value]).toEqual(['2024-03-01', '2024-03-05']);
  });

  test('one printed date is not both the issue and the due date; the same date printed on two lines is', () => {
    const once = decode([role('issue_date', 'issue', [{ value: '2024-03-01', p: 0.9, line: 1 }]), role('due_date', 'due', [{ value: '2024-03-01', p: 0.6, line: 1 }])]);
    expect([once.get('issue')?.value, once.get('due')?.value ?? null]).toEqual(['2024-03-01', null]);
    // Due on its day of issue: the date after the issue label and again after the due phrase further down.
    const twice = decode([
      role('issue_date', 'issue', [{ value: '2024-03-01', p: 0.9, line: 1, lines: [1, 9] }]),
      role('due_date', 'due', [{ value: '2024-03-01', p: 0.6, line: 1, lines: [1, 9] }]),
    ]);
    expect([twice.get('issue')?.value, twice.get('due')?.value]).toEqual(['2024-03-01', '2024-03-01']);
    const fields = documentFields(linesFromText('Invoice no. 17\nInvoice date: 01.03.2024\nDue date: 01.03.2024\nTotal   119,00 EUR'), INVOICE_COLUMNS);
    expect([fields.values.issue_date, fields.values.due_date]).toEqual(['2024-03-01', '2024-03-01']);
  });

  test('seller and buyer are different parties', () => {
    const chosen = decode([role('seller', 'seller', [{ value: 'Acme GmbH', p: 0.7 }, { value: 'Other AG', p: 0.2 }]), role('buyer', 'buyer', [{ value: 'ACME GmbH', p: 0.9 }, { value: 'Kunde KG', p: 0.05 }])]);
    expect(chosen.get('buyer')?.value).toBe('ACME GmbH');
    expect(chosen.get('seller')?.value).toBe('Other AG');
  });

  test("an address that opens with the seller's name gives way to the next", () => {
    const seller = role('seller', 'seller', [{ value: '88 CORNER MART', p: 0.9, line: 0 }]);
    const options = [
      { value: '88 CORNER MART 12 Market Road 54321 Springfield', p: 0.6, line: 0 },
      { value: '12 Market Road 54321 Springfield', p: 0.3, line: 1 },
    ];
    expect(decode([seller, role('address', 'address', options)]).get('address')?.value).toBe('12 Market Road 54321 Springfield');
    // Without the seller written, the likeliest address stands.
    expect(decode([role('address', 'address', options)]).get('address')?.value).toBe('88 CORNER MART 12 Market Road 54321 Springfield');
    // Chosen together: a street's line taken for the seller gives way to the name, the address staying whole.
    const chosen = decode([
      role('seller', 'seller', [{ value: '12 Kestrel Close', p: 0.5, line: 1 }, { value: 'CORNER MART', p: 0.45, line: 0 }]),
      role('address', 'address', [{ value: '12 Kestrel Close 54321 Springfield', p: 0.9, line: 1 }, { value: '54321 Springfield', p: 0.05, line: 2 }]),
    ]);
    expect([chosen.get('seller')?.value, chosen.get('address')?.value]).toEqual(['CORNER MART', '12 Kestrel Close 54321 Springfield']);
  });

  test('a value below its role threshold is left empty', () => {
    const chosen = decode([role('total', 'total', [{ value: '5.00', amount: 5, p: 0.3 }], 0.5)]);
    expect(chosen.get('total')).toBeNull();
  });
});

describe('the conditional logit', () => {
  // Documents whose right candidate has feature "a" high; "b" is noise.
  const groups = Array.from({ length: 30 }, (_, d) => ({
    x: [0, 1, 2].map((k) => ({ a: k === d % 3 ? 1 : 0, b: ((d * 7 + k * 3) % 5) / 5 })),
    right: d % 10 === 9 ? [] : [d % 3],
  }));

  test('training is deterministic and learns the telling feature', () => {
    const one = train(groups);
    expect(train(groups)).toEqual(one);
    const weights = { ...one, threshold: 0, presence: 0.9 };
    expect(one.weights[one.names.indexOf('a')]!).toBeGreaterThan(Math.abs(one.weights[one.names.indexOf('b')]!));
    const { p, none } = probabilities(weights, [{ a: 0, b: 0.2 }, { a: 1, b: 0.2 }]);
    expect(p[1]!).toBeGreaterThan(0.5);
    expect(p[0]! + p[1]! + none).toBeCloseTo(1, 9);
  });

  test("a document's weight scales its pull on the fit", () => {
    // A document whose right candidate has the noise feature "b" and not "a".
    const odd = { x: [{ a: 1, b: 0 }, { a: 0, b: 1 }], right: [1] };
    const b = (weight: number) => {
      const m = train([...groups, { ...odd, weight }]);
      return m.weights[m.names.indexOf('b')]!;
    };
    expect(b(0)).toBeLessThan(b(1));
    expect(b(1)).toBeLessThan(b(4));
  });

  test('a feature left out gets no weight and does not move the probabilities', () => {
    const without = train(groups, { leaveOut: ['a'] });
    expect(without.names).toEqual(['b']);
    const weights = { ...without, threshold: 0, presence: 0.9 };
    const { p } = probabilities(weights, [{ a: 0, b: 0.2 }, { a: 1, b: 0.2 }]);
    expect(p[0]!).toBeCloseTo(p[1]!, 12);
  });
});

describe('learned fields in a document', () => {
  test('one name printed two ways is one option, written the likeliest way', () => {
    const { layout, wants, result } = ruleFields(linesFromText('ACME TRADING SDN. BHD.\n12 Market Road\n54321 Springfield\nThank you\nAcme Trading Sdn Bhd'), INVOICE_COLUMNS);
    // A model that prefers lines further down: the second way is the likelier.
    const lower: RoleWeights = { names: ['party:line_rank'], mean: [0], scale: [1], weights: [-5], none: -10, threshold: 0, presence: 1 };
    const seller = roleOptions(layout, wants, result, { seller: lower }).find((r) => r.role === 'seller')!;
    const both = seller.options.filter((o) => /^acme trading sdn\.? bhd\.?$/i.test(o.value));
    expect(both).toHaveLength(1);
    expect(both[0]!.value).toBe('Acme Trading Sdn Bhd');
    expect(both[0]!.lines).toHaveLength(2);
  });

  test('a small invoice: values, probabilities and a row confidence', () => {
    const text = [
      'Acme Tools GmbH',
      'Hauptstraße 5, 10115 Berlin',
      '',
      'Invoice no.: 2024-017',
      'Invoice date: 01.03.2024',
      'Bill to: Kunde KG',
      '',
      'Net amount    100,00 EUR',
      'VAT 19 %       19,00 EUR',
      'Total         119,00 EUR',
      'Please pay by 31.03.2024',
    ].join('\n');
    const fields = documentFields(linesFromText(text), INVOICE_COLUMNS);
    expect(fields.values).toMatchObject({ issue_date: '2024-03-01', due_date: '2024-03-31', currency: 'EUR' });
    expect(String(fields.values.total_amount)).toContain('119,00');
    for (const id of Object.keys(fields.values)) expect(fields.scores[id]!).toBeGreaterThan(0);
    expect(fields.confidence!).toBeGreaterThan(0.3);
    expect(fields.confidence!).toBeLessThanOrEqual(1);
  });

  test('an empty field that documents usually have lowers the confidence', () => {
    const lines = linesFromText('Total   119,00 EUR');
    const { layout, wants, result } = ruleFields(lines, INVOICE_COLUMNS);
    const learned = learnedFields(layout, wants, result);
    expect(learned.get('due_date')!.value).toBeNull();
    const all = roleOptions(layout, wants, result);
    expect(all.length).toBe(INVOICE_COLUMNS.length);
    const fields = documentFields(lines, INVOICE_COLUMNS);
    expect(fields.confidence!).toBeLessThan(0.5);
  });
});

describe('receipt features', () => {
  const RECEIPT_COLUMNS = [col('company', 'Company', 'string', 'the shop name'), col('total', 'Total', 'number', 'the total paid')];

  test('a total says whether it includes the tax', () => {
    const cands = candidatesOf('Total Sales (Excluding GST)    12.00\nGST    0.72\nTotal Sales (Inclusive of GST)    12.72', 'total', RECEIPT_COLUMNS);
    const at = (v: string) => cands.find((c) => c.value === v)!.features;
    expect(at('12.00')['label:tax_excluded']).toBe(1);
    expect(at('12.72')['label:tax_included']).toBe(1);
    expect(at('12.72')['label:tax_excluded']).toBeUndefined();
  });

  test('the cash handed over less the change is the total', () => {
    const cands = candidatesOf('TOTAL    12.72\nCASH    20.00\nCHANGE    7.28', 'total', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === '12.72')!.features['amount:paid_less_change']).toBe(1);
    expect(cands.find((c) => c.value === '20.00')!.features['amount:paid_less_change']).toBeUndefined();
  });

  test('an amount over the money handed over, where change was given, is ruled out; the others are weighed without it', () => {
    const { layout, wants, result } = ruleFields(linesFromText('TOTAL SALES    122.91\nCASH    50.00\nCHANGE    27.10\n22.90'), RECEIPT_COLUMNS);
    const total = roleOptions(layout, wants, result).find((r) => r.role === 'total')!;
    expect(total.candidates.find((c) => c.value === '122.91')!.ruledOut).toBe(true);
    expect(total.options.map((o) => o.value)).not.toContain('122.91');
    expect(total.none + total.options.reduce((sum, o) => sum + o.p, 0)).toBeCloseTo(1, 6);
    // The document's fields say so, for a learned layout not to bring it back.
    expect(documentFields(linesFromText('TOTAL SALES    122.91\nCASH    50.00\nCHANGE    27.10\n22.90'), RECEIPT_COLUMNS).ruledOut).toEqual({ total: ['122.91'] });
    // Without change given back, nothing is ruled out (a card paying part).
    const split = ruleFields(linesFromText('TOTAL    122.91\nCASH    50.00\nVISA    72.91'), RECEIPT_COLUMNS);
    const card = roleOptions(split.layout, split.wants, split.result).find((r) => r.role === 'total')!;
    expect(card.candidates.some((c) => c.ruledOut)).toBe(false);
    expect(card.options.map((o) => o.value)).toContain('122.91');
    // A deposit with a rounding under it is no cash handed over with its change.
    const deposit = ruleFields(linesFromText('Deposit    100.00\nRounding    0.02\nTotal    500.00'), RECEIPT_COLUMNS);
    expect(roleOptions(deposit.layout, deposit.wants, deposit.result).find((r) => r.role === 'total')!.options.map((o) => o.value)).toContain('500.00');
  });

  test("money handed over labelled on the line above its figure (a till's narrow paper) counts as a payment", () => {
    const cands = candidatesOf('NET TOTAL    67.85\nCash\n100.00\nCHANGE    32.15', 'total', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === '100.00')!.features['label:tendered']).toBe(1);
    expect(cands.find((c) => c.value === '67.85')!.features['amount:paid_less_change']).toBe(1);
    expect(cands.find((c) => c.value === '67.85')!.features['label:tendered']).toBeUndefined();
  });

  test('cash and change count in the arithmetic, the money handed over marked as such', () => {
    const cands = candidatesOf('Total    RM 28.00\nCASH    RM 40.00\nCHANGE    RM 12.00', 'total', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.amount === 40)!.features['label:tendered']).toBe(1);
    expect(cands.find((c) => c.amount === 28)!.features['amount:paid_less_change']).toBe(1);
  });

  test('the tax arithmetic tells the gross from the net of a tax summary', () => {
    const text = ['Sub Total    20.00', 'GST 6%    1.20', 'Total    21.20', 'Tax summary    Amount    Tax', 'SR    20.00    1.20'].join('\n');
    const cands = candidatesOf(text, 'total', RECEIPT_COLUMNS);
    const at = (v: string) => cands.find((c) => c.value === v)!.features;
    expect(at('21.20')['amount:gross_of_tax']).toBe(1);
    expect(at('21.20')['amount:net_of_tax']).toBeUndefined();
    expect(at('20.00')['amount:net_of_tax']).toBe(1);
    expect(at('20.00')['amount:gross_of_tax']).toBeUndefined();
    // Within a cash rounding the sum still counts, less surely.
    const rounded = candidatesOf('Net    96.00\nGST    5.76\nTotal    101.80', 'total', RECEIPT_COLUMNS);
    expect(rounded.find((c) => c.value === '101.80')!.features['amount:gross_of_tax']).toBe(0.5);
  });

  test('a tax printed with its rate tells the gross that includes it and the net it was computed on', () => {
    const cands = candidatesOf('Total    28.00\nCash    30.00\nGST 6% included    1.58', 'total', RECEIPT_COLUMNS);
    const at = (v: string) => cands.find((c) => c.value === v)!.features;
    expect(at('28.00')['amount:includes_rated_tax']).toBe(1);
    expect(at('30.00')['amount:includes_rated_tax']).toBeUndefined();
    expect(at('1.58')['amount:rated_tax']).toBe(1);
    expect(at('28.00')['amount:rated_tax']).toBeUndefined();
    const net = candidatesOf('Net    20.00\nVAT 6%    1.20\nTotal    21.20', 'total', RECEIPT_COLUMNS);
    expect(net.find((c) => c.value === '20.00')!.features['amount:taxed_at_rate']).toBe(1);
    expect(net.find((c) => c.value === '21.20')!.features['amount:taxed_at_rate']).toBeUndefined();
    expect(net.find((c) => c.value === '21.20')!.features['amount:includes_rated_tax']).toBe(1);
  });

  test('a total rounded to the cash step, and the exact one it rounds', () => {
    const cands = candidatesOf('Total    65.53\nRounding    0.02\nCard    65.55', 'total', RECEIPT_COLUMNS);
    const at = (v: string) => cands.find((c) => c.value === v)!.features;
    expect(at('65.55')['amount:rounds_labelled']).toBe(1);
    expect(at('65.53')['amount:unrounded']).toBe(1);
    expect(at('65.53')['amount:rounds_labelled']).toBeUndefined();
  });

  test("the items' column header above the first item is no label of the total", () => {
    const cands = candidatesOf('Qty    Item    Total\n1    Fried rice    14.95\nTotal    22.50', 'total', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === '14.95')!.features['label:items_header']).toBe(1);
    expect(cands.find((c) => c.value === '22.50')!.features['label:items_header']).toBeUndefined();
  });

  test("a greeting or a notice is no shop's name, in any of the lexicon's languages", () => {
    const values = candidatesOf('ACME STORES\n12 Main Road\nTotal    5.00\nThank You. Please come again\nVielen Dank für Ihren Einkauf\nREDEEM YOUR POINTS BEFORE EXPIRY!', 'company', RECEIPT_COLUMNS).map((c) => c.value);
    expect(values).toContain('ACME STORES');
    expect(values.filter((v) => /thank|dank|redeem/i.test(v))).toEqual([]);
  });

  test('a line of counts under the items is no column header', () => {
    const cands = candidatesOf('Item    Price\nFried rice    14.95\nItems: 2    Qty: 2\nTotal    22.50', 'total', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === '22.50')!.features['label:items_header']).toBeUndefined();
  });

  test("the rules' amount is the figure on their line, not the same value printed elsewhere", () => {
    const text = 'Item    Qty    Price\nKey    1    5.00\nTotal    5.00';
    const { layout, wants, result } = ruleFields(linesFromText(text), RECEIPT_COLUMNS);
    const want = wants.find((w) => w.column.id === 'total')!;
    const cands = modelCandidates('total', layout, want, wants, { value: '5.00', score: 0.8, line: 2 }, null);
    expect(cands.filter((c) => c.features['rule:pick']).map((c) => c.line)).toEqual([2]);
    expect(result.get('total')?.line).toBe(2);
  });

  test('a currency mark before the figure is no label: the label is further left', () => {
    const cands = candidatesOf('Total incl. tax    RM 28.00', 'total', RECEIPT_COLUMNS);
    expect(cands[0]!.features['label:own']).toBeGreaterThan(0.5);
  });

  test('a figure whose currency mark stands with the label is a candidate, though the labels above line up as a column', () => {
    const text = 'Total Sales RM    13.58\nRounding Adjustment RM    0.02\nTotal Rounded RM    13.60\nCash RM    20.00\nChange RM    6.40';
    const cands = candidatesOf(text, 'total', RECEIPT_COLUMNS);
    expect(cands.map((c) => c.amount)).toEqual([13.58, 0.02, 13.6, 20, 6.4]);
    expect(cands.find((c) => c.amount === 13.6)!.features['amount:paid_less_change']).toBe(1);
  });

  test("a figure under a table's figure, beside a description, is the table's; one beside a label is not", () => {
    const text = 'Description    Price\nWidget         10.00\nGadget         20.00\nTotal          30.00';
    expect(candidatesOf(text, 'total', RECEIPT_COLUMNS).map((c) => c.amount)).toEqual([30]);
  });

  test('a label is read past a colon set apart from it', () => {
    const cands = candidatesOf('Total Sales    :    12.72', 'total', RECEIPT_COLUMNS);
    expect(cands[0]!.features['label:own']).toBeGreaterThan(0.5);
  });

  test('a speck read as two letters is a short name; a legal form on the next line joins the name', () => {
    const cands = candidatesOf('Wr\nACME TRADING\nSDN BHD\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === 'Wr')!.features['party:short']).toBe(1);
    expect(cands.find((c) => c.value === 'ACME TRADING')!.features['party:short']).toBe(0);
    expect(cands.some((c) => c.value === 'ACME TRADING SDN BHD')).toBe(true);
  });

  test("the legal forms of mutual insurers and cooperatives mark a name, and end one cut before them", () => {
    const cands = candidatesOf('Nordheimer\nVersicherungsverein a.G.\nHafenweg 3\nGesamtbetrag 5,00', 'company', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === 'Versicherungsverein a.G.')!.features['party:legal_form']).toBe(1);
    expect(cands.find((c) => c.value === 'Nordheimer')!.features['party:cut']).toBe(1);
    expect(candidatesOf('Bäckerei Sonnental eG\nHafenweg 3', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'Bäckerei Sonnental eG')!.features['party:legal_form']).toBe(1);
  });

  test('a name printed twice, a logo over its lettering, is no name wrapped onto two lines', () => {
    const twice = candidatesOf('Northwind\nNorthwind\n12 Harbour Street\nTotal 5.00', 'company', RECEIPT_COLUMNS);
    expect(twice.some((c) => c.value === 'Northwind Northwind')).toBe(false);
    expect(twice.some((c) => c.value === 'Northwind')).toBe(true);
    const wrapped = candidatesOf('Northwind\nTrading\n12 Harbour Street\nTotal 5.00', 'company', RECEIPT_COLUMNS);
    expect(wrapped.some((c) => c.value === 'Northwind Trading')).toBe(true);
  });

  test('a name printed in pieces: the pieces are pieces, the line keeps the rules\' verdict', () => {
    const cands = candidatesOf('CORNER    HARDWARE STORE\n27, Market Road\nTotal 5.00', 'company', RECEIPT_COLUMNS);
    const piece = cands.find((c) => c.value === 'CORNER')!.features;
    const whole = cands.find((c) => c.value === 'CORNER HARDWARE STORE')!.features;
    expect(piece['party:piece']).toBe(1);
    expect(whole['party:piece']).toBe(0);
    expect(whole['party:rule_vendor']).toBeGreaterThanOrEqual(piece['party:rule_vendor']!);
    expect(whole['party:rule_vendor']).toBeGreaterThan(0);
  });

  test("the document's title above a shop's name does not count as a line before the name", () => {
    const name = candidatesOf('TAX INVOICE\nCORNER STORE\n27, Market Road\nTotal 5.00', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'CORNER STORE')!.features;
    expect(name['party:wordy_rank']).toBe(1);
    expect(name['party:line_rank']).toBe(1);
    const under = candidatesOf('SPRING SALE\nCORNER STORE\n27, Market Road\nTotal 5.00', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'CORNER STORE')!.features;
    expect(under['party:wordy_rank']).toBe(0.5);
  });

  test('a legal form whose words a full stop alone sets apart, or that ends in one, is a legal form', () => {
    for (const name of ['CORNER TRADING SDN.BHD', 'Corner Trading Pte.Ltd', 'CORNER TRADING SDN BHD.']) {
      const cands = candidatesOf(`${name}\nNo 5, Jalan Besar`, 'company', RECEIPT_COLUMNS);
      expect(cands.find((c) => c.value === name)!.features['party:legal_form']).toBe(1);
    }
    // A word that merely ends in the letters of a form is none, nor a short form's letters abbreviating a word.
    expect(candidatesOf('CORNER BAKERY.BHDX\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'CORNER BAKERY.BHDX')!.features['party:legal_form']).toBe(0);
    expect(hasLegalForm('CORNER STORE KG. BARU')).toBe(false);
  });

  test('a name without its registration number; a name cut short before its legal form or after a connector', () => {
    const cands = candidatesOf('ACME TRADING SDN BHD (123456-A)\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    const bare = cands.find((c) => c.value === 'ACME TRADING SDN BHD')!.features;
    expect(bare['party:without_id']).toBe(1);
    expect(bare['party:rule_vendor']).toBeGreaterThan(0);
    expect(cands.find((c) => c.value === 'ACME TRADING SDN BHD (123456-A)')!.features['party:id_like']).toBe(1);
    // The label of a registration number, without its number, is no name.
    const labelled = candidatesOf('CORNER STORE\nCO.NO. (123456-A)\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(labelled.map((c) => c.value)).not.toContain('CO.NO.');
    const wrapped = candidatesOf('ACME TRADING\nSDN BHD\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(wrapped.find((c) => c.value === 'ACME TRADING')!.features['party:cut']).toBe(1);
    expect(wrapped.find((c) => c.value === 'ACME TRADING SDN BHD')!.features['party:cut']).toBe(0);
    const dangling = candidatesOf('CORNER PAINTS &\nTOOLS\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(dangling.find((c) => c.value === 'CORNER PAINTS &')!.features['party:cut']).toBe(1);
    expect(dangling.find((c) => c.value === 'CORNER PAINTS & TOOLS')!.features['party:cut']).toBe(0);
  });

  test('a name before its registration number, labelled or bare, or before a bracketed one and a tax number, is a candidate without them', () => {
    for (const line of ['ACME TRADING SDN BHD ROC NO. 123456-A', 'ACME TRADING SDN BHD CO NO: 123456-A', 'ACME TRADING SDN BHD 123456-A', 'ACME TRADING SDN BHD (123456-A) GST: 001234567890']) {
      const cands = candidatesOf(`${line}\nNo 5, Jalan Besar`, 'company', RECEIPT_COLUMNS);
      expect(cands.find((c) => c.value === 'ACME TRADING SDN BHD')?.features['party:without_id']).toBe(1);
    }
    // Without a legal form, a number of a register's shape (figures, a hyphen, a check letter) still follows a name.
    const registered = candidatesOf('CORNER HARDWARE 001234567-K\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(registered.find((c) => c.value === 'CORNER HARDWARE')?.features['party:without_id']).toBe(1);
    // Any other number after words is part of what the line says; a label before the number is no name.
    const plain = candidatesOf('CORNER STORE 123456\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS);
    expect(plain.map((c) => c.value)).not.toContain('CORNER STORE');
    expect(candidatesOf('CORNER STORE\nCO.NO. (123456-A)\nNo 5, Jalan Besar', 'company', RECEIPT_COLUMNS).map((c) => c.value)).not.toContain('CO.NO.');
  });

  test("a shop's name without the stars around it or the store's number after it; after a label naming a shop", () => {
    const valuesOf = (text: string) => candidatesOf(`${text}\n12 Main Street\nSpringfield, IL 62701`, 'company', RECEIPT_COLUMNS).map((c) => c.value);
    expect(valuesOf('*** CORNER CAFE ***')).toContain('CORNER CAFE');
    expect(valuesOf('~ Corner Cafe ~')).toContain('Corner Cafe');
    expect(valuesOf('CORNER CAFE #0123')).toContain('CORNER CAFE');
    expect(valuesOf('RECEIPT\nShop Name: Corner Cafe')).toContain('Corner Cafe');
  });

  test("a labelled party's line with its address after the name gives the name alone", () => {
    const cands = candidatesOf('Invoice\nFrom: Greenleaf Consulting Ltd, 8 Mill Lane, Leeds LS1 4AB\nTo: Northern Widgets plc', 'seller');
    expect(cands.map((c) => c.value)).toContain('Greenleaf Consulting Ltd');
  });

  test('a line under an address is not where a name is printed', () => {
    const cands = candidatesOf('ACME TRADING\nNo 5, Jalan Besar\nSpringfield', 'company', RECEIPT_COLUMNS);
    expect(cands.find((c) => c.value === 'Springfield')!.features['party:after_address']).toBe(1);
    expect(cands.find((c) => c.value === 'ACME TRADING')!.features['party:after_address']).toBe(0);
  });
});

describe('documents of other countries and shapes', () => {
  const RECEIPT_COLUMNS = [col('company', 'Company', 'string', 'the shop name'), col('address', 'Address', 'string', "the shop's address"), col('total', 'Total', 'number', 'the total paid')];
  const valuesOf = (text: string, column: string, columns = RECEIPT_COLUMNS) => candidatesOf(text, column, columns).map((c) => c.value);

  test('where no figure has decimals, figures grouped in thousands are money; beside decimals they are counts', () => {
    expect(valuesOf('TOKO MAJU\nROTI 1 15,000 15,000\nTOTAL : 22,000\nTUNAI : 50,000\nKEMBALI : 28,000', 'total')).toContain('22,000');
    expect(valuesOf('CORNER SHOP\nSHEETS 1,000\nTOTAL 12.50', 'total')).not.toContain('1,000');
    // Item lines of such money end an address as lines of priced items do.
    expect(endsAddress('AQUA 600ML 2 3,500 7,000')).toBe(true);
  });

  test('street abbreviations keep their full stop and mark a street; a till number ends an address, a shop number does not', () => {
    expect(recognisedAddress('Hauptstr. 5 10115 Berlin')).toBe('Hauptstr. 5 10115 Berlin');
    expect(recognisedAddress('TAMAN INDAH. 43000 KAJANG')).toBe('TAMAN INDAH, 43000 KAJANG');
    expect(valuesOf('TOKO MAJU\nJL. MERDEKA NO. 45 BANDUNG\nTOTAL 12.50', 'address')).toContain('JL. MERDEKA NO. 45 BANDUNG');
    expect(endsAddress('Store #1234')).toBe(true);
    expect(endsAddress('ST# 0123 OP# 45 TE# 12')).toBe(true);
    expect(endsAddress('Shop 5, 100 Harbour St')).toBe(false);
    expect(endsAddress('RESIT RASMI')).toBe(true);
  });

  test("a shop's founding year over its name is neither the name's line nor the address's; a registration number before a name is none of it", () => {
    const text = 'Since 1985\nCORNER BAKERY & CAFE\nNO 3, JALAN MERANTI 2,\n81300 SKUDAI, JOHOR\nTOTAL 45.00';
    expect(endsAddress('Since 1985')).toBe(true);
    expect(endsAddress('Est. 1990')).toBe(true);
    const names = candidatesOf(text, 'company', RECEIPT_COLUMNS);
    expect(names.find((c) => c.value === 'CORNER BAKERY & CAFE')!.features['party:wordy_rank']).toBe(1);
    const addresses = candidatesOf(text, 'address', RECEIPT_COLUMNS);
    expect(addresses.find((c) => c.value === 'NO 3, JALAN MERANTI 2, 81300 SKUDAI, JOHOR')!.features['addr:under_name']).toBe(1);
    expect(valuesOf('(123456-A) CORNER TRADING SDN BHD\nNO 3, JALAN MERANTI 2,', 'company')).toContain('CORNER TRADING SDN BHD');
  });

  test("a date and time printed over a shop's name neither heads its block nor reads as an address above it", () => {
    const text = '12/05/2018 10:11\nCORNER TRADING\nNO 12, JALAN BESAR,\n43000 KAJANG\nTOTAL 12.50';
    const name = candidatesOf(text, 'company', RECEIPT_COLUMNS).find((c) => c.value === 'CORNER TRADING')!;
    expect(name.features['party:after_address']).toBe(0);
    expect(name.features['party:rule_vendor']).toBeGreaterThan(0);
  });

  test("notices printed over a shop's name (a sentence, an exclamation, a request before a colon) do not count as lines of words above it", () => {
    const text = ['Goods sold are not returnable.', 'For feedback, please call:', '*REDEEM POINTS BEFORE EXPIRY!*', 'Corner Cash & Carry Sdn.Bhd.', 'NO 12, JALAN BESAR,'].join('\n');
    const name = candidatesOf(text, 'company', RECEIPT_COLUMNS).find((c) => c.value === 'Corner Cash & Carry Sdn.Bhd.')!;
    expect(name.features['party:wordy_rank']).toBe(1);
    // A line of words that is no notice still counts.
    const below = candidatesOf('CORNER TRADING\nCorner Cash & Carry Sdn.Bhd.\nNO 12, JALAN BESAR,', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'Corner Cash & Carry Sdn.Bhd.')!;
    expect(below.features['party:wordy_rank']).toBe(0.5);
  });

  test("a logo read as a sign before a name, and a copy's mark over it, are none of the name", () => {
    expect(valuesOf('@ CORNER TRADING SDN BHD\nNO 12, JALAN BESAR,', 'company')).toContain('CORNER TRADING SDN BHD');
    const marked = valuesOf('ORIGINAL\nCORNER TRADING\nNO 12, JALAN BESAR,', 'company');
    expect(marked).toContain('CORNER TRADING');
    expect(marked).not.toContain('ORIGINAL');
    expect(marked).not.toContain('ORIGINAL CORNER TRADING');
    const copy = candidatesOf('CUSTOMER COPY\nCORNER TRADING\nNO 12, JALAN BESAR,', 'company', RECEIPT_COLUMNS).find((c) => c.value === 'CORNER TRADING')!;
    expect(copy.features['party:wordy_rank']).toBe(1);
  });

  test('a name and its address on one line give each alone; an address line opening with its street keeps it', () => {
    const text = 'KEDAI RUNCIT CORNER NO 12, JALAN BESAR, 43000 KAJANG\nTEL: 03-12345678\nTOTAL 12.50';
    expect(valuesOf(text, 'company')).toContain('KEDAI RUNCIT CORNER');
    expect(valuesOf(text, 'address')).toContain('NO 12, JALAN BESAR, 43000 KAJANG');
    expect(valuesOf('CORNER TRADING\nTAMAN MAWAR NO 3, 43000 KAJANG\nTOTAL 12.50', 'address')).toContain('TAMAN MAWAR NO 3, 43000 KAJANG');
  });

  test("a line in brackets under a name is an aside to it; a brand's owner is a candidate of its own", () => {
    const values = valuesOf('THE CORNER BAKERY\n(A Brand of Greenleaf Foods Sdn Bhd)\nNo. 5, Jalan Besar', 'company');
    expect(values).toContain('THE CORNER BAKERY');
    expect(values).toContain('Greenleaf Foods Sdn Bhd');
    expect(values.some((v) => v.includes('('))).toBe(false);
  });

  test("a sender's line of name, street and town gives the name; a labelled party's too", () => {
    expect(sellerNames('CREDIT NOTE\nKappa Tools Ltd, 14 Forge Lane, Sheffield S1 2AB\nCustomer: Delta Works Ltd')).toContain('Kappa Tools Ltd');
    const fields = documentFields(linesFromText('Greenleaf Traders Ltd\nTAX INVOICE\nTo: Riverbend Farms Ltd, 1 Market Street, Leeds LS1 1AA\nInvoice No  INV-001\nTotal  30.00'), INVOICE_COLUMNS);
    expect(fields.values.buyer).toBe('Riverbend Farms Ltd');
  });

  test("a number glued to its label, or under the document's title after a bare number sign, is the document's number", () => {
    const numberOf = (text: string) => documentFields(linesFromText(text), INVOICE_COLUMNS).values.invoice_number;
    expect(numberOf('Lumen Studio\nInvoice#1042\nTotal 12.00')).toBe('1042');
    expect(numberOf('Lumen Studio\nInv. No.2024/118\nTotal 12.00')).toBe('2024/118');
    expect(numberOf('FACTURA\nNúmero: A-2024-077\nTotal 12,00')).toBe('A-2024-077');
    // A number sign under anything else names no document number.
    expect(candidatesOf('Lumen Studio\nNo. 7, Harbour Road\nTotal 12.00', 'invoice_number').map((c) => c.value)).not.toContain('7,');
  });

  test("a plain-text sender's line of name, street and town names the issuer; a labelled name stops before its tax id", () => {
    const sender = documentFields(linesFromText('Rechnung Nr. 44 vom 15.03.2024\nAnna Weber Design, Am Markt 3, 04109 Leipzig\nan: Lutz Bakery GmbH\nGesamtbetrag 450,00 EUR'), INVOICE_COLUMNS);
    expect(sender.values.seller).toBe('Anna Weber Design');
    const labelled = documentFields(linesFromText('FACTURA\nEmisor: Talleres Sol S.L. - CIF B12345678\nCliente: Hotel Luna S.A.\nTotal 1.210,00 €'), INVOICE_COLUMNS);
    expect(labelled.values.seller).toBe('Talleres Sol S.L.');
  });

  test("a title naming its sender gives the sender's name", () => {
    expect(documentFields(linesFromText('Receipt from Cloudnest Inc.\n$49.00 paid on May 3, 2024\nAmount paid $49.00'), INVOICE_COLUMNS).values.seller).toBe('Cloudnest Inc.');
    expect(sentFrom('Rechnung von Nordlicht GmbH')).toBe('Nordlicht GmbH');
    // Not a sentence that says where something comes from.
    expect(sentFrom('Goods from our warehouse')).toBeNull();
  });

  test("a salutation alone over an addressee's block labels no party", () => {
    const text = ['Keller & Sohn GmbH · Lindenstraße 12 · 70565 Stuttgart', 'Firma', 'Ahornwerk AG', 'Birkenweg 3', '80331 München', 'Rechnungsnr.: RE-17', 'Rechnung', 'Pos. Bezeichnung Menge Einzelpreis Gesamt', '1 Wartung 1 480,00 480,00', 'Rechnungsbetrag 571,20 €'].join('\n');
    const fields = documentFields(linesFromText(text), INVOICE_COLUMNS);
    expect(fields.values.seller).toBe('Keller & Sohn GmbH');
    expect(fields.values.buyer).toBe('Ahornwerk AG');
    // "To" alone labels the customer still.
    expect(salutationOnly('To')).toBe(false);
    expect(salutationOnly('Herrn')).toBe(true);
  });

  test('a rate printed in a label is no label of its own: "Total GST 10%" names the tax', () => {
    const tax = ruleFields(linesFromText('x'), INVOICE_COLUMNS).wants.find((w) => w.column.id === 'tax_amount')!;
    expect(labelMatch(tax, 'Total GST 10%')).toBeGreaterThan(0.7);
    // A run of three labels still names no single field.
    expect(labelMatch(tax, 'Subtotal Tax Total')).toBeLessThan(0.6);
  });
});
