import { describe, expect, test } from 'bun:test';
import { weightedMeans } from '../../src/lib/means';

describe('weighted means', () => {
  test('plain and geometric, each share counted by its weight; one low share pulls the geometric one down', () => {
    expect(weightedMeans([[0.9, 1], [0.9, 1]])).toEqual({ plain: 0.9, geometric: expect.closeTo(0.9, 12) });
    const low = weightedMeans([[0.9, 2], [0.01, 1]]);
    expect(low.plain).toBeCloseTo(0.6033, 4);
    expect(low.geometric).toBeCloseTo(Math.cbrt(0.81 * 0.01), 12);
    expect(weightedMeans([[0.5, 0], [0.8, 3]]).plain).toBeCloseTo(0.8, 12);
  });

  test('nothing weighed has means of 0', () => {
    expect(weightedMeans([])).toEqual({ plain: 0, geometric: 0 });
  });
});
