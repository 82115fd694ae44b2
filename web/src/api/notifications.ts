/** Notification preferences and the unsubscribe link (docs/api.md, "Notification email"). */
import { get, patch, post } from './client';
import type { NotificationPreferences, UpdateNotificationPreferencesBody } from '@contract';

export const fetchNotificationPreferences = () => get<NotificationPreferences>('/v1/me/notification-preferences');
export const updateNotificationPreferences = (change: UpdateNotificationPreferencesBody) =>
  patch<NotificationPreferences>('/v1/me/notification-preferences', change);
export const unsubscribeFromEmail = (token: string) =>
  post<{ unsubscribed: true }>(`/v1/mail/unsubscribe/${encodeURIComponent(token)}`);
