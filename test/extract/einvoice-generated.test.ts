/**
 * E-invoices made by another implementation: @e-invoice-eu/core renders one invoice in every
 * format it knows (UBL, CII, XRechnung UBL and CII, and Factur-X / ZUGFeRD PDF/A-3 in every
 * profile from MINIMUM to EXTENDED and XRECHNUNG), and rowsmith reads each back to the same
 * values. Its input is UBL as JSON: the UBL fixture converted, repeated elements as arrays where
 * its schema has them.
 */
import { InvoiceService } from '@e-invoice-eu/core';
import { describe, expect, test } from 'bun:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { readDocument } from '../../src/extract/read';
import { parseXml, type XmlElement } from '../../src/extract/readers/xml';
import { INVOICE, ublInvoice } from '../fixtures/extract/einvoices';

const I = INVOICE;
const REPEATED = new Set(['InvoiceLine', 'TaxSubtotal', 'AllowanceCharge', 'PaymentMeans', 'Note', 'TaxTotal', 'PartyIdentification']);

function ublJson(element: XmlElement, path = ''): unknown {
  if (element.children.length === 0) return element.text;
  const out: Record<string, unknown> = {};
  for (const child of element.children) {
    const key = `${child.namespace.includes('CommonAggregate') ? 'cac' : 'cbc'}:${child.name}`;
    const value = ublJson(child, `${path}/${child.name}`);
    for (const [name, v] of Object.entries(child.attributes)) out[`${key}@${name}`] = v;
    // The seller's tax schemes are a list in the generator's schema, the buyer's a single one.
    const repeated = REPEATED.has(child.name) || (child.name === 'PartyTaxScheme' && path.includes('Supplier'));
    if (repeated && !(child.name === 'Note' && path.endsWith('PaymentTerms'))) ((out[key] ??= []) as unknown[]).push(value);
    else out[key] = value;
  }
  return out;
}

/** The invoice in the generator's input format, with no customization: each format sets its own. */
function generatorInput() {
  const body = ublJson(parseXml(new TextEncoder().encode(ublInvoice()))) as Record<string, unknown>;
  delete body['cbc:CustomizationID'];
  delete body['cbc:ProfileID'];
  return { 'ubl:Invoice': body };
}

async function printed(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText(`Invoice ${I.number}`, { x: 50, y: 780, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

const HEADER = {
  'Invoice number': I.number,
  'Invoice date': I.issued,
  Seller: I.seller.name,
  'Seller VAT ID': I.seller.vat,
  Buyer: I.buyer.name,
  Currency: 'EUR',
  'Net amount': I.net,
  'Tax amount': I.tax,
  'Total amount': I.total,
};
const FULL = { ...HEADER, 'Due date': I.due, IBAN: I.iban, Discount: I.allowance.amount, Charges: I.charge.amount, Subtotal: I.lineTotal, 'Amount due': I.due_amount };
const LINES = I.lines.map((l) => ({ Description: l.name, Quantity: l.quantity, 'Unit price': l.price, 'Line total': l.total, 'Tax rate': l.rate }));

const NO_PRICES = LINES.map(({ 'Unit price': _, ...line }) => line);

/** Each format, the standard the file's result names, and the lines it states (its BASIC writes no net prices). */
const FORMATS: Array<[format: string, standard: string, lines: Array<Record<string, unknown>>]> = [
  ['UBL', 'UBL 2.1 Invoice, EN 16931', LINES],
  ['CII', 'UN/CEFACT CII, EN 16931', LINES],
  ['XRECHNUNG-UBL', 'UBL 2.1 Invoice, XRechnung', LINES],
  ['XRECHNUNG-CII', 'UN/CEFACT CII, XRechnung', LINES],
  ['Factur-X-Minimum', 'UN/CEFACT CII, Factur-X / ZUGFeRD MINIMUM', []],
  ['Factur-X-BasicWL', 'UN/CEFACT CII, Factur-X / ZUGFeRD BASIC WL', []],
  ['Factur-X-Basic', 'UN/CEFACT CII, Factur-X / ZUGFeRD BASIC', NO_PRICES],
  ['Factur-X-EN16931', 'UN/CEFACT CII, EN 16931', LINES],
  ['Factur-X-Extended', 'UN/CEFACT CII, Factur-X / ZUGFeRD EXTENDED', LINES],
  ['Factur-X-XRechnung', 'UN/CEFACT CII, XRechnung', LINES],
];

describe('every format another implementation renders reads back to the same values', async () => {
  const service = new InvoiceService({ log: () => {}, warn: () => {}, error: () => {} } as never);
  const pdf = await printed();
  for (const [format, standard, lines] of FORMATS) {
    test(format, async () => {
      const out = await service.generate(generatorInput() as never, { format, lang: 'en-us', noWarnings: true, pdf: { buffer: pdf, filename: 'invoice.pdf', mimetype: 'application/pdf' } });
      const isPdf = format.startsWith('Factur-X');
      const bytes = typeof out === 'string' ? new TextEncoder().encode(out) : out;
      const reading = await readDocument({ name: isPdf ? 'invoice.pdf' : 'invoice.xml', contentType: '', bytes });
      expect(reading.source).toBe('xml');
      expect(reading.notes![0]).toContain(standard);
      const header = reading.groups.find((g) => g.label === 'invoice')!.records[0]!;
      expect(header).toMatchObject(format === 'Factur-X-Minimum' ? HEADER : FULL);
      expect(reading.groups.find((g) => g.label === 'invoice lines')?.records ?? []).toEqual(lines.map((line) => expect.objectContaining(line)));
    });
  }
});
