/**
 * The language of a document from its commonest short words, enough to say how it writes dates
 * (dayFirstOf in dates.ts):
 * German, French, Spanish, Italian, Dutch, Polish and Portuguese documents write the day first;
 * English says nothing (the United States write the month first, most others the day).
 */

const STOPWORDS: Record<string, string[]> = {
  en: ['the', 'and', 'of', 'to', 'for', 'with', 'is', 'are', 'this', 'that', 'from', 'by', 'invoice', 'date', 'total', 'amount', 'due'],
  de: ['der', 'die', 'das', 'und', 'mit', 'für', 'von', 'ist', 'den', 'dem', 'ein', 'eine', 'rechnung', 'datum', 'betrag', 'bitte', 'summe', 'zum', 'bis'],
  fr: ['le', 'la', 'les', 'et', 'des', 'du', 'pour', 'avec', 'une', 'est', 'sur', 'facture', 'montant', 'date', 'total', 'à', 'payer'],
  es: ['el', 'la', 'los', 'las', 'y', 'del', 'para', 'con', 'una', 'por', 'es', 'factura', 'importe', 'fecha', 'total', 'que'],
  it: ['il', 'lo', 'la', 'gli', 'e', 'di', 'per', 'con', 'una', 'del', 'della', 'fattura', 'importo', 'data', 'totale', 'che'],
  nl: ['de', 'het', 'een', 'en', 'van', 'voor', 'met', 'is', 'op', 'factuur', 'bedrag', 'datum', 'totaal', 'te', 'aan'],
  pl: ['i', 'w', 'z', 'na', 'do', 'się', 'jest', 'dla', 'od', 'faktura', 'kwota', 'data', 'razem', 'suma', 'netto', 'brutto'],
  pt: ['o', 'a', 'os', 'as', 'e', 'do', 'da', 'dos', 'para', 'com', 'uma', 'fatura', 'valor', 'data', 'total', 'que', 'não'],
  ms: ['dan', 'yang', 'untuk', 'dengan', 'ini', 'itu', 'tarikh', 'jumlah', 'harga', 'terima', 'kasih', 'tunai', 'baki', 'cukai', 'invois'],
  id: ['dan', 'yang', 'untuk', 'dengan', 'ini', 'itu', 'tanggal', 'jumlah', 'harga', 'terima', 'kasih', 'tunai', 'kembali', 'pajak', 'faktur'],
};

const INDEX = new Map<string, string[]>();
for (const [lang, words] of Object.entries(STOPWORDS)) for (const w of words) INDEX.set(w, [...(INDEX.get(w) ?? []), lang]);

/** The likeliest language code (en, de, fr, es, it, nl, pl, pt), or null with too little text. */
export function documentLanguage(text: string): string | null {
  const counts = new Map<string, number>();
  let total = 0;
  for (const word of text.slice(0, 20000).toLowerCase().split(/[^\p{L}]+/u)) {
    const langs = INDEX.get(word);
    if (!langs) continue;
    total++;
    // A word shared by several languages counts for each a little.
    for (const lang of langs) counts.set(lang, (counts.get(lang) ?? 0) + 1 / langs.length);
  }
  if (total < 3) return null;
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return best && best[1] >= 2 ? best[0] : null;
}
