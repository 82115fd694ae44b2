/**
 * A copy of each task's priority and completion on its list items, indexed after (list_id, task_id).
 * "This list's open medium tasks" then walks the list's index entries alone, newest first, and
 * reads only the matching tasks: its cost follows the list and the rows returned, never the team.
 * Kept in step by the task writes (tasks.repository.ts); a status never changes its isCompleted.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export function listItemFilters(): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('task_list_items').addColumn('priority', 'text').execute();
      await db.schema
        .alterTable('task_list_items')
        .addColumn('is_completed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`
        update task_list_items set
          priority = (select t.priority from tasks t where t.id = task_list_items.task_id),
          is_completed = (select s.is_completed from tasks t join task_statuses s on s.id = t.status_id
                          where t.id = task_list_items.task_id)
      `.execute(db);
      await db.schema.dropIndex('task_list_items_list_idx').execute();
      await db.schema
        .createIndex('task_list_items_list_idx')
        .on('task_list_items')
        .columns(['list_id', 'task_id', 'priority', 'is_completed'])
        .execute();
    },
  };
}
