/**
 * Issue 29, part C: saved views, and an index for each order GET /v1/tasks can sort by. Each
 * index leads with team_id and ends with id, the tie-breaker, so a sorted page (and the next one,
 * from its cursor) is a range of one index read in order. Numbered 0019: 0017 and 0018 belong to
 * labels and search, built beside it.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function viewsAndTaskSorts(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // number needs none: tasks_team_number_unique is (team_id, number), and numbers do not tie.
      for (const [name, column] of [
        ['tasks_team_due_date_idx', 'due_date'],
        // Sorting by priority reads one priority at a time, by id (tasks/task-query.ts).
        ['tasks_team_priority_idx', 'priority'],
        ['tasks_team_updated_at_idx', 'updated_at'],
        ['tasks_team_created_at_idx', 'created_at'],
      ] as const) {
        await db.schema.createIndex(name).on('tasks').columns(['team_id', column, 'id']).execute();
      }
      const title = dialect === 'postgres' ? sql`title_search collate "C"` : sql`title_search`;
      await sql`create index tasks_team_title_idx on tasks (team_id, ${title}, id)`.execute(db);

      await withSerialId(db.schema.createTable('views'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        // null: the team's, once its author left (a shared view stays; a private one goes with them).
        .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('name', 'text', (c) => c.notNull())
        // The name lower-cased: an author's view names are unique ignoring case.
        .addColumn('name_key', 'text', (c) => c.notNull())
        // GET /v1/tasks's filters as JSON (contract TaskFilters).
        .addColumn('filters', 'text', (c) => c.notNull())
        .addColumn('sort', 'text')
        .addColumn('layout', 'text', (c) => c.notNull())
        .addColumn('shared_with_team', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('views_author_name_unique')
        .on('views')
        .columns(['team_id', 'author_id', 'name_key'])
        .unique()
        .execute();
    },
  };
}
