/**
 * Line items of a till receipt, which are not a table: each item is a block of lines, a
 * description on one or two lines, a line with the quantity at a unit price ("2 @ $79.99",
 * "3 x 1,20", often after an item code), labelled adjustments ("Member Discount -5.00") and the
 * item's amount alone or at the end of a line. Blocks are only read as items when at least two of
 * them show the quantity-at-price line, so prose and totals are never taken for items.
 */
import type { RecordGroup, SourceRecord } from './document';
import type { TextLine } from './layout/page';
import { isSummaryLabel } from './tables';

const AMOUNT = String.raw`[-−]?\s?(?:[$€£]\s?)?[-−]?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{2})(?:\s?[$€£])?-?`;
/** "HX-2040 1 @ $19.99", "2 x 3,50", "Qty 3 @ 12.99". */
const QTY_AT_PRICE = new RegExp(String.raw`^(?:(\S*\d\S*)\s+)?(\d+(?:[.,]\d+)?)\s*(?:@|x|×)\s*(${AMOUNT})(?:\s+(${AMOUNT}))?$`, 'iu');
const AMOUNT_ONLY = new RegExp(String.raw`^(${AMOUNT})$`, 'u');
const LABELLED_AMOUNT = new RegExp(String.raw`^(\p{L}[\p{L} .'/-]{1,40}?)\s+(${AMOUNT})$`, 'u');
const SEPARATOR = /^[-=_*~.\s]{5,}$/;

interface Item {
  description: string[];
  record: SourceRecord;
  closed: boolean;
}

/** The receipt's items as records (Description, Item code, Quantity, Unit price, adjustments, Amount), or null. */
export function receiptItems(lines: TextLine[]): RecordGroup | null {
  const items: Item[] = [];
  let current: Item = { description: [], record: {}, closed: false };
  let priced = 0;
  const close = () => {
    if (current.record.Quantity !== undefined && current.record.Amount !== undefined) {
      current.record.Description = current.description.join(' ');
      items.push(current);
    }
    current = { description: [], record: {}, closed: false };
  };
  for (const line of lines) {
    const text = line.text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    if (SEPARATOR.test(text) || isSummaryLabel(text)) {
      close();
      continue;
    }
    const atPrice = QTY_AT_PRICE.exec(text);
    if (atPrice) {
      if (current.record.Quantity !== undefined) close();
      if (atPrice[1]) current.record['Item code'] = atPrice[1];
      current.record.Quantity = atPrice[2]!;
      current.record['Unit price'] = atPrice[3]!;
      if (atPrice[4]) {
        current.record.Amount = atPrice[4];
        close();
      }
      priced++;
      continue;
    }
    const amount = AMOUNT_ONLY.exec(text);
    if (amount && current.record.Quantity !== undefined) {
      current.record.Amount = amount[1]!;
      close();
      continue;
    }
    const labelled = LABELLED_AMOUNT.exec(text);
    if (labelled && current.record.Quantity !== undefined) {
      current.record[labelled[1]!.trim()] = labelled[2]!;
      continue;
    }
    // Text before an item's price line is its description; text after it starts the next item.
    if (current.record.Quantity !== undefined) close();
    if (/\p{L}/u.test(text) && !/:\s/.test(text)) current.description.push(text);
    else current.description = [];
    if (current.description.length > 3) current.description.shift();
  }
  close();
  if (priced < 2 || items.length < 2) return null;
  return { label: 'receipt items', records: items.map((i) => i.record) };
}
