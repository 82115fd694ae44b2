/**
 * Which reminders a task's create or update plans or cancels (changes/reminders.ts plans them):
 * only a change of the due date, of whether the task is done, or of its assignees while it has a
 * due date touches them; any other change costs nothing here.
 */
import { clock } from '../clock.js';
import { cancelReminders, mayRemind, planReminders, remindedPeople } from '../changes/reminders.js';
import type { Db } from '../storage/schema.js';
import { assigneeIdsOf } from './task-links.repository.js';

interface ReminderState {
  dueDate: string | null;
  isCompleted: boolean;
}

/** A new task's reminders: for its assignees, or its creator, if it is open and has a due date. */
export async function remindersOfCreate(
  trx: Db,
  task: { teamId: string; id: number; createdBy: string; assigneeIds: readonly string[] } & ReminderState,
): Promise<void> {
  if (task.dueDate === null || task.isCompleted) return;
  const due = { teamId: task.teamId, taskId: task.id, dueDate: task.dueDate };
  await planReminders(trx, due, remindedPeople(task.assigneeIds, task.createdBy), clock.now());
}

/**
 * An updated task's reminders: planned again when its due date moves or it is reopened,
 * cancelled when it is done or loses its date, and moved with its people when they change.
 */
export async function remindersOfUpdate(
  trx: Db,
  task: { teamId: string; id: number; createdBy: string },
  before: ReminderState,
  after: ReminderState,
  assignees?: { before: readonly string[]; after: readonly string[] },
): Promise<void> {
  const now = clock.now();
  const hadReminders = mayRemind(before.dueDate, now) && !before.isCompleted;
  const hasReminders = mayRemind(after.dueDate, now) && !after.isCompleted;
  if (!hadReminders && !hasReminders) return;
  const due = { teamId: task.teamId, taskId: task.id, dueDate: after.dueDate! };
  if (before.dueDate !== after.dueDate || before.isCompleted !== after.isCompleted) {
    if (hadReminders) await cancelReminders(trx, task.id);
    if (!hasReminders) return;
    const assigneeIds = assignees?.after ?? (await assigneeIdsOf(trx, task.id));
    await planReminders(trx, due, remindedPeople(assigneeIds, task.createdBy), now);
  } else if (assignees && hasReminders) {
    const was = remindedPeople(assignees.before, task.createdBy);
    const are = remindedPeople(assignees.after, task.createdBy);
    await cancelReminders(
      trx,
      task.id,
      was.filter((id) => !are.includes(id)),
    );
    await planReminders(
      trx,
      due,
      are.filter((id) => !was.includes(id)),
      now,
    );
  }
}
