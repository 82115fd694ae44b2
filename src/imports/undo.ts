/**
 * Takes an import back (issue 32): within UNDO_WINDOW_MS of its end, and only if nothing it created
 * has been changed since (each task, comment and list at the version the import left it; each
 * status and label used by nothing else). Otherwise it refuses (409), naming what blocks it. In one
 * transaction, through the services: comments, then tasks (subtasks first), are deleted; labels and
 * statuses it created are deleted; lists it created are archived (the API deletes no list). What
 * it matched or updated of what was there stays as it is now.
 */
import type { Caller } from '../caller.js';
import type { Import } from '../contract/index.js';
import { deleteComment } from '../comments/comments.service.js';
import { conflict, forbidden } from '../http/errors.js';
import { managesTeam } from '../team/roles.js';
import { deleteLabelAs } from '../labels/labels.service.js';
import { setArchived } from '../lists/lists.service.js';
import { deleteStatusAs } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import type { Db } from '../storage/schema.js';
import { deleteTask } from '../tasks/tasks.service.js';
import { progressEvent } from './apply.js';
import {
  findImportLocked,
  forgetObjects,
  objectsCreatedBy,
  updateImport,
  type ImportedObject,
  type ImportRecord,
} from './imports.repository.js';
import { stillThere, TeamIndex } from './matching.js';

/** The refusal a plain member gets from every route of imports. */
export const MANAGERS_ONLY = "Only the team's owners and admins can manage imports.";

export const UNDO_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Blockers an undo's refusal names, at most. */
const NAMED_BLOCKERS = 5;

export const undoUntil = (record: Pick<ImportRecord, 'status' | 'finishedAt'>): string | null =>
  ['applied', 'cancelled', 'failed'].includes(record.status) && record.finishedAt
    ? new Date(Date.parse(record.finishedAt) + UNDO_WINDOW_MS).toISOString()
    : null;

export async function undoImport(
  store: Store,
  caller: Caller,
  record: ImportRecord,
  present: (r: ImportRecord) => Import,
): Promise<Import> {
  return store.transaction(async (trx) => {
    // The role as read in this transaction (auth/caller-check.ts): one demoted meanwhile is refused.
    if (!managesTeam(caller.role)) throw forbidden(MANAGERS_ONLY);
    const locked = (await findImportLocked(trx, caller.teamId, record.id))!;
    const until = undoUntil(locked);
    if (locked.status === 'undone') throw conflict(`Import ${locked.id} was undone already.`);
    if (locked.status === 'planned') throw conflict(`Import ${locked.id} was never applied; there is nothing to undo.`);
    if (locked.status === 'applying') throw conflict(`Import ${locked.id} is still being applied; cancel it first.`);
    if (!until || Date.parse(until) < Date.now()) {
      throw conflict(`Import ${locked.id} can no longer be undone: it finished more than 24 hours ago.`);
    }
    const created = await objectsCreatedBy(trx, caller.teamId, locked.id);
    const there = await stillThere(trx, caller.teamId, created);
    const present_ = created.filter((object) => there.has(object.ref));
    const blockers = await blockersOf(trx, caller.teamId, present_);
    if (blockers.length > 0) {
      const named = blockers.slice(0, NAMED_BLOCKERS).join('; ');
      const more = blockers.length > NAMED_BLOCKERS ? `; and ${blockers.length - NAMED_BLOCKERS} more` : '';
      throw conflict(`Import ${locked.id} cannot be undone, because it was changed since: ${named}${more}.`);
    }
    const within: Store = {
      db: trx,
      dialect: store.dialect,
      transaction: (work) => work(trx),
      close: async () => undefined,
    };
    const undoer: Caller = { ...caller, credential: { kind: 'import', id: String(locked.id) } };
    const of = (kind: ImportedObject['kind']) =>
      present_.filter((object) => object.kind === kind).sort((a, b) => b.objectId - a.objectId);
    const taskOf = await commentTasks(trx, of('comment'));
    for (const comment of of('comment')) {
      await deleteComment(within, undoer, String(taskOf.get(comment.objectId)), String(comment.objectId));
    }
    for (const task of of('task')) await deleteTask(within, undoer, String(task.objectId));
    for (const label of of('label')) await deleteLabelAs(within, undoer, String(label.objectId));
    const fallback = (await TeamIndex.load(within, undoer)).fallbackStatus(false);
    for (const status of of('status')) {
      await deleteStatusAs(within, undoer, String(status.objectId), String(fallback?.id ?? 0));
    }
    for (const list of of('list')) await setArchived(within, undoer, String(list.objectId), true);
    await forgetObjects(
      trx,
      caller.teamId,
      created.map((object) => object.ref),
    );
    const now = new Date().toISOString();
    await updateImport(trx, locked.id, { status: 'undone' }, now);
    await progressEvent(trx, locked);
    return present({ ...locked, status: 'undone', updatedAt: now });
  });
}

/** What was changed since the import made it, as a person would name it. */
async function blockersOf(db: Db, teamId: string, objects: readonly ImportedObject[]): Promise<string[]> {
  const blockers: string[] = [];
  const ids = (kind: ImportedObject['kind']) => objects.filter((o) => o.kind === kind).map((o) => o.objectId);
  const recorded = new Map(objects.map((object) => [`${object.kind}:${object.objectId}`, object.version]));
  const changed = (kind: string, id: number, version: number) => recorded.get(`${kind}:${id}`) !== Number(version);
  const taskIds = ids('task');
  if (taskIds.length > 0) {
    const tasks = await db
      .selectFrom('tasks')
      .select(['id', 'number', 'title', 'version'])
      .where('id', 'in', taskIds)
      .orderBy('number')
      .execute();
    for (const task of tasks)
      if (changed('task', task.id, task.version)) blockers.push(`task #${task.number} “${task.title}” was edited`);
  }
  const commentIds = ids('comment');
  if (commentIds.length > 0) {
    const comments = await db
      .selectFrom('task_comments')
      .innerJoin('tasks', 'tasks.id', 'task_comments.task_id')
      .select(['task_comments.id as id', 'task_comments.version as version', 'tasks.number as number'])
      .where('task_comments.id', 'in', commentIds)
      .execute();
    for (const comment of comments) {
      if (changed('comment', comment.id, comment.version))
        blockers.push(`a comment on task #${comment.number} was edited`);
    }
  }
  const listIds = ids('list');
  if (listIds.length > 0) {
    const lists = await db
      .selectFrom('task_lists')
      .select(['id', 'name', 'version'])
      .where('id', 'in', listIds)
      .execute();
    for (const list of lists)
      if (changed('list', list.id, list.version)) blockers.push(`the list “${list.name}” was changed`);
  }
  // Comments someone else wrote on its tasks would go with them.
  const mine = new Set(taskIds);
  if (taskIds.length > 0) {
    const ownComments = new Set(ids('comment'));
    const others = await db
      .selectFrom('task_comments')
      .innerJoin('tasks', 'tasks.id', 'task_comments.task_id')
      .select(['task_comments.id as id', 'tasks.number as number'])
      .where('task_comments.task_id', 'in', taskIds)
      .execute();
    for (const number of new Set(others.filter((row) => !ownComments.has(row.id)).map((row) => row.number))) {
      blockers.push(`task #${number} has comments the import did not make`);
    }
  }
  // A status or label the import made that something else now uses.
  const statusIds = ids('status');
  if (statusIds.length > 0) {
    const used = await db
      .selectFrom('tasks')
      .innerJoin('task_statuses', 'task_statuses.id', 'tasks.status_id')
      .select(['tasks.id as taskId', 'task_statuses.name as name'])
      .where('tasks.status_id', 'in', statusIds)
      .where('tasks.team_id', '=', teamId)
      .execute();
    for (const name of new Set(used.filter((row) => !mine.has(row.taskId)).map((row) => row.name))) {
      blockers.push(`the status “${name}” is used by tasks the import did not make`);
    }
  }
  const labelIds = ids('label');
  if (labelIds.length > 0) {
    const used = await db
      .selectFrom('task_labels')
      .innerJoin('labels', 'labels.id', 'task_labels.label_id')
      .select(['task_labels.task_id as taskId', 'labels.name as name'])
      .where('task_labels.label_id', 'in', labelIds)
      .execute();
    for (const name of new Set(used.filter((row) => !mine.has(row.taskId)).map((row) => row.name))) {
      blockers.push(`the label “${name}” is on tasks the import did not make`);
    }
  }
  return blockers;
}

async function commentTasks(db: Db, comments: readonly ImportedObject[]): Promise<Map<number, number>> {
  if (comments.length === 0) return new Map();
  const rows = await db
    .selectFrom('task_comments')
    .select(['id', 'task_id'])
    .where(
      'id',
      'in',
      comments.map((comment) => comment.objectId),
    )
    .execute();
  return new Map(rows.map((row) => [Number(row.id), Number(row.task_id)]));
}
