/**
 * The trigram index of task titles (migration 0011), as the task list's planner sees it.
 * A trigram index finds text of 3 or more characters; shorter searches keep the LIKE walk.
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { isPostgres } from './dialect.js';

/** Fewest characters (code points) a trigram index can look up. */
const TRIGRAM = 3;

/**
 * SQLite: the tasks whose title_search contains `text` (already lower case), as a walk for
 * GET /v1/tasks: the FTS5 table `d` joined to its tasks `t`, to be ordered by `d.rowid`
 * (FTS5 reads its matches in rowid order, newest first, and stops at the query's limit). The
 * match finds every row the LIKE would, and maybe more: the caller still applies the LIKE.
 * Undefined when the index cannot help: on PostgreSQL, whose planner takes the GIN index for
 * the LIKE itself when it is cheaper, and for text shorter than a trigram.
 */
export function titleSearchWalk(db: Kysely<any>, text: string): SelectQueryBuilder<any, any, any> | undefined {
  if (isPostgres(db) || [...text].length < TRIGRAM) return undefined;
  // One FTS5 phrase: consecutive trigrams, so a substring; `"` is doubled inside it.
  const phrase = `"${text.replace(/"/g, '""')}"`;
  return db
    .selectFrom('tasks_title_fts as d')
    .crossJoin('tasks as t')
    .whereRef('t.id', '=', 'd.rowid')
    .where(sql<boolean>`d.tasks_title_fts match ${phrase}`);
}
