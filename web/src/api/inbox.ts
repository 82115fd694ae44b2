/** The inbox: /v1/notifications (docs/api.md, "Notifications"). */
import { get, patch, post } from './client';
import type { MarkedAll, Notification, NotificationsPage, UpdateNotificationBody } from '@contract';

/** Most notifications a page asks for; the bell counts up to this many unread. */
export const INBOX_PAGE = 100;

export function fetchNotifications(options: { unread?: boolean; cursor?: string | null } = {}) {
  const query = new URLSearchParams({ limit: String(INBOX_PAGE) });
  if (options.unread) query.set('unread', 'true');
  if (options.cursor) query.set('cursor', options.cursor);
  return get<NotificationsPage>('/v1/notifications', query);
}
export const updateNotification = (id: number, change: UpdateNotificationBody) =>
  patch<Notification>(`/v1/notifications/${id}`, change);
export const markAllNotifications = (read: boolean) => post<MarkedAll>('/v1/notifications/mark-all', { read });
