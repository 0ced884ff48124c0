import { describe, expect, test } from 'bun:test';
import { conceptLevel, conceptsOf, labelSimilarity, normalizeLabel, topConcept } from '../../src/extract/lexicon';
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
    expect(conceptsOf('No.')[0]!.score).toBeLessThan(0.7);
  });

  test('nonsense names no concept', () => {
    expect(conceptsOf('zebra crossing')).toEqual([]);
    expect(conceptsOf('')).toEqual([]);
  });
});

describe('levels and data', () => {
  test('every concept has a level, types and terms in the eight languages', () => {
    for (const c of CONCEPTS) {
      expect(['document', 'item', 'both']).toContain(c.level);
      expect(c.types.length).toBeGreaterThan(0);
      expect(Object.keys(c.terms).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl', 'pl', 'pt']);
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
