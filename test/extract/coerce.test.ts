import { describe, expect, test } from 'bun:test';
import { coerce, parseHumanDate, parseHumanNumber } from '../../src/extract/coerce';
import type { Column, ColumnType } from '../../src/domain/columns';
import type { Strictness } from '../../src/domain/tables';

const col = (type: ColumnType, extra: Partial<Column> = {}): Column => ({ id: 'c', name: 'C', type, required: false, ...extra });
const value = (v: unknown, c: Column, s: Strictness) => {
  const r = coerce(v, c, s);
  return r.ok ? { value: r.value } : { error: r.message };
};

describe('human numbers', () => {
  test.each([
    ['1234.5', 1234.5],
    ['$1,234.50', 1234.5],
    ['1.234,50 €', 1234.5],
    ['EUR 12.30', 12.3],
    ['12.30 USD', 12.3],
    ['(12.50)', -12.5],
    ['12-', -12],
    ['-1 234,5', -1234.5],
    ["1'234.50", 1234.5],
    ['1,234,567.89', 1234567.89],
    ['1.234.567', 1234567],
    ['0,5', 0.5],
    ['12,5', 12.5],
    ['1e3', 1000],
    ['+7', 7],
    ['USD12.30', 12.3],
    ['RM96.20', 96.2],
    ['RM 96.20', 96.2],
    ['Rp 5000', 5000],
    ['Rs. 300', 300],
  ])('%s -> %p', (input, expected) => {
    expect(parseHumanNumber(input)).toEqual({ value: expected });
  });

  test('spaces group thousands only: a phone number is not a number', () => {
    expect(parseHumanNumber('98 452')).toEqual({ value: 98452 });
    expect(parseHumanNumber('1 234 567,89')).toEqual({ value: 1234567.89 });
    expect(parseHumanNumber('+44 20 7946 0001')).toBeNull();
    expect(parseHumanNumber('1 23')).toBeNull();
  });

  test('in a scan, letters read in place of digits are repaired inside numbers only', () => {
    const amount = { id: 'a', name: 'Amount', type: 'number', required: false } as Column;
    expect(coerce('l,2O4.5O', amount, 'balanced').ok).toBe(false);
    expect(coerce('l,2O4.5O', amount, 'balanced', { ocr: true })).toEqual({ ok: true, value: 1204.5 });
    expect(coerce('SOLD', amount, 'balanced', { ocr: true }).ok).toBe(false);
  });

  test('a unit after a number is dropped: a word after a space, or a common unit written on', () => {
    expect(parseHumanNumber('142 min')).toEqual({ value: 142 });
    expect(parseHumanNumber('3 Piece')).toEqual({ value: 3 });
    expect(parseHumanNumber('2,5kg', { decimalComma: true })).toEqual({ value: 2.5 });
    expect(parseHumanNumber('12 %')).toEqual({ value: 12 });
  });

  test('ambiguous and bad ones', () => {
    expect(parseHumanNumber('1,234')).toEqual({ ambiguous: '"1,234" could be 1234 or 1.234', guess: 1234 });
    expect(parseHumanNumber('-1,234')).toEqual({ ambiguous: '"-1,234" could be 1234 or 1.234', guess: -1234 });
    // Letters that are no currency stay: a code glued to a figure is no amount.
    for (const bad of ['SKU12.30', 'FORM12', 'abc', '12abc', '1,23,4', '1.2.3,4.5', '', '.', '1,', '--1']) expect(parseHumanNumber(bad)).toBeNull();
  });
});

describe('human dates', () => {
  test('month names in the lexicon languages', () => {
    for (const [text, iso] of [
      ['12. März 2024', '2024-03-12'], ['3 janvier 2024', '2024-01-03'], ['15 de marzo de 2024', '2024-03-15'], ['1 maja 2024', '2024-05-01'],
      ['5 ottobre 2024', '2024-10-05'], ['7 mei 2024', '2024-05-07'], ['9 de setembro de 2024', '2024-09-09'], ['2 févr. 2024', '2024-02-02'],
    ] as const) expect({ text, parsed: parseHumanDate(text, false) }).toEqual({ text, parsed: { value: iso } });
    expect(parseHumanDate('31. Februar 2024', false)).toBeNull();
  });

  test.each([
    ['2024-03-05', '2024-03-05'],
    ['05.03.2024', '2024-03-05'],
    ['2024/03/05', '2024-03-05'],
    ['13/03/2024', '2024-03-13'],
    ['03/13/2024', '2024-03-13'],
    ['March 5, 2024', '2024-03-05'],
    ['5 Mar 2024', '2024-03-05'],
    ['2024-03-05T10:30:00Z', '2024-03-05T10:30:00.000Z'],
    ['2024-03-05T00:00:00Z', '2024-03-05'],
  ])('%s -> %s', (input, expected) => {
    expect(parseHumanDate(input, false)).toEqual({ value: expected });
  });

  test('ambiguous without guessing, month first with it; impossible dates', () => {
    expect(parseHumanDate('03/04/2024', false)).toEqual({ ambiguous: '"03/04/2024" could be 2024-03-04 or 2024-04-03' });
    expect(parseHumanDate('03/04/2024', true)).toEqual({ value: '2024-03-04' });
    expect(parseHumanDate('2024-02-30', false)).toBeNull();
    expect(parseHumanDate('31.02.2024', false)).toBeNull();
    expect(parseHumanDate('sometime soon', false)).toBeNull();
  });
});

describe('every type in each strictness', () => {
  const cases: Array<[ColumnType, Partial<Column>, unknown, Record<Strictness, unknown>]> = [
    ['number', {}, 12.5, { strict: 12.5, balanced: 12.5, flexible: 12.5 }],
    ['number', {}, '1,234.5', { strict: 'E', balanced: 1234.5, flexible: 1234.5 }],
    ['number', {}, '1,234', { strict: 'E', balanced: 'E', flexible: 1234 }],
    ['number', {}, '(1,234)', { strict: 'E', balanced: 'E', flexible: -1234 }],
    ['number', {}, 'lots', { strict: 'E', balanced: 'E', flexible: 'lots' }],
    ['currency', { currency_code: 'JPY' }, 1234.56, { strict: 1235, balanced: 1235, flexible: 1235 }],
    ['currency', { currency_code: 'EUR' }, '1.234,567 €', { strict: 'E', balanced: 1234.57, flexible: 1234.57 }],
    ['boolean', {}, true, { strict: true, balanced: true, flexible: true }],
    ['boolean', {}, 'Yes', { strict: 'E', balanced: true, flexible: true }],
    ['boolean', {}, 0, { strict: 'E', balanced: false, flexible: false }],
    ['boolean', {}, 'maybe', { strict: 'E', balanced: 'E', flexible: 'maybe' }],
    ['date', {}, '2024-03-05', { strict: '2024-03-05', balanced: '2024-03-05', flexible: '2024-03-05' }],
    ['date', {}, 'March 5, 2024', { strict: 'E', balanced: '2024-03-05', flexible: '2024-03-05' }],
    ['date', {}, '03/04/2024', { strict: 'E', balanced: 'E', flexible: '2024-03-04' }],
    ['email', {}, 'a@b.co', { strict: 'a@b.co', balanced: 'a@b.co', flexible: 'a@b.co' }],
    ['email', {}, ' mailto:a@b.co ', { strict: 'E', balanced: 'a@b.co', flexible: 'a@b.co' }],
    ['email', {}, 'not-an-email', { strict: 'E', balanced: 'E', flexible: 'not-an-email' }],
    ['url', {}, 'https://x.io/a', { strict: 'https://x.io/a', balanced: 'https://x.io/a', flexible: 'https://x.io/a' }],
    ['url', {}, 'x.io/a', { strict: 'E', balanced: 'E', flexible: 'https://x.io/a' }],
    ['url', {}, 'ftp://x.io', { strict: 'E', balanced: 'E', flexible: 'ftp://x.io' }],
    ['enum', { options: ['Open', 'Paid'] }, 'Paid', { strict: 'Paid', balanced: 'Paid', flexible: 'Paid' }],
    ['enum', { options: ['Open', 'Paid'] }, 'paid', { strict: 'E', balanced: 'Paid', flexible: 'Paid' }],
    ['enum', { options: ['Open', 'Paid'] }, 'Lost', { strict: 'E', balanced: 'E', flexible: 'Lost' }],
    ['multi_select', { options: ['a', 'b'] }, ['a', 'b'], { strict: ['a', 'b'], balanced: ['a', 'b'], flexible: ['a', 'b'] }],
    ['multi_select', { options: ['a', 'b'] }, 'A; b', { strict: 'E', balanced: ['a', 'b'], flexible: ['a', 'b'] }],
    ['multi_select', { options: ['a', 'b'] }, ['a', 'z'], { strict: 'E', balanced: 'E', flexible: ['a', 'z'] }],
    ['array', {}, [1, 'x'], { strict: [1, 'x'], balanced: [1, 'x'], flexible: [1, 'x'] }],
    ['array', {}, '[1,2]', { strict: 'E', balanced: [1, 2], flexible: [1, 2] }],
    ['array', {}, 'a, b', { strict: 'E', balanced: 'E', flexible: ['a', 'b'] }],
    ['string', {}, 'one line', { strict: 'one line', balanced: 'one line', flexible: 'one line' }],
    ['string', {}, 'two\nlines', { strict: 'E', balanced: 'two lines', flexible: 'two lines' }],
    ['string', {}, 42, { strict: 'E', balanced: '42', flexible: '42' }],
    ['text', {}, 'two\nlines', { strict: 'two\nlines', balanced: 'two\nlines', flexible: 'two\nlines' }],
    ['text', {}, { a: 1 }, { strict: 'E', balanced: 'E', flexible: { a: 1 } }],
  ];
  for (const [type, extra, input, expected] of cases) {
    for (const strictness of ['strict', 'balanced', 'flexible'] as Strictness[]) {
      test(`${type} ${JSON.stringify(input)} in ${strictness}`, () => {
        const got = value(input, col(type, extra), strictness);
        if (expected[strictness] === 'E') expect(got).toHaveProperty('error');
        else expect(got).toEqual({ value: expected[strictness] });
      });
    }
  }

  test('null and blanks', () => {
    expect(value(null, col('number'), 'strict')).toEqual({ value: null });
    expect(value('', col('number'), 'balanced')).toEqual({ value: null });
    expect(value('  ', col('date'), 'flexible')).toEqual({ value: null });
    expect(value('', col('number'), 'strict')).toHaveProperty('error');
    expect(value('', col('string'), 'strict')).toEqual({ value: '' });
  });
});

test('a negative zero is stored as zero (number, and a currency amount rounding to zero)', () => {
  for (const [input, column] of [[-0, col('number')], ['-0', col('number')], [-0.001, col('currency', { currency_code: 'USD' })], ['(0.00)', col('currency')]] as const) {
    const r = coerce(input, column, 'balanced');
    expect(r.ok).toBe(true);
    expect(Object.is(r.ok && r.value, 0)).toBe(true);
  }
});
