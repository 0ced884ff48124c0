/** Till-receipt line items: blocks of lines, each with a quantity at a unit price and an amount. */
import { describe, expect, test } from 'bun:test';
import { linesFromText } from '../../src/extract/fields';
import { mapReading } from '../../src/extract/mapper';
import { receiptItems } from '../../src/extract/receipt';
import type { Column } from '../../src/domain/columns';

const RECEIPT = `CORNER HARDWARE
12 Elm Street
--------------------------
Claw hammer
steel handle
HT-100 2 @ 14.50
Loyalty -1.00
28.00
Wood screws 4x40
WS-440 3 x 2.10  6.30
--------------------------
SUBTOTAL 34.30
TAX 2.74
TOTAL 37.04`;

describe('receipt items', () => {
  test('blocks become items: description lines, code, quantity at price, an adjustment, the amount', () => {
    const group = receiptItems(linesFromText(RECEIPT));
    expect(group?.records).toEqual([
      { 'Item code': 'HT-100', Quantity: '2', 'Unit price': '14.50', Loyalty: '-1.00', Amount: '28.00', Description: 'Claw hammer steel handle' },
      { 'Item code': 'WS-440', Quantity: '3', 'Unit price': '2.10', Amount: '6.30', Description: 'Wood screws 4x40' },
    ]);
  });

  test('text without two quantity-at-price lines is no receipt', () => {
    expect(receiptItems(linesFromText('Meeting notes\nWe sold 2 @ 3.00 last week.\nTotal 6.00'))).toBeNull();
    expect(receiptItems(linesFromText('Invoice 12\nDate: 2024-01-02\nTotal: 5.00'))).toBeNull();
  });

  test('the mapper takes them as rows of a plain-text receipt', () => {
    const columns = [
      { id: 'description', name: 'Description', type: 'string' },
      { id: 'qty', name: 'Qty', type: 'number' },
      { id: 'price', name: 'Unit price', type: 'number' },
      { id: 'total', name: 'Line total', type: 'number' },
    ].map((c) => ({ required: false, ...c })) as Column[];
    const rows = mapReading({ tables: [], groups: [], lines: linesFromText(RECEIPT), text: RECEIPT }, columns, 'balanced');
    expect(rows.map((r) => r.values)).toEqual([
      { description: 'Claw hammer steel handle', qty: 2, price: 14.5, total: 28 },
      { description: 'Wood screws 4x40', qty: 3, price: 2.1, total: 6.3 },
    ]);
  });

  test('a table of header fields gets the receipt as one row, not its items', () => {
    const columns = [
      { id: 'company', name: 'Company', type: 'string' },
      { id: 'address', name: 'Address', type: 'string', description: "the issuer's address" },
      { id: 'total', name: 'Total', type: 'number' },
    ].map((c) => ({ required: false, ...c })) as Column[];
    const rows = mapReading({ tables: [], groups: [], lines: linesFromText(RECEIPT), text: RECEIPT }, columns, 'balanced');
    expect(rows.length).toBe(1);
    expect(rows[0]!.values).toMatchObject({ company: 'CORNER HARDWARE', total: 37.04 });
    expect(rows[0]!.confidence).toBeGreaterThan(0);
    expect(rows[0]!.confidence).toBeLessThanOrEqual(1);
  });
});
