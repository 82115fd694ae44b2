/** Full-text search across a team's tasks and comments: GET /v1/search (issue 29). */
import { Type, type Static } from 'typebox';
import { StringEnum } from './common.js';

export const SEARCH_FIELDS = ['title', 'description', 'comment'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Longest `q`, in characters, and most words in it: room for any real search, bounded work. */
export const MAX_SEARCH_LENGTH = 200;
export const MAX_SEARCH_WORDS = 16;
/** Most hits one page holds, and how many by default. */
export const MAX_SEARCH_LIMIT = 50;
export const DEFAULT_SEARCH_LIMIT = 20;

/** What wraps each matched word in a snippet (docs/api.md, "Search"): STX and ETX. */
export const SNIPPET_MARK_START = '\u0002';
export const SNIPPET_MARK_END = '\u0003';

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: MAX_SEARCH_LENGTH,
      errorMessage: `q must be a string of 1 to ${MAX_SEARCH_LENGTH} characters.`,
      description:
        `The words to find (at most ${MAX_SEARCH_WORDS}): a word is a run of letters and digits, anything else ` +
        'separates words and is never syntax. Every word must match; the last also matches as the start of a ' +
        'word when it has 3 characters or more and ends q (not followed by a space or a quote).',
    }),
    limit: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9]|[1-4][0-9]|50)$',
        errorMessage: `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`,
        description: `The most hits returned, a whole number from 1 to ${MAX_SEARCH_LIMIT}; default ${DEFAULT_SEARCH_LIMIT}.`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^(?:title|description|comment)\\.[1-9][0-9]{0,9}$',
        errorMessage: 'cursor must be the nextCursor of an earlier page of the same search.',
        examples: ['title.1'],
        description: 'The nextCursor of the page before: the hits after it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchHit = Type.Object({
  task: Type.Object({ id: Type.Number(), number: Type.Number(), title: Type.String() }),
  field: StringEnum(SEARCH_FIELDS, { description: 'Where the words matched.' }),
  commentId: Type.Optional(Type.Number({ description: 'The comment that matched, when field is comment.' })),
  snippet: Type.String({
    description:
      'The matched text (a whole title; for a description or comment a few words around the matches), each ' +
      'matched word between U+0002 and U+0003. Plain text, not HTML.',
  }),
});
export type SearchHit = Static<typeof SearchHit>;

export const SearchPage = Type.Object({
  items: Type.Array(SearchHit, {
    description:
      'Titles first, then descriptions, then comments, each newest first: a task appears once per field that ' +
      'matches, and once per matching comment.',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null when no hit remains.',
  }),
});
export type SearchPage = Static<typeof SearchPage>;
