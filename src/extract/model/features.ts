/**
 * Candidates and their features for the learned document-field model. For each target column
 * whose role the model knows (a document number, issue and due dates, seller, buyer, the issuer's
 * address, net, tax and total amounts, the currency), every value of a fitting shape on the page
 * becomes a candidate, described by features about documents in general: the label words beside
 * or above it in the lexicon's languages, its position, font size and weight, its own shape,
 * arithmetic relations to the other amounts, and what the hand-written rules made of it.
 */
import { currencyIn } from '../coerce';
import { findDates, type DayOrder, type FoundDate } from '../dates';
import { conceptsOf, normalizeLabel } from '../lexicon';
import { ADDRESS_WORDS, CHANGE_GIVEN, COURTESY_PHRASES } from '../lexicon.data';
import { endsWithDuePhrase, namesCustomer, pickId, titleNumberCandidates, type Candidate } from '../fields/candidates';
import { LABEL_COLON, type Layout, type Seg } from '../fields/layout';
import { hasLegalForm, issuerDetail, legalFormOnly, nameBeforeAddress, nameLike, noticeLike, partyCandidates, salutationOnly, sentFrom, titleOnly } from '../fields/parties';
import { EMAIL_RE, escapeRe, findAmounts, type FoundAmount, POSTAL_LINE, REGISTRATION_LINE, STREET_LINE, STREET_WORD, TIME_RE, TITLES, URL_RE } from '../fields/values';
import { labelMatch, STAND_INS, taxQualifier, type Want } from '../fields/wants';
import { similarity } from '../learn/match';
import { known } from '../thesaurus';
import { allAmounts, CASH_ROUNDING, cashRounded, close } from '../fields/amounts';
import type { TextLine } from '../layout/page';
import { lettersAndFigures } from '../../lib/strings';

export type Role = 'number' | 'issue_date' | 'due_date' | 'seller' | 'buyer' | 'address' | 'net' | 'tax' | 'total' | 'currency';

export const ROLES: Role[] = ['number', 'issue_date', 'due_date', 'seller', 'buyer', 'address', 'net', 'tax', 'total', 'currency'];

const NUMERIC = new Set(['number', 'currency']);
const TEXTUAL = new Set(['string', 'text']);

/** The model's role for a column, or null for columns the label rules keep. */
export function roleOf(want: Want): Role | null {
  const { concept, column } = want;
  const t = column.type;
  if (concept === 'invoice_number' && (TEXTUAL.has(t) || NUMERIC.has(t))) return 'number';
  if ((concept === 'invoice_date' || concept === 'date') && t === 'date') return 'issue_date';
  if (concept === 'due_date' && t === 'date') return 'due_date';
  if (concept === 'vendor' && TEXTUAL.has(t)) return 'seller';
  if (concept === 'customer' && TEXTUAL.has(t)) return 'buyer';
  if (concept === 'address' && TEXTUAL.has(t) && !namesCustomer(want)) return 'address';
  if ((concept === 'net_amount' || concept === 'subtotal') && NUMERIC.has(t)) return 'net';
  if (concept === 'tax_amount' && NUMERIC.has(t)) return 'tax';
  if ((concept === 'total' || concept === 'amount_due') && NUMERIC.has(t)) return 'total';
  if (concept === 'currency' && TEXTUAL.has(t)) return 'currency';
  return null;
}

/**
 * What is known of documents in general, as weights the training starts from and is pulled back
 * to (raw feature units): the label rules' choice, a label naming the column, a label naming
 * another field of its kind, a due phrase before a date, a date in the title line, the party
 * rules' verdicts. With a corpus this small the model departs from these only where the data show it.
 */
const COMMON_PRIOR = { 'rule:pick': 3, 'label:own': 2, 'label:sibling': -2, 'label:other': -1 };
export const PRIORS: Record<Role, Record<string, number>> = {
  number: COMMON_PRIOR,
  issue_date: { ...COMMON_PRIOR, 'date:due_phrase': -2, 'date:title_line': 2 },
  due_date: { ...COMMON_PRIOR, 'date:due_phrase': 2, 'date:title_line': -2 },
  seller: { ...COMMON_PRIOR, 'party:unsure_ocr': -2, 'party:rule_vendor': 2, 'party:rule_customer': -2, 'party:label_vendor': 2, 'party:label_customer': -2 },
  buyer: { ...COMMON_PRIOR, 'party:rule_customer': 2, 'party:rule_vendor': -2, 'party:label_customer': 2, 'party:label_vendor': -2 },
  address: COMMON_PRIOR,
  net: { ...COMMON_PRIOR, 'amount:net_of_tax': 1, 'amount:gross_of_tax': -1, 'amount:taxed_at_rate': 1, 'amount:includes_rated_tax': -1 },
  tax: COMMON_PRIOR,
  // A printed tax completing an amount to another makes it a net; what a till rounds, and the money
  // handed over less the change, is what is paid.
  total: { ...COMMON_PRIOR, 'amount:paid_less_change': 1, 'amount:net_of_tax': -2, 'amount:gross_of_tax': 1, 'amount:rounds_labelled': 1, 'amount:unrounded': -1, 'label:items_header': -2, 'amount:includes_rated_tax': 1, 'amount:taxed_at_rate': -1, 'amount:rated_tax': -2 },
  currency: COMMON_PRIOR,
};

/**
 * Features a role's model for recognised scans learns without. The label rules' choice of a
 * party was made for invoices: on the dev receipts it names the shop wrong more often than right
 * (`npm run train` prints it), and a model that trusts it learns those receipts' exceptions, while
 * without it cross-validation by issuer gets more shop names right.
 */
export const SCAN_LEAVES_OUT: Partial<Record<Role, string[]>> = {
  seller: ['rule:pick', 'rule:score'],
};

export interface ModelCandidate {
  /** The value as printed (dates as YYYY-MM-DD when the document decides the order). */
  value: string;
  line: number;
  amount?: number;
  features: Record<string, number>;
  /**
   * Ruled out by what the document states elsewhere, whatever its features say: never written, but
   * kept among the candidates the model learns from (a wrong candidate like any other).
   */
  ruledOut?: boolean;
}

/** The label of the change a till gives back, in the lexicon's languages. */
const CHANGE_LABEL = new RegExp(`(?<!\\p{L})(?:${Object.values(CHANGE_GIVEN).flat().map(escapeRe).join('|')})(?!\\p{L})`, 'iu');

/** The families of concepts a label may name instead of the column's own: another date, another amount, another party. */
const FAMILIES: Record<string, string[]> = {
  date: ['invoice_date', 'date', 'due_date', 'delivery_date', 'order_date', 'period', 'period_start', 'period_end'],
  amount: ['net_amount', 'subtotal', 'tax_amount', 'total', 'amount_due', 'line_amount', 'discount', 'unit_price', 'tax_rate', 'quantity', 'amount_paid', 'tendered'],
  id: ['invoice_number', 'order_number', 'customer_number', 'reference', 'item_number', 'tax_id', 'delivery_note'],
  party: ['vendor', 'customer', 'address', 'name'],
};

interface Context {
  layout: Layout;
  want: Want;
  /** What the label rules chose for this column, normalised, with its score. */
  rule: { value: string; score: number; line?: number } | null;
  pageMid: Map<number, number>;
  maxSize: number;
}

const norm = (v: string) => normalizeLabel(v) || v.trim().toLowerCase();

/** A short capitalised token alone before a figure: a currency or unit mark. */
const MARK = /^\p{Lu}{1,3}\.?$/u;

/** Words set off by a comma ("Main Street, Marrowby"): a line of an address or of prose, no label. */
const WORDS_LISTED = /\p{L},\s*\p{L}/u;

/** The label words of a position: the text before it on its segment or the segment to its left, and the segment above. */
function labelsAt(layout: Layout, line: number, seg: Seg | undefined, before: string): { left: string; above: string } {
  const row = layout.segs[line] ?? [];
  let left = before.replace(/[\d.,:#/-]+\s*$/, '').trim();
  // A currency mark before the figure ("RM 28.00", "EUR 5.00") is no label: the label is further left.
  const mark = MARK.test(left) && !conceptsOf(left).length;
  if ((!/\p{L}{2}/u.test(left) || mark) && seg) {
    // The nearest segment to the left with words: a colon or dots may stand between ("Total  :  12.72").
    const k = row.indexOf(seg);
    const words = row.slice(Math.max(0, k - 2), Math.max(0, k)).reverse().find((s) => /\p{L}{2}/u.test(s.text));
    left = words?.text ?? (k > 0 ? row[k - 1]!.text : '');
  }
  let above = '';
  const here = layout.lines[line];
  const previous = layout.lines[line - 1];
  // A lone figure under a lone label (a till's narrow paper: "Cash" over "100.00") is labelled by it, wherever each stands.
  if (here && previous && previous.page === here.page && !/\p{L}/u.test(here.text) && /\p{L}/u.test(previous.text) && !/\d/.test(previous.text)) {
    above = previous.text.trim();
  } else if (seg && here && line > 0) {
    for (let j = line - 1; j >= Math.max(0, line - 2); j--) {
      const prev = layout.lines[j]!;
      if (prev.page !== here.page) break;
      const over = layout.segs[j]!.find((s) => Math.min(s.x1, seg.x1) - Math.max(s.x0, seg.x0) > 0);
      if (over) {
        // Words set off by commas ("Main Street, Marrowby") are a line of an address, no label over the next; so is
        // a street's line, read whole, though the part over the value may be its name alone ("Dorpsstraat" of "Dorpsstraat 3").
        above = salutationOnly(over.text) || GREETING_ALONE.test(over.text.trim()) || WORDS_LISTED.test(over.text) || addressLine(prev.text) ? '' : over.text;
        break;
      }
    }
  }
  return { left, above };
}

/**
 * Label features relative to the column, so that one model serves every name a user gives it: how
 * well the label names the column (its own words and concept, through the lexicon), and whether it
 * names another field of the same family ("Due date" for an issue date) or of another kind.
 */
function labelFeatures(ctx: Context, f: Record<string, number>, left: string, above: string): void {
  const l = left.slice(-60);
  const a = /\d{3}/.test(above) || addressLine(above) ? '' : above.slice(0, 60);
  const own = ctx.want.concept;
  const family = Object.values(FAMILIES).find((members) => own !== null && members.includes(own)) ?? [];
  const related = new Set([own, ...(STAND_INS[own ?? ''] ?? []).map(([c]) => c)]);
  const side = (text: string, weight: number, key: string) => {
    if (!text) return;
    const hits = conceptsOf(text);
    const concept = hits.find((h) => h.concept === own)?.score ?? 0;
    const sibling = Math.max(0, ...hits.filter((h) => family.includes(h.concept) && !related.has(h.concept)).map((h) => h.score));
    const other = Math.max(0, ...hits.filter((h) => !family.includes(h.concept) && !related.has(h.concept)).map((h) => h.score));
    f['label:own'] = Math.max(f['label:own'] ?? 0, weight * labelMatch(ctx.want, text));
    f['label:concept'] = Math.max(f['label:concept'] ?? 0, weight * concept);
    f['label:sibling'] = Math.max(f['label:sibling'] ?? 0, weight * sibling);
    f['label:other'] = Math.max(f['label:other'] ?? 0, weight * other);
    if (/\p{L}{2}/u.test(text)) f[key] = 1;
  };
  side(l, 1, 'label:left');
  side(a, 0.85, 'label:above');
  f['label:colon'] = /[:：]\s*$/.test(l) ? 1 : 0;
  if (hitsTaxRate(l)) f['label:percent'] = 1;
}

/**
 * A line of an address (a postal code and town, or a street's word with a number: "12 Main
 * Street"), which labels nothing under it, though its words name an address.
 */
const addressLine = (text: string) => POSTAL_LINE.test(text) || COMPOUND_STREET.test(text) || (/\d/.test(text) && STREET_LINE.test(text.replace(/\d+/g, ' ')));
/** A street whose kind ends its name's word, then the house number ("Hauptstraße 12", "Kerkstraat 5"). */
const COMPOUND_STREET = /\p{L}(?:straße|strasse|str\.|weg|gasse|allee|platz|straat|laan|gracht)\s*\d/iu;

const hitsTaxRate = (text: string) => /%/.test(text) || conceptsOf(text).some((h) => h.concept === 'tax_rate' && h.score >= 0.6);

/** How the layout pairs this segment with a label: beside it (1), under it (less), in a column of a table (half). */
function placementOf(layout: Layout, seg: Seg | undefined): number {
  if (!seg) return 0;
  let best = 0;
  for (const pair of layout.pairs) if (pair.seg === seg || (pair.seg.line === seg.line && pair.seg.x0 === seg.x0)) best = Math.max(best, pair.placement);
  return best;
}

function positionFeatures(ctx: Context, f: Record<string, number>, line: number, seg?: Seg): void {
  const { layout } = ctx;
  const here = layout.lines[line]!;
  const [top, bottom] = layout.pageSpan.get(here.page) ?? [here.y, here.y];
  f['pos:y'] = bottom > top ? (here.y - top) / (bottom - top) : 0;
  f['pos:first_page'] = here.page === layout.lines[0]!.page ? 1 : 0;
  f['pos:table'] = here.page >= 10_000 ? 1 : 0;
  f['pos:line'] = Math.min(1, line / 40);
  f['pos:top5'] = line < 5 ? 1 : 0;
  if (seg && !layout.plain) f['pos:right'] = seg.x0 > (ctx.pageMid.get(seg.page) ?? Infinity) ? 1 : 0;
  if (!layout.plain) {
    f['font:size'] = ctx.maxSize > 0 ? here.size / ctx.maxSize : 0;
    f['font:bold'] = here.bold ? 1 : 0;
  }
  if (here.confidence !== undefined) f['ocr:confidence'] = here.confidence;
}

function ruleFeatures(ctx: Context, f: Record<string, number>, value: string): void {
  if (ctx.rule && norm(ctx.rule.value) === norm(value)) {
    f['rule:pick'] = 1;
    f['rule:score'] = ctx.rule.score;
  }
}

function segAt(layout: Layout, line: number, start: number): Seg | undefined {
  // A line's text is its segments joined by single spaces: find the segment holding `start`.
  let offset = 0;
  for (const seg of layout.segs[line] ?? []) {
    const end = offset + seg.text.length;
    if (start <= end) return seg;
    offset = end + 1;
  }
  return layout.segs[line]?.at(-1);
}

// ---------------------------------------------------------------- per role

function dateCandidates(ctx: Context): ModelCandidate[] {
  const { layout } = ctx;
  const out: ModelCandidate[] = [];
  layout.lines.forEach((line, i) => {
    const found = findDates(line.text, layout.order);
    // A recognised line may have lost a date's separator: those dates are candidates too, marked.
    const repaired = line.confidence === undefined ? [] : separatorLost(line.text, layout.order).filter((r) => !found.some((d) => d.start < r.end && r.start < d.end));
    for (const d of [...found, ...repaired]) {
      const value = d.iso ?? d.raw;
      const seg = segAt(layout, i, d.start);
      const segStart = line.text.indexOf(seg?.text ?? '');
      const before = seg && segStart >= 0 && segStart <= d.start ? line.text.slice(segStart, d.start) : line.text.slice(0, d.start);
      const { left, above } = labelsAt(layout, i, seg, before);
      const f: Record<string, number> = {};
      labelFeatures(ctx, f, left, above);
      positionFeatures(ctx, f, i, seg);
      ruleFeatures(ctx, f, value);
      f['pair:placement'] = placementOf(layout, seg);
      f['date:due_phrase'] = endsWithDuePhrase(line.text.slice(Math.max(0, d.start - 60), d.start)) ? 1 : 0;
      f['date:decided'] = d.iso ? 1 : 0;
      f['date:time_after'] = /^\s*\d{1,2}:\d{2}/.test(line.text.slice(d.end)) ? 1 : 0;
      f['date:period'] = /^\s*(?:[-–—~]|to|bis|au|al|tot|do)\s*\d/i.test(line.text.slice(d.end)) || /(?:[-–—~]|to|bis)\s*$/i.test(line.text.slice(0, d.start)) ? 1 : 0;
      f['date:alone'] = line.text.trim().length - d.raw.length <= 2 ? 1 : 0;
      f['date:title_line'] = afterTitleNumber(line.text.slice(0, d.start)) ? 1 : 0;
      if (repaired.includes(d)) f['date:repaired'] = 1;
      out.push({ value, line: i, features: f });
    }
  });
  const values = out.map((c) => c.value).filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v)).sort();
  for (const c of out) {
    const count = out.filter((o) => o.value === c.value).length;
    c.features['date:count'] = Math.log1p(count);
    c.features['date:earliest'] = c.value === values[0] ? 1 : 0;
    c.features['date:latest'] = c.value === values.at(-1) ? 1 : 0;
    c.features['date:first_seen'] = out.find((o) => o.value === c.value) === c ? 1 : 0;
    c.features['date:rank'] = out.findIndex((o) => o.value === c.value) / Math.max(1, out.length);
  }
  return out;
}


/**
 * Concepts of the columns of an items table: a line naming two of them is the table's header,
 * unless it holds counts of its own ("Items: 3  Qty: 3" under the items is a summary).
 */
const ITEM_COLUMNS = new Set(['quantity', 'description', 'unit_price', 'unit', 'item_number', 'position']);
const itemsHeader = (text: string) => !/[:=]\s*\d/.test(text) && conceptsOf(text).filter((h) => ITEM_COLUMNS.has(h.concept) && h.score >= 0.6).length >= 2;

/** A whole number below this adding up with money figures does so by chance (a quantity of 2 beside 1.50 and 3.50). */
const MIN_WHOLE_MONEY = 10;

/**
 * A figure with decimals glued after one or two capitals, on a recognised page: a letter sign the
 * recogniser misread ("M1.00", "KM12.50" for "RM"), whose figure is the amount.
 */
const GLUED_SIGN = /(?<![\p{L}\d.,])\p{Lu}{1,2}(\d{1,6}[.,]\d{2})(?![\p{L}\d.,])/gu;

/** The amounts of a recognised line that only a misread sign glued to them hides. */
function gluedAmounts(text: string, found: FoundAmount[]): FoundAmount[] {
  const out: FoundAmount[] = [];
  for (const m of text.matchAll(GLUED_SIGN)) {
    const start = m.index! + m[0].length - m[1]!.length;
    const end = m.index! + m[0].length;
    if (found.some((a) => a.start < end && start < a.end)) continue;
    const figure = findAmounts(m[1]!)[0];
    if (figure) out.push({ ...figure, start, end });
  }
  return out;
}

function amountCandidates(ctx: Context): ModelCandidate[] {
  const { layout } = ctx;
  const out: ModelCandidate[] = [];
  // The amounts labelled as a tax alone ("GST 6%", "VAT"), for the arithmetic below.
  const taxed = new Set<ModelCandidate>();
  // Taxes printed with their rate ("GST 6% 1.20", "incl. 19% VAT 1.58").
  const rated: Array<{ candidate: ModelCandidate; rate: number }> = [];
  // Amounts labelled as money handed over or given back.
  const payments: Array<{ amount: number; line: number; change: boolean }> = [];
  // Segments of figures left out as a table's, by line.
  const columnFigures = new Map<number, Seg[]>();
  const underColumnFigure = (i: number, seg: Seg) => (columnFigures.get(i - 1) ?? []).some((above) => above.page === seg.page && above.x0 < seg.x1 && seg.x0 < above.x1);
  // Where no figure has decimals (rupiah, yen, won), money is what is grouped in thousands ("22,000").
  const found = layout.lines.map((line) => findAmounts(line.text, findDates(line.text, null)));
  const glued = new Set<FoundAmount>();
  layout.lines.forEach((line, i) => {
    if (line.confidence === undefined) return;
    for (const a of gluedAmounts(line.text, found[i]!)) {
      glued.add(a);
      found[i]!.push(a);
    }
    found[i]!.sort((a, b) => a.start - b.start);
  });
  const wholeMoney = !found.flat().some((a) => a.money && /[.,]\d{1,2}$/.test(a.raw.replace(/\D+$/, '')));
  // A whole number that adds up with the money figures is money too: a net typed without decimals
  // (a spreadsheet's "886") beside its tax and total, or a total beside its net and tax.
  const money = found.flat().filter((a) => a.money && a.value > 0).map((a) => a.value);
  const top = Math.max(0, ...money);
  // Sums of two money figures, in cents, worked out once for the document.
  const cents = (v: number) => Math.round(v * 100);
  const sums = new Set(money.flatMap((x, k) => money.slice(k + 1).map((y) => cents(x + y))));
  const addsUp = (a: FoundAmount, line: string) =>
    !a.money &&
    /^\d{1,3}(?:[,.\s]?\d{3})*$/.test(a.raw.trim()) &&
    a.value >= MIN_WHOLE_MONEY &&
    /\p{L}{2}/u.test(line.slice(0, a.start)) &&
    (money.some((x) => x !== top && close(a.value + x, top)) || (a.value > top && [-1, 0, 1].some((d) => sums.has(cents(a.value) + d))));
  layout.lines.forEach((line, i) => {
    const amounts = found[i]!.filter((a) => a.money || (wholeMoney && GROUPED.test(a.raw)) || addsUp(a, line.text));
    amounts.forEach((a, k) => {
      // The segment of the figure: a currency mark set apart from it ("Rounding RM   13.60") ends the label's.
      const seg = segAt(layout, i, a.start + Math.max(0, a.raw.search(/[\d.,]/)));
      const segStart = seg ? line.text.indexOf(seg.text) : -1;
      const before = segStart >= 0 && segStart <= a.start ? line.text.slice(segStart, a.start) : line.text.slice(0, a.start);
      const { left, above } = labelsAt(layout, i, seg, before);
      const placement = placementOf(layout, seg);
      // A figure in a column of figures under a header is a table's, not a field of the document,
      // unless a label of the column's own stands beside it. The header is words: an amount above
      // ("RM5.45" over "SUBTOTAL RM96.20") is the column's figure before, not its header.
      const hits = conceptsOf(left);
      // A figure right under such a figure, beside words that name nothing (an item's description), is the same column's.
      const described = /\p{L}/u.test(left) && !hits.some((h) => h.score >= 0.6);
      const headed = layout.pairs.some((p) => p.seg === seg && p.placement <= 0.5 && !findAmounts(p.label).some((x) => x.money));
      const inColumn = !!seg && (headed || (described && underColumnFigure(i, seg)));
      // Money handed over is labelled beside its figure or above it.
      const payment = /\p{L}/u.test(left) ? hits : conceptsOf(above);
      const tendered = payment.some((h) => (h.concept === 'tendered' || h.concept === 'amount_paid') && h.score >= 0.6);
      // Money handed over and change given count in the arithmetic below even where they are no candidates.
      if (tendered) payments.push({ amount: a.value, line: i, change: CHANGE_LABEL.test(/\p{L}/u.test(left) ? left : above) });
      if (inColumn && labelMatch(ctx.want, left) < 0.5) {
        columnFigures.set(i, [...(columnFigures.get(i) ?? []), seg!]);
        return;
      }
      const f: Record<string, number> = {};
      labelFeatures(ctx, f, left, above);
      positionFeatures(ctx, f, i, seg);
      // The rules' amount is the figure on their line: the same value printed elsewhere ("Total Qty 5" and an item's 5.00) is not it.
      const ruleHere = !!ctx.rule && (ctx.rule.line === undefined || ctx.rule.line < 0 || ctx.rule.line === i);
      if (ruleHere) ruleFeatures(ctx, f, a.raw);
      f['pair:placement'] = placement;
      if (ctx.rule && ruleHere && !f['rule:pick']) {
        const ruled = findAmounts(ctx.rule.value)[0];
        if (ruled && close(ruled.value, a.value)) {
          f['rule:pick'] = 1;
          f['rule:score'] = ctx.rule.score;
        }
      }
      f['amount:last_on_line'] = k === amounts.length - 1 ? 1 : 0;
      f['amount:currency'] = a.currency ? 1 : 0;
      if (glued.has(a)) f['amount:glued_sign'] = 1;
      f['amount:negative'] = a.value < 0 ? 1 : 0;
      f['amount:zero'] = a.value === 0 ? 1 : 0;
      f['amount:percent_line'] = /%/.test(line.text) ? 1 : 0;
      f['amount:words'] = Math.min(1, line.text.replace(/[\d.,]+/g, ' ').split(/\s+/).filter((w) => /\p{L}{2}/u.test(w)).length / 8);
      // A column header of the items ("Qty  Item  Total") above the first item names no field of the document.
      if (f['label:above'] && [i - 1, i - 2].some((j) => j >= 0 && itemsHeader(layout.lines[j]!.text) && layout.lines[j]!.text.includes(above))) f['label:items_header'] = 1;
      const tax = taxQualifier(left);
      if (tax) f[`label:tax_${tax}`] = 1;
      if (hits.some((h) => h.concept === 'quantity' && h.score >= 0.6)) f['label:quantity'] = 1;
      if (tendered) f['label:tendered'] = 1;
      const candidate = { value: a.raw, amount: a.value, line: i, features: f };
      if (a.value > 0 && !tax && hits[0]?.concept === 'tax_amount' && hits[0].score >= 0.6) taxed.add(candidate);
      const rate = RATE.exec(line.text.slice(0, a.start));
      if (rate && a.value > 0 && hits.some((h) => h.concept === 'tax_amount' && h.score >= 0.6)) rated.push({ candidate, rate: parseFloat(rate[1]!.replace(',', '.')) });
      out.push(candidate);
    });
  });
  const values = [...new Set(out.map((c) => c.amount!))].sort((a, b) => b - a);
  for (const c of out) {
    const v = c.amount!;
    const rank = values.indexOf(v);
    c.features['amount:rank'] = 1 / (1 + rank);
    c.features['amount:max'] = rank === 0 ? 1 : 0;
    c.features['amount:count'] = Math.log1p(out.filter((o) => close(o.amount!, v)).length);
    // Arithmetic: the sum of two other amounts (a total), or a part of such a sum (net, tax).
    let sum = 0;
    let part = 0;
    for (const a of values) {
      if (a === v || a <= 0) continue;
      if (values.some((b) => b !== a && b !== v && b > 0 && close(a + b, v))) sum = 1;
      if (values.some((b) => b !== v && close(v + a, b))) part = 1;
    }
    c.features['amount:sum_of_two'] = sum;
    c.features['amount:part_of_sum'] = part;
  }
  // A till receipt's payment: the money handed over less the change given back is the total.
  for (const c of out) {
    if (c.features['label:tendered']) continue;
    const paid = payments.some((a) => payments.some((b) => b.line > a.line && a.amount > b.amount && close(a.amount - b.amount, c.amount!)));
    if (paid) c.features['amount:paid_less_change'] = 1;
  }
  // Where money was handed over and change given back, no amount of the document is more than the
  // money handed over: a larger figure is misread ("122.91" for "22.91"). Only change so labelled
  // counts: a rounding under a deposit is no change.
  const handed = Math.max(0, ...payments.filter((a) => !a.change && payments.some((b) => b.change && b.line > a.line && b.amount > 0 && b.amount < a.amount)).map((a) => a.amount));
  if (handed > 0) for (const c of out) if (c.amount! > handed + 0.005) c.ruledOut = true;
  taxArithmetic(out, taxed, layout);
  taxRates(out, rated);
  cashRounding(out);
  // Of the amounts labelled as the column, the last printed and the largest.
  const labelled = out.filter((c) => (c.features['label:own'] ?? 0) >= 0.5 && !c.features['label:quantity']);
  const last = Math.max(-1, ...labelled.map((c) => c.line));
  const largest = Math.max(-Infinity, ...labelled.map((c) => c.amount!));
  for (const c of labelled) {
    if (c.line === last) c.features['amount:last_labelled'] = 1;
    if (close(c.amount!, largest)) c.features['amount:largest_labelled'] = 1;
  }
  return out;
}

/** A rate printed before an amount on its line: "6%", "19 %", "7,5%". */
const RATE = /(\d{1,2}(?:[.,]\d{1,2})?)\s*%(?!.*%)/;
/** A tax computed from its rate is rounded to the cent: half a cent either way, and a cent of the total's own rounding. */
const RATE_ROUNDING = 0.011;
/** A tax is at most this share of its net (the highest VAT and sales-tax rates are below it). */
const MAX_TAX_RATE = 0.3;

/**
 * The tax's arithmetic: an amount that is another printed amount plus a printed tax is a gross
 * ("Total incl. tax"); one that a printed tax completes to another printed amount is a net, such
 * as the "Total" column of a tax summary or a "Total (excl. tax)".
 */
function taxArithmetic(out: ModelCandidate[], taxed: Set<ModelCandidate>, layout: Layout): void {
  if (!taxed.size) return;
  // Magnitudes: a credit note prints its amounts negative, its tax often without the sign.
  const printed = [...new Set(allAmounts(layout).map(Math.abs))].filter((v) => v > 0);
  const taxes = [...new Set([...taxed].map((t) => Math.abs(t.amount!)))];
  for (const c of out) {
    const v = Math.abs(c.amount!);
    if (v === 0 || taxed.has(c)) continue;
    let gross = 0;
    let net = 0;
    for (const t of taxes) {
      for (const a of printed) {
        if (a === v || t > a * MAX_TAX_RATE) continue;
        if (a < v && Math.abs(a + t - v) < CASH_ROUNDING) gross = Math.max(gross, close(a + t, v) ? 1 : 0.5);
        if (a > v && t <= v * MAX_TAX_RATE && Math.abs(v + t - a) < CASH_ROUNDING) net = Math.max(net, close(v + t, a) ? 1 : 0.5);
      }
    }
    if (gross) c.features['amount:gross_of_tax'] = gross;
    if (net) c.features['amount:net_of_tax'] = net;
  }
}

/**
 * A tax printed with its rate tells what it was computed on: the rate's share of the net (a net
 * of 20.00 at 6% is taxed 1.20), or the rate's part of a gross that includes it (21.20 at 6%
 * includes 1.20); and such a tax is a tax, whatever else its label names ("tax included in total").
 */
function taxRates(out: ModelCandidate[], rated: Array<{ candidate: ModelCandidate; rate: number }>): void {
  for (const c of out) {
    const v = Math.abs(c.amount!);
    for (const { candidate, rate } of rated) {
      if (candidate === c || rate <= 0 || rate > MAX_TAX_RATE * 100) continue;
      const t = candidate.amount!;
      const includes = Math.abs((v * rate) / (100 + rate) - t) < RATE_ROUNDING;
      const taxes = Math.abs((v * rate) / 100 - t) < RATE_ROUNDING;
      if (includes) c.features['amount:includes_rated_tax'] = 1;
      if (taxes) c.features['amount:taxed_at_rate'] = 1;
      // The tax itself, found by its rate on another printed amount, whatever else its label names.
      if (includes || taxes) candidate.features['amount:rated_tax'] = 1;
    }
  }
}

/**
 * A labelled total a few cents from a printed amount rounded to the cash step: what was paid is the
 * rounded one, wherever it is printed (under "Rounding", beside the card or the cash).
 */
function cashRounding(out: ModelCandidate[]): void {
  const labelled = out.filter((c) => (c.features['label:own'] ?? 0) >= 0.5);
  for (const c of out) {
    const v = c.amount!;
    if (v <= 0) continue;
    if (labelled.some((l) => cashRounded(l.amount!, v))) c.features['amount:rounds_labelled'] = 1;
    if (labelled.includes(c) && out.some((o) => o.amount! > 0 && cashRounded(v, o.amount!))) c.features['amount:unrounded'] = 1;
  }
}

const NUMBER_SIGN = /(?:^|\s)(?:no\.?|nr\.?|n[°º]\.?|#|number|nummer|numéro|número|numero)\s*:?\s*(\S+(?:\s+\S+)?)/giu;
/** A label ending in a number sign, its number glued to it. */
const GLUED_ID = /^(\p{L}[\p{L}. ]{0,25}?(?:#|\b(?:no|nr)\.))\s*(\d\S*)/iu;
const TITLE_WORDS = [...TITLES].filter((t) => !t.includes(' '));

/**
 * Whether a text names a document by its title among its last four words: a title itself, or a
 * compound that ends in one ("Handelsrechnung", "Stornorechnung").
 */
function titled(text: string): boolean {
  // "Invoice date" names a date, not the invoice.
  const top = conceptsOf(text)[0];
  if (top && top.score >= 0.6 && top.concept !== 'invoice_number') return false;
  const words = normalizeLabel(text).split(' ').filter(Boolean).slice(-4);
  return words.some((w) => TITLES.has(w) || TITLE_WORDS.some((t) => t.length >= 5 && w.length > t.length && w.endsWith(t)));
}

/**
 * Day and month run together before the year ("2703/2018"). A year of four figures is of this
 * century or the last: "1806/0729" is a number, not 18 June 729.
 */
const RUN_TOGETHER = /(?<![\d/.,-])(\d{2})(\d{2})([/.-])((?:19|20)\d{2})(?![\d/.,-])/g;
/** Day and month apart by a space ("05 02-18"). */
const SPACED = /(?<![\d/.,:-])(\d{2}) (\d{2})([/.-])(\d{2}|(?:19|20)\d{2})(?![\d/.,-])/g;

/**
 * Dates whose separator between day and month the recogniser lost. Each is read with the
 * separator its month and year keep, and only when that makes a valid date.
 */
export function separatorLost(text: string, order: DayOrder): FoundDate[] {
  const out: FoundDate[] = [];
  for (const re of [RUN_TOGETHER, SPACED]) {
    for (const m of text.matchAll(re)) {
      const fixed = `${m[1]}${m[3]}${m[2]}${m[3]}${m[4]}`;
      const date = findDates(fixed, order)[0];
      // In the document's day order only: "0513/2018" is no 13 May where days come first.
      const [, a, b] = /^\d{4}-(\d{2})-(\d{2})$/.exec(date?.iso ?? '') ?? [];
      const inOrder = order === 'dmy' ? b === m[1] && a === m[2] : order === 'mdy' ? a === m[1] && b === m[2] : !!a;
      if (date?.iso && date.raw === fixed && inOrder) out.push({ ...date, raw: m[0], start: m.index!, end: m.index! + m[0].length });
    }
  }
  return out;
}

/**
 * A date in the document's title line, a word or two after its number ("Invoice no. 17 dated",
 * "Rechnung Nr. 17 vom", "Facture n° 17 du"): the date the document was issued, unless a due
 * phrase stands between ("Invoice no. 17, due").
 */
function afterTitleNumber(before: string): boolean {
  const sign = [...before.matchAll(NUMBER_SIGN)].at(-1);
  if (!sign) return false;
  const end = sign.index! + sign[0].length;
  const rest = before.slice(end).trim();
  return titled(before.slice(0, end - sign[1]!.length)) && (!rest || rest.split(/\s+/).length <= 2) && !endsWithDuePhrase(before);
}

function numberCandidates(ctx: Context): ModelCandidate[] {
  const { layout } = ctx;
  const out: ModelCandidate[] = [];
  const ids = FAMILIES.id!;
  // A label glued to its number ("Invoice#1042", "Inv. No.1042"), which no pair splits, is read as a pair beside it.
  const glued = layout.lines.flatMap((line, i) => {
    const m = GLUED_ID.exec(line.text.trim());
    if (!m || layout.pairs.some((p) => p.line === i && p.label.trim() === m[1]!.trim())) return [];
    if (!conceptsOf(m[1]!).some((h) => h.concept === 'invoice_number' && h.score >= LABELLED)) return [];
    return [{ label: m[1]!, value: m[2]!, line: i, seg: layout.segs[i]?.[0], placement: 1 }];
  });
  for (const pair of [...layout.pairs, ...glued]) {
    // Only labelled identifiers: a figure in a table cell or an address is no document number.
    const title = titled(pair.label);
    if (!title && labelMatch(ctx.want, pair.label) < 0.5 && !conceptsOf(pair.label).some((h) => ids.includes(h.concept) && h.concept !== 'item_number' && h.score >= 0.6)) continue;
    const id = pickId(pair.value, 'invoice_number');
    if (!id) continue;
    const f: Record<string, number> = {};
    labelFeatures(ctx, f, pair.label, '');
    if (title) f['id:title_label'] = 1;
    f['pair:placement'] = pair.placement;
    positionFeatures(ctx, f, pair.line, pair.seg);
    ruleFeatures(ctx, f, id);
    f['id:letters'] = /\p{L}/u.test(id) ? 1 : 0;
    f['id:length'] = Math.min(1, id.length / 20);
    f['id:date_like'] = findDates(id, null).length ? 1 : 0;
    out.push({ value: id, line: pair.line, features: f });
  }
  // "<title> Nr. 123", the title perhaps a compound ("Handelsrechnung") or followed by words; or the
  // number sign opening the line under the title ("FACTURA" over "Número: A-17").
  layout.lines.forEach((line, i) => {
    for (const m of line.text.matchAll(NUMBER_SIGN)) {
      const before = line.text.slice(Math.max(0, m.index! - 50), m.index!);
      const titleAbove = !before.trim() && i > 0 && layout.lines[i - 1]!.page === line.page && titleOnly(layout.lines[i - 1]!.text);
      if (!titled(before) && !titleAbove) continue;
      const id = pickId(m[1]!, 'invoice_number');
      if (!id) continue;
      const f: Record<string, number> = { 'id:title': 1, 'id:sign': 1, 'id:letters': /\p{L}/u.test(id) ? 1 : 0, 'id:length': Math.min(1, id.length / 20) };
      positionFeatures(ctx, f, i);
      ruleFeatures(ctx, f, id);
      out.push({ value: id, line: i, features: f });
    }
  });
  for (const t of titleNumberCandidates(layout)) {
    const f: Record<string, number> = { 'id:title': 1, 'id:letters': /\p{L}/u.test(t.value) ? 1 : 0, 'id:length': Math.min(1, t.value.length / 20) };
    positionFeatures(ctx, f, t.line);
    ruleFeatures(ctx, f, t.value);
    out.push({ value: t.value, line: t.line, features: f });
  }
  for (const c of out) c.features['id:count'] = Math.log1p(out.filter((o) => o.value === c.value).length);
  return out;
}

/** A line's text after a short label and its colon. */
const LABELLED_NAME = /^[^:：\d]{2,30}[:：]\s*(\S.*)$/u;

/** A name that ends in a connector goes on ("PAINTS &", "JONES AND"). */
const DANGLING = /(?:[&+\-,]|\b(?:and|und|et|of|dan))\s*$/i;
/** A registration number in brackets after a name ("(123456-A)", "[CO. NO. 1234-X]"); a shorter code is a document type ("Rechnung (380)"). */
const TRAILING_ID = /\s*[([](?=[^()[\]]*\d{4})[^()[\]]*[)\]]?\s*$/;
/** Where an address starts inside a line: a house, lot or unit number ("NO 12,", "LOT 5", "12-G, JALAN"). */
const ADDRESS_START = /(?<=\S\s+)(?:(?:no|lot|unit|blk|block)\.?\s*:?\s*\d|\d+[\p{L}\d/-]*\s*,\s*\p{L})/iu;
/** The same number printed before the name. */
const LEADING_ID = /^\s*[([](?=[^()[\]]*\d{4})[^()[\]]*[)\]]\s*/;

/** A business's registration number as registers write it: figures, then a check letter after a hyphen ("123456-A", "AB0123456-X"). */
const BUSINESS_NUMBER = /(?:^|[\s:(])[A-Z]{0,3}\d{5,}-[A-Z]\)?$/;

/**
 * The name of a line that prints a company's name and then its registration number, labelled or
 * bare ("ACME SDN BHD ROC NO. 123456-A", "ACME TRADING 001234567-K"): the words up to the first
 * legal form after which the rest is a registration number alone, or, without a legal form, before
 * a number of a register's shape. Null when the line is no such.
 */
function registeredName(text: string): string | null {
  const words = text.trim().split(/\s+/);
  for (let k = 1; k < words.length; k++) {
    const head = words.slice(0, k).join(' ');
    const tail = words.slice(k).join(' ');
    // A name holds a word: "CO. NO. 123456-A" is the number's label.
    if ((hasLegalForm(head) || BUSINESS_NUMBER.test(tail)) && !hasLegalForm(tail) && /\p{L}{3}/u.test(head) && /\d{4}/.test(tail) && REGISTRATION_LINE.test(tail)) return head.replace(TRAILING_ID, '').trim();
  }
  return null;
}

/** The name after its registration number on its line, labelled or bare ("CO. REG: 123456-A ACME SDN BHD"): null when the line is no such. */
function nameAfterRegistration(text: string): string | null {
  const words = text.trim().split(/\s+/);
  for (let k = 1; k < words.length; k++) {
    const head = words.slice(0, k).join(' ');
    const tail = words.slice(k).join(' ');
    // A number of a register's shape, not a postal code before a town ("43300 SERI KEMBANGAN").
    if (BUSINESS_NUMBER.test(head) && REGISTRATION_LINE.test(head) && /\p{L}{3}/u.test(tail) && nameLike(tail)) return tail;
  }
  return null;
}

/**
 * A line without the registration number after it: in brackets, or bare after a legal form alone
 * ("SDN BHD (123456-A)", "BERHAD 123456-A"), either of which ends a name.
 */
function withoutNumber(text: string): string {
  const bare = text.trim().replace(TRAILING_ID, '').trim();
  const legal = bare.replace(BUSINESS_NUMBER, '').trim();
  return legal !== bare && legalFormOnly(legal) ? legal : bare;
}

/**
 * An aside after a name on its line: a branch or place in brackets without figures
 * ("ACME MART (TAMAN JAYA)"), or the rest after a spaced dash ("ACME MART - KAJANG").
 */
const TRAILING_ASIDE = /\s*\((?=[^()]*\p{L}{3})[^()\d]+\)$|\s+[-–—]\s+[^-–—]+$/u;

/** A time of day opening or closing a line. */
const EDGE_TIME = new RegExp(`^(?:${TIME_RE.source})(?!\\S)\\s*|\\s*(?<!\\S)(?:${TIME_RE.source})$`, 'i');
/** A telephone number closing a line, perhaps labelled ("03-1234 5678", "Tel 012-3456789"). */
const EDGE_PHONE = /\s+(?:(?:tel|phone|hp|h\/p)\.?\s*:?\s*)?\+?[\d(][\d\s()./-]{5,}\d$/i;
/** Such a telephone number of seven figures or more closing a line, or null. */
const edgePhone = (t: string) => {
  const phone = EDGE_PHONE.exec(t);
  return phone && (phone[0].match(/\d/g)?.length ?? 0) >= 7 ? phone : null;
};

/**
 * A name with what a recogniser runs onto its line from beside it: a date or time before or after
 * it, a telephone number after it, the document's title before or after it ("ACME CAFE 03-1234 5678",
 * "12/03/2018 ACME CAFE", "ACME CAFE TAX INVOICE"). The name alone; null when nothing was cut or the
 * rest is no name.
 */
function nameCore(text: string): string | null {
  let t = text.trim();
  for (let pass = 0; pass < 4; pass++) {
    const before = t;
    const dates = findDates(t, null);
    const [first, last] = [dates[0], dates.at(-1)];
    if (last && !t.slice(last.end).trim()) t = t.slice(0, last.start).trim();
    else if (first && !t.slice(0, first.start).trim()) t = t.slice(first.end).trim();
    t = t.replace(EDGE_TIME, '').trim();
    const phone = edgePhone(t);
    if (phone) t = t.slice(0, phone.index).trim();
    // A title after a name is one of the lexicon's as it stands; before it, it may be qualified ("OFFICIAL RECEIPT").
    const words = t.split(/\s+/);
    for (let k = Math.min(3, words.length - 1); k >= 1; k--) {
      if (TITLES.has(normalizeLabel(words.slice(-k).join(' ')))) t = words.slice(0, -k).join(' ');
      else if (titleOnly(words.slice(0, k).join(' '))) t = words.slice(k).join(' ');
      else continue;
      break;
    }
    if (t === before) break;
  }
  t = t.replace(/^[\s,;:|/-]+|[\s,;:|/-]+$/g, '');
  return t !== text.trim() && /\p{L}{3}/u.test(t) && nameLike(t) ? t : null;
}

/** Pieces of one name are set at most this many type heights apart (characters in plain text); columns side by side, further. */
const PIECE_GAP = 2;
const PLAIN_PIECE_GAP = 6;
/** A line continuing a name with its legal form is short: the rest of a name, not a sentence. */
const MAX_NAME_TAIL = 40;

/** Two recognised lines this alike (letters and figures, case aside) are one text printed twice. */
const TWIN = 0.85;

const knownWords = (text: string) => text.split(/[^\p{L}]+/u).filter((w) => w.length >= 3 && known(w)).length;

/**
 * A name printed twice (at a receipt's head and again at its foot) and recognised two ways, a glyph
 * of one misread: the reading more of whose words the dictionary knows is the name as printed.
 */
function betterTwin(value: string, line: number, layout: Layout): string {
  if (layout.lines[line]?.confidence === undefined) return value;
  const own = lettersAndFigures(value);
  const words = value.split(/\s+/).length;
  let best = value;
  let most = knownWords(value);
  for (const [j, other] of layout.lines.entries()) {
    const text = other.text.trim();
    if (j === line || other.confidence === undefined || text === value || Math.abs(text.split(/\s+/).length - words) > 1) continue;
    if (similarity(lettersAndFigures(text), own) < TWIN) continue;
    const count = knownWords(text);
    if (count > most) [best, most] = [text, count];
  }
  return best;
}

/** Fewer letters than this are a speck or a logo read as text, not a name. */
const MIN_NAME_LETTERS = 4;

const COURTESY = new RegExp(`(?<![\\p{L}])(?:${COURTESY_PHRASES.map((p) => escapeRe(p).replace(/ /g, '\\s+')).join('|')})(?![\\p{L}])`, 'iu');

const GREETING = String.raw`welcome\s+to|thank\s+you\s+for\s+(?:shopping|visiting|dining)\s+(?:at|with)|willkommen\s+(?:bei|im)|bienvenue\s+(?:chez|à)|bienvenido\s+a|benvenuti\s+(?:da|a)|welkom\s+bij|witamy\s+w`;
/** A greeting naming the shop: the name after it. */
const GREETED = new RegExp(`^(?:${GREETING})\\s+(.+)$`, 'iu');
/** A greeting over the shop's name on the next line ("WELCOME TO" over "ACME PHARMACY"): no label ("To" is a customer's). */
const GREETING_ALONE = new RegExp(`^(?:${GREETING})\\s*[:!.]?$`, 'iu');

/** A line wholly in brackets. */
const BRACKETED = /^\(.*\)$/;

/** A brand's line naming the company it belongs to. */
const OWNER = /^\(?\s*(?:an?\s+)?(?:brand|member|division|subsidiary|company|unit)\s+of\s+(?:the\s+)?([^()]+?)\s*\)?\.?$/iu;

/** Marks set around a name as decoration: stars, tildes, rules, hashes, and a logo read as a sign ("@ ACME", "® ACME"). */
const DECORATION = /^[\s*~=#_+-]{2,}|[\s*~=#_+-]{2,}$|^[*~=#_+@®©•|]\s*|\s*[*~=#_+®©•|]$/g;
/** A copy's mark printed over a receipt ("ORIGINAL", "CUSTOMER COPY", "SALINAN"): no name, nor a line before one. */
const COPY_MARK = /^(?:original|copy|duplicate|reprint(?:ed)?|re-?print|(?:customer|merchant|office|cardholder)(?:'s)?\s+copy|salinan(?:\s+pelanggan)?|cetak\s+ulang)\s*[.!]?$/iu;
/** A store's number after its name ("ACME MART #0123", "ACME MART No. 12"). */
const STORE_NUMBER = /\s+(?:#\s?|no\.?\s?)\d+$/i;

/** A number of up to three figures opening or closing a line, set apart by a space. */
const NAME_NUMBER = /^\d{1,3}\s+|\s+\d{1,3}$/g;

/** A first page's last lines, where a long receipt may print its company: looked at however far down. */
const FOOT_LINES = 15;

/** Below this confidence a recognised line is more often misread than read (a logo, a stamp, a smudge). */
const UNSURE_OCR = 0.4;

function partyModelCandidates(ctx: Context, side: 'vendor' | 'customer', wants: Want[]): ModelCandidate[] {
  const { layout } = ctx;
  const ruled = partyCandidates(layout, wants);
  const scoreOf = (list: Candidate[], value: string) => Math.max(0, ...list.filter((c) => norm(c.value) === norm(value)).map((c) => c.score));
  const out: ModelCandidate[] = [];
  const seen = new Set<string>();
  const firstPage = layout.lines[0]!.page;
  // The document's title above a name ("TAX INVOICE" over a shop's name) is no line before it: told once per line.
  const titled = layout.lines.map((l) => titleOnly(l.text) || TAGLINE.test(l.text.trim()) || COPY_MARK.test(l.text.trim()));
  /** `sources`: the printed texts this value is made of, whose verdicts by the rules it keeps (a name printed in pieces, a name without its registration number). */
  /** `marks`: what the value's shape says of it (a name without its number, lines joined). */
  const add = (printed: string, line: number, seg: Seg | undefined, sources: string[] = [], marks: Record<string, number> = {}) => {
    // Stars and rules a till prints around a name ("*** ACME ***") are none of it.
    const value = printed.replace(DECORATION, '');
    const key = `${norm(value)}|${line}`;
    // A line holding a greeting is no party's name, whatever name it also holds ("Thank you for shopping at ACME"),
    // nor one wholly in brackets, an aside to a name (a branch, a brand's owner).
    if (seen.has(key) || !value.trim() || COURTESY.test(value) || BRACKETED.test(value.trim()) || COPY_MARK.test(value.trim())) return;
    seen.add(key);
    const f: Record<string, number> = {};
    const { left, above } = seg ? labelsAt(layout, line, seg, '') : { left: '', above: '' };
    labelFeatures(ctx, f, left, above);
    positionFeatures(ctx, f, line, seg);
    ruleFeatures(ctx, f, value);
    for (const source of sources) if (!f['rule:pick']) ruleFeatures(ctx, f, source);
    f['party:rule_vendor'] = Math.max(...[value, ...sources].map((v) => scoreOf(ruled.vendor, v)));
    f['party:rule_customer'] = Math.max(...[value, ...sources].map((v) => scoreOf(ruled.customer, v)));
    f['party:legal_form'] = hasLegalForm(value) ? 1 : 0;
    f['party:caps'] = value === value.toUpperCase() && /\p{Lu}{3}/u.test(value) ? 1 : 0;
    f['party:words'] = Math.min(1, value.split(/\s+/).length / 8);
    f['party:digits'] = /\d/.test(value) ? 1 : 0;
    // Recognisers read specks and logos as a few letters ("Wr", "iA"): a name has letters enough.
    const letters = value.match(/\p{L}/gu)?.length ?? 0;
    f['party:letters'] = Math.min(1, letters / 20);
    f['party:short'] = letters < MIN_NAME_LETTERS ? 1 : 0;
    f['party:lower_start'] = /^\p{Ll}/u.test(value) ? 1 : 0;
    // A line the recogniser was unsure of is mostly a logo or a smudge read as letters, whatever its words.
    const confidence = layout.lines[line]!.confidence;
    if (confidence !== undefined && confidence < UNSURE_OCR) f['party:unsure_ocr'] = 1;
    f['party:whole_line'] = norm(value) === norm(layout.lines[line]!.text) ? 1 : 0;
    // A piece of a line that reads as a name as a whole ("ACME" of "ACME  TRADING  CO").
    const row = layout.segs[line] ?? [];
    f['party:piece'] = row.length > 1 && !f['party:whole_line'] && row.some((s) => norm(s.text) === norm(value)) && nameLike(layout.lines[line]!.text) ? 1 : 0;
    // A registration or tax number, not a name ("Company Reg No. 12345-A").
    f['party:id_like'] = REGISTRATION_LINE.test(value) || /\d{5}/.test(value) ? 1 : 0;
    // A name cut short: it ends in a connector, or the next line ends it with a legal form ("SDN BHD", "Beispielbau GmbH").
    const after = layout.lines[line + 1]?.text.trim() ?? '';
    const cut = DANGLING.test(value) || (!hasLegalForm(value) && hasLegalForm(after) && !/\d/.test(after) && after.length <= MAX_NAME_TAIL && !norm(value).endsWith(norm(after)));
    f['party:cut'] = cut ? 1 : 0;
    const earlier = layout.lines.slice(0, line).filter((l, j) => l.page === firstPage && !titled[j]);
    // A shop's name heads its receipt: lines of words above it are rare, an address above it rarer.
    f['party:wordy_rank'] = 1 / (1 + earlier.filter((l) => /\p{L}{3}/u.test(l.text) && !COURTESY.test(l.text) && !noticeLike(l.text) && !/[:：]\s*$/.test(l.text)).length);
    // A line of a date and a time ends in a figure as a street's line does, and is none.
    f['party:after_address'] = earlier.some((l) => (POSTAL_LINE.test(l.text) || STREET_LINE.test(l.text)) && !TIME_RE.test(l.text) && !findDates(l.text, null).length) ? 1 : 0;
    f['party:title_word'] = /\p{L}{3}/u.test(value) && normalizeLabel(value).split(' ').some((w) => TITLES.has(w)) ? 1 : 0;
    const below = layout.lines.slice(line + 1, line + 5).map((l) => l.text);
    f['party:address_below'] = below.some((t) => POSTAL_LINE.test(t) || STREET_LINE.test(t)) ? 1 : 0;
    f['party:contacts_below'] = below.some(issuerDetail) ? 1 : 0;
    // The nearest label line above within three lines ("Seller:", "Bill to:"), past number lines between.
    for (let j = line - 1; j >= Math.max(0, line - 3); j--) {
      const text = layout.lines[j]!.text.replace(/[:：]\s*$/, '');
      const hits = /\d/.test(text) || salutationOnly(layout.lines[j]!.text) || GREETING_ALONE.test(text.trim()) ? [] : conceptsOf(text);
      const vendor = hits.find((h) => h.concept === 'vendor')?.score ?? 0;
      const customer = hits.find((h) => h.concept === 'customer')?.score ?? 0;
      if (vendor || customer) {
        f['party:label_vendor'] = vendor;
        f['party:label_customer'] = customer;
        break;
      }
    }
    const visible = earlier.filter((l) => /\p{L}{2}/u.test(l.text)).length;
    f['party:line_rank'] = 1 / (1 + visible);
    out.push({ value, line, features: { ...f, ...marks } });
  };
  // The top of the first page, and the foot of a long one (a receipt printing its company under its items).
  const foot = layout.lines.filter((l) => l.page === firstPage).length - FOOT_LINES;
  layout.segs.forEach((row, i) => {
    if (layout.lines[i]!.page !== firstPage || (i > 60 && i < foot)) return;
    for (const seg of row) if (nameLike(seg.text)) add(seg.text.trim(), i, seg);
    const text = layout.lines[i]!.text.trim();
    // A shop named after its street or estate ("RESTORAN TAMAN JAYA"): a whole line without figures.
    if (!nameLike(text) && nameLike(text, true)) add(text, i, row[0]);
    // A name with a number of its own before or after it ("88 MINI MARKET", "KOPITIAM 168"), which reads as a
    // street's line by its number alone: whole, when the words without the number read as a name.
    const unnumberedWords = text.replace(NAME_NUMBER, '').trim();
    if (!nameLike(text) && unnumberedWords !== text && /\p{L}{3}/u.test(unnumberedWords) && nameLike(unnumberedWords) && !STREET_WORD.test(text)) add(text, i, row[0]);
    // A name the recogniser read a comma after ("ACME TRADING,"): the name without it.
    const unpunctuated = text.replace(/[\s,;]+$/, '');
    if (unpunctuated !== text && nameLike(unpunctuated)) add(unpunctuated, i, row[0]);
    // A name printed in pieces on its line, or wrapped onto the next one.
    // The rules' verdict on a piece holds for the line when the pieces are close and each reads as part of a name or
    // is an initial or a sign ("A & Z"), not "ACME LTD.  INVOICE", nor two address blocks side by side.
    const gap = layout.plain ? PLAIN_PIECE_GAP : layout.lines[i]!.size * PIECE_GAP;
    const onePiece = row.every((s, k) => (nameLike(s.text) || !/\p{L}{2}/u.test(s.text)) && (k === 0 || s.x0 - row[k - 1]!.x1 <= gap));
    if (row.length > 1 && nameLike(text)) add(text, i, row[0], onePiece ? row.map((s) => s.text) : []);
    // A name followed by its registration number ("ACME SDN BHD (123456-A)"): the name alone.
    // Not the label of the number alone ("CO. NO. (123456-A)"): a name holds a word.
    const bare = text.replace(TRAILING_ID, '').trim();
    if (bare !== text && nameLike(bare) && /\p{L}{3}/u.test(bare)) {
      add(bare, i, row[0], [text, ...row.map((s) => s.text)], { 'party:without_id': 1 });
    }
    // A name with its address after it on its line ("KEDAI ACME NO 12, JALAN BESAR, 43000 KAJANG"): the name alone.
    const withAddress = nameAndAddress(text);
    if (withAddress) add(withAddress.name, i, row[0], [text]);
    // A name after its registration number in brackets ("(123456-A) ACME SDN BHD"): the name alone.
    const unprefixed = text.replace(LEADING_ID, '').trim();
    if (unprefixed !== text && nameLike(unprefixed) && /\p{L}{3}/u.test(unprefixed)) {
      add(unprefixed, i, row[0], [text], { 'party:without_id': 1 });
    }
    // The same number unbracketed, labelled or bare ("CO. REG: 123456-A ACME SDN BHD"): the name alone.
    const afterNumber = nameAfterRegistration(text);
    if (afterNumber) add(afterNumber, i, row[0], [text], { 'party:without_id': 1 });
    // A name with a branch or place set after it ("ACME MART (TAMAN JAYA)", "ACME MART - KAJANG"): the name alone too.
    const unaside = text.replace(TRAILING_ASIDE, '').trim();
    if (unaside !== text && /\p{L}{3}/u.test(unaside) && nameLike(unaside)) add(unaside, i, row[0], [text], { 'party:without_aside': 1 });
    // A company's name with its registration number after it, labelled or bare but not bracketed
    // ("ACME SDN BHD CO NO: 123456-A"): the name, up to its legal form, alone.
    const registered = registeredName(text);
    if (registered && nameLike(registered)) {
      add(registered, i, row[0], [text], { 'party:without_id': 1 });
    }
    // A name with a date, time, telephone number or title run onto its line: the name alone.
    const core = nameCore(text);
    if (core) add(core, i, row[0], [text]);
    // A store's name with its number ("ACME MART #0123"): the name alone.
    const unnumbered = text.replace(STORE_NUMBER, '');
    if (unnumbered !== text && /\p{L}{3}/u.test(unnumbered) && nameLike(unnumbered)) {
      add(unnumbered, i, row[0], [text], { 'party:without_id': 1 });
    }
    // A company's name after a label of its own ("Operated by: ACME SDN BHD"): the name alone.
    const labelled = LABELLED_NAME.exec(text)?.[1]?.trim();
    if (labelled && hasLegalForm(labelled) && nameLike(labelled)) add(labelled, i, row[0], [text]);
    // Its address after it on the line, labelled or not ("From: ACME Ltd, 8 Mill Lane, Leeds"): the name alone.
    const named = nameBeforeAddress(labelled ?? text);
    if (named && hasLegalForm(named)) add(named, i, row[0], [text]);
    // A company's name with its telephone or tax number after it on its line ("ACME SDN BHD  Tel: 03-1234567",
    // "ACME SDN BHD (123456-A) GST: 001234567890"): the name alone.
    const detail = CONTACT.exec(text);
    const head = detail ? text.slice(0, detail.index).replace(/\s*[([][^)\]]*$/, '').replace(/[\s,;:|/-]+$/, '').replace(TRAILING_ID, '').trim() : '';
    // Without a legal form, only before a number of six figures or more (not "Keep the invoice ...").
    const numbered = !!detail && (text.slice(detail.index).match(/\d/g)?.length ?? 0) >= 6;
    if (head && !registered && nameLike(head) && (hasLegalForm(head) || (numbered && /\p{L}{3}/u.test(head)))) {
      add(head, i, row[0], [text], { 'party:without_id': 1 });
    }
    // The company a brand belongs to ("(A brand of ACME FOODS SDN BHD)", "A member of ACME Group Ltd"): its name alone.
    const owner = OWNER.exec(text)?.[1]?.trim();
    if (owner && hasLegalForm(owner) && nameLike(owner)) add(owner, i, row[0], [text]);
    // A document's title naming its sender ("Receipt from ACME Inc.", "Rechnung von ACME GmbH"): the name alone.
    const sender = sentFrom(text);
    if (sender) add(sender, i, row[0], [text]);
    // A shop's name in its greeting ("Welcome to ACME MART"): the name alone.
    const greeted = GREETED.exec(text)?.[1]?.trim().replace(/[!.]+$/, '');
    if (greeted && nameLike(greeted) && !COURTESY.test(greeted)) add(greeted, i, row[0]);
    const next = layout.lines[i + 1];
    // The next line without a registration number after it ("SDN BHD (123456-A)" ends a name too).
    const nextText = next ? next.text.trim() : '';
    const nextBare = withoutNumber(nextText);
    // A legal form set apart on the next line ends the name ("ACME TRADING" over "SDN BHD").
    const legalOnly = !!next && hasLegalForm(nextBare) && !nameLike(nextBare) && !/\d/.test(nextBare) && nextBare.length <= 20;
    // A name printed twice (a logo's lettering over the name) is one name, not one wrapped onto two lines.
    const repeated = !!next && nextText.toLowerCase() === text.toLowerCase();
    // A line wholly in brackets under a name is an aside to it (a branch, "(A brand of ACME SDN BHD)"), none of it.
    const aside = BRACKETED.test(nextText);
    const marked = COPY_MARK.test(text) || COPY_MARK.test(nextText);
    if (next && next.page === firstPage && nameLike(text) && !aside && !marked && (nameLike(next.text) || legalOnly) && !issuerDetail(next.text) && !repeated) {
      add(`${text} ${nextText}`, i, row[0], [text], { 'party:joined': 1 });
    }
    // The rest of a wrapped name followed by its registration number ("ACME" over "TRADING (123456-A)"); a line
    // with a legal form of its own is a whole name (a brand over its company's).
    if (next && next.page === firstPage && nameLike(text) && (legalOnly || (nameLike(nextBare) && !hasLegalForm(nextBare))) && nextBare !== nextText && !repeated) {
      add(`${text} ${nextBare}`, i, row[0], [text], { 'party:joined': 1, 'party:without_id': 1 });
    }
    // A name wrapped onto three lines, the last its legal form alone ("ACME" / "TRADING" / "SDN BHD").
    const third = layout.lines[i + 2];
    const thirdBare = third ? withoutNumber(third.text) : '';
    if (next && third && third.page === firstPage && !repeated && nameLike(text) && nameLike(nextText) && !hasLegalForm(`${text} ${nextText}`) && hasLegalForm(thirdBare) && !nameLike(thirdBare) && !/\d/.test(thirdBare) && thirdBare.length <= 20 && ![nextText, third.text].some(issuerDetail)) {
      add(`${text} ${nextText} ${thirdBare}`, i, row[0], [text], { 'party:joined': 1, ...(thirdBare !== third.text.trim() ? { 'party:without_id': 1 } : {}) });
    }
  });
  for (const c of side === 'vendor' ? ruled.vendor : ruled.customer) if (c.line >= 0) add(c.value, c.line, layout.segs[c.line]?.[0]);
  for (const c of out) c.value = betterTwin(c.value, c.line, layout);
  return out;
}

/** A contact or document detail on a line; "No:" only after another word ("Bill No:"): opening a line it is a house number ("No:5, Main Road"). */
const CONTACT = /\b(?:tel|phone|fax|hp|h\/p|mobile|gst|vat|reg|tin|ust|email|e-mail|www|invoice|receipt|date|cashier)\b|(?<=\p{L}\.?\s*)\bno\.?:/iu;

/** "Invoice No # : 123": a field's label before a colon, not a part of an address. */
function labelledDetail(text: string): boolean {
  const label = LABEL_COLON.exec(text)?.[1];
  return !!label && /\p{L}{3}/u.test(label) && !addressWords(label) && (conceptsOf(label)[0]?.score ?? 0) >= LABELLED;
}

/** Words of addresses (kinds of street, building and floor, and a house number's "No"), lower case. */
const ADDRESS_PARTS = new Set([...ADDRESS_WORDS.map((w) => w.toLowerCase()), 'no', 'blk', 'kiosk']);
/** A label made of address words only ("Unit:", "Lot No.:"): the start of an address, no field's label. */
const addressWords = (label: string) => label.toLowerCase().split(/[^\p{L}]+/u).filter(Boolean).every((w) => ADDRESS_PARTS.has(w));
/** Words a lot's, unit's or floor's number follows. */
const NUMBERED_PARTS = ['lot', 'unit', 'shop', 'no', 'level', 'suite', 'block', 'blk', 'blok', 'kiosk', 'floor', 'tingkat', 'aras', 'lantai'];
/** A number right after such a word ("LOT 1.23", "Unit 12.05"): a lot's or a unit's, no money. */
const ADDRESS_NUMBER = new RegExp(`(?:^|[\\s,(])(?:${NUMBERED_PARTS.join('|')})\\.?\\s*:?\\s*$`, 'iu');
/** How surely a label must name a field for its line to end an address. */
const LABELLED = 0.8;

/**
 * A line of nothing but a telephone number ("016-5498845", "+44 (0)20 7946 0958"): seven digits or
 * more in groups, no letters (a postal code alone has five or six, in one group).
 */
const PHONE_LINE = /^\+?[\d()]+(?:[\s./-]+[\d()]+)+[,;.]?$/;
const phoneLine = (t: string) => PHONE_LINE.test(t) && (t.match(/\d/g) ?? []).length >= 7;
/**
 * A telephone number after a label of its own, whatever the label's word ("Outlet: 03-1234567",
 * "Careline:1-300-88-1234"): a word, a colon, then seven digits or more in groups.
 */
const LABELLED_PHONE = /\p{L}{3,}\.?\s*:\s*(\+?[\d()]+(?:[\s./-]*[\d()]+)*)/gu;
const labelledPhone = (t: string) => [...t.matchAll(LABELLED_PHONE)].some((m) => (m[1]!.match(/\d/g) ?? []).length >= 7);

/** A shop's founding year over or under its name ("Since 1985", "Est. 1990", "Sejak 1975"): neither a name nor an address. */
const TAGLINE = /^(?:since|est\.?|estd\.?|established|sejak|seit|depuis|desde|dal|sinds|od)\s+\d{4}\.?$/iu;

/** A till's store or terminal number opening a line ("Store #1234", "ST# 0123 OP# 45"); a shop's unit number ("Shop 5,") is an address's. */
const STORE_LINE = /^(?:store|outlet|branch|st|till|pos|terminal)\s*(?:#|no\.?:?)\s*\d+/i;

/** A currency's code or sign alone on its line ("EUR" over the items' prices): the items' head, no part of an address. */
const currencyAlone = (t: string) => /^(?:\p{Lu}{3}|\p{Sc})$/u.test(t) && currencyIn(t) !== null;

/** A telephone number closing a line after other words ("Store Mgr: J. Doe (219) 555-0120"); not a ZIP+4 code ("IN 46410-1234"). */
const endsInPhone = (t: string) => !!edgePhone(t) && !/\b\d{5}-\d{4}$/.test(t);

/** A shop's name with its store number ("ACME MART #0412"), whose figures read as a house number's. */
const storeName = (t: string) => STORE_NUMBER.test(t) && nameLike(t.replace(STORE_NUMBER, ''));

/** A line an issuer's address stops before: its contacts, tax or registration numbers, a date, a title or an amount. */
export function endsAddress(text: string): boolean {
  const t = text.trim();
  return (
    CONTACT.test(t) ||
    phoneLine(t) ||
    labelledPhone(t) ||
    issuerDetail(t) ||
    REGISTRATION_LINE.test(t) ||
    STORE_LINE.test(t) ||
    TAGLINE.test(t) ||
    labelledDetail(t) ||
    currencyAlone(t) ||
    endsInPhone(t) ||
    // A time of day or a duration ("Parking time 1:29", "Open 10:00-22:00"): no street's number.
    TIME_RE.test(t) ||
    storeName(t) ||
    EMAIL_RE.test(t) ||
    URL_RE.test(t) ||
    findDates(t, null).length > 0 ||
    TITLES.has(normalizeLabel(t)) ||
    // Money written with decimals or grouped in thousands: a postal code before a town ("54321 CHE...", a currency code) is no amount.
    findAmounts(t).some((a) => (/\d[.,]\d{2}$/.test(a.raw.replace(/\D+$/, '')) || GROUPED_END.test(t)) && !ADDRESS_NUMBER.test(t.slice(0, a.start)))
  );
}

/** A whole figure grouped in thousands ("22,000", "Rp 1.250.000"). */
const GROUPED = /\d{1,3}(?:[.,]\d{3})+(?!\d)/;
/** A line ending in such a figure: an item's or a total's price where money has no decimals, no part of an address. */
const GROUPED_END = /\d{1,3}(?:[.,]\d{3})+\s*$/;

/** A street's line: a house number or a kind of street, also at the end of a compound's word ("Marktplatz 3"). */
const streetLine = (t: string) => STREET_LINE.test(t) || COMPOUND_STREET.test(t);
/** Postal codes, street words, a house number, or a number among parts set off by commas ("A-16-1, Tower A"). */
const addressSign = (t: string) => POSTAL_LINE.test(t) || /\b\d{5}\b/.test(t) || streetLine(t) || HOUSE_NUMBER.test(t) || /\d.*,|,.*\d/.test(t);
/**
 * A house or lot number opening a line: bare before a comma ("12,"), after a word of an address's
 * parts ("No. 5", "Lot 276", "Level 6"; not "Order 2291"), or before a street's name ("5 Church Lane").
 */
const HOUSE_NUMBER = new RegExp(String.raw`^(?:\p{L}{1,5}\.?\s*:?\s*)?\d+[\p{L}\d/-]*\s*[,&]|^(?:${NUMBERED_PARTS.join('|')})\.?\s*:?\s*\d|^\d+\p{L}?\s+\p{L}.*${STREET_WORD.source}`, 'iu');
/** Lines an address may take: a street, a district, a postal town, a region, a country. */
const MAX_ADDRESS_LINES = 6;
/** Lines further apart than this many type heights are no two lines of one address. */
const ADDRESS_GAP = 3.5;
/** How far down the first page an issuer's address is looked for. */
const ADDRESS_REACH = 25;
/** A line's centre this close to the page's middle (a share of the page's width) is centred like a till receipt's letterhead. */
const CENTRED = 0.12;

/**
 * A full stop after a whole word of a recognised address, or after a number or a code holding a
 * figure, with more of the address after it: the comma whose tail faint print lost ("TAMAN INDAH.
 * 43000", "LOT 12. JALAN", "U3/G. TAMAN"); after a number or code also where no space follows
 * before a word ("1/9.SEKSYEN"), which no decimal mark is. In the addresses the corpus's dev
 * receipts print, a word of four letters or more is followed by a comma 137 times and by a full
 * stop once; a token holding a figure by a comma 144 times (26 of them codes ending in a letter,
 * 7 without a space after) and never by a full stop. Abbreviations are shorter words ("Jln.",
 * "No.").
 */
const CODE = String.raw`[\p{L}\d/-]*\d[\p{L}\d/-]*`;
/** Street abbreviations of four letters or more, whose full stop is their own ("Hauptstr. 5", "Sunset Blvd. 12"). */
const LONG_ABBREVIATIONS = 'str|blvd|pkwy';
const STOP_AFTER_WORD = new RegExp(String.raw`(?<=(?:^|[\s,])(?:\p{L}{4,}|${CODE}))(?<!${LONG_ABBREVIATIONS})\.(?=\s+[\p{L}\d])|(?<=(?:^|[\s,])${CODE})\.(?=\p{L})`, 'giu');
export const recognisedAddress = (text: string) => text.replace(STOP_AFTER_WORD, ',');

/** The address and its label of a line that prints an address after a label naming it ("Address: 12 Main Street", "Alamat: ..."). */
function addressAfterLabel(text: string): { label: string; address: string } | null {
  const colon = LABEL_COLON.exec(text);
  const address = colon?.[2]?.trim();
  if (!colon || !address) return null;
  const top = conceptsOf(colon[1]!.trim())[0];
  return top?.concept === 'address' && top.score >= LABELLED ? { label: colon[1]!.trim(), address } : null;
}

/** A line that prints a name and then its address ("KEDAI ACME NO 12, JALAN BESAR"), when the name holds no word of an address: both. */
function nameAndAddress(text: string): { name: string; address: string } | null {
  const start = ADDRESS_START.exec(text);
  if (!start) return null;
  const name = text.slice(0, start.index).replace(/[\s,;:-]+$/, '');
  const address = text.slice(start.index).trim();
  const fits = nameLike(name) && !addressSign(name) && !name.toLowerCase().split(/[^\p{L}]+/u).some((w) => ADDRESS_PARTS.has(w)) && addressSign(address);
  return fits ? { name, address } : null;
}

/** The text of a line before its contact details, when that much reads as a part of an address and the rest ends it. */
function addressHead(text: string): string | null {
  const detail = CONTACT.exec(text);
  if (!detail || detail.index === 0) return null;
  const head = text.slice(0, detail.index).replace(/[\s,;:|/-]+$/, '').trim();
  return head && addressSign(head) && !endsAddress(head) ? head : null;
}

/**
 * The issuer's address: runs of up to six consecutive lines near the top of the first page, joined
 * with spaces, that hold an address sign and none of the lines an address stops before (contacts,
 * registration numbers, dates) nor a name with a legal form. A recognised run reads its lost
 * commas back (see recognisedAddress).
 */
function addressCandidates(ctx: Context): ModelCandidate[] {
  const { layout } = ctx;
  const out: ModelCandidate[] = [];
  const firstPage = layout.lines[0]!.page;
  const n = Math.min(layout.lines.length, ADDRESS_REACH);
  // An address after a label of its own ("Address: 12 Main Street"): the label is none of it, and no detail it stops before.
  const labelled = layout.lines.map((l) => addressAfterLabel(l.text));
  // An address after a name on its line ("KEDAI ACME NO 12, JALAN BESAR"): the name is none of it.
  const named = layout.lines.map((l) => nameAndAddress(l.text)?.address);
  const text = (i: number) => labelled[i]?.address ?? named[i] ?? layout.lines[i]?.text.trim() ?? '';
  const stop = layout.lines.map((l, i) => i >= n || l.page !== firstPage || (!labelled[i] && endsAddress(l.text)));
  const usable = (i: number) => !stop[i] && !hasLegalForm(text(i));
  // A line far below the one before it (a table of items between them) continues no address.
  const apart = layout.lines.map((l, i) => i > 0 && l.y - layout.lines[i - 1]!.y > ADDRESS_GAP * Math.max(l.size, layout.lines[i - 1]!.size));
  // The issuer's name: the first line with a word, or the first with a legal form.
  const wordy = layout.lines.findIndex((l) => /\p{L}{3}/u.test(l.text) && !TAGLINE.test(l.text.trim()));
  const legal = layout.lines.slice(0, n).findIndex((l) => hasLegalForm(l.text));
  const nameLine = legal >= 0 ? legal : wordy;
  const centredLine = (i: number) => {
    const segs = layout.segs[i] ?? [];
    const mid = ctx.pageMid.get(layout.lines[i]!.page);
    if (layout.plain || !segs.length || !mid) return false;
    return Math.abs((segs[0]!.x0 + segs.at(-1)!.x1) / 2 - mid) <= CENTRED * 2 * mid;
  };
  // A line whose address runs into its telephone number ("12 MAIN ROAD 40150 TOWN TEL: 03-1234"):
  // the address's part of it, which ends a run.
  const heads = layout.lines.map((l, i) => (i < n && l.page === firstPage && stop[i] && !hasLegalForm(l.text) ? addressHead(l.text) : null));
  for (let s = 0; s < n; s++) {
    if (!usable(s) && !heads[s]) continue;
    // A labelled address starts its run: the next label starts another field.
    for (let k = 1; k <= MAX_ADDRESS_LINES && s + k <= n && (usable(s + k - 1) || heads[s + k - 1]) && (k === 1 || (usable(s + k - 2) && !labelled[s + k - 1] && !apart[s + k - 1])); k++) {
      const lines = layout.lines.slice(s, s + k);
      const texts = lines.map((_, j) => (usable(s + j) ? text(s + j) : heads[s + j]!));
      if (!texts.some(addressSign)) continue;
      const joined = texts.join(' ').replace(/\s+/g, ' ');
      const value = lines.some((l) => l.confidence !== undefined) ? recognisedAddress(joined) : joined;
      const f: Record<string, number> = {};
      const { above } = labelsAt(layout, s, layout.segs[s]?.[0], '');
      labelFeatures(ctx, f, labelled[s]?.label ?? '', above);
      positionFeatures(ctx, f, s, layout.segs[s]?.[0]);
      ruleFeatures(ctx, f, value);
      const prev = text(s - 1);
      const next = text(s + k);
      f['addr:lines'] = k / MAX_ADDRESS_LINES;
      f['addr:postal_last'] = POSTAL_LINE.test(texts.at(-1)!) || /\b\d{5}\b/.test(texts.at(-1)!) ? 1 : 0;
      f['addr:postal_any'] = texts.some((t) => POSTAL_LINE.test(t) || /\b\d{5}\b/.test(t)) ? 1 : 0;
      f['addr:street_first'] = streetLine(texts[0]!) || /\d/.test(texts[0]!) ? 1 : 0;
      f['addr:street_any'] = texts.some(streetLine) ? 1 : 0;
      f['addr:house_number'] = HOUSE_NUMBER.test(texts[0]!) ? 1 : 0;
      f['addr:name_first'] = nameLike(texts[0]!) && !addressSign(texts[0]!) ? 1 : 0;
      // Where the run sits: right under the issuer's name (or its registration line), and up to a line an address stops before.
      const head = s === nameLine + 1 || (s === nameLine + 2 && REGISTRATION_LINE.test(prev));
      f['addr:under_name'] = head ? 1 : 0;
      // A run ending in a line's address part ends where that line's contact details start.
      const cutOff = !usable(s + k - 1);
      f['addr:contact_next'] = cutOff || s + k >= layout.lines.length || stop[s + k] || apart[s + k] ? 1 : 0;
      f['addr:stop_prev'] = s === 0 || stop[s - 1] || apart[s] || hasLegalForm(prev) || s - 1 === nameLine ? 1 : 0;
      // A run cut short: the line after it (or before it) reads as more of the address.
      f['addr:more_next'] = !cutOff && s + k < n && usable(s + k) && !apart[s + k] && addressSign(next) ? 1 : 0;
      f['addr:more_prev'] = s > 0 && usable(s - 1) && !apart[s] && (addressSign(prev) || /,\s*$/.test(prev)) ? 1 : 0;
      f['addr:name_before'] = prev && (hasLegalForm(prev) || s === 1) ? 1 : 0;
      f['addr:legal_prev'] = hasLegalForm(prev) ? 1 : 0;
      f['addr:comma_end'] = /,\s*$/.test(texts.at(-1)!) ? 1 : 0;
      // A till's or form's field ("Cashier: 12", "Trans: 3114"): a word of four letters or more before a colon; "No: 5" is a house number.
      f['addr:labelled'] = texts.some((t) => /\p{L}{4,}\s*:\s*\S/u.test(t)) ? 1 : 0;
      f['addr:centred'] = lines.every((_, j) => centredLine(s + j)) ? 1 : 0;
      // Misread lines are rarely the address as printed.
      const confidences = lines.map((l) => l.confidence).filter((c): c is number => c !== undefined);
      if (confidences.length) {
        f['ocr:mean'] = confidences.reduce((a, b) => a + b, 0) / confidences.length;
        f['ocr:min'] = Math.min(...confidences);
      }
      if (doubtedIn(lines, value)) f['read:doubted'] = 1;
      out.push({ value, line: s, features: f });
    }
  }
  return out;
}

/** Currencies: codes and signs beside the amounts, a "Currency:" label, or the language's usual currency. */
function currencyCandidates(ctx: Context, language: string | null): ModelCandidate[] {
  const { layout } = ctx;
  const counts = new Map<string, { attached: number; loose: number; labelled: number; line: number }>();
  const bump = (code: string, key: 'attached' | 'loose' | 'labelled', line: number) => {
    const c = counts.get(code) ?? { attached: 0, loose: 0, labelled: 0, line };
    c[key]++;
    counts.set(code, c);
  };
  layout.lines.forEach((line, i) => {
    const amounts = findAmounts(line.text);
    for (const a of amounts) if (a.currency) bump(a.currency, 'attached', i);
    const code = currencyIn(line.text);
    if (code && amounts.some((a) => a.money && !a.currency)) bump(code, 'loose', i);
    if (code && conceptsOf(line.text.split(/[:：]/)[0]!).some((h) => h.concept === 'currency' && h.score >= 0.8)) bump(code, 'labelled', i);
  });
  const usual: Record<string, string> = { de: 'EUR', fr: 'EUR', es: 'EUR', it: 'EUR', nl: 'EUR', pt: 'EUR', pl: 'PLN', ms: 'MYR', id: 'IDR' };
  // The language's usual currency, or else the country the document names or its tax id's prefix gives.
  const fromLanguage = (language ? usual[language] : undefined) ?? countryCurrency(layout.lines.map((l) => l.text).join('\n'));
  if (fromLanguage && !counts.has(fromLanguage)) counts.set(fromLanguage, { attached: 0, loose: 0, labelled: 0, line: -1 });
  const most = Math.max(0, ...[...counts.values()].map((c) => c.attached + c.loose));
  return [...counts].map(([code, c]) => ({
    value: code,
    line: c.line,
    features: {
      'cur:attached': Math.log1p(c.attached),
      'cur:loose': Math.log1p(c.loose),
      'cur:labelled': c.labelled ? 1 : 0,
      'cur:most': c.attached + c.loose === most && most > 0 ? 1 : 0,
      'cur:language': code === fromLanguage ? 1 : 0,
      ...(ctx.rule && ctx.rule.value.toUpperCase() === code ? { 'rule:pick': 1, 'rule:score': ctx.rule.score } : {}),
    },
  }));
}

/** Currencies of countries outside the euro, by ISO code; the euro countries' tax ids say EUR. */
const COUNTRY_CURRENCY: Record<string, string> = { GB: 'GBP', CH: 'CHF', PL: 'PLN', SE: 'SEK', DK: 'DKK', CZ: 'CZK', HU: 'HUF', RO: 'RON', BG: 'BGN' };
const EURO = new Set(['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'EL', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK']);
/**
 * A tax id after its label, its country first in capitals ("VAT Reg: GB 987 6543 21", "USt-IdNr.
 * DE123456789"); "VAT No 123" names no country (Norway's "NO" is left out for it).
 */
const TAX_ID_COUNTRY = /\b(?:[Vv][Aa][Tt]|[Uu][Ss][Tt]|[Tt][Vv][Aa]|[Bb][Tt][Ww]|[Ii][Vv][Aa]|[Mm][Ww][Ss][Tt]|[Uu][Ii][Dd]|[Nn][Ii][Pp])\b[^\n\d]{0,25}?\b([A-Z]{2})\s?\d/;
/** Country names an address ends with, and their currencies. */
const COUNTRY_NAMES: Array<[RegExp, string]> = [
  [/\b(?:united kingdom|england|scotland|wales)\b/i, 'GBP'],
  [/\b(?:switzerland|schweiz|suisse|svizzera)\b/i, 'CHF'],
  [/\b(?:united states|u\.s\.a\.)\b/i, 'USD'],
  [/\bcanada\b/i, 'CAD'],
  [/\baustralia\b/i, 'AUD'],
  [/\bmalaysia\b/i, 'MYR'],
  [/\bsingapore\b/i, 'SGD'],
  [/\bindia\b/i, 'INR'],
];

const US_STATES = 'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY';
/**
 * Postal lines whose shape names the country, and its currency: a US town, state and ZIP code
 * ("Oakland, CA 94607"), a Canadian postal code ("H3B 1A7"), an Australian state and postcode
 * ("NSW 2000"), a UK postcode ("LS1 4AB").
 */
const POSTAL_COUNTRIES: Array<[RegExp, string]> = [
  [new RegExp(`\\p{L},\\s*(?:${US_STATES})\\s+\\d{5}(?:-\\d{4})?\\b`, 'u'), 'USD'],
  [/\b[ABCEGHJ-NPRSTVXY]\d[A-Z]\s?\d[A-Z]\d\b/, 'CAD'],
  [/\b(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)\s+\d{4}\b/, 'AUD'],
  [/\b[A-Z]{1,2}\d[A-Z\d]?\s\d[ABD-HJLNP-UW-Z]{2}\b/, 'GBP'],
];

/** The currency of the country a document's tax id or address names, when one does. */
function countryCurrency(text: string): string | undefined {
  const prefix = TAX_ID_COUNTRY.exec(text)?.[1];
  if (prefix && COUNTRY_CURRENCY[prefix]) return COUNTRY_CURRENCY[prefix];
  if (prefix && EURO.has(prefix)) return 'EUR';
  const named = COUNTRY_NAMES.find(([re]) => re.test(text))?.[1];
  if (named) return named;
  // The first postal line's country: the issuer's address usually stands above its customer's.
  const postal = POSTAL_COUNTRIES.map(([re, code]) => ({ at: re.exec(text)?.index ?? Infinity, code })).sort((a, b) => a.at - b.at)[0]!;
  return postal.at < Infinity ? postal.code : undefined;
}

/** Every candidate of a role in a document, with its features. */
export function modelCandidates(
  role: Role,
  layout: Layout,
  want: Want,
  wants: Want[],
  rule: { value: string; score: number; line?: number } | null,
  language: string | null,
): ModelCandidate[] {
  if (!layout.lines.length) return [];
  const pageMid = new Map<number, number>();
  for (const seg of layout.segs.flat()) pageMid.set(seg.page, Math.max(pageMid.get(seg.page) ?? 0, seg.x1 / 2));
  const ctx: Context = { layout, want, rule, pageMid, maxSize: Math.max(0, ...layout.lines.map((l) => l.size)) };
  const date = role === 'issue_date' || role === 'due_date';
  const out = roleCandidates(role, ctx, wants, language);
  // An address's lines are marked where they are joined; every other value stands on its own line.
  if (role !== 'address') for (const c of out) if (doubtedIn(layout.lines.slice(c.line, c.line + 1), c.value, date)) c.features['read:doubted'] = 1;
  return out;
}

function roleCandidates(role: Role, ctx: Context, wants: Want[], language: string | null): ModelCandidate[] {
  switch (role) {
    case 'issue_date':
    case 'due_date':
      return dateCandidates(ctx);
    case 'net':
    case 'tax':
    case 'total':
      return amountCandidates(ctx);
    case 'number':
      return numberCandidates(ctx);
    case 'seller':
      return partyModelCandidates(ctx, 'vendor', wants);
    case 'buyer':
      return partyModelCandidates(ctx, 'customer', wants);
    case 'address':
      return addressCandidates(ctx);
    case 'currency':
      return currencyCandidates(ctx, language);
  }
}


/**
 * Whether a value holds a word of its lines that a second recogniser read otherwise (see
 * ocr/agreement.ts): a value so read is misread more often. A date is written in its own form
 * ("2018-01-12"), so any doubted word with a figure on its line counts.
 */
function doubtedIn(lines: TextLine[], value: string, date = false): boolean {
  const doubted = lines.flatMap((l) => l.doubted ?? []).map(lettersAndFigures).filter(Boolean);
  if (!doubted.length) return false;
  if (date) return doubted.some((w) => /\d/.test(w));
  const words = new Set(value.split(/[\s,]+/).map(lettersAndFigures));
  return doubted.some((w) => words.has(w));
}
