/**
 * E-invoice XML read exactly: every CII profile (Factur-X / ZUGFeRD MINIMUM to EXTENDED,
 * XRechnung), ZUGFeRD 1.0, UBL Invoice and CreditNote, with allowances, charges and two tax rates;
 * mapped onto a table's columns by the one mapper; and the XML that is none, or is broken, refused
 * with its reason.
 */
import { describe, expect, test } from 'bun:test';
import type { Column } from '../../src/domain/columns';
import { UnreadableDocument } from '../../src/extract/document';
import { mapReading } from '../../src/extract/mapper';
import { readDocument } from '../../src/extract/read';
import { DOCUMENT_TERMS, exactRows, LINE_TERMS, parseEInvoice } from '../../src/extract/readers/einvoice';
import { ciiInvoice, INVOICE, ublInvoice, zugferd1Invoice, type CiiProfile } from '../fixtures/extract/einvoices';

const bytes = (xml: string) => new TextEncoder().encode(xml);
const I = INVOICE;

const HEADER_FIELDS = {
  'Invoice number': I.number,
  'Invoice date': I.issued,
  Seller: I.seller.name,
  'Seller VAT ID': I.seller.vat,
  Buyer: I.buyer.name,
  'Buyer VAT ID': I.buyer.vat,
  Currency: 'EUR',
  'Net amount': I.net,
  'Tax amount': I.tax,
  'Total amount': I.total,
};

const FULL_FIELDS = {
  ...HEADER_FIELDS,
  'Due date': I.due,
  'Delivery date': I.delivered,
  'Seller address': `${I.seller.street}, ${I.seller.postcode} ${I.seller.city}, DE`,
  'Buyer address': `${I.buyer.street}, ${I.buyer.postcode} ${I.buyer.city}, FR`,
  'Payment terms': I.terms,
  IBAN: I.iban,
  BIC: I.bic,
  Subtotal: I.lineTotal,
  Discount: I.allowance.amount,
  Charges: I.charge.amount,
  'Amount paid': I.prepaid,
  'Amount due': I.due_amount,
  'Order number': I.order,
};

const LINES = I.lines.map((l) => ({ Position: l.id, Description: l.name, 'Item code': l.sku, Quantity: l.quantity, 'Unit price': l.price, 'Line total': l.total, 'Tax rate': l.rate }));

describe('CII, every Factur-X / ZUGFeRD profile and XRechnung', () => {
  const profiles: Array<[CiiProfile, string]> = [
    ['MINIMUM', 'Factur-X / ZUGFeRD MINIMUM'],
    ['BASIC WL', 'Factur-X / ZUGFeRD BASIC WL'],
    ['BASIC', 'Factur-X / ZUGFeRD BASIC'],
    ['EN 16931', 'EN 16931'],
    ['EXTENDED', 'Factur-X / ZUGFeRD EXTENDED'],
    ['XRechnung', 'XRechnung'],
  ];
  for (const [profile, name] of profiles) {
    test(profile, () => {
      const invoice = parseEInvoice(bytes(ciiInvoice(profile)));
      expect(invoice.standard).toBe(`UN/CEFACT CII, ${name}`);
      expect(invoice.fields).toMatchObject(profile === 'MINIMUM' ? HEADER_FIELDS : FULL_FIELDS);
      // Two tax rates: the invoice has no single one; each line states its own.
      expect(invoice.fields['Tax rate']).toBeUndefined();
      if (profile === 'MINIMUM' || profile === 'BASIC WL') expect(invoice.lines).toEqual([]);
      else expect(invoice.lines).toMatchObject(LINES);
    });
  }

  test('XRechnung carries the buyer reference (Leitweg-ID); a credit note says so', () => {
    expect(parseEInvoice(bytes(ciiInvoice('XRechnung'))).fields['Buyer reference']).toBe('04011000-12345-34');
    expect(parseEInvoice(bytes(ciiInvoice('EN 16931', { typeCode: '381' }))).fields['Document type']).toBe('Credit note');
  });

  test('units are printed as invoices print them', () => {
    expect(parseEInvoice(bytes(ciiInvoice('EN 16931'))).lines.map((l) => l.Unit)).toEqual(['h', 'pcs', 'lump sum']);
  });

  test('ZUGFeRD 1.0, with its older element names', () => {
    const invoice = parseEInvoice(bytes(zugferd1Invoice()));
    expect(invoice.standard).toBe('UN/CEFACT CII, ZUGFeRD 1.0 COMFORT');
    expect(invoice.fields).toMatchObject({ ...HEADER_FIELDS, 'Due date': I.due, IBAN: I.iban, 'Amount due': I.due_amount, Discount: 50, Charges: 20 });
    expect(invoice.lines).toMatchObject(LINES);
  });

  test('a long comment before the root element does not hide the namespace', async () => {
    const xml = ciiInvoice('EN 16931', { comment: 'licence '.repeat(2000) });
    const reading = await readDocument({ name: 'factur-x.xml', contentType: 'text/xml', bytes: bytes(xml) });
    expect(reading.source).toBe('xml');
  });
});

test('every field the reader gives is a business term the exact mapping knows', () => {
  for (const xml of [ciiInvoice('XRechnung'), ciiInvoice('EXTENDED'), zugferd1Invoice(), ublInvoice(), ublInvoice('CreditNote')]) {
    const invoice = parseEInvoice(bytes(xml));
    for (const key of Object.keys(invoice.fields)) expect(DOCUMENT_TERMS).toContain(key);
    for (const key of invoice.lines.flatMap((l) => Object.keys(l))) expect(LINE_TERMS).toContain(key);
  }
});

describe('UBL 2.1', () => {
  test('an Invoice (Peppol BIS Billing 3.0)', () => {
    const invoice = parseEInvoice(bytes(ublInvoice()));
    expect(invoice.standard).toBe('UBL 2.1 Invoice, Peppol BIS Billing');
    expect(invoice.fields).toMatchObject({ ...FULL_FIELDS, 'Document type': 'Invoice', 'Seller email': I.seller.email });
    expect(invoice.lines).toMatchObject(LINES);
  });

  test('a CreditNote: its lines, its credited quantities and its due date from the payment means', () => {
    const invoice = parseEInvoice(bytes(ublInvoice('CreditNote')));
    expect(invoice.standard).toStartWith('UBL 2.1 CreditNote');
    expect(invoice.fields).toMatchObject({ ...FULL_FIELDS, 'Document type': 'Credit note' });
    expect(invoice.lines).toMatchObject(LINES);
  });
});

describe('refused with the reason', () => {
  const fails = (xml: string, message: RegExp) => {
    expect(() => parseEInvoice(bytes(xml))).toThrow(UnreadableDocument);
    expect(() => parseEInvoice(bytes(xml))).toThrow(message);
  };
  test('malformed XML', () => fails(ciiInvoice('BASIC').replace('</rsm:ExchangedDocument>', ''), /not well-formed XML: .*line/));
  test('XML that is no invoice', () => fails('<?xml version="1.0"?><catalog xmlns="urn:example:books"><book>Dune</book></catalog>', /no e-invoice \(its root element is \{urn:example:books\}catalog\)/));
  test('a document type declaration (entity expansion)', () => {
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>`;
    fails(`<?xml version="1.0"?>${laughs}<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>&lol2;</ID></Invoice>`, /document type \(DTD\)/);
  });
  test('an invoice element with nothing in it', () => fails('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>', /holds no invoice number, total or line/));
  test('elements nested deeper than any invoice', () => fails(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">${'<a>'.repeat(300)}${'</a>'.repeat(300)}</Invoice>`, /nests elements more than/));
});

test('the declared encoding of the XML is honoured', () => {
  const xml = ublInvoice().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
  const latin1 = Uint8Array.from(xml, (c) => c.charCodeAt(0));
  expect(parseEInvoice(latin1).fields.Seller).toBe(I.seller.name);
  expect(parseEInvoice(latin1).fields['Seller address']).toStartWith('Hafenstraße 7');
});

const column = (id: string, name: string, type: Column['type'], description?: string): Column => ({ id, name, type, required: false, ...(description ? { description } : {}) });

describe('mapped onto the table by the one mapper, exactly', () => {
  test("an invoice table's columns take the document fields; a column the XML has no term for stays empty", async () => {
    const columns = [
      column('number', 'Invoice #', 'string'),
      column('date', 'Date', 'date'),
      column('vendor', 'Vendor', 'string'),
      column('customer', 'Customer', 'string'),
      column('net', 'Net', 'currency'),
      column('vat', 'VAT', 'currency'),
      column('total', 'Total', 'currency'),
      column('ccy', 'Currency', 'string'),
      column('iban', 'IBAN', 'string'),
      column('shipped', 'Ship date', 'date'),
      column('ref', 'Reference', 'string'),
    ];
    // MINIMUM states no delivery date: the ship date column must not take another date.
    const reading = await readDocument({ name: 'minimum.xml', contentType: 'application/xml', bytes: bytes(ciiInvoice('MINIMUM')) });
    const rows = exactRows(mapReading(reading, columns, 'strict'), reading, columns);
    expect(rows).toEqual([
      {
        values: { number: I.number, date: I.issued, vendor: I.seller.name, customer: I.buyer.name, net: I.net, vat: I.tax, total: I.total, ccy: 'EUR' },
        confidence: 1,
        problems: [],
      },
    ]);
    const full = await readDocument({ name: 'en16931.xml', contentType: 'application/xml', bytes: bytes(ciiInvoice('EN 16931')) });
    const fullRows = exactRows(mapReading(full, columns, 'strict'), full, columns);
    expect(fullRows[0]!.values).toMatchObject({ iban: I.iban, shipped: I.delivered });
  });

  test('columns that no e-invoice term names count against the row when they stay empty; ones an invoice may lack do not', async () => {
    const columns = [column('state', 'State', 'string'), column('handgun', 'Handgun', 'number'), column('total', 'Total', 'currency')];
    const reading = await readDocument({ name: 'invoice.xml', contentType: 'application/xml', bytes: bytes(ciiInvoice('EN 16931')) });
    const rows = exactRows(mapReading(reading, columns, 'flexible'), reading, columns);
    expect(rows.map((r) => [r.values, r.confidence])).toEqual([[{ total: I.total }, 0.333]]);
  });

  test("an item table's columns take the lines, the invoice number on each", async () => {
    const columns = [column('invoice', 'Invoice number', 'string'), column('item', 'Item', 'string'), column('qty', 'Qty', 'number'), column('price', 'Unit price', 'currency'), column('amount', 'Amount', 'currency'), column('vat', 'VAT %', 'number')];
    const reading = await readDocument({ name: 'invoice.xml', contentType: 'application/xml', bytes: bytes(ublInvoice()) });
    const rows = exactRows(mapReading(reading, columns, 'strict'), reading, columns);
    expect(rows.map((r) => r.values)).toEqual(I.lines.map((l) => ({ invoice: I.number, item: l.name, qty: l.quantity, price: l.price, amount: l.total, vat: l.rate })));
    expect(rows.every((r) => r.confidence === 1)).toBe(true);
  });
});
