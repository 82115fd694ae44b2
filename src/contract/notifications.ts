/**
 * The inbox (issue 30): GET /v1/notifications, PATCH /v1/notifications/{notificationId},
 * POST /v1/notifications/mark-all; following a task: GET/POST/DELETE /v1/tasks/{taskId}/follow.
 */
import { Type, type Static } from 'typebox';
import { PageLimit } from './activity.js';
import { IdParam, StringEnum } from './common.js';
import { NOTIFICATION_KINDS } from './enums.js';

export const NotificationsQuery = Type.Object(
  {
    limit: Type.Optional(PageLimit('notifications')),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,9}$',
        errorMessage: 'cursor must be the nextCursor of an earlier page.',
        description: 'The nextCursor of the page before: the notifications older than it.',
      }),
    ),
    unread: Type.Optional(
      StringEnum(['true', 'false'], {
        errorMessage: 'unread must be true or false.',
        description: 'true: only notifications not yet read; false or omitted: all (but the archived).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NotificationsQuery = Static<typeof NotificationsQuery>;

export const Notification = Type.Object({
  id: Type.Number(),
  kind: StringEnum(NOTIFICATION_KINDS, {
    description: 'dueSoon and overdue are due-date reminders (GET /v1/me/reminder-settings says when they come).',
  }),
  task: Type.Object({ id: Type.Number(), number: Type.Number(), title: Type.String({ description: 'As it is now.' }) }),
  actor: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
    description: 'Who made the change; null for an operator (`tasklane admin`) and for a reminder.',
  }),
  createdAt: Type.String(),
  readAt: Type.Union([Type.String(), Type.Null()]),
  late: Type.Boolean({
    description: 'true: a reminder that fired more than a minute after its time, because the server was down then.',
  }),
});
export type Notification = Static<typeof Notification>;

export const NotificationsPage = Type.Object({
  items: Type.Array(Notification, {
    description: 'Newest first; only notifications about tasks you may read now, never archived ones.',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null when none remains.',
  }),
});
export type NotificationsPage = Static<typeof NotificationsPage>;

export const NotificationIdParams = IdParam('notificationId');

export const UpdateNotificationBody = Type.Object(
  {
    read: Type.Optional(Type.Boolean({ errorMessage: 'read must be true or false.' })),
    archived: Type.Optional(
      Type.Boolean({
        errorMessage: 'archived must be true or false.',
        description: 'true: it leaves the inbox (it is kept, and can be brought back with false).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateNotificationBody = Static<typeof UpdateNotificationBody>;

export const MarkAllBody = Type.Object(
  { read: Type.Boolean({ errorMessage: 'read must be true or false.' }) },
  { additionalProperties: false },
);
export type MarkAllBody = Static<typeof MarkAllBody>;

export const MarkedAll = Type.Object({
  updated: Type.Number({ description: 'How many notifications of the inbox changed.' }),
});
export type MarkedAll = Static<typeof MarkedAll>;

export const Following = Type.Object({ taskId: Type.Number(), following: Type.Boolean() });
export type Following = Static<typeof Following>;
