/**
 * The inbox and following (issue 30; docs/api.md, "Notifications"). A notification is its
 * recipient's alone: another person's, another team's, or one about a task the reader may no
 * longer read answers 404 alike, so nothing of it (its title) leaks. Following a task needs the
 * task's access, with the task's answers (404, 403).
 */
import type { Caller } from '../caller.js';
import { setFollowing } from '../changes/notifications.js';
import { recordEvent, usersAudience } from '../changes/outbox.js';
import type {
  Following,
  MarkAllBody,
  MarkedAll,
  Notification,
  NotificationsPage,
  NotificationsQuery,
  UpdateNotificationBody,
} from '../contract/index.js';
import { cursorBound, pageLimit } from '../activity/pages.js';
import { invalidInput, notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import type { Store } from '../storage/database.js';
import { keepAccessibleTask, loadAccessibleTask } from '../tasks/tasks.service.js';
import * as notifications from './notifications.repository.js';
import type { NotificationRecord } from './notifications.repository.js';

const present = ({ id, kind, task, actor, createdAt, readAt, late }: NotificationRecord): Notification => ({
  id,
  kind,
  task,
  actor,
  createdAt,
  readAt,
  late,
});

/** Newest first, `limit` a page, from `cursor` on; `unread=true`: the unread only. */
export async function listNotifications(
  store: Store,
  caller: Caller,
  query: NotificationsQuery,
): Promise<NotificationsPage> {
  const limit = pageLimit(query.limit);
  const rows = await notifications.inboxPage(store.db, caller, {
    through: cursorBound(query.cursor, 'before'),
    limit: limit + 1,
    unread: query.unread === 'true',
  });
  const items = rows.slice(0, limit).map(present);
  return { items, nextCursor: rows.length > limit ? String(items[items.length - 1]!.id) : null };
}

/** Marks the notification read or unread, archives it or brings it back. */
export async function updateNotification(
  store: Store,
  caller: Caller,
  rawId: string,
  body: UpdateNotificationBody,
): Promise<Notification> {
  if (body.read === undefined && body.archived === undefined) {
    throw invalidInput('Give read, archived or both.');
  }
  return store.transaction(async (trx) => {
    const id = toId(rawId);
    const found = id === null ? undefined : await notifications.findNotification(trx, caller, id);
    if (!found) throw notFound(`Notification ${rawId} not found.`);
    const now = new Date().toISOString();
    const readAt = body.read === undefined ? found.readAt : body.read ? (found.readAt ?? now) : null;
    const archived = body.archived ?? found.archived;
    if (readAt === found.readAt && archived === found.archived) return present(found);
    await notifications.updateNotification(trx, caller, found.id, {
      readAt,
      archivedAt: archived === found.archived ? undefined : archived ? now : null,
    });
    // The person's other tabs and devices: their bell and inbox follow.
    await recordEvent(trx, {
      teamId: caller.teamId,
      type: 'notification.updated',
      data: { notificationId: found.id },
      audience: usersAudience([caller.userId]),
    });
    return present((await notifications.findNotification(trx, caller, found.id))!);
  });
}

/** Marks every notification of the inbox read, or unread. */
export async function markAll(store: Store, caller: Caller, body: MarkAllBody): Promise<MarkedAll> {
  return store.transaction(async (trx) => {
    const updated = await notifications.markAll(trx, caller, body.read ? new Date().toISOString() : null);
    if (updated > 0) {
      await recordEvent(trx, {
        teamId: caller.teamId,
        type: 'notification.markedAll',
        data: { read: body.read },
        audience: usersAudience([caller.userId]),
      });
    }
    return { updated };
  });
}

/** Whether the caller follows the task. */
export async function getFollowing(store: Store, caller: Caller, rawTaskId: string): Promise<Following> {
  const task = await loadAccessibleTask(store.db, caller, rawTaskId);
  return { taskId: task.id, following: await notifications.isFollowing(store.db, task.id, caller.userId) };
}

/** Follows the task, or stops following it (a creator or assignee too). */
export async function setFollowingTask(
  store: Store,
  caller: Caller,
  rawTaskId: string,
  following: boolean,
): Promise<Following> {
  return store.transaction(async (trx) => {
    const task = await keepAccessibleTask(trx, caller, rawTaskId);
    await setFollowing(trx, task.id, [caller.userId], following);
    return { taskId: task.id, following };
  });
}
