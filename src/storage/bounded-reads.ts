/**
 * Reads whose answer must stay small however large the stored rows are (docs/api.md, "Page
 * sizes"): the database hands back a prefix and the length of a long text instead of the text,
 * and stops a page once its rows' texts add up to a budget of bytes, so the server never holds
 * more than about one page's worth. The engines spell these differently; callers do not see how.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { isPostgres } from './dialect.js';

/** The first `length` characters (Unicode code points) of a text, or null for null. */
export function textPrefix(
  db: Kysely<any>,
  text: Expression<string | null>,
  length: number,
): RawBuilder<string | null> {
  return isPostgres(db) ? sql`left(${text}, ${sql.lit(length)})` : sql`substr(${text}, 1, ${sql.lit(length)})`;
}

/** A text's length in characters (Unicode code points), as the API counts them; null for null. */
export function textLength(db: Kysely<any>, text: Expression<string | null>): RawBuilder<number | null> {
  return isPostgres(db) ? sql`char_length(${text})` : sql`length(${text})`;
}

/** A text's size in bytes (UTF-8); null for null. */
export function textBytes(db: Kysely<any>, text: Expression<string | null>): RawBuilder<number | null> {
  return isPostgres(db) ? sql`octet_length(${text})` : sql`length(cast(${text} as blob))`;
}

/**
 * A JSON object stored as text in `column`, parsed into the engine's binary form (PostgreSQL
 * jsonb, SQLite JSONB): select it once in a subquery and read its fields from that, so that a
 * large object is parsed once per row rather than once per field read (for a page of activity
 * entries of 100,000-character descriptions, seconds on PostgreSQL).
 */
export function jsonDocument(db: Kysely<any>, column: string): RawBuilder<unknown> {
  return isPostgres(db) ? sql`(${sql.ref(column)}::jsonb)` : sql`jsonb(${sql.ref(column)})`;
}

/**
 * The text at `field.side` of a parsed JSON object (`jsonDocument`), such as
 * `{"description": {"from": "…"}}`: null when the value is JSON null, or when the field is absent.
 */
export function jsonTextAt(
  db: Kysely<any>,
  doc: string,
  field: string,
  side: 'from' | 'to',
): RawBuilder<string | null> {
  return isPostgres(db)
    ? sql`(${sql.ref(doc)} -> ${sql.lit(field)} ->> ${sql.lit(side)})`
    : sql`json_extract(${sql.ref(doc)}, ${sql.lit(`$.${field}.${side}`)})`;
}

/** Whether the parsed JSON object `doc` (`jsonDocument`) has the key `field`. */
export function jsonHas(db: Kysely<any>, doc: string, field: string): RawBuilder<boolean | number> {
  return isPostgres(db)
    ? sql`(${sql.ref(doc)} -> ${sql.lit(field)} is not null)`
    : sql`(json_type(${sql.ref(doc)}, ${sql.lit(`$.${field}`)}) is not null)`;
}

/** The parsed JSON object `doc` (`jsonDocument`) without its key `field`, as JSON text. */
export function jsonWithout(db: Kysely<any>, doc: string, field: string): RawBuilder<string> {
  return isPostgres(db)
    ? sql`((${sql.ref(doc)} - ${sql.lit(field)})::text)`
    : sql`json_remove(${sql.ref(doc)}, ${sql.lit(`$.${field}`)})`;
}

/** A row of a page read by `withinBytes`: its own columns, and how many rows the page held before the budget. */
export type Budgeted<R> = R & {
  /** The rows `page` found (at most its limit), whether or not they fit: more than returned means more remain. */
  found: number | string;
};

/**
 * The rows of `page` (a page's rows, at most its limit, selecting `id` and a `size` column: the
 * bytes their long texts take) in `id` order (`direction`), up to and including the first row
 * that takes the running total past `budget` bytes. The first row always comes, however large.
 * Each row carries `found`, the number of rows `page` itself found, so the caller knows whether
 * rows remain beyond the ones returned. The database reads the whole limited page, but only the
 * rows returned travel to the server. `order`: the page's order when it is not `id` alone (the
 * rows of several tasks, read in (task_id, id) order); the page must select those columns.
 */
export function withinBytes<R extends { id: number; size: unknown }>(
  db: Kysely<any>,
  page: SelectQueryBuilder<any, any, R>,
  direction: 'asc' | 'desc',
  budget: number,
  order: readonly string[] = ['id'],
): SelectQueryBuilder<any, any, Budgeted<R>> {
  const by = (alias: string) =>
    sql.join(order.map((column) => sql`${sql.ref(`${alias}.${column}`)} ${sql.raw(direction)}`));
  const ranked = db
    .selectFrom(page.as('p'))
    .selectAll('p')
    .select([
      sql<number>`sum(p.size) over (order by ${by('p')} rows between unbounded preceding and current row)`.as(
        'running',
      ),
      sql<number>`count(*) over ()`.as('found'),
    ]);
  return db
    .selectFrom(ranked.as('r'))
    .selectAll('r')
    .where(sql<boolean>`r.running - r.size <= ${sql.lit(budget)}`)
    .orderBy(by('r')) as unknown as SelectQueryBuilder<any, any, Budgeted<R>>;
}
