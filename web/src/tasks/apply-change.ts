/**
 * Applies a change to a task as shown, before the server confirms it, so an edit shows at once.
 * The reload that follows replaces it with the server's truth.
 */
import type { Label, LabelledTaskSummary, Member, UpdateTaskBody, TaskList, TaskStatus, TaskSummary } from '@contract';

export interface Reference {
  statuses: TaskStatus[];
  members: Member[];
  labels: Label[];
  /** The caller's non-archived lists: the ones a change can attach or detach. */
  lists: TaskList[];
}

export function applyChange(task: TaskSummary, change: UpdateTaskBody, reference: Reference): TaskSummary {
  const next: LabelledTaskSummary = { ...task };
  if (change.title !== undefined) next.title = change.title;
  if (change.priority !== undefined) next.priority = change.priority;
  if (change.dueDate !== undefined) next.dueDate = change.dueDate;
  if (change.taskStatusId !== undefined) {
    const status = reference.statuses.find((s) => s.id === change.taskStatusId);
    if (status) {
      next.status = { id: status.id, name: status.name };
      next.isCompleted = status.isCompleted;
    }
  }
  if (change.assigneeIds) {
    const ids = change.assigneeIds;
    next.assignees = reference.members
      .filter((member) => ids.includes(member.id))
      .map(({ id, name, email }) => ({ id, name, email }));
  }
  if (change.taskListIds) {
    const ids = change.taskListIds;
    // Attachments to lists the caller cannot change (archived ones) stay, as on the server.
    const kept = task.taskLists.filter((list) => !reference.lists.some((usable) => usable.id === list.id));
    const added = reference.lists.filter((list) => ids.includes(list.id)).map(({ id, name }) => ({ id, name }));
    next.taskLists = [...kept, ...added];
  }
  if (change.labelIds) {
    const ids = change.labelIds;
    next.labels = reference.labels.filter((label) => ids.includes(label.id));
  }
  return next;
}

/** The status a "done" tick moves a task to, and the one un-ticking moves it back to. */
export function doneStatuses(statuses: TaskStatus[]): { done?: TaskStatus; open?: TaskStatus } {
  const ordered = [...statuses].sort((a, b) => a.order - b.order);
  return {
    done: ordered.find((status) => status.isCompleted),
    open: ordered.find((status) => status.isDefault && !status.isCompleted) ?? ordered.find((s) => !s.isCompleted),
  };
}
