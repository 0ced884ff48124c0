/** The issuer and the customer: letterheads, address blocks, labelled parties, never the same one. */
import { conceptsOf, coreTokens, inVocabulary, normalizeLabel } from '../lexicon';
import { known } from '../thesaurus';
import { ADDRESS_TITLES, LEGAL_FORMS, PROSE_WORDS } from '../lexicon.data';
import { findDates } from '../dates';
import { type Candidate, MIN_LABEL } from './candidates';
import { isLabelLike, LABEL_COLON, type Layout, type Seg } from './layout';
import { EMAIL_RE, escapeRe, IBAN_RE, POSTAL_LINE, STREET_LINE, TITLES, URL_RE, validIban } from './values';
import { labelMatch, type Want } from './wants';

export const SALUTATION = new RegExp(
  `^(?:${ADDRESS_TITLES.map(escapeRe).sort((a, b) => b.length - a.length).join('|')})(?=\\s|$)`,
  'iu',
);
// Short forms ("SA", "AG", "AS") only as printed, longer ones ("LTD.", "Gmbh") in any case. The
// words of a form may stand apart by a full stop alone ("Sdn.Bhd", "Pte.Ltd"), and a longer form
// may end a sentence ("... Sdn Bhd."); a short one with a full stop is more often an abbreviation
// ("KG." for a village in an address).
export const legalRe = (forms: string[], flags: string, stopAfter: boolean) =>
  new RegExp(`(?:^|[\\s,])(?:${forms.map((f) => escapeRe(f).replace(/ /g, '[\\s.]*')).sort((a, b) => b.length - a.length).join('|')})(?=$|[\\s,)${stopAfter ? '.' : ''}])`, flags);
export const LEGAL_SHORT = legalRe(LEGAL_FORMS.filter((f) => f.replace(/\W/g, '').length <= 2), 'u', false);
export const LEGAL_LONG = legalRe(LEGAL_FORMS.filter((f) => f.replace(/\W/g, '').length > 2), 'iu', true);

/** A Dutch postal code before its town ("1012 AB Amsterdam"), whose two letters are no legal form ("AB", "NV"). */
const POSTCODE_LETTERS = /\b\d{4}\s?[A-Z]{2}(?=\s+\p{Lu})/gu;
/** An Irish county opening an address's line ("Co. Kerry"): its "Co." is no company's. */
const COUNTY = /^Co\.\s+(?=\p{Lu})/u;
export const hasLegalForm = (text: string) => {
  const t = text.trim().replace(COUNTY, '');
  return LEGAL_SHORT.test(t.replace(POSTCODE_LETTERS, ' ')) || LEGAL_LONG.test(t);
};
/** A legal form alone ("GmbH", "SDN BHD" set apart on its line): the end of a name, not one. */
export const legalFormOnly = (text: string) => hasLegalForm(text) && !/\p{L}{2}/u.test(text.trim().replace(LEGAL_LONG, ' ').replace(LEGAL_SHORT, ' '));
/**
 * A salutation alone on its line, no colon after it ("Firma", "Herrn"): the head of an addressee's
 * block, no label of the issuer; one that labels the customer ("To", "Attn") stays that label.
 */
export const salutationOnly = (text: string) =>
  SALUTATION.exec(text.trim())?.[0].length === text.trim().length && !conceptsOf(text).some((h) => h.concept === 'customer' && h.score >= 0.8);
const SENT_FROM = /^(.{3,40}?)\s+(?:from|von|de|da|van|od|dari)\s+(\S.*)$/iu;
/** The sender a document's title names ("Receipt from ACME Inc.", "Rechnung von ACME GmbH"), or null. */
export function sentFrom(text: string): string | null {
  const m = SENT_FROM.exec(text.trim());
  return m && titleOnly(m[1]!) && nameLike(m[2]!) ? m[2]!.trim() : null;
}
export const PAGE_MARK = /^(?:page|seite|pag\.?|página|pagina|strona|blad|p\.)\s*\d/iu;

const TITLE_WORDS = [...TITLES].filter((t) => !t.includes(' ') && t.length >= 5);

/**
 * A document's title with its type code or number ("Handelsrechnung (380)", "Invoice 12"): every
 * word a title or a compound ending in one.
 */
export function titleOnly(text: string): boolean {
  const words = normalizeLabel(text.replace(/\([^()]*\)|\S*\d\S*/g, ' ')).split(' ').filter(Boolean);
  if (!words.length || words.length > 3) return false;
  if (TITLES.has(words.join(' ')) || words.every((w) => TITLES.has(w) || TITLE_WORDS.some((t) => w.length > t.length && w.endsWith(t)))) return true;
  // A title after words of the dictionary that qualify it ("OFFICIAL RECEIPT", "Simplified Tax Invoice"),
  // not after a name ("Northwind Invoice").
  const title = [2, 1].find((n) => words.length > n && TITLES.has(words.slice(-n).join(' ')));
  return !!title && !hasLegalForm(text) && words.slice(0, -title).every((w) => w.length >= 4 && known(w));
}

const PROSE = new Set(PROSE_WORDS);
/** Two words of sentences ("are", "not", "please", "your"): a notice, not a name. */
const prose = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}]+/u).filter((w) => PROSE.has(w))).size >= 2;

/**
 * A line of a notice, not a name: an exclamation ("Redeem your points before they expire!"), two
 * words of sentences, or a sentence (a full stop after a lowercase word, most words lowercase).
 */
export function noticeLike(text: string): boolean {
  const t = text.trim();
  if (/\p{L}{2}\W*!\W*$/u.test(t) || prose(t)) return true;
  const words = t.split(/\s+/);
  const lower = words.filter((w) => /^\p{Ll}/u.test(w)).length;
  return /\p{Ll}{2}[.!?]$/u.test(t) && lower >= 2 && lower * 2 >= words.length;
}

/**
 * A name before its address or a detail of its own on one line, set off by a comma or a dash ("ACME
 * Ltd, 1 Market Street, Leeds", "ACME S.L. - CIF B1234567"): the name alone, else null.
 */
export function nameBeforeAddress(text: string): string | null {
  const [head, ...rest] = text.trim().split(/,\s*|\s+[-–|·]\s+/);
  return head && rest.length && nameLike(head) && rest.some((p) => POSTAL_LINE.test(p) || STREET_LINE.test(p) || issuerDetail(p)) ? head : null;
}

/** Words a name runs to at most: without a legal form, and with one. */
const MAX_NAME_WORDS = 8;
const MAX_NAME_WORDS_REGISTERED = 12;

/** Text that could be a party's name: words, not a label, title, address, date, amount or contact. */
export function nameLike(text: string, streetWords = false): boolean {
  const t = text.trim();
  if (t.length < 2 || t.length > 80 || !/\p{L}{2}/u.test(t)) return false;
  // Printed names of firms and people start with capitals; a line without one is a word of prose,
  // a file name or a handwritten note.
  if (!/\p{Lu}/u.test(t)) return false;
  // Names do not end in a comma or colon, nor run to a sentence ("Dear Sir or Madam,").
  // A company's registered name may run longer before its legal form; a sender's line (name, street
  // and town in one) holds figures.
  if (/[,;:]$/.test(t) || t.split(/\s+/).length > (hasLegalForm(t) && !/\d/.test(t) ? MAX_NAME_WORDS_REGISTERED : MAX_NAME_WORDS)) return false;
  if (noticeLike(t)) return false;
  // An addressee's title alone ("Herrn", "Mr.") opens the name on the line under it; it is none.
  if (SALUTATION.test(t) && !/\p{L}{2}/u.test(t.replace(SALUTATION, ''))) return false;
  if (legalFormOnly(t)) return false;
  if (TITLES.has(normalizeLabel(t)) || titleOnly(t) || isLabelLike(t) || LABEL_COLON.test(t) || PAGE_MARK.test(t)) return false;
  // Words that all belong to field labels ("Adresse de livraison", "N° TVA client") are a label;
  // a name may hold one such word ("Café du Port") but not only those.
  const words = coreTokens(t);
  if (!hasLegalForm(t) && (conceptsOf(t)[0]?.score ?? 0) >= 0.7 && words.every(inVocabulary)) return false;
  if (EMAIL_RE.test(t) || URL_RE.test(t) || findDates(t, null).length) return false;
  // With `streetWords`, a name may hold a street's or estate's word after its own first word, when it
  // holds no figure or comma ("RESTORAN TAMAN JAYA"; "TAMAN JAYA" and "JALAN MAWAR, TAMAN JAYA" are addresses).
  const streetName = streetWords && !/[\d,]/.test(t) && !STREET_LINE.test(t.split(/\s+/)[0]!);
  if (!hasLegalForm(t) && (POSTAL_LINE.test(t) || (STREET_LINE.test(t) && !streetName) || (t.match(/\d/g)?.length ?? 0) > 3)) return false;
  return true;
}

export interface Block {
  segs: Seg[];
}

/** Runs of segments stacked at the same left edge on following lines: address blocks, letterheads. */
export function blocksOf(layout: Layout, skipLines: Set<number>): Block[] {
  const blocks: Block[] = [];
  const pageMiddle = new Map<number, number>();
  for (const seg of layout.segs.flat()) pageMiddle.set(seg.page, Math.max(pageMiddle.get(seg.page) ?? 0, seg.x1 / 2));
  let open: Block[] = [];
  const maxSize = Math.max(1, ...layout.lines.map((l) => l.size));
  for (const row of layout.segs) {
    if (!row[0] || skipLines.has(row[0].line)) continue;
    // Blocks that ended too far above can take nothing more.
    const { page, y } = row[0];
    open = open.filter((b) => b.segs.at(-1)!.page === page && y - b.segs.at(-1)!.y <= (layout.plain ? 1 : maxSize * 3.5));
    for (const seg of row) {
      const tolerance = layout.plain ? 1 : Math.max(3, seg.size * 0.5);
      const rightHalf = !layout.plain && seg.x0 > pageMiddle.get(seg.page)!;
      const home = open.find((b) => {
        const last = b.segs.at(-1)!;
        const gap = seg.y - last.y;
        const reach = layout.plain ? 1 : Math.max(last.size, seg.size) * 3.5;
        // Left-aligned or right-aligned (a letterhead set flush right).
        return last.page === seg.page && gap > 0 && gap <= reach && (Math.abs(last.x0 - seg.x0) <= tolerance || (rightHalf && last.x0 > pageMiddle.get(seg.page)! && Math.abs(last.x1 - seg.x1) <= tolerance));
      });
      if (home) home.segs.push(seg);
      else {
        const block = { segs: [seg] };
        blocks.push(block);
        open.push(block);
      }
    }
  }
  return blocks;
}

/** A line only an issuer prints about itself: e-mail, web site, phone, tax id, bank account. */
export function issuerDetail(text: string): boolean {
  if (EMAIL_RE.test(text) || URL_RE.test(text) || IBAN_RE.test(text.toUpperCase())) return true;
  if (/^(?:tel|phone|fax|fon|mobil|t|f)\b\.?:?\s*[+(\d]/i.test(text)) return true;
  // The label: up to a colon, or to the number ("P.IVA 01234567890", "VAT GB123456789").
  return conceptsOf(text.split(/[:：]|\s(?=[A-Z]{0,2}\d)/)[0]!).some((h) => (h.concept === 'tax_id' || h.concept === 'phone') && h.score >= 0.9);
}

/** Lines a block's name may follow: a salutation or label, and labelled details (a customer and a global number). */
const NAME_REACH = 4;

/** The name at the head of a block: its first line, after a salutation line or a label. */
export function blockName(block: Block, from = 0): { seg: Seg; index: number } | null {
  for (let k = from; k < Math.min(block.segs.length, from + NAME_REACH); k++) {
    const seg = block.segs[k]!;
    const text = seg.text.replace(SALUTATION, '').trim();
    if (!text) continue;
    if (nameLike(text)) return { seg: { ...seg, text }, index: k };
    // A label, or a labelled detail printed before the name ("Customer no.: 4711").
    const detail = LABEL_COLON.exec(seg.text);
    const labelish = isLabelLike(seg.text) || (!/\d/.test(seg.text) && (conceptsOf(seg.text)[0]?.score ?? 0) >= 0.6) || (!!detail && /\d/.test(detail[2]!) && !/\d/.test(detail[1]!));
    if (!labelish && !SALUTATION.test(seg.text)) return null;
  }
  return null;
}

/** How surely a heading names the party: compounds such as "Buyer/Recipient" match a little less than one word. */
const HEADING_MATCH = 0.75;

/** The party a section heading names within three lines above ("Seller" over "Number:" and "Name:"), past labelled details. */
function headingAbove(layout: Layout, line: number): string | null {
  for (let j = line - 1; j >= Math.max(0, line - 3); j--) {
    const text = layout.lines[j]!.text.replace(/[:：]\s*$/, '');
    if (/\d/.test(text)) continue;
    const hits = conceptsOf(text);
    const top = hits[0];
    if (top && top.score >= HEADING_MATCH && (top.concept === 'vendor' || top.concept === 'customer')) return top.concept;
  }
  return null;
}

export const SEPARATED = /\s*[·•●|∙]\s*|\s+[-–]\s+/;

/** A recognised line below this confidence is more likely noise than print. */
const UNSURE_READING = 0.6;

export function partyCandidates(layout: Layout, wants: Want[]): { vendor: Candidate[]; customer: Candidate[] } {
  const vendor: Candidate[] = [];
  const customer: Candidate[] = [];
  const vendorWant = wants.find((w) => w.concept === 'vendor');
  const customerWant = wants.find((w) => w.concept === 'customer');
  const firstPage = layout.lines[0]?.page ?? 1;
  const pageLines = layout.lines.filter((l) => l.page === firstPage);
  const pageTop = pageLines[0]?.y ?? 0;
  const pageBottom = pageLines.at(-1)?.y ?? 0;
  // The top of a page: its first lines of text, or in points the upper third (at least the
  // height where a window envelope's address sits, about 9 cm from the top).
  const topLimit = layout.plain ? 6 : pageTop + Math.max((pageBottom - pageTop) * 0.3, 255 - Math.min(pageTop, 100));
  const isTop = (seg: Seg) => seg.page === firstPage && (layout.plain ? seg.line < topLimit : seg.y <= topLimit);

  // A sender line above the window address: "ACME GmbH · Hauptstr. 1 · 10115 Berlin".
  const senderLines = new Set<number>();
  const sizes = layout.lines.map((l) => l.size).sort((a, b) => a - b);
  const medianSize = sizes[Math.floor(sizes.length / 2)] ?? 1;
  layout.lines.forEach((line, i) => {
    const first = layout.segs[i]![0];
    if (!first || line.page !== firstPage || !isTop(first)) return;
    // Small print may separate the parts by commas alone, and so may plain text (sizes unknown) where
    // a street follows the name ("Anna Weber Design, Am Markt 3, 04109 Leipzig").
    const commas = !SEPARATED.test(line.text) && (layout.plain || line.size < medianSize * 0.85);
    const parts = line.text.split(commas ? /\s*,\s*/ : SEPARATED).map((p) => p.trim()).filter(Boolean);
    const streetNext = !commas || !layout.plain || (parts[1] !== undefined && STREET_LINE.test(parts[1]));
    if (parts.length >= 3 && streetNext && parts.slice(1).some((p) => POSTAL_LINE.test(p)) && nameLike(parts[0]!)) {
      vendor.push({ value: parts[0]!, score: 0.8, line: i });
      senderLines.add(i);
    }
  });

  const blocks = blocksOf(layout, senderLines);
  const blockOf = new Map<Seg, Block>();
  for (const b of blocks) for (const s of b.segs) blockOf.set(s, b);

  // Labelled: a value beside "Bill to:"/"Vendor:", or the block under the label.
  for (const [want, list] of [[vendorWant, vendor], [customerWant, customer]] as const) {
    if (!want) continue;
    for (const pair of layout.pairs) {
      const match = labelMatch(want, pair.label);
      if (match < Math.max(MIN_LABEL, 0.75)) continue;
      // "From: ACME Billing <billing@acme.example>": the name, without its address or quotes.
      const full = pair.value.replace(/<[^<>]*@[^<>]*>/g, '').trim().replace(SALUTATION, '').replace(/^["'“”]+|["'“”]+$/g, '').trim();
      // "To: Greenleaf Ltd, 1 Market Street, Leeds": the name before its address or tax id.
      const name = nameBeforeAddress(full) ?? full;
      // A number standing alone after the label is a store's or branch's ("Store 118 - Riverside"), no name.
      if (nameLike(name) && !/^\d+(?:\s|$)/.test(name)) list.push({ value: name, score: match * pair.placement, line: pair.line });
    }
    // "Name: ACME GmbH" in a section headed by the party's label ("Seller", then "Number:", "Name:").
    for (const pair of layout.pairs) {
      if (pair.placement < 0.9 || !conceptsOf(pair.label).some((h) => h.concept === 'name' && h.score >= 0.9)) continue;
      const name = pair.value.trim();
      if (nameLike(name) && headingAbove(layout, pair.line) === want.concept) list.push({ value: name, score: 0.85, line: pair.line });
    }
    for (const row of layout.segs) {
      for (const seg of row) {
        const label = seg.text.replace(/[:：]\s*$/, '');
        if (labelMatch(want, label) < 0.75 || !isLabelLike(seg.text) || salutationOnly(seg.text)) continue;
        const block = blockOf.get(seg);
        const name = block ? blockName(block, block.segs.indexOf(seg) + 1) : null;
        if (name) list.push({ value: name.seg.text, score: 0.85 * labelMatch(want, label), line: name.seg.line });
      }
    }
  }

  // A speck or logo the recogniser read as a few letters ("Wr" at the top of a scan): no name, and no head of a block.
  const speck = (seg: Seg) => {
    const confidence = layout.lines[seg.line]!.confidence;
    return (seg.text.match(/\p{L}/gu)?.length ?? 0) < 4 && confidence !== undefined && confidence < UNSURE_READING;
  };
  // Letterhead: names at the top of the first page, the larger, bolder or legal-form ones first.
  const topSegs = layout.segs.flat().filter((s) => isTop(s) && !senderLines.has(s.line));
  const maxSize = Math.max(0, ...topSegs.map((s) => s.size));
  const firstLine = topSegs[0]?.line ?? 0;
  for (const seg of topSegs) {
    // A letterhead's name is capitalised ("pdf" or "page" alone are not names).
    if (!nameLike(seg.text) || !/[\p{Lu}\d]/u.test(seg.text) || speck(seg)) continue;
    const block = blockOf.get(seg);
    // The block's head is its first line of words: a date and time printed over a name head nothing.
    if (block && block.segs.find((s) => !speck(s) && /\p{L}{2}/u.test(s.text)) !== seg) continue;
    const rest = block?.segs.slice(1).map((s) => s.text) ?? [];
    const addressBelow = rest.some((t) => POSTAL_LINE.test(t) || STREET_LINE.test(t));
    const contacts = rest.some(issuerDetail);
    let score = 0.35;
    if (hasLegalForm(seg.text)) score += 0.3;
    if (!layout.plain && seg.size >= maxSize - 0.01 && maxSize > 0) score += 0.15;
    if (seg.bold) score += 0.05;
    if (seg.line === firstLine) score += 0.1;
    if (addressBelow) score += 0.1;
    if (contacts) score += 0.1;
    vendor.push({ value: sentFrom(seg.text) ?? seg.text, score: Math.min(score, 0.95), line: seg.line });
  }

  // The company that signs a letter or e-mail: a legal-form name among its last lines.
  if (layout.plain) {
    for (const row of layout.segs.slice(-4)) {
      const seg = row[0];
      if (seg && row.length === 1 && hasLegalForm(seg.text) && nameLike(seg.text)) vendor.push({ value: seg.text, score: 0.55, line: seg.line });
    }
  }

  // The party whose block holds a tax id or IBAN (a footer) is the issuer.
  for (const block of blocks) {
    const texts = block.segs.map((s) => s.text);
    const fiscal = texts.some((t) => validIban(IBAN_RE.exec(t.toUpperCase())?.[1] ?? '') || conceptsOf(t.split(/[:：]/)[0]!).some((h) => h.concept === 'tax_id' && h.score >= 0.9));
    if (!fiscal) continue;
    const name = blockName(block);
    if (name && hasLegalForm(name.seg.text)) vendor.push({ value: name.seg.text, score: 0.6, line: name.seg.line });
  }

  // Address blocks at the top: the recipient sits under the sender line; of two blocks side by
  // side the left one is the recipient (the window of the envelope) and the right one the
  // letterhead; of two stacked, the upper one is the issuer.
  const addressBlocks: Array<{ block: Block; name: Seg; contacts: boolean }> = [];
  for (const block of blocks) {
    const head = block.segs[0]!;
    const underSender = [...senderLines].some((l) => head.line > l && head.line - l <= 6);
    if (!isTop(head) && !underSender) continue;
    // An address is a few lines; what follows in the same column (contacts, notes) is not part of it.
    const address = block.segs.slice(0, 6);
    if (!address.some((s) => POSTAL_LINE.test(s.text))) continue;
    const name = blockName(block);
    if (!name) continue;
    const contacts = address.some((s) => issuerDetail(s.text));
    addressBlocks.push({ block, name: name.seg, contacts });
    if (underSender && !contacts) customer.push({ value: name.seg.text, score: 0.75, line: name.seg.line });
  }
  if (addressBlocks.length === 2) {
    const [a, b] = addressBlocks as [(typeof addressBlocks)[number], (typeof addressBlocks)[number]];
    const yRange = (x: { block: Block }) => [x.block.segs[0]!.y, x.block.segs.at(-1)!.y] as const;
    const [a0, a1] = yRange(a);
    const [b0, b1] = yRange(b);
    const sideBySide = a0 <= b1 && b0 <= a1;
    let [issuer, recipient] = sideBySide ? (a.name.x0 > b.name.x0 ? [a, b] : [b, a]) : a0 < b0 ? [a, b] : [b, a];
    // Phone numbers, web sites, tax ids and bank details belong to the issuer's block.
    if (recipient.contacts && !issuer.contacts) [issuer, recipient] = [recipient, issuer];
    if (!recipient.contacts) {
      if (!senderLines.size) vendor.push({ value: issuer.name.text, score: 0.6, line: issuer.name.line });
      customer.push({ value: recipient.name.text, score: 0.6, line: recipient.name.line });
    }
  } else if (addressBlocks.length === 1 && !senderLines.size) {
    const only = addressBlocks[0]!;
    // A lone address block at the top is the recipient's unless it heads the letterhead.
    if (only.name.line !== (topSegs[0]?.line ?? -1)) customer.push({ value: only.name.text, score: 0.5, line: only.name.line });
  }
  return { vendor, customer };
}

/** Vendor and customer chosen together: never the same party. */
export function resolveParties(layout: Layout, wants: Want[], result: Map<string, Candidate>): void {
  const vendorWant = wants.find((w) => w.concept === 'vendor');
  const customerWant = wants.find((w) => w.concept === 'customer');
  if (!vendorWant && !customerWant) return;
  const { vendor, customer } = partyCandidates(layout, wants);
  const sum = (cands: Candidate[]) => {
    const byName = new Map<string, Candidate>();
    for (const c of cands) {
      const key = normalizeLabel(c.value);
      const seen = byName.get(key);
      // The same name found by two rules (sender line and letterhead) is surer.
      if (seen) byName.set(key, { ...seen, score: Math.min(1, Math.max(seen.score, c.score) + 0.1) });
      else byName.set(key, c);
    }
    // A short form of a longer name ("ACME" and "ACME GmbH") supports the longer one.
    const merged = [...byName.values()];
    for (const short of merged) {
      const key = normalizeLabel(short.value);
      const longer = merged.find((c) => c !== short && normalizeLabel(c.value).startsWith(`${key} `));
      if (longer) longer.score = Math.min(1, Math.max(longer.score, short.score) + 0.05);
    }
    return merged.sort((a, b) => b.score - a.score || a.line - b.line);
  };
  const vendors = sum(vendor);
  const customers = sum(customer);
  let bestPair: { v: Candidate | null; c: Candidate | null; score: number } = { v: null, c: null, score: -1 };
  for (const v of [...vendors.slice(0, 6), null])
    for (const c of [...customers.slice(0, 6), null]) {
      if (v && c && normalizeLabel(v.value) === normalizeLabel(c.value)) continue;
      const score = (vendorWant ? (v?.score ?? 0) : 0) + (customerWant ? (c?.score ?? 0) : 0);
      if (score > bestPair.score) bestPair = { v, c, score };
    }
  if (vendorWant && bestPair.v && bestPair.v.score >= 0.5) result.set(vendorWant.column.id, bestPair.v);
  if (customerWant && bestPair.c && bestPair.c.score >= 0.5) result.set(customerWant.column.id, bestPair.c);
}
