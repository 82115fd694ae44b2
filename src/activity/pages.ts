/**
 * Pages of a task's history (its activity, its comments): a `limit` and a cursor, the id of an
 * entry or comment, read as a bound on ids so that a page is one range of the (task_id, id) index.
 */
import { DEFAULT_PAGE_LIMIT, MAX_ID } from '../contract/index.js';

/**
 * The cursor as a bound on ids: for `before`, the highest id the page may hold; for `after`, the
 * highest it may not. A cursor beyond every id there can be stands after all of them.
 */
export function cursorBound(cursor: string | undefined, side: 'before' | 'after'): number {
  if (cursor === undefined) return side === 'before' ? MAX_ID : 0;
  const id = Number(cursor);
  if (side === 'before') return id > MAX_ID ? MAX_ID : id - 1;
  return Math.min(id, MAX_ID);
}

/** `limit` as given (its schema allows 1 to 200), or the default page. */
export const pageLimit = (limit: string | undefined): number =>
  limit === undefined ? DEFAULT_PAGE_LIMIT : Number(limit);
