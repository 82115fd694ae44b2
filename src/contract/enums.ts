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
  'taskStatus.created',
  'taskStatus.updated',
  'taskStatus.deleted',
] as const;
export type ChangeEventType = (typeof CHANGE_EVENT_TYPES)[number];

/** Sent instead of a change when a stream cannot say what changed: refetch everything. */
export const SYNC_REQUIRED = 'sync.required';

/**
 * What a task's activity entry records (GET /v1/tasks/{id}/activity): its creation, a change of
 * its fields, links or parent, and the comments added, edited or deleted on it.
 */
export const ACTIVITY_KINDS = [
  'task.created',
  'task.updated',
  'comment.created',
  'comment.updated',
  'comment.deleted',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
