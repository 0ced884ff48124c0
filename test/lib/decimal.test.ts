import { expect, test } from 'bun:test';
import { DecimalSum, decimalsOf, minorUnits, roundTo } from '../../src/lib/decimal';

test('decimals are those the shortest form of a number shows', () => {
  expect([decimalsOf(12), decimalsOf(0.1), decimalsOf(1383.89), decimalsOf(-2.675), decimalsOf(1e-7), decimalsOf(Math.PI)]).toEqual([0, 1, 2, 3, 7, null]);
});

test('rounding goes by the decimal digits, half away from zero', () => {
  expect([roundTo(1.005, 2), roundTo(2.675, 2), roundTo(-2.675, 2), roundTo(0.125, 2), roundTo(1234.5, 0), roundTo(1.23, 4), roundTo(Math.PI, 3)]).toEqual([1.01, 2.68, -2.68, 0.13, 1235, 1.23, 3.142]);
});

test('sums are decimal-exact where float addition shows noise', () => {
  const values = [1000.01, 383.88, 0.1, 0.2, -0.3];
  const float = values.reduce((a, b) => a + b, 0);
  const sum = new DecimalSum();
  for (const v of values) sum.add(v);
  expect(float).not.toBe(1383.89);
  expect(sum.sum()).toBe(1383.89);
  expect(sum.mean()).toBe(276.778);
  expect(sum.mean(2)).toBe(276.78);
  const many = new DecimalSum();
  for (let i = 0; i < 100_000; i++) many.add(0.01);
  expect(many.sum()).toBe(1000);
});

test('values beyond the tracked decimals are summed as floats, rounded when asked', () => {
  const sum = new DecimalSum();
  sum.add(Math.PI);
  sum.add(1);
  expect(sum.sum()).toBe(Math.PI + 1);
  expect(sum.sum(2)).toBe(4.14);
  expect(new DecimalSum().sum()).toBeNull();
  expect(new DecimalSum().mean()).toBeNull();
});

test("a currency's minor unit", () => {
  expect([minorUnits('USD'), minorUnits('JPY'), minorUnits('BHD'), minorUnits(undefined), minorUnits('XXQ')]).toEqual([2, 0, 3, 2, 2]);
});
