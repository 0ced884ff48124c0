/**
 * Business field names in many languages, as plain data: each concept with its level (a field of
 * the whole document, of a line item, or both), the column types it fits, a broader concept it is
 * a kind of, and its terms per language. To extend, add terms or concepts here; `lexicon.ts`
 * normalises every term the same way it normalises a header, so write terms as people print them.
 * `weak` terms name the concept only loosely ("No." alone may be a position or a number).
 */
import type { ColumnType } from '../domain/columns';

export type Level = 'document' | 'item' | 'both';
export type Language = 'en' | 'de' | 'fr' | 'es' | 'it' | 'nl' | 'pl' | 'pt' | 'ms' | 'id';

export interface ConceptEntry {
  id: string;
  level: Level;
  types: ColumnType[];
  /** The concept this one is a kind of (an invoice date is a date). */
  broader?: string;
  terms: Partial<Record<Language, string[]>>;
  weak?: string[];
  /** Concepts a label of this one often stands for, and how often (0..1). */
  related?: Record<string, number>;
}

const NUMERIC: ColumnType[] = ['number', 'currency'];
const TEXT: ColumnType[] = ['string', 'text'];
const CODE: ColumnType[] = ['string', 'number'];

/** The label of the change a till gives back, per language: a word of the `tendered` concept, told apart from the money handed over. */
export const CHANGE_GIVEN: Record<Language, string[]> = {
  en: ['change', 'change due'],
  de: ['Rückgeld', 'Wechselgeld'],
  fr: ['rendu', 'monnaie rendue'],
  es: ['cambio'],
  it: ['resto'],
  nl: ['wisselgeld'],
  pl: ['reszta'],
  pt: ['troco'],
  ms: ['baki', 'wang baki'],
  id: ['kembali', 'kembalian', 'uang kembali'],
};

export const CONCEPTS: ConceptEntry[] = [
  {
    id: 'quantity',
    level: 'item',
    types: ['number'],
    terms: {
      en: ['quantity', 'qty', 'quantities', 'count', 'number of units', 'pieces', 'hours', 'qty ordered', 'qty shipped'],
      de: ['Menge', 'Anzahl', 'Stückzahl', 'Anz.', 'Mng.', 'Liefermenge', 'Stunden'],
      fr: ['quantité', 'qté', 'qte', 'nombre', 'nb'],
      es: ['cantidad', 'cant.', 'unidades'],
      it: ['quantità', 'qtà', 'q.tà', 'qta'],
      nl: ['aantal', 'hoeveelheid', 'aant.'],
      pl: ['ilość', 'ilosc', 'liczba'],
      pt: ['quantidade', 'qtd', 'qtde', 'quant.'],
      ms: ['kuantiti', 'kuan'],
      id: ['kuantitas', 'banyaknya'],
    },
  },
  {
    id: 'unit',
    level: 'item',
    types: TEXT,
    terms: {
      en: ['unit', 'uom', 'unit of measure', 'measure'],
      de: ['Einheit', 'ME', 'Mengeneinheit'],
      fr: ['unité', 'unite', 'U.', 'unité de mesure'],
      es: ['unidad', 'unidad de medida', 'ud.'],
      it: ['unità', 'unità di misura', 'u.m.', 'um'],
      nl: ['eenheid', 'eenh.'],
      pl: ['jednostka', 'jm', 'j.m.', 'jedn.'],
      pt: ['unidade', 'un.', 'und'],
    },
  },
  {
    id: 'unit_price',
    level: 'item',
    types: NUMERIC,
    terms: {
      en: ['unit price', 'price', 'rate', 'price per unit', 'unit cost', 'each', 'price each', 'hourly rate', 'list price', 'net price', 'unit price net'],
      de: ['Einzelpreis', 'Preis', 'Stückpreis', 'Preis/Einheit', 'Einzelpreis netto', 'E-Preis', 'EP', 'Preis je Einheit', 'Stundensatz', 'Nettopreis'],
      fr: ['prix unitaire', 'prix', 'PU', 'P.U.', 'prix unitaire HT', 'prix HT', 'tarif'],
      es: ['precio unitario', 'precio', 'precio unidad', 'p. unitario', 'importe unitario'],
      it: ['prezzo unitario', 'prezzo', 'prezzo unit.'],
      nl: ['prijs', 'stukprijs', 'eenheidsprijs', 'prijs per stuk', 'tarief'],
      pl: ['cena jednostkowa', 'cena', 'cena jedn.', 'cena netto'],
      pt: ['preço unitário', 'preço', 'valor unitário', 'preço unit.'],
      ms: ['harga', 'harga seunit', 'harga unit'],
      id: ['harga', 'harga satuan'],
    },
  },
  {
    id: 'line_amount',
    level: 'item',
    types: NUMERIC,
    // An item table's "Total" column is its line amount; an invoice's "Amount" often its total.
    related: { total: 0.75 },
    terms: {
      en: ['amount', 'line total', 'line amount', 'extended price', 'ext. price', 'total price', 'value', 'sum'],
      de: ['Betrag', 'Gesamtpreis', 'Positionsbetrag', 'Summe', 'Wert', 'G-Preis', 'GP'],
      fr: ['montant', 'montant HT', 'prix total', 'valeur'],
      es: ['importe', 'monto', 'valor', 'precio total'],
      it: ['importo', 'valore', 'prezzo totale'],
      nl: ['bedrag', 'regeltotaal', 'waarde'],
      pl: ['kwota', 'wartość', 'wartosc', 'wartość netto'],
      pt: ['valor', 'montante', 'valor total', 'importância'],
      ms: ['amaun', 'jumlah harga'],
      id: ['jumlah harga'],
    },
  },
  {
    id: 'net_amount',
    level: 'both',
    types: NUMERIC,
    broader: 'line_amount',
    terms: {
      en: ['net amount', 'net', 'net total', 'total net', 'total excl. tax', 'total excluding tax', 'total excl. vat', 'amount excl. vat', 'total before tax', 'taxable amount', 'net value', 'total net amount'],
      de: ['Nettobetrag', 'Netto', 'Summe netto', 'Gesamt netto', 'Nettosumme', 'Zwischensumme netto', 'Rechnungsbetrag netto', 'Gesamtbetrag netto', 'Warenwert', 'Nettowert', 'netto Betrag'],
      fr: ['montant HT', 'total HT', 'HT', 'montant hors taxes', 'total hors taxes', 'net', 'base HT', 'montant net'],
      es: ['base imponible', 'importe neto', 'neto', 'subtotal sin IVA', 'total sin IVA', 'base'],
      it: ['imponibile', 'totale imponibile', 'importo netto', 'netto', 'totale netto'],
      nl: ['netto', 'netto bedrag', 'totaal excl. btw', 'subtotaal excl. btw', 'bedrag excl. btw', 'totaal exclusief btw'],
      pl: ['wartość netto', 'netto', 'razem netto', 'kwota netto', 'suma netto'],
      pt: ['valor líquido', 'total líquido', 'base de incidência', 'valor sem IVA', 'total sem IVA', 'líquido', 'valor tributável'],
    },
  },
  {
    id: 'tax_amount',
    level: 'both',
    types: NUMERIC,
    terms: {
      en: ['tax', 'vat', 'sales tax', 'tax amount', 'vat amount', 'gst', 'hst', 'total tax', 'total vat', 'taxes', 'tax total'],
      de: ['MwSt.', 'USt.', 'Mehrwertsteuer', 'Umsatzsteuer', 'Steuer', 'MwSt.-Betrag', 'USt.-Betrag', 'Steuerbetrag', 'zzgl. MwSt.', 'zzgl. USt.', 'Umsatzsteuerbetrag', 'MwSt. gesamt', 'USt. gesamt', 'Steuer gesamt', 'Summe MwSt.', 'Summe USt.', 'Gesamt MwSt.', 'Gesamt USt.'],
      fr: ['TVA', 'montant TVA', 'total TVA', 'taxe', 'taxes', 'montant de la TVA', 'TVA totale'],
      es: ['IVA', 'impuesto', 'impuestos', 'cuota IVA', 'importe IVA', 'total IVA'],
      it: ['IVA', 'imposta', 'importo IVA', 'totale IVA'],
      nl: ['BTW', 'btw bedrag', 'totaal btw', 'belasting', 'btw totaal'],
      pl: ['VAT', 'podatek', 'kwota VAT', 'wartość VAT', 'podatek VAT'],
      pt: ['IVA', 'imposto', 'valor IVA', 'total IVA', 'impostos'],
      ms: ['cukai', 'jumlah cukai', 'cukai jualan', 'cukai perkhidmatan'],
      id: ['pajak', 'ppn', 'pajak pertambahan nilai'],
    },
  },
  {
    id: 'tax_rate',
    level: 'both',
    types: ['number', 'string'],
    terms: {
      en: ['tax rate', 'vat rate', 'vat %', 'tax %', 'rate %', 'tax percent', 'vat percentage'],
      de: ['Steuersatz', 'MwSt.-Satz', 'USt.-Satz', 'MwSt. %', 'USt. %', 'Steuer %'],
      fr: ['taux TVA', 'taux de TVA', 'TVA %', 'taux'],
      es: ['tipo IVA', 'tipo de IVA', 'IVA %', 'tasa', 'tipo impositivo'],
      it: ['aliquota', 'aliquota IVA', 'IVA %'],
      nl: ['btw tarief', 'btw %', 'btw percentage'],
      pl: ['stawka VAT', 'stawka', 'VAT %'],
      pt: ['taxa IVA', 'taxa de IVA', 'IVA %', 'taxa'],
    },
    weak: ['%'],
  },
  {
    id: 'discount',
    level: 'both',
    types: ['number', 'currency', 'string'],
    terms: {
      en: ['discount', 'rebate', 'disc.', 'discount %', 'allowance'],
      de: ['Rabatt', 'Nachlass', 'Skonto', 'Abzug'],
      fr: ['remise', 'rabais', 'escompte', 'réduction'],
      es: ['descuento', 'dto.', 'dcto.', 'bonificación'],
      it: ['sconto', 'abbuono'],
      nl: ['korting'],
      pl: ['rabat', 'upust', 'zniżka'],
      pt: ['desconto', 'abatimento'],
      ms: ['diskaun', 'potongan', 'potongan harga'],
      id: ['diskon', 'potongan', 'potongan harga'],
    },
  },
  {
    id: 'total',
    level: 'document',
    types: NUMERIC,
    terms: {
      en: ['total', 'grand total', 'total amount', 'invoice total', 'total incl. tax', 'total including tax', 'total incl. vat', 'gross', 'gross amount', 'gross total', 'total gross', 'amount incl. vat', 'invoice amount', 'total due'],
      de: ['Gesamtbetrag', 'Rechnungsbetrag', 'Endsumme', 'Gesamtsumme', 'Summe', 'Gesamt', 'Brutto', 'Bruttobetrag', 'Summe brutto', 'Gesamt brutto', 'Rechnungssumme', 'Endbetrag', 'Gesamtbetrag brutto', 'Rechnungsbetrag brutto', 'Bruttosumme', 'Total'],
      fr: ['total TTC', 'montant TTC', 'TTC', 'total', 'montant total', 'net à payer', 'total à payer', 'montant total TTC'],
      es: ['total', 'importe total', 'total factura', 'total a pagar', 'total con IVA', 'importe bruto'],
      it: ['totale', 'totale fattura', 'totale documento', 'importo totale', 'totale da pagare', 'lordo'],
      nl: ['totaal', 'totaalbedrag', 'totaal incl. btw', 'te betalen', 'eindtotaal', 'bruto', 'factuurbedrag', 'totaal inclusief btw'],
      pl: ['razem', 'do zapłaty', 'suma', 'wartość brutto', 'razem brutto', 'kwota brutto', 'ogółem', 'brutto'],
      pt: ['total', 'valor total', 'total a pagar', 'total da fatura', 'total com IVA', 'valor bruto'],
      ms: ['jumlah', 'jumlah besar', 'jumlah keseluruhan'],
      id: ['total', 'jumlah', 'total belanja', 'total bayar', 'grand total'],
    },
  },
  {
    id: 'amount_due',
    level: 'document',
    types: NUMERIC,
    broader: 'total',
    terms: {
      en: ['amount due', 'balance due', 'total due', 'amount payable', 'balance', 'please pay', 'amount to pay', 'outstanding', 'amount owed'],
      de: ['Zahlbetrag', 'zu zahlen', 'fälliger Betrag', 'offener Betrag', 'zu zahlender Betrag', 'Restbetrag', 'Saldo', 'Forderungsbetrag'],
      fr: ['net à payer', 'montant dû', 'reste à payer', 'solde', 'à payer', 'montant à payer'],
      es: ['importe a pagar', 'saldo', 'total a pagar', 'importe adeudado', 'pendiente'],
      it: ['da pagare', 'importo dovuto', 'saldo', 'netto a pagare', 'totale da pagare'],
      nl: ['te betalen', 'openstaand bedrag', 'saldo', 'verschuldigd bedrag'],
      pl: ['do zapłaty', 'pozostało do zapłaty', 'saldo', 'kwota do zapłaty'],
      pt: ['valor a pagar', 'saldo', 'total a pagar', 'valor em dívida', 'montante a pagar'],
      ms: ['jumlah perlu dibayar', 'amaun perlu dibayar'],
      id: ['jumlah tagihan', 'total tagihan', 'sisa tagihan'],
    },
    weak: ['due'],
  },
  {
    id: 'shipping',
    level: 'document',
    types: NUMERIC,
    terms: {
      en: ['shipping', 'shipping cost', 'shipping and handling', 'freight', 'delivery charge', 'postage', 'carriage', 's&h'],
      de: ['Versandkosten', 'Versand', 'Fracht', 'Frachtkosten', 'Porto', 'Lieferkosten', 'Verpackung und Versand'],
      fr: ['frais de port', 'frais de livraison', "frais d'expédition", 'port', 'transport'],
      es: ['gastos de envío', 'envío', 'portes', 'transporte'],
      it: ['spese di spedizione', 'spedizione', 'trasporto', 'spese di trasporto'],
      nl: ['verzendkosten', 'verzending', 'vracht', 'bezorgkosten', 'portokosten'],
      pl: ['koszt wysyłki', 'wysyłka', 'transport', 'koszty dostawy'],
      pt: ['portes', 'custos de envio', 'frete', 'envio', 'transporte'],
    },
  },
  {
    id: 'amount_paid',
    level: 'document',
    types: NUMERIC,
    terms: {
      en: ['amount paid', 'paid', 'payment received', 'deposit', 'prepayment'],
      de: ['bezahlt', 'gezahlt', 'Anzahlung', 'erhaltene Zahlung', 'Vorauszahlung'],
      fr: ['payé', 'montant payé', 'acompte', 'déjà payé', 'paiement reçu'],
      es: ['pagado', 'importe pagado', 'anticipo', 'pago recibido', 'a cuenta'],
      it: ['pagato', 'importo pagato', 'acconto', 'anticipo'],
      nl: ['betaald', 'reeds betaald', 'aanbetaling', 'ontvangen betaling'],
      pl: ['zapłacono', 'zaliczka', 'wpłacono', 'zapłacone'],
      pt: ['pago', 'valor pago', 'adiantamento', 'sinal'],
      ms: ['dibayar', 'jumlah dibayar'],
      id: ['dibayar', 'jumlah dibayar', 'pembayaran'],
    },
    weak: ['payment', 'payments', 'Zahlung', 'paiement', 'pago', 'pagamento', 'betaling', 'płatność'],
  },
  {
    // What a till receipt prints after its total: the money handed over, the change given back (CHANGE_GIVEN), the rounding.
    id: 'tendered',
    level: 'document',
    types: NUMERIC,
    terms: {
      en: ['cash', 'tendered', 'cash tendered', 'amount tendered', 'cash received', 'cash paid', ...CHANGE_GIVEN.en, 'rounding', 'rounding adjustment'],
      de: ['Barzahlung', 'gegeben', 'bar erhalten', ...CHANGE_GIVEN.de, 'Rundung'],
      fr: ['espèces', 'espèces reçues', ...CHANGE_GIVEN.fr, 'arrondi'],
      es: ['efectivo', 'entregado', 'efectivo recibido', ...CHANGE_GIVEN.es, 'redondeo'],
      it: ['contanti', 'contanti ricevuti', ...CHANGE_GIVEN.it, 'arrotondamento'],
      nl: ['contant', 'contant ontvangen', ...CHANGE_GIVEN.nl, 'afronding'],
      pl: ['gotówka', 'gotówka otrzymana', ...CHANGE_GIVEN.pl, 'zaokrąglenie'],
      pt: ['dinheiro', 'dinheiro recebido', ...CHANGE_GIVEN.pt, 'arredondamento'],
      ms: ['tunai', 'wang tunai', 'bayaran tunai', ...CHANGE_GIVEN.ms, 'pembundaran'],
      id: ['tunai', 'bayar', ...CHANGE_GIVEN.id, 'pembulatan'],
    },
  },
  {
    id: 'subtotal',
    level: 'document',
    types: NUMERIC,
    related: { net_amount: 0.8 },
    terms: {
      en: ['subtotal', 'sub total', 'sub-total', 'items total'],
      de: ['Zwischensumme', 'Teilsumme', 'Zwischensumme netto'],
      fr: ['sous-total', 'sous total'],
      es: ['subtotal', 'suma parcial'],
      it: ['subtotale', 'totale parziale'],
      nl: ['subtotaal', 'tussentotaal'],
      pl: ['suma częściowa', 'podsuma'],
      pt: ['subtotal'],
      ms: ['jumlah kecil', 'subjumlah'],
      id: ['subtotal', 'sub total'],
    },
  },
  {
    id: 'date',
    level: 'both',
    types: ['date'],
    terms: {
      en: ['date', 'dated', 'day'],
      de: ['Datum', 'Tag', 'Datum der Rechnung'],
      fr: ['date', 'le', 'jour'],
      es: ['fecha', 'día'],
      it: ['data', 'giorno'],
      nl: ['datum', 'dag'],
      pl: ['data', 'dzień'],
      pt: ['data', 'dia'],
      ms: ['tarikh'],
      id: ['tanggal', 'tgl', 'tgl.'],
    },
  },
  {
    id: 'invoice_date',
    level: 'document',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['invoice date', 'date of invoice', 'issue date', 'date of issue', 'issued', 'issued on', 'billing date', 'document date', 'receipt date', 'bill date', 'statement date', 'date issued', 'credit note date'],
      de: ['Rechnungsdatum', 'Belegdatum', 'Ausstellungsdatum', 'Datum der Rechnung', 'Rechnungs-Datum', 'Dokumentdatum', 'Gutschriftsdatum'],
      fr: ['date de facture', 'date de la facture', 'date de facturation', "date d'émission", 'date facture', "date de l'avoir", 'émise le', 'date du document'],
      es: ['fecha de factura', 'fecha factura', 'fecha de emisión', 'fecha emisión', 'fecha de expedición', 'fecha del documento'],
      it: ['data fattura', 'data della fattura', 'data di emissione', 'data documento', 'data emissione'],
      nl: ['factuurdatum', 'datum factuur', 'uitgiftedatum', 'documentdatum'],
      pl: ['data wystawienia', 'data faktury', 'data dokumentu'],
      pt: ['data da fatura', 'data de emissão', 'data fatura', 'data do documento'],
      ms: ['tarikh invois', 'tarikh resit'],
      id: ['tanggal faktur', 'tanggal nota', 'tgl faktur'],
    },
  },
  {
    id: 'due_date',
    level: 'document',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['due date', 'payment due', 'due by', 'pay by', 'payable by', 'payment due date', 'due on', 'date due', 'payment date', 'payable until'],
      de: ['Fälligkeitsdatum', 'fällig am', 'fällig bis', 'Fälligkeit', 'zahlbar bis', 'Zahlungsziel', 'Zahlungsdatum', 'Fällig'],
      fr: ["date d'échéance", 'échéance', 'à payer avant le', 'payable avant le', 'date limite de paiement', 'date de paiement', 'payable le'],
      es: ['fecha de vencimiento', 'vencimiento', 'fecha vencimiento', 'fecha de pago', 'pagar antes de'],
      it: ['data di scadenza', 'scadenza', 'data scadenza', 'data pagamento', 'pagabile entro'],
      nl: ['vervaldatum', 'uiterste betaaldatum', 'te betalen voor', 'betalen voor', 'vervaldag'],
      pl: ['termin płatności', 'data płatności', 'termin zapłaty', 'płatne do'],
      pt: ['data de vencimento', 'vencimento', 'data limite de pagamento', 'pagar até'],
    },
    weak: ['due'],
  },
  {
    // A date a receipt or voucher prints that is not its own: until when it holds or goods may be
    // returned. Only phrases: a word of a phrase is a vocabulary word, which names made of such words are not.
    id: 'expiry_date',
    level: 'document',
    types: ['date'],
    terms: {
      en: ['valid until', 'valid thru', 'valid through', 'expires', 'expires on', 'expiry', 'expiry date', 'expiration date', 'exp. date', 'return by', 'returns by', 'points expire'],
      de: ['gültig bis', 'Ablaufdatum', 'läuft ab am', 'Umtausch bis'],
      fr: ["valable jusqu'au", "date d'expiration", 'expire le'],
      es: ['válido hasta', 'fecha de caducidad', 'caduca el'],
      it: ['valido fino al', 'valido fino a'],
      nl: ['geldig tot', 'geldig t/m'],
      pl: ['ważne do', 'data ważności'],
      pt: ['válido até', 'data de validade'],
    },
  },
  {
    id: 'delivery_date',
    level: 'both',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['delivery date', 'ship date', 'shipping date', 'date of delivery', 'delivered on', 'dispatch date', 'date of supply', 'supply date', 'service date', 'date of service', 'performance date'],
      de: ['Lieferdatum', 'Leistungsdatum', 'Liefertag', 'Versanddatum', 'Leistungstag', 'Tag der Lieferung', 'Lieferung am', 'Datum der Lieferung', 'Datum der Leistung'],
      fr: ['date de livraison', 'livré le', "date d'expédition", 'date de prestation'],
      es: ['fecha de entrega', 'fecha de envío', 'fecha de servicio'],
      it: ['data di consegna', 'data consegna', 'data spedizione', 'data di spedizione'],
      nl: ['leverdatum', 'leveringsdatum', 'verzenddatum', 'datum levering'],
      pl: ['data dostawy', 'data sprzedaży', 'data wykonania usługi', 'data wysyłki'],
      pt: ['data de entrega', 'data de envio', 'data de expedição'],
    },
  },
  {
    id: 'time',
    level: 'both',
    types: ['string'],
    terms: {
      en: ['time', 'time of day', 'transaction time', 'purchase time'],
      de: ['Uhrzeit', 'Zeit'],
      fr: ['heure'],
      es: ['hora'],
      it: ['ora', 'orario'],
      nl: ['tijd', 'tijdstip'],
      pl: ['godzina', 'czas'],
      pt: ['hora', 'horário'],
      ms: ['masa', 'waktu'],
      id: ['jam', 'waktu'],
    },
  },
  {
    id: 'order_date',
    level: 'both',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['order date', 'date ordered', 'purchase date', 'date of order', 'po date'],
      de: ['Bestelldatum', 'Auftragsdatum', 'Datum der Bestellung'],
      fr: ['date de commande', 'date commande'],
      es: ['fecha de pedido', 'fecha pedido', 'fecha de compra'],
      it: ['data ordine', "data dell'ordine"],
      nl: ['besteldatum', 'orderdatum'],
      pl: ['data zamówienia'],
      pt: ['data do pedido', 'data da encomenda'],
    },
  },
  {
    id: 'period',
    level: 'both',
    types: ['string', 'text'],
    terms: {
      en: ['period', 'service period', 'billing period', 'invoice period', 'statement period', 'term'],
      de: ['Zeitraum', 'Leistungszeitraum', 'Abrechnungszeitraum', 'Lieferzeitraum', 'Periode'],
      fr: ['période', 'période de facturation', 'période de prestation'],
      es: ['periodo', 'período de facturación', 'periodo de servicio'],
      it: ['periodo', 'periodo di fatturazione', 'periodo di riferimento'],
      nl: ['periode', 'factuurperiode', 'looptijd'],
      pl: ['okres', 'okres rozliczeniowy'],
      pt: ['período', 'período de faturação', 'período de faturamento'],
    },
  },
  {
    id: 'period_start',
    level: 'both',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['start date', 'period start', 'service start', 'start', 'begin', 'valid from', 'from date'],
      de: ['Beginn', 'Startdatum', 'Leistungsbeginn', 'gültig ab', 'Beginndatum'],
      fr: ['début', 'date de début', 'à partir du'],
      es: ['desde', 'fecha de inicio', 'inicio'],
      it: ['data inizio', 'inizio'],
      nl: ['begindatum', 'vanaf', 'ingangsdatum'],
      pl: ['data rozpoczęcia', 'początek'],
      pt: ['data de início', 'início'],
    },
    weak: ['from', 'von', 'ab', 'du', 'dal', 'van', 'od', 'de'],
  },
  {
    id: 'period_end',
    level: 'both',
    types: ['date'],
    broader: 'date',
    terms: {
      en: ['end date', 'period end', 'until', 'service end', 'end', 'through', 'valid until', 'to date'],
      de: ['Ende', 'Enddatum', 'Leistungsende', 'gültig bis'],
      fr: ['fin', 'date de fin', "jusqu'au"],
      es: ['hasta', 'fecha de fin', 'fin', 'fecha final'],
      it: ['data fine', 'fine'],
      nl: ['einddatum', 'tot en met'],
      pl: ['data zakończenia', 'koniec'],
      pt: ['data de fim', 'fim', 'data final'],
    },
    weak: ['to', 'bis', 'au', 'al', 'tot', 'do', 'até'],
  },
  {
    id: 'invoice_number',
    level: 'document',
    types: CODE,
    terms: {
      en: ['invoice number', 'invoice no.', 'invoice #', 'invoice id', 'inv no.', 'inv #', 'bill number', 'receipt number', 'receipt no.', 'document number', 'credit note number', 'credit note no.', 'credit memo number', 'credit memo no.', 'statement number', 'invoice ref'],
      de: ['Rechnungsnummer', 'Rechnungs-Nr.', 'Rechnung Nr.', 'Rechnungsnr.', 'Belegnummer', 'Beleg-Nr.', 'Dokumentnummer', 'Gutschriftsnummer', 'Gutschrift Nr.', 'Re.-Nr.', 'Rechnungskorrektur Nr.', 'Korrekturrechnung Nr.', 'Stornorechnung Nr.'],
      fr: ['numéro de facture', 'facture n°', 'facture no', 'n° de facture', 'n° facture', "numéro d'avoir", 'avoir n°', 'numéro de document'],
      es: ['número de factura', 'factura n.º', 'nº factura', 'n.º de factura', 'núm. factura', 'número de documento'],
      it: ['numero fattura', 'fattura n.', 'n. fattura', 'numero documento', 'n. documento'],
      nl: ['factuurnummer', 'factuur nr.', 'factuurnr.', 'documentnummer'],
      pl: ['numer faktury', 'faktura nr', 'nr faktury', 'faktura vat nr', 'numer dokumentu'],
      pt: ['número da fatura', 'fatura n.º', 'nº fatura', 'número do documento', 'nota fiscal'],
      ms: ['no. invois', 'no invois', 'nombor invois', 'no. resit', 'no resit', 'nombor resit'],
      id: ['no. faktur', 'nomor faktur', 'no faktur', 'no. nota', 'no nota', 'no. struk', 'no struk'],
    },
    weak: ['invoice', 'Rechnung', 'facture', 'factura', 'fattura', 'factuur', 'fatura', 'faktura'],
  },
  {
    id: 'order_number',
    level: 'both',
    types: CODE,
    terms: {
      en: ['order number', 'order no.', 'order #', 'order id', 'purchase order', 'po number', 'po no.', 'po #', 'your order', 'sales order', 'order ref'],
      de: ['Bestellnummer', 'Bestell-Nr.', 'Auftragsnummer', 'Auftrags-Nr.', 'Ihre Bestellung', 'Auftragsnr.', 'Bestellnr.', 'Ihr Auftrag'],
      fr: ['numéro de commande', 'n° de commande', 'bon de commande', 'commande n°', 'votre commande'],
      es: ['número de pedido', 'nº pedido', 'orden de compra', 'pedido n.º'],
      it: ['numero ordine', 'n. ordine', "ordine d'acquisto", 'vostro ordine'],
      nl: ['ordernummer', 'bestelnummer', 'order nr.', 'inkoopordernummer', 'uw bestelling'],
      pl: ['numer zamówienia', 'nr zamówienia'],
      pt: ['número do pedido', 'nº pedido', 'número da encomenda', 'nota de encomenda'],
    },
    weak: ['order', 'po', 'Auftrag', 'Bestellung', 'commande', 'pedido', 'ordine', 'bestelling', 'zamówienie', 'encomenda'],
  },
  {
    id: 'customer_number',
    level: 'document',
    types: CODE,
    terms: {
      en: ['customer number', 'customer no.', 'customer id', 'customer #', 'account number', 'account no.', 'account #', 'client number', 'client id', 'customer code', 'account id'],
      de: ['Kundennummer', 'Kunden-Nr.', 'Kundennr.', 'Kunden-ID', 'Ihre Kundennummer', 'Debitorennummer', 'Kd.-Nr.', 'Kundenkonto'],
      fr: ['numéro client', 'n° client', 'code client', 'référence client', 'numéro de client'],
      es: ['número de cliente', 'nº cliente', 'código de cliente', 'id cliente', 'n.º de cliente'],
      it: ['codice cliente', 'numero cliente', 'n. cliente', 'cod. cliente'],
      nl: ['klantnummer', 'klant nr.', 'debiteurnummer', 'klantnr.'],
      pl: ['numer klienta', 'nr klienta', 'kod klienta'],
      pt: ['número de cliente', 'nº cliente', 'código do cliente', 'n.º de cliente'],
    },
  },
  {
    id: 'reference',
    level: 'both',
    types: CODE,
    terms: {
      en: ['reference', 'ref.', 'ref no.', 'reference number', 'your reference', 'our reference', 'payment reference', 'transaction id', 'transaction number', 'confirmation number', 'original invoice', 'original invoice number', 'original invoice no.', 'referenced invoice'],
      de: ['Referenz', 'Referenznummer', 'Ihr Zeichen', 'Unser Zeichen', 'Verwendungszweck', 'Zahlungsreferenz', 'Vorgangsnummer', 'Ihre Referenz', 'Ursprungsbeleg-Nr.', 'Ursprungsbelegnummer', 'Ursprungsrechnung', 'Ursprungsrechnungsnummer', 'ursprüngliche Rechnung'],
      fr: ['référence', 'réf.', 'votre référence', 'notre référence', 'référence de paiement'],
      es: ['referencia', 'ref.', 'su referencia', 'nuestra referencia'],
      it: ['riferimento', 'rif.', 'vostro riferimento', 'causale'],
      nl: ['referentie', 'kenmerk', 'uw referentie', 'betalingskenmerk', 'ons kenmerk', 'uw kenmerk'],
      pl: ['referencja', 'numer referencyjny', 'tytuł płatności', 'tytułem'],
      pt: ['referência', 'ref.', 'sua referência'],
    },
  },
  {
    id: 'description',
    level: 'item',
    types: TEXT,
    terms: {
      en: ['description', 'item', 'items', 'product', 'service', 'services', 'details', 'item description', 'product description', 'particulars', 'product name', 'item name', 'article', 'designation', 'activity', 'line item'],
      de: ['Beschreibung', 'Bezeichnung', 'Artikel', 'Leistung', 'Artikelbezeichnung', 'Produkt', 'Leistungsbeschreibung', 'Artikelbeschreibung', 'Text'],
      fr: ['description', 'désignation', 'libellé', 'article', 'produit', 'prestation', 'détail'],
      es: ['descripción', 'concepto', 'artículo', 'producto', 'servicio', 'detalle', 'denominación'],
      it: ['descrizione', 'articolo', 'prodotto', 'servizio', 'dettaglio', 'denominazione'],
      nl: ['omschrijving', 'beschrijving', 'artikel', 'product', 'dienst', 'artikelomschrijving'],
      pl: ['opis', 'nazwa', 'nazwa towaru', 'nazwa towaru lub usługi', 'towar', 'usługa', 'towar/usługa'],
      pt: ['descrição', 'designação', 'artigo', 'produto', 'serviço', 'item'],
      ms: ['perkara', 'keterangan', 'butiran', 'nama barang'],
      id: ['keterangan', 'nama barang', 'deskripsi'],
    },
  },
  {
    id: 'item_number',
    level: 'item',
    types: CODE,
    terms: {
      en: ['sku', 'item number', 'item no.', 'item #', 'item code', 'article number', 'article no.', 'product code', 'product id', 'part number', 'part no.', 'part #', 'catalog number', 'model', 'ean', 'gtin', 'upc', 'code'],
      de: ['Artikelnummer', 'Artikel-Nr.', 'Art.-Nr.', 'Artikelnr.', 'Materialnummer', 'Produktnummer', 'Teilenummer', 'Art.Nr.', 'Bestellnummer Artikel'],
      fr: ['référence article', 'code article', 'réf. article', 'numéro article', 'code produit', 'réf'],
      es: ['código', 'código de artículo', 'referencia artículo', 'cód.', 'código producto'],
      it: ['codice articolo', 'codice', 'cod. articolo', 'codice prodotto', 'cod.'],
      nl: ['artikelnummer', 'artikelnr.', 'artikelcode', 'productcode'],
      pl: ['kod', 'kod towaru', 'indeks', 'numer katalogowy', 'symbol'],
      pt: ['código', 'código do artigo', 'referência', 'código do produto', 'cód.'],
    },
  },
  {
    id: 'position',
    level: 'item',
    types: CODE,
    terms: {
      en: ['position', 'pos.', 'line', 'line number', 'line no.', 'item no'],
      de: ['Position', 'Pos.', 'Pos.-Nr.', 'Positionsnummer', 'Zeile'],
      fr: ['ligne', 'position', 'n° ligne'],
      es: ['línea', 'posición', 'nº línea'],
      it: ['riga', 'posizione', 'n. riga'],
      nl: ['regel', 'positie', 'regelnummer', 'pos.'],
      pl: ['lp.', 'l.p.', 'lp', 'pozycja', 'poz.'],
      pt: ['linha', 'posição', 'nº linha'],
    },
    weak: ['no.', '#', 'nr.', 'n°'],
  },
  {
    id: 'customer',
    level: 'document',
    types: TEXT,
    terms: {
      en: ['customer', 'client', 'bill to', 'billed to', 'invoice to', 'sold to', 'buyer', 'recipient', 'customer name', 'client name', 'invoiced to', 'purchaser', 'attention', 'to'],
      de: ['Kunde', 'Rechnungsempfänger', 'Empfänger', 'Käufer', 'Auftraggeber', 'Leistungsempfänger', 'Rechnungsadresse', 'Kundenname', 'an'],
      fr: ['client', 'facturé à', 'destinataire', 'acheteur', 'adresse de facturation', 'nom du client', 'facturer à'],
      es: ['cliente', 'facturar a', 'destinatario', 'comprador', 'facturado a', 'nombre del cliente'],
      it: ['cliente', 'destinatario', 'intestatario', 'committente', 'acquirente', 'spett.le', 'fatturare a'],
      nl: ['klant', 'afnemer', 'factuuradres', 'koper', 'ontvanger', 'opdrachtgever', 'gefactureerd aan'],
      pl: ['nabywca', 'odbiorca', 'klient', 'kupujący', 'płatnik'],
      pt: ['cliente', 'destinatário', 'adquirente', 'comprador', 'faturar a', 'faturado a'],
      ms: ['pelanggan', 'nama pelanggan', 'dibilkan kepada'],
      id: ['pelanggan', 'pembeli', 'nama pelanggan'],
    },
    // Where goods go is often not who pays: a delivery address names the customer only loosely.
    weak: ['ship to', 'deliver to', 'delivery address', 'shipping address', 'Lieferadresse', 'Lieferanschrift', 'livré à', 'adresse de livraison', 'enviar a', 'dirección de entrega', 'consegnare a', 'indirizzo di consegna', 'afleveradres', 'leveradres', 'adres dostawy', 'morada de entrega'],
  },
  {
    id: 'vendor',
    level: 'document',
    types: TEXT,
    terms: {
      en: ['vendor', 'supplier', 'seller', 'merchant', 'issuer', 'from', 'company', 'payee', 'store', 'shop', 'biller', 'provider', 'service provider', 'sold by', 'remit to', 'vendor name', 'supplier name', 'issued by', 'contractor', 'shop name', 'store name', 'merchant name', 'company name'],
      de: ['Lieferant', 'Verkäufer', 'Rechnungssteller', 'Absender', 'Aussteller', 'Firma', 'Leistungserbringer', 'Anbieter', 'Händler', 'Unternehmen', 'Auftragnehmer'],
      fr: ['fournisseur', 'vendeur', 'émetteur', 'société', 'prestataire', 'expéditeur', 'entreprise', 'commerçant'],
      es: ['proveedor', 'vendedor', 'emisor', 'empresa', 'comercio', 'razón social', 'expedidor'],
      it: ['fornitore', 'venditore', 'emittente', 'cedente', 'prestatore', 'ditta', 'società', 'azienda'],
      nl: ['leverancier', 'verkoper', 'afzender', 'bedrijf', 'uitgever', 'crediteur', 'dienstverlener'],
      pl: ['sprzedawca', 'dostawca', 'wystawca', 'firma', 'usługodawca'],
      pt: ['fornecedor', 'vendedor', 'emitente', 'empresa', 'prestador', 'prestador de serviços'],
      ms: ['penjual', 'pembekal'],
      id: ['penjual', 'pemasok'],
    },
  },
  {
    id: 'address',
    level: 'document',
    types: TEXT,
    terms: {
      en: ['address', 'street', 'street address', 'billing address', 'shipping address', 'mailing address', 'location', 'addr.'],
      de: ['Adresse', 'Anschrift', 'Straße', 'Strasse', 'Str.', 'Hausnummer'],
      fr: ['adresse', 'rue', 'adresse postale'],
      es: ['dirección', 'domicilio', 'calle'],
      it: ['indirizzo', 'via', 'sede'],
      nl: ['adres', 'straat', 'postadres'],
      pl: ['adres', 'ulica', 'ul.'],
      pt: ['endereço', 'morada', 'rua'],
      ms: ['alamat'],
      id: ['alamat'],
    },
  },
  {
    id: 'email',
    level: 'both',
    types: ['email', 'string'],
    terms: {
      en: ['email', 'e-mail', 'email address', 'mail', 'e-mail address'],
      de: ['E-Mail', 'E-Mail-Adresse', 'Mail'],
      fr: ['courriel', 'e-mail', 'adresse e-mail', 'mél', 'adresse électronique'],
      es: ['correo', 'correo electrónico', 'email'],
      it: ['email', 'posta elettronica', 'e-mail', 'pec'],
      nl: ['e-mail', 'e-mailadres', 'mail'],
      pl: ['e-mail', 'adres e-mail', 'poczta'],
      pt: ['e-mail', 'correio eletrónico', 'correio eletrônico', 'email'],
    },
  },
  {
    id: 'phone',
    level: 'both',
    types: ['string'],
    terms: {
      en: ['phone', 'telephone', 'tel.', 'phone number', 'mobile', 'cell', 'fax', 'ph.'],
      de: ['Telefon', 'Tel.', 'Telefonnummer', 'Mobil', 'Handy', 'Fon', 'Fax'],
      fr: ['téléphone', 'tél.', 'tel', 'portable', 'mobile', 'fax'],
      es: ['teléfono', 'tel.', 'móvil', 'celular', 'tfno.'],
      it: ['telefono', 'tel.', 'cellulare', 'cell.'],
      nl: ['telefoon', 'tel.', 'telefoonnummer', 'mobiel'],
      pl: ['telefon', 'tel.', 'nr telefonu', 'komórka'],
      pt: ['telefone', 'tel.', 'telemóvel', 'celular'],
      ms: ['telefon', 'no. telefon'],
      id: ['telepon', 'telp', 'telp.', 'no. telp'],
    },
  },
  {
    id: 'iban',
    level: 'document',
    types: ['string'],
    terms: {
      en: ['iban', 'bank account', 'account', 'iban number'],
      de: ['IBAN', 'Bankverbindung', 'Konto', 'Kontonummer'],
      fr: ['IBAN', 'compte bancaire', 'RIB', 'coordonnées bancaires'],
      es: ['IBAN', 'cuenta bancaria', 'número de cuenta', 'cuenta'],
      it: ['IBAN', 'conto corrente', 'c/c', 'coordinate bancarie'],
      nl: ['IBAN', 'rekeningnummer', 'bankrekening', 'rekening'],
      pl: ['IBAN', 'numer konta', 'nr konta', 'rachunek bankowy', 'konto'],
      pt: ['IBAN', 'NIB', 'conta bancária', 'número de conta'],
    },
  },
  {
    id: 'bic',
    level: 'document',
    types: ['string'],
    terms: {
      en: ['bic', 'swift', 'swift code', 'bic code', 'bic/swift', 'swift/bic'],
      de: ['BIC', 'SWIFT-Code'],
      fr: ['BIC', 'code BIC', 'code SWIFT'],
      es: ['BIC', 'código SWIFT', 'código BIC'],
      it: ['BIC', 'codice SWIFT', 'codice BIC'],
      nl: ['BIC', 'SWIFT'],
      pl: ['BIC', 'kod SWIFT'],
      pt: ['BIC', 'código SWIFT'],
    },
  },
  {
    id: 'tax_id',
    level: 'document',
    types: ['string'],
    terms: {
      en: ['vat id', 'vat number', 'vat no.', 'vat reg no.', 'vat registration number', 'tax id', 'tax number', 'tax no.', 'tin', 'ein', 'gst number', 'gstin', 'abn', 'vat reg.', 'company vat id', 'tax registration number'],
      de: ['USt-IdNr.', 'USt.-ID', 'USt-ID', 'Umsatzsteuer-ID', 'Umsatzsteuer-Identifikationsnummer', 'Steuernummer', 'St.-Nr.', 'Steuer-Nr.', 'UID', 'UID-Nr.', 'USt-Id', 'Ust.-Id.-Nr.', 'Steuer-ID'],
      fr: ['numéro de TVA', 'n° TVA', 'TVA intracommunautaire', 'n° TVA intracommunautaire', 'SIRET', 'SIREN', 'numéro fiscal', 'identifiant TVA', 'n° de TVA intracommunautaire'],
      es: ['NIF', 'CIF', 'NIF/CIF', 'número de IVA', 'número de identificación fiscal', 'RFC', 'RUT', 'CUIT'],
      it: ['partita IVA', 'P.IVA', 'P. IVA', 'codice fiscale', 'C.F.', 'partita iva/codice fiscale'],
      nl: ['btw-nummer', 'btw nummer', 'btw-nr.', 'btw nr.', 'btw-id', 'btw identificatienummer', 'KvK', 'KvK-nummer', 'ondernemingsnummer'],
      pl: ['NIP', 'numer NIP', 'REGON', 'NIP UE'],
      pt: ['NIF', 'NIPC', 'número de contribuinte', 'contribuinte', 'CNPJ', 'CPF', 'nº contribuinte'],
    },
  },
  {
    id: 'currency',
    level: 'both',
    types: ['string', 'enum'],
    terms: {
      en: ['currency', 'ccy', 'currency code', 'cur.'],
      de: ['Währung', 'Währungscode'],
      fr: ['devise', 'monnaie'],
      es: ['moneda', 'divisa'],
      it: ['valuta', 'divisa'],
      nl: ['valuta', 'munteenheid'],
      pl: ['waluta'],
      pt: ['moeda', 'divisa'],
    },
  },
  {
    id: 'payment_terms',
    level: 'document',
    types: TEXT,
    terms: {
      en: ['payment terms', 'terms', 'terms of payment', 'payment conditions', 'payment method', 'terms and conditions'],
      de: ['Zahlungsbedingungen', 'Zahlungsbedingung', 'Zahlungsart', 'Zahlungsweise', 'Konditionen'],
      fr: ['conditions de paiement', 'conditions de règlement', 'mode de paiement', 'mode de règlement', 'règlement'],
      es: ['condiciones de pago', 'forma de pago', 'método de pago', 'términos de pago'],
      it: ['condizioni di pagamento', 'modalità di pagamento', 'termini di pagamento', 'pagamento'],
      nl: ['betalingsvoorwaarden', 'betalingstermijn', 'betaalwijze', 'betaalmethode'],
      pl: ['warunki płatności', 'sposób płatności', 'forma płatności'],
      pt: ['condições de pagamento', 'forma de pagamento', 'meio de pagamento', 'modo de pagamento'],
    },
  },
  {
    id: 'name',
    level: 'both',
    types: TEXT,
    terms: {
      en: ['name', 'full name', 'contact', 'contact person', 'contact name', 'manager', 'store manager', 'mgr', 'store mgr'],
      de: ['Name', 'Ansprechpartner', 'Kontakt', 'Vorname', 'Nachname'],
      fr: ['nom', 'nom complet', 'contact', 'interlocuteur', 'prénom'],
      es: ['nombre', 'nombre completo', 'contacto', 'apellidos'],
      it: ['nome', 'nominativo', 'referente', 'cognome'],
      nl: ['naam', 'contactpersoon', 'voornaam', 'achternaam'],
      pl: ['nazwa', 'imię i nazwisko', 'nazwisko', 'imię', 'osoba kontaktowa'],
      pt: ['nome', 'nome completo', 'contacto', 'contato'],
    },
  },
  {
    id: 'country',
    level: 'both',
    types: TEXT,
    terms: {
      en: ['country', 'nation', 'country code'],
      de: ['Land', 'Staat', 'Ländercode'],
      fr: ['pays'],
      es: ['país'],
      it: ['paese', 'nazione', 'stato'],
      nl: ['land'],
      pl: ['kraj', 'państwo'],
      pt: ['país'],
    },
  },
  {
    id: 'city',
    level: 'both',
    types: TEXT,
    terms: {
      en: ['city', 'town', 'locality'],
      de: ['Stadt', 'Ort', 'Wohnort'],
      fr: ['ville', 'localité', 'commune'],
      es: ['ciudad', 'localidad', 'población', 'municipio'],
      it: ['città', 'comune', 'località'],
      nl: ['stad', 'plaats', 'woonplaats', 'gemeente'],
      pl: ['miasto', 'miejscowość'],
      pt: ['cidade', 'localidade', 'município'],
    },
  },
  {
    id: 'postal_code',
    level: 'both',
    types: CODE,
    terms: {
      en: ['postal code', 'zip', 'zip code', 'postcode', 'post code'],
      de: ['PLZ', 'Postleitzahl'],
      fr: ['code postal', 'CP'],
      es: ['código postal', 'CP', 'C.P.'],
      it: ['CAP', 'codice postale'],
      nl: ['postcode'],
      pl: ['kod pocztowy'],
      pt: ['código postal', 'CEP'],
    },
  },
  {
    id: 'website',
    level: 'both',
    types: ['url', 'string'],
    terms: {
      en: ['website', 'web', 'url', 'homepage', 'web site', 'internet'],
      de: ['Webseite', 'Internet', 'Homepage', 'Web'],
      fr: ['site web', 'site internet', 'site'],
      es: ['sitio web', 'página web', 'web'],
      it: ['sito web', 'sito', 'sito internet'],
      nl: ['website', 'webadres'],
      pl: ['strona internetowa', 'strona www', 'www'],
      pt: ['site', 'sítio web', 'página web'],
    },
  },
];

/** Words printed as a document's title, never a party's name ("INVOICE" above the letterhead). */
export const DOCUMENT_TITLES: string[] = [
  'invoice', 'tax invoice', 'commercial invoice', 'proforma invoice', 'pro forma invoice', 'credit note', 'credit memo', 'debit note', 'receipt', 'sales receipt', 'statement', 'bill', 'quote', 'quotation', 'order confirmation', 'purchase order', 'delivery note', 'packing slip',
  'Rechnung', 'Gutschrift', 'Quittung', 'Beleg', 'Kassenbon', 'Angebot', 'Auftragsbestätigung', 'Lieferschein', 'Proformarechnung', 'Rechnungskorrektur', 'Storno',
  'facture', 'avoir', 'facture d\'avoir', 'reçu', 'devis', 'bon de livraison', 'note de crédit', 'facture proforma',
  'factura', 'factura rectificativa', 'recibo', 'presupuesto', 'albarán', 'nota de crédito', 'factura simplificada',
  'fattura', 'nota di credito', 'ricevuta', 'preventivo', 'documento di trasporto', 'fattura elettronica',
  'factuur', 'creditnota', 'creditfactuur', 'kwitantie', 'offerte', 'pakbon',
  'faktura', 'faktura vat', 'korekta', 'faktura korygująca', 'paragon', 'rachunek', 'oferta', 'nota kredytowa',
  'fatura', 'fatura-recibo', 'nota de crédito', 'recibo', 'orçamento', 'fatura simplificada',
  'resit', 'resit rasmi', 'resit jualan', 'resit tunai', 'invois', 'invois cukai', 'bil tunai', 'nota kredit', 'sebut harga',
  'faktur', 'faktur pajak', 'kwitansi', 'struk', 'struk belanja', 'nota pembelian',
];

/** Legal forms that end a company's name: a line ending in one is a party, not a street. */
export const LEGAL_FORMS: string[] = [
  'Inc', 'Inc.', 'Incorporated', 'Corp', 'Corp.', 'Corporation', 'LLC', 'L.L.C.', 'LLP', 'Ltd', 'Ltd.', 'Limited', 'PLC', 'Co.', 'Company', 'LP',
  'GmbH', 'AG', 'KG', 'OHG', 'GbR', 'UG', 'e.K.', 'e.V.', 'GmbH & Co. KG', 'mbH', 'KGaA', 'SE', 'eG', 'a.G.', 'VVaG', 'PartG', 'PartGmbB', 'gGmbH', 'GesmbH', 'Ges.m.b.H.',
  'SA', 'S.A.', 'SARL', 'S.A.R.L.', 'SAS', 'S.A.S.', 'SASU', 'EURL', 'SNC', 'SCI',
  'S.L.', 'SL', 'S.L.U.', 'S.A.U.', 'S.C.',
  'S.p.A.', 'SpA', 'S.r.l.', 'Srl', 'S.n.c.', 'S.a.s.',
  'B.V.', 'BV', 'N.V.', 'NV', 'V.O.F.', 'VOF', 'CV',
  'Sp. z o.o.', 'sp. z o.o.', 'S.A.', 'Sp.j.', 'Sp.k.',
  'Lda', 'Lda.', 'Ltda', 'Ltda.', 'S.A.', 'ME', 'EIRELI', 'Unipessoal',
  'AB', 'AS', 'A/S', 'ApS', 'Oy', 'Oyj', 'BVBA', 'SPRL', 'SRL', 'Pty Ltd', 'Pty', 'KK', 'K.K.', 'Co., Ltd.',
  'Sdn Bhd', 'Sdn. Bhd.', 'Bhd', 'Berhad', 'S/B', 'Pte Ltd', 'Pte. Ltd.', 'Pvt Ltd', 'Pvt. Ltd.',
];

/**
 * Words beside a total that say whether it includes the tax: "Total (excl. VAT)" is the net,
 * "Total Sales (Inclusive of GST)" the gross.
 */
export const TAX_EXCLUDED_WORDS: string[] = ['excl', 'excl.', 'excluding', 'exclusive', 'before tax', 'without', 'w/o', 'exkl', 'exkl.', 'ohne', 'zzgl', 'zzgl.', 'hors', 'HT', 'sin', 'senza', 'sem', 'bez'];
export const TAX_INCLUDED_WORDS: string[] = ['incl', 'incl.', 'including', 'inclusive', 'inc.', 'after tax', 'inkl', 'inkl.', 'TTC', 'con', 'compreso', 'com', 'met'];

/**
 * Greetings a shop prints above or below its receipt ("Thank you, please come again"): a line
 * holding one is no party's name, whatever names it also holds.
 */
export const COURTESY_PHRASES: string[] = [
  'thank you', 'thanks', 'come again', 'welcome', 'have a nice day', 'see you again', 'visit us again',
  'danke', 'vielen dank', 'willkommen', 'auf wiedersehen', 'bis bald',
  'merci', 'bienvenue', 'à bientôt', 'au revoir', 'bonne journée',
  'gracias', 'bienvenido', 'bienvenidos', 'vuelva pronto', 'hasta pronto',
  'grazie', 'benvenuto', 'benvenuti', 'arrivederci', 'a presto',
  'bedankt', 'dank u', 'dank je', 'welkom', 'tot ziens',
  'dziękujemy', 'dziękuję', 'zapraszamy', 'witamy',
  'obrigado', 'obrigada', 'volte sempre', 'bem-vindo', 'bem-vindos',
];

/**
 * Words of sentences that names do not hold: forms of "to be" and "to have", negations, pronouns of
 * address, "please" (in the lexicon's languages and Malay). Two of them make a line prose, a shop's
 * notice ("Goods sold are not returnable"), not a name.
 */
export const PROSE_WORDS: string[] = [
  'are', 'is', 'was', 'were', 'been', 'not', 'will', 'would', 'should', 'must', 'cannot', 'please', 'your', 'you', 'our', 'we', 'have', 'has', 'only',
  'sind', 'ist', 'nicht', 'wird', 'werden', 'bitte', 'ihr', 'ihre', 'wir', 'haben', 'nur', 'kein', 'keine',
  'sont', 'pas', 'veuillez', 'votre', 'vos', 'nous', 'vous', 'sera', 'seront',
  'están', 'será', 'usted', 'nuestro', 'nuestra',
  'sono', 'non', 'siete', 'sarà', 'vostro', 'vostra',
  'zijn', 'niet', 'wordt', 'uw', 'wij',
  'są', 'jest', 'nie', 'prosimy',
  'são', 'não', 'será',
  'tidak', 'boleh', 'sila', 'anda', 'kami', 'akan', 'adalah',
];

/** Words before a date that make it the date a payment is due ("payable by 30.05.2017"). */
export const DUE_PHRASES: string[] = [
  'due', 'payable by', 'payable until', 'payable before', 'payable on', 'due by', 'due on', 'due date', 'pay by', 'payment by', 'please pay by', 'please pay before', 'no later than', 'payment due',
  'fällig', 'zahlbar bis', 'zahlbar bis zum', 'bis zum', 'bis spätestens', 'spätestens am', 'spätestens bis', 'fällig am', 'fällig bis', 'fällig zum', 'zahlbar am', 'zahlbar innerhalb bis',
  'échéance', 'à payer avant le', 'à payer le', 'avant le', 'payable avant le', 'payable le', 'au plus tard le', 'échéance le', 'à régler avant le', 'à régler le',
  'pagar antes del', 'pagar antes de', 'antes del', 'a pagar el', 'pagadero el', 'vence el', 'con vencimiento el',
  'pagare entro il', 'entro il', 'scadenza il', 'da pagare entro',
  'te betalen voor', 'betalen vóór', 'betalen voor', 'uiterlijk op', 'uiterlijk', 'vóór',
  'płatne do', 'do dnia', 'termin płatności do', 'zapłacić do',
  'pagar até', 'pagável até', 'vence em', 'a pagar até', 'até',
];

/** Words before a date printed next to a place, the document's own date ("Berlin, den 01.11.2024"). */
export const PLACE_DATE_WORDS: string[] = ['den', 'am', 'le', 'el', 'il', 'lì', 'li', 'dnia', 'dn.', 'de', 'em', 'on', 'the'];

/**
 * Words of postal addresses in the lexicon's languages and in Malay and Indonesian: kinds of street,
 * building, floor and area, and the compass words of place names. A recognised word one misread
 * glyph from one of them, in a scan, is repaired to it (ocr/address-words.ts).
 */
export const ADDRESS_WORDS: string[] = [
  'street', 'road', 'avenue', 'lane', 'drive', 'boulevard', 'court', 'place', 'square', 'terrace', 'crescent', 'highway', 'parkway',
  'building', 'tower', 'level', 'floor', 'ground', 'block', 'suite', 'unit', 'plaza', 'centre', 'center', 'complex', 'mall',
  'park', 'industrial', 'estate', 'garden', 'gardens', 'village', 'district', 'county', 'province', 'state', 'city', 'town',
  'north', 'south', 'east', 'west', 'central', 'lot',
  'straße', 'strasse', 'gasse', 'allee', 'platz', 'chaussee', 'damm', 'ufer', 'stock', 'etage', 'gebäude', 'gewerbegebiet',
  'rue', 'chemin', 'impasse', 'route', 'quai', 'étage', 'bâtiment', 'zone',
  'calle', 'avenida', 'carrera', 'paseo', 'camino', 'planta', 'edificio', 'polígono',
  'viale', 'piazza', 'corso', 'vicolo', 'largo', 'piano', 'palazzo', 'località',
  'straat', 'laan', 'plein', 'gracht', 'kade', 'singel', 'verdieping', 'gebouw',
  'ulica', 'aleja', 'osiedle', 'piętro', 'budynek',
  'rua', 'travessa', 'praça', 'bairro', 'andar', 'edifício',
  'jalan', 'lorong', 'lebuh', 'lebuhraya', 'persiaran', 'lingkaran', 'taman', 'bandar', 'kampung', 'kampong', 'kawasan', 'perindustrian',
  'perdagangan', 'perniagaan', 'seksyen', 'mukim', 'daerah', 'menara', 'wisma', 'bangunan', 'kompleks', 'pusat', 'medan', 'desa',
  'bukit', 'sungai', 'pulau', 'tingkat', 'aras', 'blok', 'utara', 'selatan', 'timur', 'barat', 'tengah', 'darul', 'wilayah', 'persekutuan',
  'gedung', 'lantai', 'kelurahan', 'kecamatan', 'kabupaten', 'kota', 'provinsi',
];

/**
 * Abbreviations of those words that hold an l (Malay "Jln", "Blk", "Lrg"; English "Bldg", "Flr",
 * "Blvd", "Lvl"): a recogniser reads the l as another upright stroke ("JIn", "Jin", "B1k").
 */
export const ADDRESS_ABBREVIATIONS: string[] = ['jln', 'blk', 'lrg', 'bldg', 'flr', 'blvd', 'lvl'];

/**
 * Countries and their first-level divisions (states, provinces, federal territories) as addresses
 * print them, for the same repair: the last words of an address come from a short fixed list.
 */
export const REGIONS: string[] = [
  'Malaysia', 'Johor', 'Kedah', 'Kelantan', 'Melaka', 'Malacca', 'Negeri Sembilan', 'Pahang', 'Perak', 'Perlis', 'Pulau Pinang', 'Penang',
  'Sabah', 'Sarawak', 'Selangor', 'Terengganu', 'Kuala Lumpur', 'Labuan', 'Putrajaya', 'Singapore',
  'Indonesia', 'Jakarta', 'Thailand', 'Philippines', 'Vietnam', 'India', 'China', 'Japan', 'Australia', 'Canada',
  'Germany', 'Deutschland', 'Austria', 'Österreich', 'Switzerland', 'Schweiz', 'France', 'Belgium', 'Belgique', 'België', 'Netherlands',
  'Nederland', 'Luxembourg', 'Italy', 'Italia', 'Spain', 'España', 'Portugal', 'Poland', 'Polska', 'Ireland', 'United Kingdom', 'England',
  'Scotland', 'Wales',
  'Baden-Württemberg', 'Bayern', 'Berlin', 'Brandenburg', 'Bremen', 'Hamburg', 'Hessen', 'Mecklenburg-Vorpommern', 'Niedersachsen',
  'Nordrhein-Westfalen', 'Rheinland-Pfalz', 'Saarland', 'Sachsen', 'Sachsen-Anhalt', 'Schleswig-Holstein', 'Thüringen',
  'Ontario', 'Quebec', 'Québec', 'British Columbia', 'Alberta', 'Manitoba', 'Saskatchewan', 'Nova Scotia', 'New Brunswick',
  'New South Wales', 'Victoria', 'Queensland', 'Tasmania', 'Western Australia', 'South Australia', 'Northern Territory',
];

/** Lines that open a salutation or an addressee's title, above the name in an address block. */
export const ADDRESS_TITLES: string[] = [
  'Mr', 'Mr.', 'Mrs', 'Mrs.', 'Ms', 'Ms.', 'Attn', 'Attn.', 'Attention', 'c/o', 'To',
  'Herrn', 'Herr', 'Frau', 'Firma', 'z. Hd.', 'z.Hd.', 'An',
  'M.', 'Mme', 'Mlle', 'Monsieur', 'Madame', 'Société', 'À',
  'Sr.', 'Sra.', 'Srta.', 'D.', 'Dña.', 'Don', 'Doña', 'A la atención de',
  'Sig.', 'Sig.ra', 'Spett.le', 'Spettabile', 'Egr.', 'Gent.mo', "All'attenzione di",
  'Dhr.', 'Mevr.', 'T.a.v.', 'De heer', 'Mevrouw',
  'Pan', 'Pani', 'Szanowny',
  'Sr', 'Exmo.', 'Exma.', 'Exmo. Sr.', 'Ao cuidado de',
];

/** Month names and their usual abbreviations, to read dates written in words. */
export const MONTH_NAMES: Record<number, string[]> = {
  1: ['january', 'jan', 'januar', 'jänner', 'jän', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'januari', 'styczeń', 'stycznia', 'sty', 'janeiro'],
  2: ['february', 'feb', 'februar', 'feber', 'février', 'févr', 'fév', 'febrero', 'febbraio', 'februari', 'luty', 'lutego', 'lut', 'fevereiro', 'fev'],
  3: ['march', 'mar', 'märz', 'maerz', 'mars', 'marzo', 'maart', 'mrt', 'marzec', 'marca', 'março'],
  4: ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile', 'kwiecień', 'kwietnia', 'kwi'],
  5: ['may', 'mai', 'mayo', 'maggio', 'mag', 'mei', 'maj', 'maja', 'maio'],
  6: ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'czerwiec', 'czerwca', 'cze', 'junho'],
  7: ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'lipiec', 'lipca', 'lip', 'julho'],
  8: ['august', 'aug', 'août', 'agosto', 'ago', 'augustus', 'sierpień', 'sierpnia', 'sie'],
  9: ['september', 'sep', 'sept', 'septembre', 'septiembre', 'setiembre', 'settembre', 'set', 'wrzesień', 'września', 'wrz', 'setembro'],
  10: ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'październik', 'października', 'paź', 'outubro', 'out'],
  11: ['november', 'nov', 'novembre', 'noviembre', 'listopad', 'listopada', 'lis', 'novembro'],
  12: ['december', 'dec', 'dezember', 'dez', 'décembre', 'déc', 'diciembre', 'dic', 'dicembre', 'grudzień', 'grudnia', 'gru', 'dezembro'],
};
