/**
 * Structured e-invoices read exactly: UBL 2.1 Invoice and CreditNote (Peppol BIS, XRechnung UBL)
 * and UN/CEFACT Cross Industry Invoice (Factur-X / ZUGFeRD 2.x from MINIMUM to EXTENDED, XRechnung
 * CII; ZUGFeRD 1.0's CrossIndustryDocument), known by their root element's namespace. Each becomes
 * the document model of the layout path: one record of document fields and a group of line items,
 * labelled with the EN 16931 business terms in words the lexicon knows (BT-1 "Invoice number",
 * BT-112 "Total amount"), so the one mapper maps them onto the table's columns.
 */
import type { Column } from '../../domain/columns';
import { UnreadableDocument, type Reading, type RecordGroup, type SourceRecord } from '../document';
import { mapRecord, type MappedRow } from '../mapper';
import { nameScore } from '../names';
import { all, first, parseXml, textAt, type XmlElement } from './xml';

const UBL_INVOICE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const UBL_CREDIT_NOTE = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
const CII = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const ZUGFERD_1 = 'urn:ferd:CrossIndustryDocument:invoice:1p0';

export interface EInvoice {
  /** The syntax and its profile, as the file's result names it ("UN/CEFACT CII, Factur-X EN 16931"). */
  standard: string;
  fields: SourceRecord;
  lines: SourceRecord[];
}

const PARTY_TERMS = ['', ' VAT ID', ' tax number', ' address', ' city', ' postal code', ' country', ' email'];

/**
 * Every business term the reader gives, as the mapper sees it: the document's fields (BT-1 invoice
 * number ... BT-115 amount due, the parties BG-4 and BG-7) and a line's (BG-25).
 */
export const DOCUMENT_TERMS: readonly string[] = [
  'Invoice number', 'Document type', 'Invoice date', 'Due date', 'Delivery date',
  ...PARTY_TERMS.map((t) => `Seller${t}`), ...PARTY_TERMS.map((t) => `Buyer${t}`),
  'Buyer reference', 'Order number', 'Payment reference', 'Currency', 'Payment terms', 'IBAN', 'BIC',
  'Subtotal', 'Discount', 'Charges', 'Net amount', 'Tax amount', 'Tax rate', 'Total amount', 'Amount paid', 'Amount due',
];
export const LINE_TERMS: readonly string[] = ['Position', 'Description', 'Item code', 'GTIN', 'Quantity', 'Unit', 'Unit price', 'Line total', 'Tax rate'];

/** UNTDID 1001 document types that e-invoices use. */
const DOCUMENT_TYPES: Record<string, string> = {
  '380': 'Invoice', '381': 'Credit note', '383': 'Debit note', '384': 'Corrected invoice', '386': 'Prepayment invoice',
  '389': 'Self-billed invoice', '261': 'Self-billed credit note', '326': 'Partial invoice', '875': 'Partial construction invoice',
  '876': 'Partial final construction invoice', '877': 'Final construction invoice', '751': 'Invoice information',
};

/** UN/ECE Recommendation 20 units as invoices print them; other codes stay as they are. */
const UNITS: Record<string, string> = {
  C62: 'pcs', H87: 'pcs', EA: 'each', XPP: 'pcs', PR: 'pair', SET: 'set', LS: 'lump sum', HUR: 'h', MIN: 'min', DAY: 'day',
  WEE: 'week', MON: 'month', ANN: 'year', KGM: 'kg', GRM: 'g', TNE: 't', MTR: 'm', KMT: 'km', CMT: 'cm', MTK: 'm²',
  MTQ: 'm³', LTR: 'l', KWH: 'kWh', P1: '%',
};

/** Whether the bytes are an XML e-invoice, from the root element's namespace alone (no parse). */
export function looksLikeEInvoice(bytes: Uint8Array): boolean {
  // Samples open with long licence comments: the root element can be kilobytes in.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 65536));
  return [UBL_INVOICE, UBL_CREDIT_NOTE, CII, ZUGFERD_1].some((ns) => head.includes(ns));
}

const amount = (text: string | null): number | null => {
  if (text === null) return null;
  const n = Number(text.trim());
  return Number.isFinite(n) ? n : null;
};

/** CII dates: format 102 is YYYYMMDD; other formats (months, weeks) stay as written. */
function ciiDate(element: XmlElement | null): string | null {
  const value = textAt(element, 'DateTimeString') ?? element?.text ?? null;
  if (!value) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : value.trim();
}

function joined(...parts: Array<string | null | undefined>): string | null {
  const kept = parts.filter((p): p is string => !!p && p.trim() !== '');
  return kept.length ? kept.join(', ') : null;
}

/** A record without the fields that have no value. */
function compact(record: Record<string, unknown>): SourceRecord {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined && v !== ''));
}

/** The amount in the invoice's currency among several (CII and UBL repeat the tax total in the tax currency). */
function inCurrency(elements: XmlElement[], currency: string | null): number | null {
  const chosen = elements.find((e) => !e.attributes.currencyID || e.attributes.currencyID === currency) ?? elements[0];
  return chosen ? amount(chosen.text) : null;
}

/** The invoice's tax rate when its tax breakdown has a single one; with several, each line has its own. */
function rates(values: Array<number | null>): number | null {
  const distinct = [...new Set(values.filter((v): v is number => v !== null))];
  return distinct.length === 1 ? distinct[0]! : null;
}

function profileName(guideline: string | null): string | null {
  if (!guideline) return null;
  const id = guideline.toLowerCase();
  if (id.includes('xrechnung')) return 'XRechnung';
  if (id.includes('peppol')) return 'Peppol BIS Billing';
  const level = /extended/.test(id) ? 'EXTENDED' : /basicwl|basic-wl|basic_wl/.test(id) ? 'BASIC WL' : /minimum/.test(id) ? 'MINIMUM' : /basic/.test(id) ? 'BASIC' : /comfort/.test(id) ? 'COMFORT' : /en16931/.test(id) ? 'EN 16931' : null;
  if (id.includes('ferd:crossindustrydocument')) return `ZUGFeRD 1.0${level ? ` ${level}` : ''}`;
  if (id.includes('zugferd')) return `ZUGFeRD${level ? ` ${level}` : ''}`;
  if (id.includes('factur-x')) return `Factur-X / ZUGFeRD${level ? ` ${level}` : ''}`;
  return level ?? guideline;
}

/** A CII trade party (seller, buyer), both versions' element names. */
function ciiParty(party: XmlElement | null, role: string): SourceRecord {
  if (!party) return {};
  const taxIds = all(party, 'SpecifiedTaxRegistration', 'ID');
  const address = first(party, 'PostalTradeAddress');
  const email = textAt(party, 'URIUniversalCommunication', 'URIID') ?? textAt(party, 'DefinedTradeContact', 'EmailURIUniversalCommunication', 'URIID');
  return {
    [role]: textAt(party, 'Name'),
    [`${role} VAT ID`]: taxIds.find((t) => t.attributes.schemeID === 'VA')?.text ?? null,
    [`${role} tax number`]: taxIds.find((t) => t.attributes.schemeID === 'FC')?.text ?? null,
    [`${role} address`]: joined(textAt(address, 'LineOne'), textAt(address, 'LineTwo'), textAt(address, 'LineThree'), joined(textAt(address, 'PostcodeCode'), textAt(address, 'CityName'))?.replace(', ', ' '), textAt(address, 'CountryID')),
    [`${role} city`]: textAt(address, 'CityName'),
    [`${role} postal code`]: textAt(address, 'PostcodeCode'),
    [`${role} country`]: textAt(address, 'CountryID'),
    [`${role} email`]: email,
  };
}

function readCii(root: XmlElement, version1: boolean): EInvoice {
  const header = first(root, version1 ? 'HeaderExchangedDocument' : 'ExchangedDocument');
  const context = first(root, 'SpecifiedExchangedDocumentContext|ExchangedDocumentContext');
  const trade = first(root, 'SpecifiedSupplyChainTradeTransaction|SupplyChainTradeTransaction');
  const agreement = first(trade, 'ApplicableHeaderTradeAgreement|ApplicableSupplyChainTradeAgreement');
  const delivery = first(trade, 'ApplicableHeaderTradeDelivery|ApplicableSupplyChainTradeDelivery');
  const settlement = first(trade, 'ApplicableHeaderTradeSettlement|ApplicableSupplyChainTradeSettlement');
  const totals = first(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation|SpecifiedTradeSettlementMonetarySummation');
  const currency = textAt(settlement, 'InvoiceCurrencyCode');
  const terms = all(settlement, 'SpecifiedTradePaymentTerms');
  const means = first(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  const taxes = all(settlement, 'ApplicableTradeTax');
  const typeCode = textAt(header, 'TypeCode');
  const fields: SourceRecord = compact({
    'Invoice number': textAt(header, 'ID'),
    'Document type': typeCode ? (DOCUMENT_TYPES[typeCode] ?? typeCode) : null,
    'Invoice date': ciiDate(first(header, 'IssueDateTime')),
    'Due date': ciiDate(terms.map((t) => first(t, 'DueDateDateTime')).find(Boolean) ?? null),
    'Delivery date': ciiDate(first(delivery, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime')),
    ...ciiParty(first(agreement, 'SellerTradeParty'), 'Seller'),
    ...ciiParty(first(agreement, 'BuyerTradeParty'), 'Buyer'),
    'Buyer reference': textAt(agreement, 'BuyerReference'),
    'Order number': textAt(agreement, 'BuyerOrderReferencedDocument', 'IssuerAssignedID') ?? textAt(agreement, 'BuyerOrderReferencedDocument', 'ID'),
    'Payment reference': textAt(settlement, 'PaymentReference'),
    Currency: currency,
    'Payment terms': terms.map((t) => textAt(t, 'Description')).filter(Boolean).join(' ') || null,
    IBAN: textAt(means, 'PayeePartyCreditorFinancialAccount', 'IBANID'),
    BIC: textAt(means, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID'),
    Subtotal: amount(textAt(totals, 'LineTotalAmount')),
    Discount: amount(textAt(totals, 'AllowanceTotalAmount')),
    Charges: amount(textAt(totals, 'ChargeTotalAmount')),
    'Net amount': amount(textAt(totals, 'TaxBasisTotalAmount')),
    'Tax amount': inCurrency(all(totals, 'TaxTotalAmount'), currency),
    'Tax rate': rates(taxes.map((t) => amount(textAt(t, 'RateApplicablePercent|ApplicablePercent')))),
    'Total amount': amount(textAt(totals, 'GrandTotalAmount')),
    'Amount paid': amount(textAt(totals, 'TotalPrepaidAmount')),
    'Amount due': amount(textAt(totals, 'DuePayableAmount')),
  });
  const lines = all(trade, 'IncludedSupplyChainTradeLineItem').map((item) => {
    const product = first(item, 'SpecifiedTradeProduct');
    const lineAgreement = first(item, 'SpecifiedLineTradeAgreement|SpecifiedSupplyChainTradeAgreement');
    const lineDelivery = first(item, 'SpecifiedLineTradeDelivery|SpecifiedSupplyChainTradeDelivery');
    const lineSettlement = first(item, 'SpecifiedLineTradeSettlement|SpecifiedSupplyChainTradeSettlement');
    const quantity = first(lineDelivery, 'BilledQuantity');
    const unit = quantity?.attributes.unitCode;
    return compact({
      // Position and item code, not "line number" and "item number": an invoice-number column must not take them.
      Position: textAt(item, 'AssociatedDocumentLineDocument', 'LineID'),
      Description: textAt(product, 'Name') ?? textAt(product, 'Description'),
      'Item code': textAt(product, 'SellerAssignedID'),
      GTIN: textAt(product, 'GlobalID'),
      Quantity: amount(quantity?.text ?? null),
      Unit: unit ? (UNITS[unit] ?? unit) : null,
      'Unit price': amount(textAt(lineAgreement, 'NetPriceProductTradePrice', 'ChargeAmount')),
      'Line total': amount(textAt(lineSettlement, 'SpecifiedTradeSettlementLineMonetarySummation|SpecifiedTradeSettlementMonetarySummation', 'LineTotalAmount')),
      'Tax rate': amount(textAt(lineSettlement, 'ApplicableTradeTax', 'RateApplicablePercent|ApplicablePercent')),
    });
  });
  const profile = profileName(textAt(context, 'GuidelineSpecifiedDocumentContextParameter', 'ID'));
  return { standard: `UN/CEFACT CII${profile ? `, ${profile}` : ''}`, fields, lines };
}

/** A UBL party (AccountingSupplierParty/Party and the like). */
function ublParty(party: XmlElement | null, role: string): SourceRecord {
  if (!party) return {};
  const address = first(party, 'PostalAddress');
  const schemes = all(party, 'PartyTaxScheme');
  const vat = schemes.find((s) => textAt(s, 'TaxScheme', 'ID')?.toUpperCase() === 'VAT') ?? null;
  const other = schemes.find((s) => s !== vat) ?? null;
  return {
    [role]: textAt(party, 'PartyLegalEntity', 'RegistrationName') ?? textAt(party, 'PartyName', 'Name'),
    [`${role} VAT ID`]: textAt(vat, 'CompanyID'),
    [`${role} tax number`]: textAt(other, 'CompanyID'),
    [`${role} address`]: joined(textAt(address, 'StreetName'), textAt(address, 'AdditionalStreetName'), textAt(address, 'AddressLine', 'Line'), joined(textAt(address, 'PostalZone'), textAt(address, 'CityName'))?.replace(', ', ' '), textAt(address, 'Country', 'IdentificationCode')),
    [`${role} city`]: textAt(address, 'CityName'),
    [`${role} postal code`]: textAt(address, 'PostalZone'),
    [`${role} country`]: textAt(address, 'Country', 'IdentificationCode'),
    [`${role} email`]: textAt(party, 'Contact', 'ElectronicMail'),
  };
}

function readUbl(root: XmlElement, credit: boolean): EInvoice {
  const currency = textAt(root, 'DocumentCurrencyCode');
  const totals = first(root, 'LegalMonetaryTotal');
  const means = first(root, 'PaymentMeans');
  const taxTotals = all(root, 'TaxTotal');
  const typeCode = textAt(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode');
  const fields: SourceRecord = compact({
    'Invoice number': textAt(root, 'ID'),
    'Document type': typeCode ? (DOCUMENT_TYPES[typeCode] ?? typeCode) : credit ? 'Credit note' : 'Invoice',
    'Invoice date': textAt(root, 'IssueDate'),
    'Due date': textAt(root, 'DueDate') ?? textAt(means, 'PaymentDueDate'),
    'Delivery date': textAt(root, 'Delivery', 'ActualDeliveryDate'),
    ...ublParty(first(root, 'AccountingSupplierParty', 'Party'), 'Seller'),
    ...ublParty(first(root, 'AccountingCustomerParty', 'Party'), 'Buyer'),
    'Buyer reference': textAt(root, 'BuyerReference'),
    'Order number': textAt(root, 'OrderReference', 'ID'),
    'Payment reference': textAt(means, 'PaymentID'),
    Currency: currency,
    'Payment terms': textAt(root, 'PaymentTerms', 'Note'),
    IBAN: textAt(means, 'PayeeFinancialAccount', 'ID'),
    BIC: textAt(means, 'PayeeFinancialAccount', 'FinancialInstitutionBranch', 'ID'),
    Subtotal: amount(textAt(totals, 'LineExtensionAmount')),
    Discount: amount(textAt(totals, 'AllowanceTotalAmount')),
    Charges: amount(textAt(totals, 'ChargeTotalAmount')),
    'Net amount': amount(textAt(totals, 'TaxExclusiveAmount')),
    'Tax amount': inCurrency(taxTotals.flatMap((t) => all(t, 'TaxAmount')), currency),
    'Tax rate': rates(taxTotals.flatMap((t) => all(t, 'TaxSubtotal', 'TaxCategory', 'Percent')).map((p) => amount(p.text))),
    'Total amount': amount(textAt(totals, 'TaxInclusiveAmount')),
    'Amount paid': amount(textAt(totals, 'PrepaidAmount')),
    'Amount due': amount(textAt(totals, 'PayableAmount')),
  });
  const lines = all(root, credit ? 'CreditNoteLine' : 'InvoiceLine').map((line) => {
    const quantity = first(line, credit ? 'CreditedQuantity' : 'InvoicedQuantity');
    const unit = quantity?.attributes.unitCode;
    const item = first(line, 'Item');
    return compact({
      Position: textAt(line, 'ID'),
      Description: textAt(item, 'Name') ?? textAt(item, 'Description'),
      'Item code': textAt(item, 'SellersItemIdentification', 'ID'),
      GTIN: textAt(item, 'StandardItemIdentification', 'ID'),
      Quantity: amount(quantity?.text ?? null),
      Unit: unit ? (UNITS[unit] ?? unit) : null,
      'Unit price': amount(textAt(line, 'Price', 'PriceAmount')),
      'Line total': amount(textAt(line, 'LineExtensionAmount')),
      'Tax rate': amount(textAt(item, 'ClassifiedTaxCategory', 'Percent')),
    });
  });
  const profile = profileName(textAt(root, 'CustomizationID'));
  return { standard: `UBL 2.1 ${credit ? 'CreditNote' : 'Invoice'}${profile ? `, ${profile}` : ''}`, fields, lines };
}

/** Reads an e-invoice; unreadable with the reason when the XML is malformed or no e-invoice. */
export function parseEInvoice(bytes: Uint8Array): EInvoice {
  const root = parseXml(bytes);
  const known = `${root.namespace} ${root.name}`;
  let invoice: EInvoice;
  if (known === `${UBL_INVOICE} Invoice`) invoice = readUbl(root, false);
  else if (known === `${UBL_CREDIT_NOTE} CreditNote`) invoice = readUbl(root, true);
  else if (known === `${CII} CrossIndustryInvoice`) invoice = readCii(root, false);
  else if (known === `${ZUGFERD_1} CrossIndustryDocument`) invoice = readCii(root, true);
  else {
    const name = root.namespace ? `{${root.namespace}}${root.name}` : root.name;
    throw new UnreadableDocument(`the XML is no e-invoice (its root element is ${name}); rowsmith reads UBL 2.1 Invoice and CreditNote and UN/CEFACT CII (Factur-X, ZUGFeRD, XRechnung)`);
  }
  if (!invoice.fields['Invoice number'] && !invoice.fields['Total amount'] && invoice.lines.length === 0) {
    throw new UnreadableDocument(`the ${invoice.standard} XML holds no invoice number, total or line`);
  }
  return invoice;
}

const INVOICE_GROUP = 'invoice';

/** The document model of an e-invoice: its document fields as one record, its lines as a group. */
export function einvoiceReading(invoice: EInvoice, notes: string[]): Reading {
  const groups: RecordGroup[] = [];
  if (invoice.lines.length) groups.push({ label: 'invoice lines', records: invoice.lines, fields: [...new Set(invoice.lines.flatMap((l) => Object.keys(l)))] });
  groups.push({ label: INVOICE_GROUP, records: [invoice.fields] });
  return { format: 'xml', fileType: 'text', tables: [], groups, lines: [], text: '', source: 'xml', notes };
}

/** A column takes an XML value only when a business term names it this well (same concept, not merely "a date"). */
const EXACT_NAME = 0.7;
/** Terms within this of the best one name the column as well ("Date": invoice, due and delivery dates alike). */
const TIE = 0.05;
/** An empty column takes a document field of the invoice when its term names the column this well. */
const FIELD_NAME = 0.9;

const same = (v: unknown) => (typeof v === 'number' ? String(v) : String(v).replace(/\s+/g, ' ').trim());

/** Whether an XML value is of the column's kind: the standards type every field, so nothing is guessed across kinds. */
function ofKind(column: Column, value: unknown): boolean {
  if (column.type === 'number' || column.type === 'currency') return typeof value === 'number';
  if (column.type === 'date') return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
  return typeof value === 'string';
}

/** The terms of `vocabulary` that name a column best: none when none names it well. */
function termsOf(column: Column, vocabulary: readonly string[]): string[] {
  const scored = vocabulary.map((term) => ({ term, score: nameScore(column, term) }));
  const best = Math.max(...scored.map((s) => s.score));
  return best < EXACT_NAME ? [] : scored.filter((s) => s.score >= best - TIE).map((s) => s.term);
}

/** Whether the column names something an e-invoice states, for the document or for its lines. */
const invoiceTerm = (column: Column) => [...DOCUMENT_TERMS, ...LINE_TERMS].some((term) => nameScore(column, term) >= FIELD_NAME);

const agrees = (a: unknown, b: unknown) => same(a).toLowerCase() === same(b).toLowerCase();

/**
 * The printed row of each XML row, matched in order on the values both state (a page's line
 * table may hold rows the XML has not, such as subtotals): a printed row belongs to an XML row
 * when they agree on more values than they differ.
 */
function pairPrinted(rows: MappedRow[], printed: MappedRow[]): Array<MappedRow | undefined> {
  let next = 0;
  return rows.map((row) => {
    for (let k = next; k < printed.length; k++) {
      const shared = Object.keys(row.values).filter((id) => id in printed[k]!.values);
      const agreed = shared.filter((id) => agrees(row.values[id], printed[k]!.values[id])).length;
      if (agreed > 0 && agreed > shared.length - agreed) {
        next = k + 1;
        return printed[k];
      }
    }
    return undefined;
  });
}

/** Columns of units: the XML states a code (C62), the page prints the word the user wants ("Stk"). */
const coded = (column: Column) => nameScore(column, 'Unit') >= FIELD_NAME;

/**
 * The mapper's rows of an e-invoice, kept to what the XML says exactly. A column keeps its value
 * only when one of the business terms that name it best holds that value, so a column whose term
 * this XML lacks (a due date it does not state) stays empty rather than taking a near one (its
 * delivery date); a column still empty takes the invoice's document field that names it (the
 * invoice number on each line of an item table). XML values are certain. A PDF's `printed` rows
 * (the layout path's, each paired with the XML row it agrees with) fill what the XML does not
 * state, at their own confidence, and give units as printed.
 */
export function exactRows(rows: MappedRow[], reading: Pick<Reading, 'groups'>, columns: Column[], printed: MappedRow[] = []): MappedRow[] {
  const header = reading.groups.find((g) => g.label === INVOICE_GROUP)?.records[0] ?? {};
  const lines = reading.groups.filter((g) => g.label !== INVOICE_GROUP).flatMap((g) => g.records);
  // A line's value is stated under the line's terms, the document's under the document's: a line
  // table's "Net amount" is the line's net amount (BT-131), not the invoice's (BT-109).
  const stated = new Map(
    columns.map((c) => {
      const lineTerms = termsOf(c, LINE_TERMS);
      const documentTerms = termsOf(c, DOCUMENT_TERMS).filter((t) => t in header);
      return [c.id, new Set([...lines.flatMap((r) => lineTerms.filter((t) => t in r).map((t) => same(r[t]))), ...documentTerms.map((t) => same(header[t]))])];
    }),
  );
  const fill: Record<string, unknown> = {};
  for (const column of columns) {
    const best = Object.keys(header)
      .filter((l) => ofKind(column, header[l]))
      .map((l) => ({ l, score: nameScore(column, l) }))
      .sort((a, b) => b.score - a.score)[0];
    if (!best || best.score < FIELD_NAME) continue;
    const mapped = mapRecord({ [best.l]: header[best.l] }, [{ column, field: best.l, score: 1 }], [column], 'balanced');
    if (mapped.problems.length === 0 && column.id in mapped.values) fill[column.id] = mapped.values[column.id];
  }
  const exact = rows.map((row) => {
    const kept = Object.fromEntries(Object.entries(row.values).filter(([id, v]) => stated.get(id)?.has(same(v))));
    return { ...row, values: { ...fill, ...kept } };
  });
  const pages = pairPrinted(exact, printed);
  return exact
    .map((row, i) => {
      const page = pages[i];
      const values: Record<string, unknown> = {};
      const sureness: number[] = [];
      for (const column of columns) {
        const fromPage = page?.values[column.id];
        const usePage = fromPage !== undefined && (!(column.id in row.values) || coded(column));
        if (usePage) values[column.id] = fromPage;
        else if (column.id in row.values) values[column.id] = row.values[column.id];
        else {
          // An empty column that no e-invoice term names says the document does not fit the
          // table (a statistics table's "Handgun"); one an invoice may leave out (a due date) does not.
          if (!invoiceTerm(column)) sureness.push(0);
          continue;
        }
        sureness.push(usePage ? page!.confidence : 1);
      }
      const confidence = sureness.length ? Math.round((sureness.reduce((a, b) => a + b, 0) / sureness.length) * 1000) / 1000 : 1;
      return { ...row, values, confidence };
    })
    .filter((row) => Object.keys(row.values).length > 0);
}
