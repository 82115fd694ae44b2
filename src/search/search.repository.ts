/**
 * A page of GET /v1/search: each field's matches in turn (titles, descriptions, comments), each
 * walked newest first through the engine's full-text index (storage/full-text.ts) and stopped at
 * the rows still wanted. The team and the task-access rule are checked per row on the walk, as in
 * GET /v1/tasks, so a task the caller may not read (or a comment on one) is never read further:
 * no snippet is made of it, nothing counts it.
 */
import { sql } from 'kysely';
import type { Caller } from '../caller.js';
import { SEARCH_FIELDS, type SearchField } from '../contract/search.js';
import { inList, listParam, probedPerRow } from '../storage/dialect.js';
import { fewMatches, fieldMatches, type SearchWords } from '../storage/full-text.js';
import type { Db } from '../storage/schema.js';
import { canAccess } from '../tasks/access.js';

/**
 * Up to this many matches of a field, in every team, are read from the index first and the page
 * made of them; a word with more is common, and its page is found by walking newest first.
 */
const FEW_MATCHES = 2_000;

/** A place in the results: a field and, within it, the position (task or comment id) of the last hit. */
export interface SearchPosition {
  field: SearchField;
  id: number;
}

export interface SearchRecord extends SearchPosition {
  taskId: number;
  number: number;
  title: string;
  /** The comment's id, for a comment hit (= id). */
  commentId?: number;
  snippet: string;
}

/** Up to `count` hits after `after` (from the first when undefined), in the results' order. */
export async function findHits(
  db: Db,
  caller: Caller,
  search: SearchWords,
  after: SearchPosition | undefined,
  count: number,
): Promise<SearchRecord[]> {
  const hits: SearchRecord[] = [];
  const fields = SEARCH_FIELDS.slice(after ? SEARCH_FIELDS.indexOf(after.field) : 0);
  for (const field of fields) {
    if (hits.length === count) break;
    // Where the engine may misjudge a rare word (PostgreSQL), its few matches first (full-text.ts).
    const few = await fewMatches(db, field, search, FEW_MATCHES);
    if (few?.length === 0) continue;
    const matches = fieldMatches(db, field, search);
    let query = matches.query
      .where('t.team_id', '=', caller.teamId)
      .where((eb: any) => canAccess(eb, caller.userId, (subquery) => probedPerRow(db, subquery)))
      .select([sql.ref<number>(matches.order).as('id'), 't.id as task_id', 't.number', 't.title'])
      .select(matches.snippet.as('snippet'))
      .orderBy(sql.ref(matches.order), 'desc')
      .limit(count - hits.length);
    if (after?.field === field) query = query.where(sql.ref(matches.order), '<', after.id);
    if (few) query = query.where(inList(db, matches.order, listParam(db, few)));
    const rows = await query.execute();
    for (const row of rows) {
      hits.push({
        field,
        id: row.id,
        taskId: row.task_id,
        number: row.number,
        title: row.title,
        ...(field === 'comment' && { commentId: row.id }),
        snippet: row.snippet,
      });
    }
  }
  return hits;
}
