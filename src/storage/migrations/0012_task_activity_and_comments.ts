/**
 * A task's history and its discussion (issue 16): `task_activity` holds one entry per committed
 * change of a task (written in that change's transaction), `task_comments` the comments on it.
 * Both go with their task (ON DELETE CASCADE): the published interface makes deletion permanent.
 *
 * Both are read one task at a time, by id from a cursor: (task_id, id) serves the newest-first
 * timeline with `before` and the oldest-first comments with `after` alike, and a page of 50
 * costs the same for a task with ten entries or ten thousand.
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function taskActivityAndComments(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('task_activity'), dialect)
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        // Null: an operator's change (`tasklane admin`), which no user of the team made.
        .addColumn('actor_id', 'text', (c) => c.references('users.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        // JSON: {"<field>": {"from", "to"}}, with people and lists by id (resolved for each reader).
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('task_activity_task_idx').on('task_activity').columns(['task_id', 'id']).execute();

      await withSerialId(db.schema.createTable('task_comments'), dialect)
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('author_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        // Bumped on every edit; the basis of the comment's ETag.
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('task_comments_task_idx').on('task_comments').columns(['task_id', 'id']).execute();
    },
  };
}
