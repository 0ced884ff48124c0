import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../src/lib/errors';
import type { FieldSpec } from '../../src/query/fields';
import { parseFilter, type FilterNode } from '../../src/query/filter';
import { parseOrder } from '../../src/query/order';

const FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', filterable: true, sortable: true },
  amount: { type: 'number', filterable: true, sortable: true },
  paid: { type: 'boolean', filterable: true, sortable: true },
  tags: { type: 'array', filterable: true },
  created_at: { type: 'number', filterable: true, sortable: true },
};
const lookup = (name: string) => FIELDS[name];

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).errorKey).toBe('invalid_input');
    return (error as Error).message;
  }
  throw new Error('expected a 400');
}

describe('filter parser', () => {
  test('a single condition with typed values', () => {
    expect(parseFilter('amount.gte.10.5', lookup)).toEqual({ kind: 'cond', field: 'amount', op: 'gte', value: 10.5 });
    expect(parseFilter('paid.eq.true', lookup)).toEqual({ kind: 'cond', field: 'paid', op: 'eq', value: true });
    expect(parseFilter('name.eq.a.b@c.com', lookup)).toEqual({ kind: 'cond', field: 'name', op: 'eq', value: 'a.b@c.com' });
    expect(parseFilter('name.is.null', lookup)).toEqual({ kind: 'cond', field: 'name', op: 'is', value: null });
    expect(parseFilter('name.is.notnull', lookup)).toEqual({ kind: 'cond', field: 'name', op: 'is', value: 'notnull' });
    expect(parseFilter('', lookup)).toBeNull();
  });

  test('commas are AND; or() and and() nest', () => {
    const node = parseFilter('amount.gt.1,or(name.eq.a,and(paid.eq.true,amount.lt.5))', lookup) as FilterNode;
    expect(node).toEqual({
      kind: 'and',
      children: [
        { kind: 'cond', field: 'amount', op: 'gt', value: 1 },
        {
          kind: 'or',
          children: [
            { kind: 'cond', field: 'name', op: 'eq', value: 'a' },
            { kind: 'and', children: [
              { kind: 'cond', field: 'paid', op: 'eq', value: true },
              { kind: 'cond', field: 'amount', op: 'lt', value: 5 },
            ] },
          ],
        },
      ],
    });
  });

  test('in and nin lists, with quoted values holding commas, dots and parentheses', () => {
    expect(parseFilter('name.in.(a,"b,c","d.e","f (g)")', lookup)).toEqual({ kind: 'cond', field: 'name', op: 'in', value: ['a', 'b,c', 'd.e', 'f (g)'] });
    expect(parseFilter('amount.nin.(1,2.5)', lookup)).toEqual({ kind: 'cond', field: 'amount', op: 'nin', value: [1, 2.5] });
    expect(parseFilter('name.eq."say \\"hi\\", (ok)"', lookup)).toEqual({ kind: 'cond', field: 'name', op: 'eq', value: 'say "hi", (ok)' });
  });

  test('groups nest 3 deep but not 4', () => {
    expect(parseFilter('or(name.eq.a,and(name.eq.b,or(name.eq.c,name.eq.d)))', lookup)).not.toBeNull();
    expect(errorOf(() => parseFilter('or(name.eq.a,and(name.eq.b,or(name.eq.c,and(name.eq.d))))', lookup))).toContain('groups nest at most 3 deep');
  });

  test('20 conditions pass, 21 fail', () => {
    const conds = (n: number) => Array.from({ length: n }, (_, i) => `amount.eq.${i}`).join(',');
    expect(parseFilter(conds(20), lookup)).not.toBeNull();
    expect(errorOf(() => parseFilter(conds(21), lookup))).toContain('at most 20 conditions');
  });

  test('100 in-values pass, 101 fail', () => {
    const list = (n: number) => `amount.in.(${Array.from({ length: n }, (_, i) => i).join(',')})`;
    expect((parseFilter(list(100), lookup) as { value: number[] }).value).toHaveLength(100);
    expect(errorOf(() => parseFilter(list(101), lookup))).toContain('at most 100 values');
  });

  test('bad expressions say what is wrong', () => {
    expect(errorOf(() => parseFilter('nope.eq.1', lookup))).toBe('filter: unknown field "nope" in the filter');
    expect(errorOf(() => parseFilter('amount.between.1', lookup))).toStartWith('filter: unknown operator "between"');
    expect(errorOf(() => parseFilter('name.gt.a', lookup))).toBe(
      'filter: operator "gt" does not apply to string field "name"; use eq, ne, neq, like, ilike, in, nin, is, contains',
    );
    expect(errorOf(() => parseFilter('paid.like.x', lookup))).toContain('does not apply to boolean field "paid"');
    expect(errorOf(() => parseFilter('tags.eq.x', lookup))).toContain('does not apply to array field "tags"');
    expect(errorOf(() => parseFilter('amount.eq.abc', lookup))).toBe('filter: "abc" is not a number, as field "amount" needs');
    expect(errorOf(() => parseFilter('paid.eq.yes', lookup))).toBe('filter: "yes" is not true or false, as field "paid" needs');
    expect(errorOf(() => parseFilter('name.is.empty', lookup))).toContain('is takes null or notnull');
    expect(errorOf(() => parseFilter('name.eq', lookup))).toContain('needs a value');
    expect(errorOf(() => parseFilter('name', lookup))).toContain('needs an operator and a value');
    expect(errorOf(() => parseFilter('or(name.eq.a', lookup))).toContain('or( is not closed');
    expect(errorOf(() => parseFilter('or()', lookup))).toContain('needs at least one condition');
    expect(errorOf(() => parseFilter('name.in.a,b', lookup))).toContain('in takes a list');
    expect(errorOf(() => parseFilter('name.in.(a,b', lookup))).toContain('the in list is not closed');
    expect(errorOf(() => parseFilter('name.eq."open', lookup))).toContain('a quoted value is not closed');
    expect(errorOf(() => parseFilter('name.eq.a)', lookup))).toContain('unexpected ")"');
    expect(errorOf(() => parseFilter('name.eq.a (b)', lookup))).toContain('quote values that hold parentheses');
    expect(errorOf(() => parseFilter('name.eq.a,', lookup))).toContain('expected a condition');
  });
});

describe('order parser', () => {
  test('keys, directions and null placement', () => {
    expect(parseOrder('amount', lookup)).toEqual([{ field: 'amount', desc: false, nullsFirst: false }]);
    expect(parseOrder('amount.desc', lookup)).toEqual([{ field: 'amount', desc: true, nullsFirst: true }]);
    expect(parseOrder('amount.desc.nullslast,name.asc.nullsfirst', lookup)).toEqual([
      { field: 'amount', desc: true, nullsFirst: false },
      { field: 'name', desc: false, nullsFirst: true },
    ]);
  });

  test('limits and mistakes', () => {
    expect(parseOrder('amount,name,paid', lookup)).toHaveLength(3);
    expect(errorOf(() => parseOrder('amount,name,paid,created_at', lookup))).toBe('order: at most 3 sort keys');
    expect(errorOf(() => parseOrder('tags', lookup))).toBe('order: cannot sort by "tags"');
    expect(errorOf(() => parseOrder('nope.asc', lookup))).toBe('order: cannot sort by "nope"');
    expect(errorOf(() => parseOrder('amount.up', lookup))).toContain('expected field[.asc|.desc][.nullsfirst|.nullslast]');
    expect(errorOf(() => parseOrder('amount.nullsfirst.asc', lookup))).toContain('expected field');
    expect(errorOf(() => parseOrder('amount,amount.desc', lookup))).toBe('order: "amount" is named twice');
    expect(errorOf(() => parseOrder('amount,', lookup))).toContain('an empty sort key');
  });
});
