/**
 * The fixed sets of values the API speaks in. Plain constants with no imports, so the web app
 * can import them as values, and every list, check and type is derived from these.
 */

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const LIST_COLORS = [
  'Gray',
  'Red',
  'Orange',
  'Yellow',
  'Amber',
  'Lime',
  'Green',
  'Teal',
  'Sky',
  'Blue',
  'Purple',
  'Pink',
] as const;
export type ListColor = (typeof LIST_COLORS)[number];

/** A member's role in a team (workspace). */
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** The events GET /v1/events delivers for changes. */
export const CHANGE_EVENT_TYPES = [
  'taskList.created',
  'taskList.updated',
  'taskList.archived',
  'taskList.unarchived',
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'attachment.created',
  'attachment.deleted',
  'taskStatus.created',
  'taskStatus.updated',
  'taskStatus.deleted',
  'label.created',
  'label.updated',
  'label.deleted',
  'task.dueSoon',
  'task.overdue',
] as const;
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

/**
 * The events of the team itself, on GET /v1/events only (no webhook types: their bodies would carry
 * people's emails to outside URLs; docs/api.md, "Realtime events"). `team.updated` `{"teamId"}` and
 * `member.*` `{"userId"}` go to every member of the team, `invitation.*` `{"invitationId"}` to its
 * owners and admins.
 */
export const TEAM_EVENT_TYPES = [
  'team.updated',
  'member.joined',
  'member.updated',
  'member.removed',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
] as const;
export type TeamEventType = (typeof TEAM_EVENT_TYPES)[number];

/**
 * A person's own events (issue 30), to that person alone: `notification.created` and
 * `notification.updated` (read or unread, archived or back) `{"notificationId"}`, and
 * `notification.markedAll` `{"read"}`. Stream events only, not webhook event types.
 */
export const NOTIFICATION_EVENT_TYPES = [
  'notification.created',
  'notification.updated',
  'notification.markedAll',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENT_TYPES)[number];

/** Every type GET /v1/events sends for a change. */
/**
 * An import's own event (issue 32), to the person who applies it alone: `import.progress`
 * `{"importId"}` after each batch of its apply, and when it ends. A stream event only.
 */
export const IMPORT_EVENT_TYPES = ['import.progress'] as const;

export const STREAM_EVENT_TYPES = [
  ...CHANGE_EVENT_TYPES,
  ...TEAM_EVENT_TYPES,
  ...NOTIFICATION_EVENT_TYPES,
  ...IMPORT_EVENT_TYPES,
] as const;
export type StreamEventType = (typeof STREAM_EVENT_TYPES)[number];

/** Sent instead of a change when a stream cannot say what changed: refetch everything. */
export const SYNC_REQUIRED = 'sync.required';

/**
 * What a task's activity entry records (GET /v1/tasks/{id}/activity): its creation, a change of
 * its fields, links or parent, the comments added, edited or deleted on it, and the files
 * attached to it or removed (issue 31).
 */
export const ACTIVITY_KINDS = [
  'task.created',
  'task.updated',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'attachment.added',
  'attachment.removed',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** What GET /v1/tasks can sort by (`sort=<key>` ascending, `sort=-<key>` descending). */
export const TASK_SORT_KEYS = ['number', 'dueDate', 'priority', 'updatedAt', 'createdAt', 'title'] as const;
export type TaskSortKey = (typeof TASK_SORT_KEYS)[number];
export const TASK_SORTS = TASK_SORT_KEYS.flatMap((key) => [key, `-${key}`]) as `${'' | '-'}${TaskSortKey}`[];
export type TaskSortParam = (typeof TASK_SORTS)[number];

/**
 * What a notification is about (GET /v1/notifications): you were assigned or unassigned, mentioned,
 * someone commented on a task you follow, or changed its status; `dueSoon` and `overdue` are
 * reserved for due-date reminders (not sent yet).
 */
export const NOTIFICATION_KINDS = [
  'assigned',
  'unassigned',
  'mentioned',
  'commented',
  'statusChanged',
  'dueSoon',
  'overdue',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Where a kind of notification goes: the inbox, the inbox and email, or nowhere. */
export const NOTIFICATION_DELIVERIES = ['inbox', 'inboxAndEmail', 'off'] as const;
export type NotificationDelivery = (typeof NOTIFICATION_DELIVERIES)[number];

/** Until a person chooses, what goes where: being assigned and being mentioned also by email. */
export const DEFAULT_DELIVERY: Readonly<Record<NotificationKind, NotificationDelivery>> = {
  assigned: 'inboxAndEmail',
  unassigned: 'inbox',
  mentioned: 'inboxAndEmail',
  commented: 'inbox',
  statusChanged: 'inbox',
  dueSoon: 'inbox',
  overdue: 'inbox',
};
