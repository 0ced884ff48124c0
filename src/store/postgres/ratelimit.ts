/**
 * Rate-limit buckets in the database, one row per key, refilled and taken from in one statement
 * (the row's lock orders the requests of one key from every node). The table is UNLOGGED: a bucket
 * is worth nothing after a crash, and its writes then cost no WAL.
 */
import type { SQL } from 'bun';
import type { RateBuckets } from '../ratelimit';

export const RATE_BUCKETS_TABLE = `
CREATE UNLOGGED TABLE rate_buckets (
  key_id text COLLATE "C" PRIMARY KEY,
  tokens float8 NOT NULL,
  updated_at timestamptz NOT NULL,
  taken boolean NOT NULL
);
`;

/** The bucket refilled since its last request, before this one takes from it. */
const REFILLED = `LEAST($3::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM (EXCLUDED.updated_at - b.updated_at))) * $2::float8)`;

export function pgRateBuckets(sql: SQL): RateBuckets {
  return {
    async take(id, perSecond, burst) {
      const [row] = await sql.unsafe(
        `INSERT INTO rate_buckets AS b (key_id, tokens, updated_at, taken)
         VALUES ($1, $3::float8 - 1, clock_timestamp(), true)
         ON CONFLICT (key_id) DO UPDATE SET
           tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
           taken = ${REFILLED} >= 1,
           updated_at = EXCLUDED.updated_at
         RETURNING tokens, taken`,
        [id, perSecond, burst],
      );
      const tokens = Number(row.tokens);
      return row.taken ? tokens : tokens - 1;
    },
  };
}
