/**
 * Full-text search across task titles, descriptions and comments (issue 29; GET /v1/search,
 * storage/full-text.ts). Both engines keep their index themselves, inside the writing
 * transaction, so a write costs no extra round trip and a rollback undoes the index with the row.
 *
 * SQLite: two FTS5 tables with external content (they store only the index; the text stays in
 * tasks and task_comments), kept in step by triggers, as the titles' trigram index (0011) is.
 * The unicode61 tokenizer folds case but keeps diacritics (remove_diacritics 0), as PostgreSQL's
 * `simple` configuration does, so both stores find the same words. `rebuild` indexes the rows
 * already there.
 * PostgreSQL: GIN indexes on the expressions to_tsvector('simple', …), which the search's own
 * WHERE uses. Expressions rather than generated tsvector columns: a column would be one more
 * column of tasks and task_comments that SQLite does not have, which `migrate-data` copies table
 * by table with the same columns on both sides. `simple`: tasklane knows no team's language, so
 * no stemming (the issue's rule: `simple` where the language is unknown).
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';

export function fullTextSearch(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`create index tasks_title_tsv_idx on tasks using gin (to_tsvector('simple', title))`.execute(db);
        await sql`create index tasks_description_tsv_idx on tasks
          using gin (to_tsvector('simple', coalesce(description, '')))`.execute(db);
        await sql`create index task_comments_body_tsv_idx on task_comments
          using gin (to_tsvector('simple', body))`.execute(db);
        // The planner picks between walking newest first (good for a common word) and reading the
        // index's matches (good for a rare one) by how common it thinks each word is: with the
        // default 100-entry statistics every word outside the most common is thought common
        // enough to walk for, and a rare word's walk read every task of the team (BENCHMARKS.md).
        for (const index of ['tasks_title_tsv_idx', 'tasks_description_tsv_idx', 'task_comments_body_tsv_idx']) {
          await sql`alter index ${sql.ref(index)} alter column 1 set statistics 1000`.execute(db);
        }
        return;
      }
      // columnsize=0: no per-row token counts, which only ranking by bm25 (unused) needs.
      const options = sql.raw(`columnsize = 0, tokenize = 'unicode61 remove_diacritics 0'`);
      await sql`create virtual table tasks_fts using fts5(
        title, description, content = 'tasks', content_rowid = 'id', ${options})`.execute(db);
      await sql`create trigger tasks_fts_insert after insert on tasks begin
        insert into tasks_fts (rowid, title, description) values (new.id, new.title, new.description);
      end`.execute(db);
      // An external-content index forgets a row by its old text, which the trigger still has.
      await sql`create trigger tasks_fts_delete after delete on tasks begin
        insert into tasks_fts (tasks_fts, rowid, title, description)
          values ('delete', old.id, old.title, old.description);
      end`.execute(db);
      await sql`create trigger tasks_fts_update after update of title, description on tasks begin
        insert into tasks_fts (tasks_fts, rowid, title, description)
          values ('delete', old.id, old.title, old.description);
        insert into tasks_fts (rowid, title, description) values (new.id, new.title, new.description);
      end`.execute(db);
      await sql`insert into tasks_fts (tasks_fts) values ('rebuild')`.execute(db);

      await sql`create virtual table task_comments_fts using fts5(
        body, content = 'task_comments', content_rowid = 'id', ${options})`.execute(db);
      await sql`create trigger task_comments_fts_insert after insert on task_comments begin
        insert into task_comments_fts (rowid, body) values (new.id, new.body);
      end`.execute(db);
      await sql`create trigger task_comments_fts_delete after delete on task_comments begin
        insert into task_comments_fts (task_comments_fts, rowid, body) values ('delete', old.id, old.body);
      end`.execute(db);
      await sql`create trigger task_comments_fts_update after update of body on task_comments begin
        insert into task_comments_fts (task_comments_fts, rowid, body) values ('delete', old.id, old.body);
        insert into task_comments_fts (rowid, body) values (new.id, new.body);
      end`.execute(db);
      await sql`insert into task_comments_fts (task_comments_fts) values ('rebuild')`.execute(db);
    },
  };
}
