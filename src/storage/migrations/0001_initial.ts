/** The first schema: teams, people, keys, statuses, lists and tasks. */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function initialSchema(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('teams')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('task_counter', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('team_members')
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
        .execute();
      await db.schema.createIndex('team_members_user_idx').on('team_members').columns(['user_id']).execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_user_idx').on('api_keys').columns(['user_id', 'team_id']).execute();

      await withSerialId(db.schema.createTable('task_statuses'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('color', 'text')
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_completed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sort_order', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('task_statuses_team_idx')
        .on('task_statuses')
        .columns(['team_id', 'sort_order'])
        .execute();

      await withSerialId(db.schema.createTable('task_lists'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('task_lists_team_idx').on('task_lists').columns(['team_id']).execute();

      await db.schema
        .createTable('list_members')
        .addColumn('list_id', 'integer', (c) => c.notNull().references('task_lists.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('list_members_pk', ['list_id', 'user_id'])
        .execute();
      // The access rule starts from "lists this user belongs to".
      await db.schema.createIndex('list_members_user_idx').on('list_members').columns(['user_id', 'list_id']).execute();

      await withSerialId(db.schema.createTable('tasks'), dialect)
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('title_search', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('priority', 'text')
        .addColumn('due_date', 'text')
        .addColumn('status_id', 'integer', (c) => c.notNull().references('task_statuses.id'))
        .addColumn('parent_id', 'integer', (c) => c.references('tasks.id').onDelete('set null'))
        .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addUniqueConstraint('tasks_team_number_unique', ['team_id', 'number'])
        .execute();
      await db.schema.createIndex('tasks_creator_idx').on('tasks').columns(['created_by', 'team_id']).execute();
      await db.schema.createIndex('tasks_parent_idx').on('tasks').columns(['parent_id']).execute();
      await db.schema.createIndex('tasks_status_idx').on('tasks').columns(['status_id']).execute();

      await db.schema
        .createTable('task_assignees')
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('task_assignees_pk', ['task_id', 'user_id'])
        .execute();
      await db.schema
        .createIndex('task_assignees_user_idx')
        .on('task_assignees')
        .columns(['user_id', 'task_id'])
        .execute();

      await db.schema
        .createTable('task_list_items')
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('list_id', 'integer', (c) => c.notNull().references('task_lists.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('task_list_items_pk', ['task_id', 'list_id'])
        .execute();
      await db.schema
        .createIndex('task_list_items_list_idx')
        .on('task_list_items')
        .columns(['list_id', 'task_id'])
        .execute();
    },
  };
}
