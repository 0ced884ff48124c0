/**
 * The batch event log on PostgreSQL: events are rows of `batch_events` (migration 4), and each
 * append sends `NOTIFY rowsmith_events` with the batch id, so a follower on any node reads what is
 * new at once. The notification carries no event: payloads are limited to 8,000 bytes, and a
 * follower that missed one (a reconnect) catches up on the next, or on its poll.
 */
import type { SQL } from 'bun';
import type { BatchEvent, EventLog } from '../events';

export const EVENTS_CHANNEL = 'rowsmith_events';
/** A follower reads again this often even without a notification (one lost on a reconnect). */
const POLL_MS = 2_000;

export const BATCH_EVENTS_TABLE = `
CREATE TABLE batch_events (
  batch_id text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  event text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT statement_timestamp(),
  PRIMARY KEY (batch_id, seq)
);
CREATE INDEX batch_events_created ON batch_events (created_at);
`;

interface Follower {
  batchId: string;
  after: number;
  onEvent: (event: BatchEvent) => void;
  /** Reads in flight are chained, so events are delivered once and in order. */
  reading: Promise<void>;
}

export class PgEventLog implements EventLog {
  private readonly followers = new Set<Follower>();
  private unlisten: Promise<() => Promise<void>> | null = null;
  private poll: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly sql: SQL) {}

  async append(batchId: string, event: string, data: unknown): Promise<void> {
    // One worker holds a batch at a time; two appends racing for a seq (a lease taken over from a
    // worker that still runs) meet on the primary key, and the later one takes the next seq.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.sql.unsafe(
          `WITH added AS (
             INSERT INTO batch_events (batch_id, seq, event, data)
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3::text::jsonb FROM batch_events WHERE batch_id = $1
             RETURNING batch_id
           )
           SELECT pg_notify('${EVENTS_CHANNEL}', batch_id) FROM added`,
          [batchId, event, JSON.stringify(data ?? null)],
        );
        return;
      } catch (error) {
        if ((error as { errno?: string }).errno !== '23505' || attempt >= 20) throw error;
      }
    }
  }

  private read(follower: Follower): void {
    follower.reading = follower.reading.then(async () => {
      if (!this.followers.has(follower)) return;
      const rows = await this.sql.unsafe('SELECT seq, event, data FROM batch_events WHERE batch_id = $1 AND seq > $2 ORDER BY seq', [follower.batchId, follower.after]);
      for (const row of rows as BatchEvent[]) {
        if (!this.followers.has(follower)) return;
        follower.after = row.seq;
        follower.onEvent({ seq: row.seq, event: row.event, data: row.data });
      }
    }).catch(() => {
      // The database is out of reach: the next notification or poll reads again.
    });
  }

  private async listening(): Promise<void> {
    this.unlisten ??= this.sql.listen(EVENTS_CHANNEL, (batchId: string) => {
      for (const follower of this.followers) if (follower.batchId === batchId) this.read(follower);
    }).then((subscription) => () => subscription.unlisten());
    await this.unlisten;
    this.poll ??= setInterval(() => {
      for (const follower of this.followers) this.read(follower);
    }, POLL_MS);
  }

  async follow(batchId: string, after: number, onEvent: (event: BatchEvent) => void): Promise<() => Promise<void>> {
    const follower: Follower = { batchId, after, onEvent, reading: Promise.resolve() };
    this.followers.add(follower);
    // Listening first, then reading what is there: an event appended in between is read by both
    // paths, and `after` makes the second read skip it.
    await this.listening();
    this.read(follower);
    await follower.reading;
    return async () => {
      this.followers.delete(follower);
    };
  }

  async purge(olderThanMs: number): Promise<number> {
    const rows = await this.sql.unsafe(
      `DELETE FROM batch_events e USING (
         SELECT batch_id FROM batch_events GROUP BY batch_id HAVING MAX(created_at) < statement_timestamp() - $1::float8 * interval '1 millisecond'
       ) old WHERE e.batch_id = old.batch_id RETURNING e.batch_id`,
      [olderThanMs],
    );
    return new Set((rows as Array<{ batch_id: string }>).map((r) => r.batch_id)).size;
  }

  async close(): Promise<void> {
    this.followers.clear();
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    const unlisten = this.unlisten;
    this.unlisten = null;
    if (unlisten) await (await unlisten)().catch(() => {});
  }
}
