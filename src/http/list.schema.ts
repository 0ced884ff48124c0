/** The query parameters every list takes, and the field shapes every resource shares, defined once. */
import type { SchemaOptions, TLiteral, TUnion } from '@sinclair/typebox';
import { t } from 'elysia';

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** One of a list of values from src/domain: a union of literals, as the reference OpenAPI gives enumerations. */
export function oneOf<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnion<Literals<T>> {
  // Typed by hand: TypeBox derives a union's static type from a tuple, and `map` gives an array.
  return t.Union(values.map((value) => t.Literal(value)), options) as TUnion<Literals<T>>;
}

/** Milliseconds since the epoch. */
export const Timestamp = t.Integer({ minimum: 0 });
/** A prefixed resource id. */
export const Id = t.String({ minLength: 1, maxLength: 48 });

export const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100.' })),
  page: t.Optional(t.Integer({ minimum: 1, description: '1-based page for offset paging; ignored when cursor is sent.' })),
  cursor: t.Optional(t.String({ description: 'nextCursor of the previous page, with the same order, filter and q.' })),
  order: t.Optional(t.String({ maxLength: 256, description: 'Up to 3 keys: field[.asc|.desc][.nullsfirst|.nullslast], comma-separated.' })),
  filter: t.Optional(t.String({ maxLength: 8192, description: 'PostgREST-style: field.op.value, `,` as AND, or(...) and and(...).' })),
  q: t.Optional(t.String({ maxLength: 200, description: 'Free-text search; every whitespace-separated term must match.' })),
  select: t.Optional(t.String({ maxLength: 500, description: 'Comma-separated fields to return.' })),
});

export const ListEnvelopeFields = {
  count: t.Integer({ minimum: 0 }),
  hasMore: t.Boolean(),
  limit: t.Integer({ minimum: 1 }),
  nextCursor: t.Nullable(t.String()),
  page: t.Nullable(t.Integer({ minimum: 1 })),
};
