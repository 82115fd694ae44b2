/**
 * Notifications (issue 30, the inbox): `notifications` holds one row per person notified of a
 * change, written in the change's transaction (changes/notifications.ts); `task_followers` who
 * follows a task beyond its creator and assignees (who follow it without a row), and who stopped
 * following it (`following` = 0); `mentions` the members an `@` in a comment or a description
 * named, by user id, so a rename keeps the mention.
 *
 * Everything goes with its task (ON DELETE CASCADE), and a comment's mentions with the comment.
 *
 * An inbox page is one range of an index whatever the inbox holds: (user_id, team_id, id) for the
 * inbox (archived rows are left in it and skipped: archiving is rare next to reading), and a
 * partial index of the unread, unarchived rows for `unread=true`, so that a person with 100,000
 * read notifications reads their 3 unread ones without walking past the others.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function notifications(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await withSerialId(db.schema.createTable('notifications'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        // Null: an operator's change (`tasklane admin`), which no user of the team made.
        .addColumn('actor_id', 'text', (c) => c.references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('read_at', 'text')
        .addColumn('archived_at', 'text')
        .execute();
      await db.schema
        .createIndex('notifications_inbox_idx')
        .on('notifications')
        .columns(['user_id', 'team_id', 'id'])
        .execute();
      await db.schema
        .createIndex('notifications_unread_idx')
        .on('notifications')
        .columns(['user_id', 'team_id', 'id'])
        .where(sql.ref('read_at'), 'is', null)
        .where(sql.ref('archived_at'), 'is', null)
        .execute();
      // A task's deletion deletes its notifications: found by task, not by a read of them all.
      await db.schema.createIndex('notifications_task_idx').on('notifications').column('task_id').execute();

      await db.schema
        .createTable('task_followers')
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        // 1: follows; 0: stopped following (a creator or assignee who unfollowed).
        .addColumn('following', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('task_followers_pk', ['task_id', 'user_id'])
        .execute();

      await withSerialId(db.schema.createTable('mentions'), dialect)
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        // Null: the task's description.
        .addColumn('comment_id', 'integer', (c) => c.references('task_comments.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mentions_task_idx').on('mentions').columns(['task_id', 'comment_id']).execute();
      await db.schema.createIndex('mentions_comment_idx').on('mentions').column('comment_id').execute();
    },
  };
}
