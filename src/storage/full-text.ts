/**
 * Full-text search (migration 0018) as GET /v1/search sees it: one field's matches as a walk,
 * newest first, with a snippet. SQLite matches with FTS5, PostgreSQL with tsvector and GIN; both
 * fold case, keep diacritics and do not stem, so both stores find the same words.
 *
 * User input never reaches either engine's query syntax as syntax: the service hands over only
 * words (runs of letters, digits and marks), and each is quoted here as one term.
 */
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import {
  SNIPPET_MARK_END as MARK_END,
  SNIPPET_MARK_START as MARK_START,
  type SearchField,
} from '../contract/search.js';
import { isPostgres } from './dialect.js';

/** Words of a snippet of a description or a comment, around its matches. */
const SNIPPET_WORDS = 16;

/**
 * The searched words: every one must match (AND); the last also as a prefix when `prefix`.
 * Each is a run of letters, digits and marks, which the caller guarantees.
 */
export interface SearchWords {
  words: readonly string[];
  prefix: boolean;
}

/**
 * A field's matches: `query` reads the matching rows with the task as `t` (and, for comments,
 * the comment as `c`), to be ordered by `order` descending (newest first); `id` is the row's
 * position in that order (task id, or comment id), `snippet` the field's text with each match
 * marked. Filters on the team and access are the caller's.
 */
export interface FieldMatches {
  query: SelectQueryBuilder<any, any, any>;
  order: string;
  /** What to ORDER BY (descending): `order`, or an expression of it that no index can serve. */
  orderKey: RawBuilder<unknown>;
  snippet: RawBuilder<string>;
}

export async function fieldMatches(db: Kysely<any>, field: SearchField, search: SearchWords): Promise<FieldMatches> {
  return isPostgres(db) ? postgresMatches(db, field, search) : sqliteMatches(db, field, search);
}

/**
 * Below this many matches in the whole index, PostgreSQL reads the matches and sorts them; from
 * it on, it walks newest first and stops at the page.
 */
const FEW_MATCHES = 2_000;

/**
 * FTS5: each word one quoted string ("" doubles a quote, though words hold none), the last
 * followed by `*` as a prefix; a column filter for a task's field.
 */
function sqliteMatches(db: Kysely<any>, field: SearchField, { words, prefix }: SearchWords): FieldMatches {
  const terms = words
    .map((word, i) => `"${word.replace(/"/g, '""')}"${prefix && i === words.length - 1 ? '*' : ''}`)
    .join(' ');
  const marks = sql`${MARK_START}, ${MARK_END}`;
  if (field === 'comment') {
    return {
      // CROSS JOIN pins the walk to start from the index, newest comment first, and stop at the limit.
      query: db
        .selectFrom('task_comments_fts as d')
        .crossJoin('task_comments as c')
        .crossJoin('tasks as t')
        .whereRef('c.id', '=', 'd.rowid')
        .whereRef('t.id', '=', 'c.task_id')
        .where(sql<boolean>`d.task_comments_fts match ${terms}`),
      order: 'd.rowid',
      orderKey: sql.ref('d.rowid'),
      snippet: sql<string>`snippet(d.task_comments_fts, 0, ${marks}, '…', ${SNIPPET_WORDS})`,
    };
  }
  return {
    query: db
      .selectFrom('tasks_fts as d')
      .crossJoin('tasks as t')
      .whereRef('t.id', '=', 'd.rowid')
      .where(sql<boolean>`d.tasks_fts match ${`${field} : (${terms})`}`),
    order: 'd.rowid',
    orderKey: sql.ref('d.rowid'),
    snippet:
      field === 'title'
        ? sql<string>`highlight(d.tasks_fts, 0, ${marks})`
        : sql<string>`snippet(d.tasks_fts, 1, ${marks}, '…', ${SNIPPET_WORDS})`,
  };
}

/**
 * tsquery: each word one quoted lexeme ('' doubles a quote, though words hold none), ANDed, the
 * last with `:*` as a prefix. The expressions are the indexes' own (migration 0018), so the
 * planner can use them.
 *
 * The planner chooses between walking newest first (tasks' or comments' id order, testing each
 * row) and reading the GIN index's matches, by how common it thinks the words are; for a rare
 * word it walked every task of a 1M-task team (BENCHMARKS.md, "Issue 29: search"). So one
 * statement first counts the matches, up to FEW_MATCHES, from the index; when there are fewer,
 * the order is made one no index serves (`id + 0`), and it reads those matches and sorts them.
 */
async function postgresMatches(
  db: Kysely<any>,
  field: SearchField,
  { words, prefix }: SearchWords,
): Promise<FieldMatches> {
  const text = words
    .map((word, i) => `'${word.replace(/'/g, "''")}'${prefix && i === words.length - 1 ? ':*' : ''}`)
    .join(' & ');
  const query = sql`to_tsquery('simple', ${text})`;
  const marks = `StartSel=${MARK_START}, StopSel=${MARK_END}`;
  const headline = (column: string, options: string) =>
    sql<string>`ts_headline('simple', ${sql.ref(column)}, ${query}, ${`${options}, ${marks}`})`;
  const fragment = `MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS / 2}`;
  const [table, order, indexed] =
    field === 'comment'
      ? (['task_comments as c', 'c.id', sql`c.body`] as const)
      : (['tasks as t', 't.id', field === 'title' ? sql`t.title` : sql`coalesce(t.description, '')`] as const);
  const matching = sql<boolean>`to_tsvector('simple', ${indexed}) @@ ${query}`;
  const { n } = await db
    .selectFrom(db.selectFrom(table).select(sql.lit(1).as('one')).where(matching).limit(FEW_MATCHES).as('m'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const orderKey = Number(n) < FEW_MATCHES ? sql`${sql.ref(order)} + 0` : sql.ref(order);
  if (field === 'comment') {
    return {
      query: db.selectFrom('task_comments as c').innerJoin('tasks as t', 't.id', 'c.task_id').where(matching),
      order,
      orderKey,
      snippet: headline('c.body', fragment),
    };
  }
  return {
    query: db.selectFrom('tasks as t').where(matching),
    order,
    orderKey,
    snippet: field === 'title' ? headline('t.title', 'HighlightAll=true') : headline('t.description', fragment),
  };
}
