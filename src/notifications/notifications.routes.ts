/** The inbox and following (issue 30): docs/api.md, "Notifications", has the rules. */
import { errorResponses } from '../contract/common.js';
import {
  Following,
  MarkAllBody,
  MarkedAll,
  Notification,
  NotificationIdParams,
  NotificationsPage,
  NotificationsQuery,
  UpdateNotificationBody,
} from '../contract/notifications.js';
import { TaskIdParams } from '../contract/tasks.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './notifications.service.js';

const tags = ['Notifications'];

export function notificationsRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/notifications',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Your notifications, newest first, about tasks you may read now; unread=true for the unread only',
        tags,
        querystring: NotificationsQuery,
        response: { 200: NotificationsPage, ...errorResponses(400) },
      },
    },
    async (request) => service.listNotifications(request.store, request.caller, request.query),
  );

  app.patch(
    '/v1/notifications/:notificationId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Mark one of your notifications read or unread, archive it or bring it back',
        tags,
        params: NotificationIdParams,
        body: UpdateNotificationBody,
        response: { 200: Notification, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      service.updateNotification(request.store, request.caller, request.params.notificationId, request.body),
  );

  app.post(
    '/v1/notifications/mark-all',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Mark every notification of your inbox read, or unread',
        tags,
        body: MarkAllBody,
        response: { 200: MarkedAll, ...errorResponses(400) },
      },
    },
    async (request) => service.markAll(request.store, request.caller, request.body),
  );

  app.get(
    '/v1/tasks/:taskId/follow',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary: 'Whether you follow the task',
        tags,
        params: TaskIdParams,
        response: { 200: Following, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.getFollowing(request.store, request.caller, request.params.taskId),
  );

  app.post(
    '/v1/tasks/:taskId/follow',
    {
      config: { scope: 'tasks:write' },
      schema: {
        summary: 'Follow the task: be notified of its comments and status changes',
        tags,
        params: TaskIdParams,
        response: { 200: Following, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.setFollowingTask(request.store, request.caller, request.params.taskId, true),
  );

  app.delete(
    '/v1/tasks/:taskId/follow',
    {
      config: { scope: 'tasks:write' },
      schema: {
        summary: 'Stop following the task (its creator and assignees too)',
        tags,
        params: TaskIdParams,
        response: { 200: Following, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.setFollowingTask(request.store, request.caller, request.params.taskId, false),
  );
}
