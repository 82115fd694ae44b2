/**
 * The body of a delivery: `{"type", "timestamp", "data"}`, built once, at its first attempt, and
 * then sent unchanged by every retry. `data` is the object as GET answers it for the webhook's
 * owner when the body is built (right after the commit, unless the worker is behind); an object
 * the owner may no longer read, or that is gone, is only its identity: `{"id"}` for a list,
 * `{"id", "number"}` for a task (so a deletion is `{"id", "number"}`), `{"id", "taskId"}`
 * for a comment or an attachment, `{"id"}` for a deleted workflow status or label (both are the team's: every member
 * reads them as GET /v1/task-statuses and GET /v1/labels show them). What the owner may read is
 * decided by the same reads the API answers with, so a webhook never shows more than its owner's
 * own GET would. Nothing secret is ever in a body: task and list fields only.
 */
import { namedIn, presentChanges } from '../../activity/activity.presenter.js';
import { listsVisibleTo, peopleByIds } from '../../activity/activity.repository.js';
import type { StoredChanges } from '../../changes/activity-entries.js';
import type { Caller } from '../../caller.js';
import { presentAttachment } from '../../attachments/attachments.presenter.js';
import { findAttachment } from '../../attachments/attachments.repository.js';
import { presentComment } from '../../comments/comments.presenter.js';
import { findComment } from '../../comments/comments.repository.js';
import type {
  ActivityChanges,
  Attachment,
  Comment,
  Label,
  TaskDetail,
  TaskList,
  TaskStatus,
} from '../../contract/index.js';
import { WEBHOOK_TEST_EVENT } from '../../contract/webhooks.js';
import { presentList } from '../../lists/lists.presenter.js';
import { findList, isListMember } from '../../lists/lists.repository.js';
import { findLabel } from '../../labels/labels.repository.js';
import { findStatus } from '../../statuses/statuses.repository.js';
import type { Db } from '../../storage/schema.js';
import { presentDetail } from '../../tasks/tasks.presenter.js';
import { findDetail } from '../../tasks/tasks.repository.js';

/** What a delivery holds that its body is made of. */
export interface DeliverySource {
  eventId: number | null;
  type: string;
  /**
   * The outbox event's data: `{"listId"}`, `{"taskId"}` (and a deleted task's `number`, an
   * update's stored `changes`), or a test's.
   */
  data: string;
  occurredAt: string;
}

/** The object as GET answers it: the version behind its ETag is no field of the API's. */
function withoutVersion<T extends { version: number }>(object: T): Omit<T, 'version'> {
  const shown: Partial<T> = { ...object };
  delete shown.version;
  return shown as Omit<T, 'version'>;
}

type TaskData = TaskDetail | { id: number; number: number | null };
type ListData = TaskList | { id: number };

async function taskData(db: Db, owner: Caller, event: { taskId: number; number?: number }, deleted: boolean) {
  if (deleted) return { id: event.taskId, number: event.number ?? null };
  const row = await findDetail(db, owner, event.taskId);
  if (!row) return { id: event.taskId, number: event.number ?? null };
  if (!row.accessible) return { id: row.id, number: row.number };
  return withoutVersion(presentDetail(row, row.parts));
}

type CommentData = Comment | { id: number; taskId: number };

/** A comment as GET /v1/tasks/{id}/comments/{commentId} answers it: readable as its task is. */
async function commentData(
  db: Db,
  owner: Caller,
  event: { taskId: number; commentId: number },
  deleted: boolean,
): Promise<CommentData> {
  const gone = { id: event.commentId, taskId: event.taskId };
  if (deleted) return gone;
  const task = await findDetail(db, owner, event.taskId);
  const comment = task?.accessible ? await findComment(db, event.taskId, event.commentId) : undefined;
  return comment ? withoutVersion(presentComment(comment)) : gone;
}

/** An attachment as GET /v1/attachments/{id} answers it: readable as its task is; `{"id", "taskId"}` once gone. */
async function attachmentData(
  db: Db,
  owner: Caller,
  event: { taskId: number; attachmentId: number },
): Promise<Attachment | { id: number; taskId: number }> {
  const gone = { id: event.attachmentId, taskId: event.taskId };
  const task = await findDetail(db, owner, event.taskId);
  const attachment = task?.accessible ? await findAttachment(db, owner.teamId, event.attachmentId) : undefined;
  return attachment ? presentAttachment(attachment) : gone;
}

/** A workflow status as GET /v1/task-statuses shows it, or `{"id"}` once it is gone. */
async function statusData(db: Db, owner: Caller, statusId: number): Promise<TaskStatus | { id: number }> {
  return (await findStatus(db, owner.teamId, statusId)) ?? { id: statusId };
}

/** A label as GET /v1/labels shows it, or `{"id"}` once it is gone. */
async function labelData(db: Db, owner: Caller, labelId: number): Promise<Label | { id: number }> {
  return (await findLabel(db, owner.teamId, labelId)) ?? { id: labelId };
}

async function listData(db: Db, owner: Caller, listId: number): Promise<ListData> {
  const list = await findList(db, owner.teamId, listId);
  if (!list || !(await isListMember(db, listId, owner.userId))) return { id: listId };
  return withoutVersion(presentList(list));
}

/**
 * The changed fields' `{from, to}` of a `task.updated`, from the change's activity record, which
 * the outbox copied into the delivery's data (changes/outbox.ts): people and lists named as the
 * owner may see them, exactly as the task's activity shows them to the owner.
 */
async function changesOf(
  db: Db,
  owner: Caller,
  stored: StoredChanges | undefined,
): Promise<ActivityChanges | undefined> {
  if (!stored) return undefined;
  const { userIds, listIds } = namedIn([{ changes: stored }]);
  const [people, lists] = await Promise.all([peopleByIds(db, userIds), listsVisibleTo(db, owner.userId, listIds)]);
  return presentChanges(stored, people, lists);
}

/** The JSON text of the delivery's body, as `owner` may see it now. */
export async function buildBody(db: Db, owner: Caller, webhookId: string, source: DeliverySource): Promise<string> {
  const event = JSON.parse(source.data) as {
    taskId?: number;
    listId?: number;
    commentId?: number;
    attachmentId?: number;
    statusId?: number;
    labelId?: number;
    number?: number;
    changes?: StoredChanges;
    userId?: string;
  };
  let data:
    TaskData | CommentData | Attachment | ListData | TaskStatus | Label | { id: number } | { webhookId: string };
  if (source.type === WEBHOOK_TEST_EVENT) data = { webhookId };
  else if (event.statusId !== undefined) data = await statusData(db, owner, event.statusId);
  else if (event.labelId !== undefined) data = await labelData(db, owner, event.labelId);
  else if (event.attachmentId !== undefined && event.taskId !== undefined) {
    data = await attachmentData(db, owner, { taskId: event.taskId, attachmentId: event.attachmentId });
  } else if (event.commentId !== undefined && event.taskId !== undefined) {
    const comment = { taskId: event.taskId, commentId: event.commentId };
    data = await commentData(db, owner, comment, source.type === 'comment.deleted');
  } else if (event.taskId !== undefined) {
    data = await taskData(db, owner, { taskId: event.taskId, number: event.number }, source.type === 'task.deleted');
  } else data = await listData(db, owner, event.listId!);
  const body: Record<string, unknown> = { type: source.type, timestamp: source.occurredAt, data };
  // A reminder (task.dueSoon, task.overdue) is one person's: whom it reminded.
  if (event.userId !== undefined) body.remindedUserId = event.userId;
  // Only beside an object the owner may read: the old values are as private as the new.
  if (source.type === 'task.updated' && 'title' in data) {
    const changes = await changesOf(db, owner, event.changes);
    if (changes) body.changes = changes;
  }
  return JSON.stringify(body);
}
