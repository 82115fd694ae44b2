/**
 * Tasks: load within the caller's team → authorize by the access rule → validate references
 * against the team → change, and record its realtime event, in one transaction.
 */
import type { Caller } from '../caller.js';
import { checkIfMatch } from '../http/etag.js';
import { forbidden, invalidInput, notFound } from '../http/errors.js';
import { byNameThenId, toId } from '../ids.js';
import { usableLists } from '../lists/lists.repository.js';
import { findDefaultStatus, findStatus, type TaskStatus } from '../statuses/statuses.repository.js';
import type { Store } from '../storage/database.js';
import type { Locked } from '../storage/dialect.js';
import type { Db, TaskRow } from '../storage/schema.js';
import { keepMemberships, membersAmong, nextTaskNumber } from '../team/teams.repository.js';
import { recordEvent } from '../realtime/outbox.js';
import { readersOf } from './access.js';
import * as tasks from './tasks.repository.js';
import type {
  CreateTaskBody,
  TaskUpdateResult as ContractTaskUpdateResult,
  UpdateTaskBody,
} from '../contract/tasks.js';
import type { Person, TaskChanges, TaskDetail, TaskFilter, TaskSummary } from './tasks.repository.js';

const taskNotFound = (rawTaskId: string) => notFound(`Task ${rawTaskId} not found.`);
const noAccess = () => forbidden('You do not have access to this task.');

/**
 * The task, if it is in the caller's team and the caller may access it, read under its row lock
 * (`change`, or `delete`) so that checks made on it, If-Match first, still hold when the change
 * commits.
 */
async function loadTaskForChange(
  trx: Db,
  caller: Caller,
  rawTaskId: string,
  lock: 'change' | 'delete',
): Promise<Locked<TaskRow>> {
  const taskId = toId(rawTaskId);
  const row = taskId === null ? undefined : await tasks.findTaskLocked(trx, caller, taskId, lock);
  if (!row) throw taskNotFound(rawTaskId);
  if (!row.accessible) throw noAccess();
  return row;
}

export async function listTasks(store: Store, caller: Caller, filter: TaskFilter): Promise<TaskSummary[]> {
  return tasks.findSummaries(store.db, caller, filter);
}

export async function getTask(store: Store, caller: Caller, rawTaskId: string): Promise<TaskDetail> {
  const taskId = toId(rawTaskId);
  const detail = taskId === null ? undefined : await tasks.findDetail(store.db, caller, taskId);
  if (!detail) throw taskNotFound(rawTaskId);
  if (detail === 'forbidden') throw noAccess();
  return detail;
}

const unique = <T>(values: readonly T[] = []): T[] => [...new Set(values)];

async function checkStatus(db: Db, caller: Caller, statusId: number): Promise<TaskStatus> {
  const id = toId(statusId);
  const status = id === null ? undefined : await findStatus(db, caller.teamId, id);
  if (!status) throw invalidInput(`taskStatusId ${statusId} is not a task status of this team.`);
  return status;
}

/** The first few of many refused ids, so a message stays readable with up to 1,000 of them. */
function someOf(ids: readonly (string | number)[]): string {
  const shown = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

/** The team members among the users, by id, kept members until commit (see `keepMemberships`). */
async function keptMembers(trx: Db, caller: Caller, userIds: string[]): Promise<Map<string, Person>> {
  await keepMemberships(trx, caller.teamId, userIds);
  return membersAmong(trx, caller.teamId, userIds);
}

/** The assignees as people, from the team members read; every one must be a member. */
function assigneesAmong(members: Map<string, Person>, userIds: string[]): Person[] {
  const strangers = userIds.filter((id) => !members.has(id));
  if (strangers.length > 0) throw invalidInput(`assigneeIds: ${someOf(strangers)} are not members of this team.`);
  return userIds.map((id) => members.get(id)!);
}

/** The lists by id, with their names; the caller must be a member of each, and none archived. */
async function checkLists(db: Db, caller: Caller, listIds: number[]): Promise<Map<number, string>> {
  const usable = await usableLists(db, caller.teamId, caller.userId, listIds);
  const refused = listIds.filter((id) => !usable.has(id));
  if (refused.length > 0) {
    throw invalidInput(`taskListIds: ${someOf(refused)} are not lists you are a member of, or they are archived.`);
  }
  return usable;
}

/** The parent must exist until the new task commits: its lock makes a concurrent delete wait (or come first). */
async function checkParent(trx: Db, caller: Caller, parentId: number): Promise<TaskDetail['parent']> {
  const id = toId(parentId);
  const parent = id === null ? undefined : await tasks.findTaskLocked(trx, caller, id, 'keep');
  if (!parent?.accessible) {
    throw invalidInput(`parentId ${parentId} is not a task you can access.`);
  }
  return { id: parent.id, number: parent.number, title: parent.title };
}

/**
 * Creates the task and answers its detail from what the checks already read (status, lists,
 * people, parent): a create reads nothing twice and nothing after its commit.
 */
export async function createTask(store: Store, caller: Caller, input: CreateTaskBody): Promise<TaskDetail> {
  const listIds = unique(input.taskListIds);
  const assigneeIds = unique(input.assigneeIds);
  return store.transaction(async (trx) => {
    let status: TaskStatus;
    if (input.taskStatusId === undefined) {
      const fallback = await findDefaultStatus(trx, caller.teamId);
      if (!fallback) throw invalidInput('This team has no default task status; pass taskStatusId.');
      status = fallback;
    } else {
      status = await checkStatus(trx, caller, input.taskStatusId);
    }
    const lists = await checkLists(trx, caller, listIds);
    // The creator is read with the assignees, for the answer's createdBy.
    const people = await keptMembers(trx, caller, [caller.userId, ...assigneeIds]);
    const assignees = assigneesAmong(people, assigneeIds);
    const parent = input.parentId == null ? null : await checkParent(trx, caller, input.parentId);

    // Numbering last: in PostgreSQL the counter's row lock is then held for the shortest time.
    const now = new Date().toISOString();
    const row = await tasks.insertTask(trx, {
      team_id: caller.teamId,
      number: await nextTaskNumber(trx, caller.teamId),
      title: input.title,
      title_search: input.title.toLowerCase(),
      description: input.description ?? null,
      priority: input.priority ?? null,
      due_date: input.dueDate ?? null,
      status_id: status.id,
      parent_id: parent?.id ?? null,
      created_by: caller.userId,
      created_at: now,
      updated_at: now,
    });
    await tasks.attachLists(trx, row.id, listIds);
    await tasks.addAssignees(trx, row.id, assigneeIds);
    await recordEvent(store, trx, {
      teamId: caller.teamId,
      type: 'task.created',
      data: { taskId: row.id },
      audience: await readersOf(trx, row.id),
    });
    return tasks.toDetail(row, {
      status: { id: status.id, name: status.name, color: status.color, isCompleted: status.isCompleted },
      createdBy: people.get(caller.userId)!,
      assignees: assignees.sort(byNameThenId),
      // Every list was checked to be one the caller is a member of, so all are visible to them.
      taskLists: [...lists].sort(([a], [b]) => a - b).map(([id, name]) => ({ id, name })),
      parent,
      subtaskCount: 0,
    });
  });
}

/** The PATCH answer, with the version its ETag comes from. */
type TaskUpdateResult = ContractTaskUpdateResult & { version: number };

/** Changes only the fields given; `null` clears a nullable field. */
export async function updateTask(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  patch: UpdateTaskBody,
  ifMatch?: string,
): Promise<TaskUpdateResult> {
  return store.transaction(async (trx) => {
    const task = await loadTaskForChange(trx, caller, rawTaskId, 'change');
    checkIfMatch(ifMatch, task, 'task');
    const readersBefore = await readersOf(trx, task.id);
    const changes: TaskChanges = {};
    if (patch.title !== undefined) {
      changes.title = patch.title;
      changes.title_search = patch.title.toLowerCase();
    }
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.priority !== undefined) changes.priority = patch.priority;
    if (patch.dueDate !== undefined) changes.due_date = patch.dueDate;
    const status = patch.taskStatusId === undefined ? undefined : await checkStatus(trx, caller, patch.taskStatusId);
    if (status) changes.status_id = status.id;
    const assigneeIds = patch.assigneeIds && unique(patch.assigneeIds);
    if (assigneeIds) assigneesAmong(await keptMembers(trx, caller, assigneeIds), assigneeIds);
    const listIds = patch.taskListIds && unique(patch.taskListIds);
    if (listIds) await checkLists(trx, caller, listIds);

    if (assigneeIds) await tasks.replaceAssignees(trx, task.id, assigneeIds);
    const nothingGiven = Object.keys(changes).length === 0 && !assigneeIds && !listIds;
    const row = nothingGiven ? task : await tasks.updateTask(trx, task.id, changes);
    // After the task's own change, so new list items copy its priority and completion as they now are.
    if (listIds) await tasks.replaceUsableLists(trx, caller, task.id, listIds);
    await tasks.copyToListItems(trx, task.id, { priority: changes.priority, isCompleted: status?.isCompleted });
    if (!nothingGiven) {
      // Readers before and after: someone who just lost access learns the task left their view.
      await recordEvent(store, trx, {
        teamId: caller.teamId,
        type: 'task.updated',
        data: { taskId: task.id },
        audience: [...readersBefore, ...(await readersOf(trx, task.id))],
      });
    }
    return {
      id: row.id,
      number: row.number,
      title: row.title,
      priority: row.priority,
      dueDate: row.due_date,
      taskStatusId: row.status_id,
      updatedAt: row.updated_at,
      version: row.version,
    };
  });
}

export async function deleteTask(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  ifMatch?: string,
): Promise<{ id: number; number: number; deleted: true }> {
  return store.transaction(async (trx) => {
    const task = await loadTaskForChange(trx, caller, rawTaskId, 'delete');
    checkIfMatch(ifMatch, task, 'task');
    // Who could read it just before it went: the audience of its deletion.
    const readers = await readersOf(trx, task.id);
    const subtaskIds = await tasks.subtaskIdsOf(trx, task.id);
    await tasks.deleteTask(trx, task.id);
    await recordEvent(store, trx, {
      teamId: caller.teamId,
      type: 'task.deleted',
      data: { taskId: task.id },
      audience: readers,
    });
    for (const subtaskId of subtaskIds) {
      // Each subtask became a top-level task.
      await recordEvent(store, trx, {
        teamId: caller.teamId,
        type: 'task.updated',
        data: { taskId: subtaskId },
        audience: await readersOf(trx, subtaskId),
      });
    }
    return { id: task.id, number: task.number, deleted: true as const };
  });
}
