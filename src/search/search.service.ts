/**
 * GET /v1/search: `q` read as words (never as the engines' query syntax), a page of the hits the
 * caller may read, and the cursor to the next (docs/api.md, "Search").
 */
import type { Caller } from '../caller.js';
import {
  MAX_ID,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_WORDS,
  type SearchField,
  type SearchPage,
  type SearchQuery,
} from '../contract/index.js';
import { invalidInput } from '../http/errors.js';
import type { Store } from '../storage/database.js';
import type { SearchWords } from '../storage/full-text.js';
import { findHits, type SearchPosition } from './search.repository.js';

/** A word: a run of letters, digits and combining marks; everything else separates words. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** A last word shorter than this is matched whole: as a prefix it would match most of the index. */
const MIN_PREFIX = 3;

/** The words of `q`, or a 400 that says why there are none to search for. */
export function parseWords(q: string): SearchWords {
  const words = q.match(WORD) ?? [];
  if (words.length === 0) throw invalidInput('q must contain at least one letter or digit.');
  if (words.length > MAX_SEARCH_WORDS) throw invalidInput(`q must hold at most ${MAX_SEARCH_WORDS} words.`);
  // A last word that q ends with may still be being typed; one followed by a space or a quote
  // (`invoice `, `"invoice"`) is whole. A whole word reads only as far as a page, where a prefix
  // reads every match of its words (BENCHMARKS.md, "Issue 29: search").
  const prefix = [...words.at(-1)!].length >= MIN_PREFIX && /[\p{L}\p{N}\p{M}]$/u.test(q);
  return { words, prefix };
}

/**
 * Where a cursor points. Its id may be any 10-digit number; one past the largest id an integer
 * column holds reads as MAX_ID (PostgreSQL would refuse the number itself as an integer: the
 * fuzzer found that 500), so before every row but one no serial id ever reaches.
 */
const positionOf = (cursor: string): SearchPosition => {
  const [field, id] = cursor.split('.');
  return { field: field as SearchField, id: Math.min(Number(id), MAX_ID) };
};

export async function search(store: Store, caller: Caller, query: SearchQuery): Promise<SearchPage> {
  const words = parseWords(query.q);
  const limit = query.limit === undefined ? DEFAULT_SEARCH_LIMIT : Number(query.limit);
  const after = query.cursor === undefined ? undefined : positionOf(query.cursor);
  // One more than the page, to know whether any remain.
  const hits = await findHits(store.db, caller, words, after, limit + 1);
  const page = hits.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((hit) => ({
      task: { id: hit.taskId, number: hit.number, title: hit.title },
      field: hit.field,
      ...(hit.commentId !== undefined && { commentId: hit.commentId }),
      snippet: hit.snippet,
    })),
    nextCursor: hits.length > limit && last ? `${last.field}.${last.id}` : null,
  };
}
