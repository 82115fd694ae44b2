/**
 * Due-date reminders as a change leaves them (issue 30): planned in the transaction of the change
 * that sets a due date, moves it, (re)assigns the task or reopens it, as scheduled jobs
 * (jobs/scheduled-jobs.repository.ts) that reminders/fire.ts runs at their minute. Whose task it
 * is: its assignees, or its creator while nobody is assigned. Each of them gets one job, their
 * next reminder in their own time zone (reminder-times.ts): `reminder.dueSoon`, or
 * `reminder.overdue` once the first's time has passed; firing the first plans the second
 * (reminders/fire.ts). A time already past when the change is made is not planned (they are being
 * told of the date now).
 *
 * A change that touches no due date plans nothing and costs nothing here; one that does reads
 * its people's settings (one statement) and writes their jobs (one). The firing checks again that
 * the reminder still holds (the date, the person, the task open and readable), so a change that
 * reaches a task in another way (a member leaving, a deleted status) needs no planning of its own.
 */
import type { Db } from '../storage/schema.js';
import { insertJobs, type NewJob } from '../jobs/scheduled-jobs.repository.js';
import { DEFAULT_REMINDER_SETTINGS, reminderTimes, type ReminderSettings } from './reminder-times.js';

export const REMINDER_JOB_KINDS = { dueSoon: 'reminder.dueSoon', overdue: 'reminder.overdue' } as const;
const JOB_KINDS = Object.values(REMINDER_JOB_KINDS);

/** What a reminder job carries: the due date it was planned for (a moved date makes it stale). */
export interface ReminderJobData {
  dueDate: string;
}

/** Each person's reminder settings: their choice, else the defaults. */
export async function reminderSettingsOf(db: Db, userIds: readonly string[]): Promise<Map<string, ReminderSettings>> {
  const settings = new Map(userIds.map((id) => [id, { ...DEFAULT_REMINDER_SETTINGS }]));
  if (userIds.length === 0) return settings;
  const rows = await db
    .selectFrom('reminder_settings')
    .select(['user_id', 'time_zone', 'days_before', 'time_of_day'])
    .where('user_id', 'in', [...userIds])
    .execute();
  for (const row of rows) {
    settings.set(row.user_id, { timeZone: row.time_zone, daysBefore: row.days_before, time: row.time_of_day });
  }
  return settings;
}

export async function saveReminderSettings(db: Db, userId: string, settings: ReminderSettings): Promise<void> {
  const values = { time_zone: settings.timeZone, days_before: settings.daysBefore, time_of_day: settings.time };
  await db
    .insertInto('reminder_settings')
    .values({ user_id: userId, ...values })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
    .execute();
}

/** The people a task's reminders go to: its assignees, or its creator while nobody is assigned. */
export const remindedPeople = (assigneeIds: readonly string[], createdBy: string): string[] =>
  assigneeIds.length > 0 ? [...new Set(assigneeIds)] : [createdBy];

type Reminder = keyof typeof REMINDER_JOB_KINDS;

/**
 * The person's next reminder of a date from `from` on: due soon, else (its time past) overdue,
 * else none. A person has one job at a time: firing a due-soon reminder plans the overdue one.
 */
export function nextReminder(
  dueDate: string,
  settings: ReminderSettings,
  now: Date,
  from: Reminder = 'dueSoon',
): { reminder: Reminder; runAt: Date } | undefined {
  const times = reminderTimes(dueDate, settings);
  const order: Reminder[] = from === 'dueSoon' ? ['dueSoon', 'overdue'] : ['overdue'];
  const reminder = order.find((r) => times[r] > now);
  return reminder && { reminder, runAt: times[reminder] };
}

/** The job of `next` for the person, about the task due on `dueDate`. */
export function reminderJob(
  task: { teamId: string; taskId: number; dueDate: string },
  userId: string,
  next: { reminder: Reminder; runAt: Date },
): NewJob {
  const data: ReminderJobData = { dueDate: task.dueDate };
  return {
    kind: REMINDER_JOB_KINDS[next.reminder],
    teamId: task.teamId,
    taskId: task.taskId,
    userId,
    data,
    runAt: next.runAt,
  };
}

/**
 * No reminder of a date this far behind can still come, whatever the zone (UTC±14) and time: the
 * overdue one, the day after the date, is past everywhere two days after it began in UTC.
 */
const LONG_PAST_MS = 3 * 24 * 60 * 60 * 1000;

/** Whether a task due on `dueDate` may have reminders to come: it has a date, not long past. */
export const mayRemind = (dueDate: string | null, now: Date): dueDate is string =>
  dueDate !== null && Date.parse(dueDate) + LONG_PAST_MS >= now.getTime();

/** Plans the reminders of an open task due on `dueDate` for `people`; none, and no read, for a date long past. */
export async function planReminders(
  db: Db,
  task: { teamId: string; taskId: number; dueDate: string },
  people: readonly string[],
  now: Date,
): Promise<void> {
  if (people.length === 0 || !mayRemind(task.dueDate, now)) return;
  const jobs: NewJob[] = [];
  for (const [userId, settings] of await reminderSettingsOf(db, people)) {
    const next = nextReminder(task.dueDate, settings, now);
    if (next) jobs.push(reminderJob(task, userId, next));
  }
  await insertJobs(db, jobs, now);
}

/** Cancels the task's reminders not yet fired: all of them, or only these people's. */
export async function cancelReminders(db: Db, taskId: number, people?: readonly string[]): Promise<void> {
  if (people?.length === 0) return;
  let query = db.deleteFrom('scheduled_jobs').where('task_id', '=', taskId).where('kind', 'in', JOB_KINDS);
  if (people) query = query.where('user_id', 'in', [...people]);
  await query.execute();
}

/**
 * The person changed their settings: their reminders not yet fired are planned again by them.
 * One whose new time has already passed is dropped, as it would not have been planned.
 */
export async function replanRemindersOf(db: Db, userId: string, settings: ReminderSettings, now: Date): Promise<void> {
  const pending = await db
    .deleteFrom('scheduled_jobs')
    .where('user_id', '=', userId)
    .where('kind', 'in', JOB_KINDS)
    .where('claim', 'is', null)
    .returning(['kind', 'team_id', 'task_id', 'data'])
    .execute();
  const jobs = pending.flatMap((job) => {
    const { dueDate } = JSON.parse(job.data) as ReminderJobData;
    const from = job.kind === REMINDER_JOB_KINDS.dueSoon ? 'dueSoon' : 'overdue';
    const next = nextReminder(dueDate, settings, now, from);
    return next ? [reminderJob({ teamId: job.team_id, taskId: job.task_id!, dueDate }, userId, next)] : [];
  });
  await insertJobs(db, jobs, now);
}
