/**
 * Firing a due-date reminder (a scheduled job of kind reminder.dueSoon or reminder.overdue,
 * planned by changes/reminders.ts): in the job's transaction, if the reminder still holds (the
 * task is there, open, due on the date it was planned for, still the person's, and readable by
 * them as a member of its team), one notification to the person (`dueSoon` or `overdue`, marked
 * late when the job runs late) and one `task.dueSoon` or `task.overdue` event `{"taskId",
 * "userId"}` to the task's readers and their webhooks, both written by the outbox; a due-soon
 * reminder also plans the person's overdue one. Else nothing: the reminder is over.
 */
import { sql } from 'kysely';
import { recordEvent } from '../changes/outbox.js';
import {
  nextReminder,
  REMINDER_JOB_KINDS,
  reminderJob,
  reminderSettingsOf,
  type ReminderJobData,
} from '../changes/reminders.js';
import { insertJobs } from '../jobs/scheduled-jobs.repository.js';
import type { JobHandler } from '../jobs/job-runner.js';
import type { ScheduledJob } from '../jobs/scheduled-jobs.repository.js';
import type { Db } from '../storage/schema.js';
import { audienceOf } from '../tasks/access.js';

/**
 * The task of the reminder if the reminder still holds. The person is still its assignee (or its
 * creator while nobody is assigned), and so may read it, and still a member of its team.
 */
async function heldReminder(db: Db, job: ScheduledJob, dueDate: string) {
  const userId = job.userId!;
  return (
    db
      .selectFrom('tasks as t')
      .innerJoin('task_statuses as s', 's.id', 't.status_id')
      .innerJoin('team_members as tm', (join) =>
        join.onRef('tm.team_id', '=', 't.team_id').on('tm.user_id', '=', userId),
      )
      .select('t.id')
      .where('t.id', '=', job.taskId!)
      .where('t.team_id', '=', job.teamId)
      .where('t.due_date', '=', dueDate)
      .where('s.is_completed', '=', 0)
      // Still the person's: assigned to them, or theirs while nobody is assigned.
      .where((eb) =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('task_assignees as a')
              .select(sql.lit(1).as('one'))
              .whereRef('a.task_id', '=', 't.id')
              .where('a.user_id', '=', userId),
          ),
          eb.and([
            eb('t.created_by', '=', userId),
            eb.not(
              eb.exists(
                eb.selectFrom('task_assignees as a').select(sql.lit(1).as('one')).whereRef('a.task_id', '=', 't.id'),
              ),
            ),
          ]),
        ]),
      )
      .executeTakeFirst()
  );
}

export const fireReminder: JobHandler = async (trx, job, { now, late }) => {
  const { dueDate } = job.data as ReminderJobData;
  if (!(await heldReminder(trx, job, dueDate))) return;
  const kind = job.kind === REMINDER_JOB_KINDS.dueSoon ? 'dueSoon' : 'overdue';
  const userId = job.userId!;
  if (kind === 'dueSoon') {
    // The person's next reminder of this date, planned as this one fires: the overdue one.
    const settings = (await reminderSettingsOf(trx, [userId])).get(userId)!;
    const next = nextReminder(dueDate, settings, now, 'overdue');
    const task = { teamId: job.teamId, taskId: job.taskId!, dueDate };
    if (next) await insertJobs(trx, [reminderJob(task, userId, next)], now);
  }
  await recordEvent(trx, {
    teamId: job.teamId,
    type: kind === 'dueSoon' ? 'task.dueSoon' : 'task.overdue',
    data: { taskId: job.taskId!, userId },
    // The task's readers, as every task event's: the webhooks of those who may read it hear of it.
    audience: await audienceOf(trx, job.taskId!),
    notifications: { taskId: job.taskId!, actorId: null, recipients: [{ userId, kind }], late },
  });
};

/** The scheduled jobs' handlers of reminders, by kind (app.ts gives them to the job runner). */
export const REMINDER_HANDLERS: Readonly<Record<string, JobHandler>> = {
  [REMINDER_JOB_KINDS.dueSoon]: fireReminder,
  [REMINDER_JOB_KINDS.overdue]: fireReminder,
};
