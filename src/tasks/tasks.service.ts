/**
 * Tasks: load within the caller's team → authorize by the access rule → validate references
 * against the team → change, and record its realtime event, in one transaction.
 *
 * Missing versus forbidden, everywhere in tasks: the repository returns undefined for a task
 * that is missing or in another team (the two look alike, so no one learns of another team's
 * tasks), and a row with `accessible: false` for one the caller may not access. The task named
 * by the path goes through `accessibleTask`: undefined → 404 (`found`), not accessible → 403
 * (`allowed`). A task named in a body (`parentId`) is checked like the other references in it:
 * missing, another team's or not accessible alike → 400.
 */
import type { Caller } from '../caller.js';
import type {
  CreateTaskBody,
  Person,
  TaskDeleted,
  TaskDetail,
  TaskUpdateResult,
  UpdateTaskBody,
} from '../contract/index.js';
import { checkIfMatch } from '../http/etag.js';
import { forbidden, invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { checkListsWithinLimit } from '../keys/scopes.js';
import { usableLists } from '../lists/lists.repository.js';
import { MAX_LABELS_PER_TASK } from '../contract/labels.js';
import { asNamed, byLabelName, keptLabels, type Label } from '../labels/labels.repository.js';
import { addTaskLabels, labelsOf, replaceTaskLabels } from '../labels/task-labels.repository.js';
import { findDefaultStatus, findStatus, type TaskStatus } from '../statuses/statuses.repository.js';
import type { Store } from '../storage/database.js';
import type { Locked } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { keptMembersAmong } from '../team/teams.repository.js';
import { joinAudiences, recordEvent, recordTaskCreated, usersAudience } from '../changes/outbox.js';
import { remindersOfCreate, remindersOfUpdate } from './task-reminders.js';
import { audienceOf } from './access.js';
import { notificationsOfCreate, notificationsOfUpdate } from './task-notifications.js';
import { changedFields, listsAfter, setChange } from './task-activity.js';
import { findPage, type TaskFilter, type TaskPage } from './task-query.js';
import * as links from './task-links.repository.js';
import * as tasks from './tasks.repository.js';
import type { ParentRow, TaskChanges, TaskRecord } from './tasks.repository.js';
import {
  presentDeleted,
  presentDetail,
  presentNewTask,
  presentUpdateResult,
  type Versioned,
} from './tasks.presenter.js';
import { viaOf } from '../changes/activity-entries.js';

/** A task the repository did not return (missing, or in another team) → 404. */
function found<T>(row: T | undefined, rawTaskId: string): T {
  if (!row) throw notFound(`Task ${rawTaskId} not found.`);
  return row;
}

/** A task the caller may not access → 403. */
function allowed<T extends { accessible: boolean }>(row: T): T {
  if (!row.accessible) throw forbidden('You do not have access to this task.');
  return row;
}

/** The task the path names, read by `read`, if it exists in the team and the caller may access it. */
async function accessibleTask<T extends { accessible: boolean }>(
  rawTaskId: string,
  read: (taskId: number) => Promise<T | undefined>,
): Promise<T> {
  const taskId = toId(rawTaskId);
  return allowed(found(taskId === null ? undefined : await read(taskId), rawTaskId));
}

/**
 * The task, if it is in the caller's team and the caller may access it, read under its row lock
 * (`change`, or `delete`) so that checks made on it, If-Match first, still hold when the change
 * commits.
 */
const loadTaskForChange = (trx: Db, caller: Caller, rawTaskId: string, lock: 'change' | 'delete') =>
  accessibleTask(rawTaskId, (taskId) => tasks.findTaskLocked(trx, caller, taskId, lock));

/**
 * The task the path names, answered as GET /v1/tasks/{id} answers: 404 when it is missing or in
 * another team, 403 when the caller may not access it. The endpoints under a task's path (its
 * activity, its comments) start here, so each answers for the task exactly as the task does.
 */
export function loadAccessibleTask(db: Db, caller: Caller, rawTaskId: string): Promise<TaskRecord> {
  return accessibleTask(rawTaskId, (taskId) => tasks.findTask(db, caller, taskId));
}

/**
 * `loadAccessibleTask` under the task's `keep` lock: the task stays until the caller's change of
 * something of it (a comment) commits; a deletion of the task waits for it, or comes first.
 */
export function keepAccessibleTask(trx: Db, caller: Caller, rawTaskId: string): Promise<Locked<TaskRecord>> {
  return accessibleTask(rawTaskId, (taskId) => tasks.findTaskLocked(trx, caller, taskId, 'keep'));
}

/**
 * The page: TaskSummary[], or the same as JSON text where the database wrote it (task-query.ts),
 * and for a sorted page with more after it, where the next starts.
 */
export function listTasks(store: Store, caller: Caller, filter: TaskFilter): Promise<TaskPage> {
  return findPage(store.db, caller, filter);
}

/** One statement reads the task, whether the caller may access it, and its parts (`findDetail`). */
export async function getTask(store: Store, caller: Caller, rawTaskId: string): Promise<Versioned<TaskDetail>> {
  const row = await accessibleTask(rawTaskId, (taskId) => tasks.findDetail(store.db, caller, taskId));
  return presentDetail(row, row.parts);
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
const keptMembers = (trx: Db, caller: Caller, userIds: string[]): Promise<Map<string, Person>> =>
  keptMembersAmong(trx, caller.teamId, userIds);

/** The assignees as people, from the team members read; every one must be a member. */
function assigneesAmong(members: Map<string, Person>, userIds: string[]): Person[] {
  const strangers = userIds.filter((id) => !members.has(id));
  if (strangers.length === 1) throw invalidInput(`assigneeIds: ${strangers[0]} is not a member of this team.`);
  if (strangers.length > 1) throw invalidInput(`assigneeIds: ${someOf(strangers)} are not members of this team.`);
  return userIds.map((id) => members.get(id)!);
}

/** The lists by id, with their names; the caller must be a member of each, and none archived. */
async function checkLists(db: Db, caller: Caller, listIds: number[]): Promise<Map<number, string>> {
  const usable = await usableLists(db, caller.teamId, caller.userId, listIds);
  const refused = listIds.filter((id) => !usable.has(id));
  if (refused.length === 1) {
    throw invalidInput(`taskListIds: ${refused[0]} is not a list you are a member of, or it is archived.`);
  }
  if (refused.length > 1) {
    throw invalidInput(`taskListIds: ${someOf(refused)} are not lists you are a member of, or they are archived.`);
  }
  return usable;
}

/**
 * The labels by id, kept until commit (a deletion of one waits, or comes first and this finds it
 * gone); every one must be a label of the team, and a task carries at most MAX_LABELS_PER_TASK.
 */
async function checkLabels(trx: Db, caller: Caller, labelIds: number[]): Promise<Label[]> {
  if (labelIds.length > MAX_LABELS_PER_TASK) {
    throw invalidInput(
      `labelIds: a task can carry at most ${MAX_LABELS_PER_TASK} labels; ${labelIds.length} were given.`,
    );
  }
  const known = await keptLabels(trx, caller.teamId, labelIds);
  const unknown = labelIds.filter((id) => !known.has(id));
  if (unknown.length === 1) throw invalidInput(`labelIds: ${unknown[0]} is not a label of this team.`);
  if (unknown.length > 1) throw invalidInput(`labelIds: ${someOf(unknown)} are not labels of this team.`);
  return labelIds.map((id) => known.get(id)!);
}

/** The parent must exist until the new task commits: its lock makes a concurrent delete wait (or come first). */
async function checkParent(trx: Db, caller: Caller, parentId: number): Promise<ParentRow> {
  const id = toId(parentId);
  const parent = id === null ? undefined : await tasks.findTaskLocked(trx, caller, id, 'keep');
  if (!parent?.accessible) {
    throw invalidInput(`parentId ${parentId} is not a task you can access.`);
  }
  return parent;
}

/**
 * Creates the task and answers its detail from what the checks already read (status, lists,
 * people, parent): a create reads nothing twice and nothing after its commit.
 */
export async function createTask(store: Store, caller: Caller, input: CreateTaskBody): Promise<Versioned<TaskDetail>> {
  const listIds = unique(input.taskListIds);
  const assigneeIds = unique(input.assigneeIds);
  const labelIds = unique(input.labelIds);
  return store.transaction(async (trx) => {
    let status: TaskStatus;
    if (input.taskStatusId === undefined) {
      const fallback = await findDefaultStatus(trx, caller.teamId);
      if (!fallback) throw invalidInput('This team has no default task status; pass taskStatusId.');
      status = fallback;
    } else {
      status = await checkStatus(trx, caller, input.taskStatusId);
    }
    checkListsWithinLimit(caller, listIds);
    const lists = await checkLists(trx, caller, listIds);
    // The creator is read with the assignees, for the answer's createdBy.
    const people = await keptMembers(trx, caller, [caller.userId, ...assigneeIds]);
    const assignees = assigneesAmong(people, assigneeIds);
    const parent = input.parentId == null ? null : await checkParent(trx, caller, input.parentId);
    const labels = labelIds.length === 0 ? [] : await checkLabels(trx, caller, labelIds);

    // Every write that does not need the team row's lock comes first: the task (on PostgreSQL
    // with a provisional number, dialect.ts `numberAtInsert`), its lists and assignees. Its event
    // comes last (with its number, in one statement, on PostgreSQL), so the team row is locked
    // only from there to the commit.
    const now = new Date().toISOString();
    const row = await tasks.insertTask(trx, {
      teamId: caller.teamId,
      title: input.title,
      description: input.description ?? null,
      priority: input.priority ?? null,
      dueDate: input.dueDate ?? null,
      statusId: status.id,
      parentId: parent?.id ?? null,
      createdBy: caller.userId,
      createdAt: now,
    });
    await links.attachLists(trx, row.id, listIds);
    await links.addAssignees(trx, row.id, assigneeIds);
    await addTaskLabels(trx, row.id, labelIds);
    await remindersOfCreate(trx, {
      teamId: caller.teamId,
      id: row.id,
      createdBy: caller.userId,
      assigneeIds,
      dueDate: row.due_date,
      isCompleted: status.isCompleted,
    });
    const audience = await audienceOf(trx, row.id);
    row.number = await recordTaskCreated(trx, row.id, {
      teamId: caller.teamId,
      type: 'task.created',
      data: { taskId: row.id },
      audience,
      activity: { taskId: row.id, actorId: caller.userId, kind: 'task.created', changes: {}, via: viaOf(caller) },
      notifications: await notificationsOfCreate(trx, caller, {
        id: row.id,
        description: row.description,
        assigneeIds,
      }),
    });
    return presentNewTask(row, { status, createdBy: people.get(caller.userId)!, assignees, lists, labels, parent });
  });
}

/**
 * Changes only the fields given; `null` clears a nullable field. What actually changed goes in
 * the task's activity (task-activity.ts), written with the change's event.
 */
export async function updateTask(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  patch: UpdateTaskBody,
  ifMatch?: string,
): Promise<Versioned<TaskUpdateResult>> {
  return store.transaction(async (trx) => {
    const task = await loadTaskForChange(trx, caller, rawTaskId, 'change');
    checkIfMatch(ifMatch, task, 'task');
    const readersBefore = await audienceOf(trx, task.id);
    const changes: TaskChanges = {};
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.priority !== undefined) changes.priority = patch.priority;
    if (patch.dueDate !== undefined) changes.dueDate = patch.dueDate;
    const status = patch.taskStatusId === undefined ? undefined : await checkStatus(trx, caller, patch.taskStatusId);
    if (status) changes.statusId = status.id;
    const assigneeIds = patch.assigneeIds && unique(patch.assigneeIds);
    if (assigneeIds) assigneesAmong(await keptMembers(trx, caller, assigneeIds), assigneeIds);
    const listIds = patch.taskListIds && unique(patch.taskListIds);
    if (listIds) checkListsWithinLimit(caller, listIds);
    if (listIds) await checkLists(trx, caller, listIds);
    const labelIds = patch.labelIds && unique(patch.labelIds);
    const labels = labelIds && (await checkLabels(trx, caller, labelIds));

    const recorded = changedFields(task, patch, status);
    let assigneesBefore: string[] | undefined;
    if (assigneeIds) {
      assigneesBefore = await links.replaceAssignees(trx, task.id, assigneeIds);
      const assignees = setChange(assigneesBefore, assigneeIds);
      if (assignees) recorded.assignees = assignees;
    }
    if (labels) {
      const before = (await labelsOf(trx, [task.id])).get(task.id) ?? [];
      await replaceTaskLabels(trx, task.id, labelIds!);
      if (
        setChange(
          before.map((label) => label.id),
          labelIds!,
        )
      )
        recorded.labels = { from: asNamed(before), to: asNamed(labels.sort(byLabelName)) };
    }
    const nothingGiven = Object.keys(changes).length === 0 && !assigneeIds && !listIds && !labelIds;
    const row = nothingGiven ? task : await tasks.updateTask(trx, task.id, changes);
    // After the task's own change, so new list items copy its priority and completion as they now are.
    if (listIds) {
      const before = await links.listIdsOf(trx, task.id);
      const detached = await links.replaceUsableLists(trx, caller, task.id, listIds);
      const taskLists = setChange(before, listsAfter(before, detached, listIds));
      if (taskLists) recorded.taskLists = taskLists;
    }
    // Only a value that differs is copied: the same one would rewrite every list item for nothing.
    await links.copyToListItems(trx, task.id, {
      priority: changes.priority === task.priority ? undefined : changes.priority,
      isCompleted: status?.isCompleted === Boolean(task.status_is_completed) ? undefined : status?.isCompleted,
    });
    await remindersOfUpdate(
      trx,
      { teamId: caller.teamId, id: task.id, createdBy: task.created_by },
      { dueDate: task.due_date, isCompleted: Boolean(task.status_is_completed) },
      { dueDate: row.due_date, isCompleted: status?.isCompleted ?? Boolean(task.status_is_completed) },
      assigneesBefore && { before: assigneesBefore, after: assigneeIds! },
    );
    if (!nothingGiven) {
      // Readers before and after: someone who just lost access learns the task left their view.
      // Readers are its creator, assignees and lists' members (access.ts): while its lists stay,
      // those after are those before less the assignees removed plus the ones given, so before
      // and after together are known without a second read.
      const readersAfter = listIds ? await audienceOf(trx, task.id) : usersAudience(assigneeIds ?? []);
      await recordEvent(trx, {
        teamId: caller.teamId,
        type: 'task.updated',
        data: { taskId: task.id },
        audience: joinAudiences(readersBefore, readersAfter),
        activity:
          Object.keys(recorded).length === 0
            ? undefined
            : { taskId: task.id, actorId: caller.userId, kind: 'task.updated', changes: recorded, via: viaOf(caller) },
        notifications: await notificationsOfUpdate(
          trx,
          caller,
          { id: task.id, createdBy: task.created_by, before: readersBefore },
          recorded,
        ),
      });
    }
    return presentUpdateResult(row);
  });
}

export async function deleteTask(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  ifMatch?: string,
): Promise<TaskDeleted> {
  return store.transaction(async (trx) => {
    const task = await loadTaskForChange(trx, caller, rawTaskId, 'delete');
    checkIfMatch(ifMatch, task, 'task');
    // Who could read it just before it went: the audience of its deletion.
    const readers = await audienceOf(trx, task.id);
    const subtaskIds = await tasks.subtaskIdsOf(trx, task.id);
    await tasks.deleteTask(trx, task.id);
    await recordEvent(trx, {
      teamId: caller.teamId,
      type: 'task.deleted',
      data: { taskId: task.id },
      forWebhooks: { number: task.number },
      audience: readers,
    });
    for (const subtaskId of subtaskIds) {
      // Each subtask became a top-level task, by the hand of whoever deleted its parent.
      await recordEvent(trx, {
        teamId: caller.teamId,
        type: 'task.updated',
        data: { taskId: subtaskId },
        audience: await audienceOf(trx, subtaskId),
        activity: {
          taskId: subtaskId,
          actorId: caller.userId,
          kind: 'task.updated',
          changes: { parentId: { from: task.id, to: null } },
          via: viaOf(caller),
        },
      });
    }
    return presentDeleted(task);
  });
}
