/**
 * The body of a delivery: `{"type", "timestamp", "data"}`, built once, at its first attempt, and
 * then sent unchanged by every retry. `data` is the object as GET answers it for the webhook's
 * owner when the body is built (right after the commit, unless the worker is behind); an object
 * the owner may no longer read, or that is gone, is only its identity: `{"id"}` for a list,
 * `{"id", "number"}` for a task (so a deletion is `{"id", "number"}`). What the owner may read is
 * decided by the same reads the API answers with, so a webhook never shows more than its owner's
 * own GET would. Nothing secret is ever in a body: task and list fields only.
 */
import type { Caller } from '../caller.js';
import type { TaskDetail, TaskList } from '../contract/index.js';
import { WEBHOOK_TEST_EVENT } from '../contract/webhooks.js';
import { presentList } from '../lists/lists.presenter.js';
import { findList, isListMember } from '../lists/lists.repository.js';
import type { Db } from '../storage/schema.js';
import { presentDetail } from '../tasks/tasks.presenter.js';
import { findDetail } from '../tasks/tasks.repository.js';

/** What a delivery holds that its body is made of. */
export interface DeliverySource {
  eventId: number | null;
  type: string;
  /** The outbox event's data: `{"listId"}`, `{"taskId"}` (and a deleted task's `number`), or a test's. */
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

async function listData(db: Db, owner: Caller, listId: number): Promise<ListData> {
  const list = await findList(db, owner.teamId, listId);
  if (!list || !(await isListMember(db, listId, owner.userId))) return { id: listId };
  return withoutVersion(presentList(list));
}

/**
 * The changed fields' `{from, to}` of a `task.updated`, from the change's activity record. The
 * activity record (issue 16) is not in this release; once it is, read it here by
 * `source.eventId` (the outbox event the delivery announces) and return it: this is the one
 * place that adds `changes` to a body.
 */
async function changesOf(
  _db: Db,
  _source: DeliverySource,
): Promise<Record<string, { from: unknown; to: unknown }> | undefined> {
  return undefined;
}

/** The JSON text of the delivery's body, as `owner` may see it now. */
export async function buildBody(db: Db, owner: Caller, webhookId: string, source: DeliverySource): Promise<string> {
  const event = JSON.parse(source.data) as { taskId?: number; listId?: number; number?: number };
  let data: TaskData | ListData | { webhookId: string };
  if (source.type === WEBHOOK_TEST_EVENT) data = { webhookId };
  else if (event.taskId !== undefined) {
    data = await taskData(db, owner, { taskId: event.taskId, number: event.number }, source.type === 'task.deleted');
  } else data = await listData(db, owner, event.listId!);
  const body: Record<string, unknown> = { type: source.type, timestamp: source.occurredAt, data };
  // Only beside an object the owner may read: the old values are as private as the new.
  if (source.type === 'task.updated' && 'title' in data) {
    const changes = await changesOf(db, source);
    if (changes) body.changes = changes;
  }
  return JSON.stringify(body);
}
