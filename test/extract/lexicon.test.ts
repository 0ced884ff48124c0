import { describe, expect, test } from 'bun:test';
import { conceptLevel, conceptsOf, conceptTypes, labelSimilarity, labelTokens, languageOf, normalizeLabel, topConcept } from '../../src/extract/lexicon';
import { taxQualifier } from '../../src/extract/fields/wants';
import { CONCEPTS } from '../../src/extract/lexicon.data';

describe('normalisation', () => {
  test.each([
    ['Invoice No.', 'invoice #'],
    ['Qty', 'quantity'],
    ['Amt.', 'amount'],
    ['MwSt.', 'Mw.-St.'],
    ['Prices', 'price'],
    ['Numéro', 'numero'],
    ['invoiceDate', 'invoice_date'],
    ['E-Mail', 'email'],
  ])('%s equals %s', (a, b) => {
    expect(normalizeLabel(a)).toBe(normalizeLabel(b));
  });
});

describe('concepts of labels in eight languages', () => {
  test.each([
    ['Quantity', 'quantity'],
    ['Menge', 'quantity'],
    ['Qté', 'quantity'],
    ['Cantidad', 'quantity'],
    ['Quantità', 'quantity'],
    ['Aantal', 'quantity'],
    ['Ilość', 'quantity'],
    ['Quantidade', 'quantity'],
    ['Unit price', 'unit_price'],
    ['Einzelpreis', 'unit_price'],
    ['Prix unitaire HT', 'unit_price'],
    ['Invoice No.', 'invoice_number'],
    ['Rechnungs-Nr.', 'invoice_number'],
    ['N° de facture', 'invoice_number'],
    ['Nº factura', 'invoice_number'],
    ['Factuurnummer', 'invoice_number'],
    ['Faktura nr', 'invoice_number'],
    ['Invoice date', 'invoice_date'],
    ['Rechnungsdatum', 'invoice_date'],
    ['Date de facturation', 'invoice_date'],
    ['Data wystawienia', 'invoice_date'],
    ['Due date', 'due_date'],
    ['Fällig am', 'due_date'],
    ["Date d'échéance", 'due_date'],
    ['Vervaldatum', 'due_date'],
    ['Termin płatności', 'due_date'],
    ['Delivery date', 'delivery_date'],
    ['Leistungsdatum', 'delivery_date'],
    ['Total', 'total'],
    ['Gesamtbetrag', 'total'],
    ['Total TTC', 'total'],
    ['Totaal', 'total'],
    ['Razem', 'total'],
    ['Importe total', 'total'],
    ['Amount due', 'amount_due'],
    ['Balance due', 'amount_due'],
    ['Total HT', 'net_amount'],
    ['Net total', 'net_amount'],
    ['Total excl. VAT', 'net_amount'],
    ['Nettobetrag', 'net_amount'],
    ['Base imponible', 'net_amount'],
    ['MwSt.', 'tax_amount'],
    ['USt.', 'tax_amount'],
    ['TVA', 'tax_amount'],
    ['IVA', 'tax_amount'],
    ['BTW', 'tax_amount'],
    ['VAT %', 'tax_rate'],
    ['Steuersatz', 'tax_rate'],
    ['USt-IdNr.', 'tax_id'],
    ['N° TVA intracommunautaire', 'tax_id'],
    ['Partita IVA', 'tax_id'],
    ['Bill to', 'customer'],
    ['Rechnungsempfänger', 'customer'],
    ['Nabywca', 'customer'],
    ['Supplier', 'vendor'],
    ['Sprzedawca', 'vendor'],
    ['IBAN', 'iban'],
    ['Kundennummer', 'customer_number'],
    ['Zip code', 'postal_code'],
    ['Art.-Nr.', 'item_number'],
    ['SKU', 'item_number'],
    ['Pos.', 'position'],
    ['Zwischensumme', 'subtotal'],
    ['Währung', 'currency'],
    ['Zahlungsbedingungen', 'payment_terms'],
    ['The date the invoice was issued', 'invoice_date'],
    ['Rechnungskorrektur Nr.', 'invoice_number'],
    ['Credit memo no.', 'invoice_number'],
    ['Rechnungskorrektur (384) Nr.', 'invoice_number'],
    ['Ursprungsbeleg-Nr.', 'reference'],
    ['Original invoice no.', 'reference'],
  ])('%s -> %s', (label, concept) => {
    expect(topConcept(label)).toBe(concept);
  });

  test('a German compound ending in a known word is read by its parts', () => {
    expect(conceptsOf('Lieferscheindatum')[0]?.concept).toBe('date');
  });

  test('a specific concept also names its broader one, less surely', () => {
    const hits = conceptsOf('Invoice date');
    const date = hits.find((h) => h.concept === 'date');
    expect(date).toBeDefined();
    expect(date!.score).toBeLessThan(hits[0]!.score);
  });

  test('a function word alone names a concept only weakly, and never inside a longer label', () => {
    expect(conceptsOf('fecha de factura').some((h) => h.concept === 'period_start')).toBe(false);
    expect(conceptsOf('No.')[0]!.score).toBeLessThan(0.8);
  });

  test('nonsense names no concept', () => {
    expect(conceptsOf('zebra crossing')).toEqual([]);
    expect(conceptsOf('')).toEqual([]);
  });
});

describe('labels misread by a glyph', () => {
  test('a word one look-alike glyph from one word of the vocabulary is read as it', () => {
    expect(labelTokens('Roundlng')).toEqual(['rounding']);
    expect(labelTokens('Discoumt')).toEqual(['discount']);
    expect(topConcept('SUB TOIAL')).toBe('subtotal');
    expect(topConcept('Tatal')).toBe('total');
    expect(taxQualifier('Total Sales (lnclusive of GST)')).toBe('included');
  });

  test('short words, known words and words near no vocabulary word stay as printed', () => {
    expect(labelTokens('Tota')).toEqual(['tota']);
    expect(labelTokens('Total')).toEqual(['total']);
    expect(labelTokens('Pillar')).toEqual(['pillar']);
    expect(conceptsOf('Qwertz')).toEqual([]);
  });
});

describe('levels and data', () => {
  test('every concept has a level, types and terms in the eight languages; Malay and Indonesian for the fields of receipts and invoices', () => {
    const receiptConcepts = ['total', 'subtotal', 'tendered', 'tax_amount', 'date', 'invoice_date', 'invoice_number', 'quantity', 'unit_price', 'line_amount', 'discount', 'description', 'customer', 'vendor', 'address', 'phone', 'amount_due', 'amount_paid', 'time'];
    for (const c of CONCEPTS) {
      expect(['document', 'item', 'both']).toContain(c.level);
      expect(c.types.length).toBeGreaterThan(0);
      const both = receiptConcepts.includes(c.id) ? ['id', 'ms'] : [];
      expect(Object.keys(c.terms).sort()).toEqual(['de', 'en', 'es', 'fr', ...both, 'it', 'nl', 'pl', 'pt'].sort());
    }
  });

  test('levels', () => {
    expect(conceptLevel('invoice_number')).toBe('document');
    expect(conceptLevel('quantity')).toBe('item');
    expect(conceptLevel('nope')).toBeUndefined();
  });
});

describe('label similarity', () => {
  test('the same field across languages', () => {
    expect(labelSimilarity('Invoice date', 'Rechnungsdatum')).toBeGreaterThan(0.9);
    expect(labelSimilarity('Menge', 'Qty')).toBeGreaterThan(0.9);
  });

  test('a general label is close to a specific one', () => {
    expect(labelSimilarity('Date', 'Invoice date')).toBeGreaterThan(0.7);
  });

  test('two different specific fields are far apart', () => {
    expect(labelSimilarity('Due date', 'Invoice date')).toBeLessThan(0.5);
    expect(labelSimilarity('Total', 'Net amount')).toBeLessThan(0.3);
  });

  test('labels outside the lexicon compare by their words', () => {
    expect(labelSimilarity('Game week', 'Week')).toBeGreaterThan(0.5);
    expect(labelSimilarity('Game week', 'Player')).toBe(0);
  });
});

describe('more normalisation and matching', () => {
  test('initials with dots are one word', () => {
    expect(topConcept('P.O. Number')).toBe('order_number');
  });

  test('a term whose other words are function words needs them all', () => {
    expect(topConcept('Facturé à')).toBe('customer');
    expect(conceptsOf('Facture liée').some((h) => h.concept === 'customer')).toBe(false);
  });

  test('a delivery address names the customer only weakly', () => {
    expect(conceptsOf('Ship to')[0]!.score).toBeLessThan(conceptsOf('Bill to')[0]!.score);
  });

  test('the language of a set of labels', () => {
    expect(languageOf(['Rechnungsdatum', 'Gesamtbetrag', 'Total'])).toBe('de');
    expect(languageOf(['Date de facture', 'Total TTC'])).toBe('fr');
    expect(languageOf(['Total', 'IBAN'])).toBeNull();
  });
});

describe('abbreviations, heads and related fields', () => {
  test('percent words and signs are one word', () => {
    expect(normalizeLabel('VAT pct')).toBe(normalizeLabel('VAT %'));
    expect(normalizeLabel('Rabatt Prozent')).toBe(normalizeLabel('Rabatt %'));
    expect(topConcept('Discount pct')).toBe('discount');
  });

  test("a till receipt's money handed over is tendered, however it is worded", () => {
    for (const label of ['Cash', 'Cash Received', 'Cash Tendered', 'Change', 'Espèces reçues', 'Bar erhalten']) expect(conceptsOf(label)[0]?.concept).toBe('tendered');
  });

  test('an English compound is named by its last word when its words tie', () => {
    expect(conceptsOf('Merchant phone')[0]!.concept).toBe('phone');
    expect(conceptsOf('Item quantity')[0]!.concept).toBe('quantity');
  });

  test('an item table\'s "Total" is near a line total, not a net amount', () => {
    expect(labelSimilarity('Total', 'Line total')).toBeGreaterThan(0.7);
    expect(labelSimilarity('Betrag', 'Total')).toBeGreaterThan(0.7);
    expect(labelSimilarity('Total', 'Net amount')).toBeLessThan(0.3);
  });
});

describe('types and speed', () => {
  test('the column types a concept fits', () => {
    expect(conceptTypes('due_date')).toEqual(['date']);
    expect(conceptTypes('total')).toContain('currency');
    expect(conceptTypes('nope')).toEqual([]);
  });

  test('label similarity is fast enough for every header x column pair', () => {
    const headers = ['Menge', 'Einzelpreis', 'Gesamt', 'Art.-Nr.', 'Bezeichnung', 'MwSt. %', 'Pos.', 'Lieferdatum'];
    const columns = ['Quantity', 'Unit price', 'Total', 'SKU', 'Description', 'VAT rate', 'Position', 'Delivery date', 'Customer'];
    const started = performance.now();
    for (let round = 0; round < 200; round++) for (const h of headers) for (const c of columns) labelSimilarity(`${h}${round % 50}`, c);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('other document amounts', () => {
  test('shipping and amounts paid are their own fields', () => {
    expect(topConcept('Versandkosten')).toBe('shipping');
    expect(topConcept('Frais de port')).toBe('shipping');
    expect(topConcept('Amount paid')).toBe('amount_paid');
    expect(topConcept('Payment terms')).toBe('payment_terms');
    expect(labelSimilarity('Shipping', 'Total')).toBe(0);
  });
});
