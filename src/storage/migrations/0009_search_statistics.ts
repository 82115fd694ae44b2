/**
 * PostgreSQL: finer statistics for tasks.title_search, so the planner can estimate how many
 * titles contain a searched word. With the default sample, a word in 10% of titles was
 * estimated at 0.01% on a million-task team (titles repeat, so the histogram has too few
 * entries and PostgreSQL falls back to a fixed guess); believing that `?assigneeId=…&query=…`
 * would never fill its page, the planner read and sorted all 30,000 of the assignee's tasks
 * (220 ms) instead of walking them newest first and stopping at the limit (4 ms; BENCHMARKS.md).
 * SQLite plans without statistics; its walk is pinned by the query's CROSS JOIN.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

export function searchStatistics(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table tasks alter column title_search set statistics 1000`.execute(db);
    },
  };
}
