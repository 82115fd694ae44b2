/** Notification preferences and the unsubscribe link (docs/api.md, "Notification email"). */
import { get, patch, post } from './client';
import type {
  NotificationPreferences,
  ReminderSettings,
  UpdateNotificationPreferencesBody,
  UpdateReminderSettingsBody,
} from '@contract';

export const fetchNotificationPreferences = () => get<NotificationPreferences>('/v1/me/notification-preferences');
export const updateNotificationPreferences = (change: UpdateNotificationPreferencesBody) =>
  patch<NotificationPreferences>('/v1/me/notification-preferences', change);
export const unsubscribeFromEmail = (token: string) =>
  post<{ unsubscribed: true }>(`/v1/mail/unsubscribe/${encodeURIComponent(token)}`);

/** When due-date reminders come (docs/api.md, "Due-date reminders"). */
export const fetchReminderSettings = () => get<ReminderSettings>('/v1/me/reminder-settings');
export const updateReminderSettings = (change: UpdateReminderSettingsBody) =>
  patch<ReminderSettings>('/v1/me/reminder-settings', change);
