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
import { asksIndexFirst, fewMatches, fieldMatches, type FieldMatches, type SearchWords } from '../storage/full-text.js';
import type { Db } from '../storage/schema.js';
import { canAccessWithin, listLimitOf } from '../tasks/access.js';

/** How many of the newest rows a search looks at first, where the engine may walk too far. */
const WINDOW_ROWS = 2_000;
/**
 * Then up to this many matches of a field, in every team, are read from the index and the page
 * made of them; a word with more is common, and its page is found by walking newest first.
 */
const FEW_MATCHES = 2_000;
/**
 * As many, for a word the statistics call rare (asksIndexFirst): it is asked before any walk, and
 * a word rarer than the statistics can see may still have thousands of matches (a number typed as
 * a prefix, `123`, had 2,222 at 1M tasks), whose read from the index costs tens of milliseconds
 * where the walk past them, when none is among the newest rows, took seconds.
 */
const RARE_MATCHES = 20_000;

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

interface HitRow {
  id: number;
  task_id: number;
  number: number;
  title: string;
  snippet: string;
}

/**
 * A field's next `wanted` hits before `before`. Where the engine may misjudge how common a word
 * is (PostgreSQL, storage/full-text.ts), in up to three steps, each bounded: the newest rows of a
 * window (enough for a common word), else the word's few matches from the index (a rare word, or
 * none), else, for a word common elsewhere but sparse here, the walk newest first. A word the
 * engine's statistics call too rare for the window to hold `wanted` hits asks the index first
 * (asksIndexFirst): the window would only cost it its rows before the index answers. The steps
 * differ in cost, never in the answer: the window's hits, when it holds `wanted` of them, are the
 * newest; the index's are all of them.
 */
async function fieldHits(
  db: Db,
  caller: Caller,
  field: SearchField,
  search: SearchWords,
  before: number | undefined,
  wanted: number,
): Promise<HitRow[]> {
  const read = (matches: FieldMatches, only?: number[]) => {
    let query = matches.query
      .where('t.team_id', '=', caller.teamId)
      .where((eb: any) =>
        canAccessWithin(db, eb, caller.userId, listLimitOf(db, caller), (subquery) => probedPerRow(db, subquery)),
      )
      .select([sql.ref<number>(matches.order).as('id'), 't.id as task_id', 't.number', 't.title'])
      .select(matches.snippet.as('snippet'))
      .orderBy(sql.ref(matches.order), 'desc')
      .limit(wanted);
    if (before !== undefined) query = query.where(sql.ref(matches.order), '<', before);
    if (only) query = query.where(inList(db, matches.order, listParam(db, only)));
    return query.execute() as Promise<HitRow[]>;
  };
  const fromFew = (few: number[] | null) =>
    few?.length === 0 ? [] : read(fieldMatches(db, field, search), few ?? undefined);
  const indexFirst = await asksIndexFirst(db, field, search, { rows: WINDOW_ROWS, wanted });
  const few = indexFirst ? await fewMatches(db, field, search, RARE_MATCHES) : undefined;
  if (few) return fromFew(few);
  const windowed = fieldMatches(db, field, search, { teamId: caller.teamId, before, rows: WINDOW_ROWS });
  const newest = await read(windowed);
  if (!windowed.windowed || newest.length === wanted) return newest;
  // (asked already, and more than FEW_MATCHES: straight to the walk)
  return fromFew(few === undefined ? await fewMatches(db, field, search, FEW_MATCHES) : few);
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
    const before = after?.field === field ? after.id : undefined;
    const rows = await fieldHits(db, caller, field, search, before, count - hits.length);
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
