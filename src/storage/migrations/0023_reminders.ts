/**
 * Issue 30, due-date reminders: each person's reminder settings (their time zone, and when before
 * a due date they want to hear of it), the durable scheduler's jobs (a reminder is one), and a
 * notification's `late` mark (a reminder fired well after its planned minute, because every
 * process was down then).
 */
import { sql, type Kysely, type Migration } from 'kysely';
import { withSerialId, type DialectName } from '../dialect.js';

export function reminders(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only the settings a person changed: without a row, the defaults (changes/reminders.ts).
      await db.schema
        .createTable('reminder_settings')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .addColumn('days_before', 'integer', (c) => c.notNull())
        .addColumn('time_of_day', 'text', (c) => c.notNull())
        .execute();

      // Work planned for a minute (jobs/scheduled-jobs.repository.ts): run exactly once, by
      // whichever process claims it first once it is due. A job about a task or a person goes
      // with them.
      await withSerialId(db.schema.createTable('scheduled_jobs'), dialect)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
        .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        // What the job's kind needs beyond those, as JSON (a reminder: the due date it was planned for).
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('run_at', 'text', (c) => c.notNull())
        // A claim: the process holding it runs the job until `claimed_until`; then anyone may.
        .addColumn('claim', 'text')
        .addColumn('claimed_until', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('scheduled_jobs_due_idx').on('scheduled_jobs').column('run_at').execute();
      await db.schema.createIndex('scheduled_jobs_task_idx').on('scheduled_jobs').column('task_id').execute();
      await db.schema.createIndex('scheduled_jobs_user_idx').on('scheduled_jobs').column('user_id').execute();

      await db.schema
        .alterTable('notifications')
        .addColumn('late', 'integer', (c) => c.notNull().defaultTo(sql`0`))
        .execute();
    },
  };
}
