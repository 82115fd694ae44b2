/**
 * What a task change records in the task's activity (activity/): only what differs, each field
 * with its value before and after. A PATCH that sets every field to the value it had records
 * nothing.
 */
import type { FieldChange, StoredChanges } from '../changes/activity-entries.js';
import type { UpdateTaskBody } from '../contract/index.js';
import type { TaskStatus } from '../statuses/statuses.repository.js';
import type { TaskRecord } from './tasks.repository.js';

/** `from` → `to`, or undefined when `to` is not given or is the same. */
function fieldChange<T>(from: T, to: T | undefined): FieldChange<T> | undefined {
  return to === undefined || to === from ? undefined : { from, to };
}

/** Two sets, or undefined when they hold the same members (order does not count). */
export function setChange<T>(from: readonly T[], to: readonly T[]): FieldChange<T[]> | undefined {
  const before = new Set(from);
  const same = before.size === new Set(to).size && to.every((item) => before.has(item));
  return same ? undefined : { from: [...from], to: [...to] };
}

/** The fields of the task row a PATCH changes (not its links), as the activity records them. */
export function changedFields(task: TaskRecord, patch: UpdateTaskBody, status: TaskStatus | undefined): StoredChanges {
  const changes: StoredChanges = {
    title: fieldChange(task.title, patch.title),
    description: fieldChange(task.description, patch.description),
    priority: fieldChange<string | null>(task.priority, patch.priority),
    dueDate: fieldChange(task.due_date, patch.dueDate),
    status:
      status && status.id !== task.status_id
        ? { from: { id: task.status_id, name: task.status_name }, to: { id: status.id, name: status.name } }
        : undefined,
  };
  for (const key of Object.keys(changes) as (keyof StoredChanges)[]) {
    if (changes[key] === undefined) delete changes[key];
  }
  return changes;
}

/** The lists a task is attached to after `replaceUsableLists`: those it kept, and those given. */
export function listsAfter(before: readonly number[], detached: readonly number[], given: readonly number[]): number[] {
  const gone = new Set(detached);
  return [...new Set([...before.filter((id) => !gone.has(id)), ...given])];
}
