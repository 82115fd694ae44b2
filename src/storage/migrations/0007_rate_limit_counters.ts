/**
 * Rate-limit counters shared by every process on a PostgreSQL database (storage/rate-limit-counters.ts).
 * UNLOGGED: no write-ahead log for a row bumped on every request; a crash empties the table,
 * which forgives at most one window of requests. One row per bucket that was active lately (pruning
 * scans the table once a minute, so it needs no index). SQLite serves one process, which counts in memory.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

export function rateLimitCounters(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`
        create unlogged table rate_limit_counters (
          bucket text primary key,
          window_start timestamptz not null,
          hits integer not null
        )
      `.execute(db);
    },
  };
}
