/**
 * Issue 30, email: each person's notification preferences, the durable queue that notification
 * email is sent from, and the tokens of its one-click unsubscribe links. Numbered 0022: 0021
 * belongs to the notifications themselves, built beside it.
 */
import type { Kysely, Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function mail(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only the choices a person made: a kind without a row has its default (mail/preferences.ts).
      await db.schema
        .createTable('notification_preferences')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('delivery', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_preferences_pkey', ['user_id', 'kind'])
        .execute();

      // One row per notification to be mailed; a person's due rows leave together as one mail.
      await withSerialId(db.schema.createTable('mail_queue'), dialect)
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        // A deleted task takes its pending mail with it: nobody is told about what they cannot read.
        .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
        .addColumn('actor_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        // pending | sent | failed | dropped (access or preference gone by the time it was due)
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('first_attempt_at', 'text')
        // The mail's Message-ID, kept from its first claim: a mail sent again after a crash is the same mail.
        .addColumn('message_id', 'text')
        .addColumn('last_error', 'text')
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema
        .createIndex('mail_queue_due_idx')
        .on('mail_queue')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema.createIndex('mail_queue_user_idx').on('mail_queue').columns(['user_id', 'status']).execute();

      // Whether any process sends mail now, and its batch window: the one row (id 1) that sending
      // processes refresh (mail/worker.ts). A change queues mail only while it is current, so a
      // server without SMTP_URL queues none, and nothing piles up unsent.
      await db.schema
        .createTable('mail_senders')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('sending_until', 'text', (c) => c.notNull())
        .addColumn('batch_ms', 'integer', (c) => c.notNull())
        .execute();

      // An unsubscribe link's token, hashed (secret-hash.ts); one per mail sent.
      await db.schema
        .createTable('mail_unsubscribe_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
