import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { ActivityEntry, ActivityEntryParams, ActivityPage, ActivityQuery } from '../contract/activity.js';
import { TaskIdParams } from '../contract/tasks.js';
import { sendPage } from '../http/next-page.js';
import * as service from './activity.service.js';

export function activityRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/tasks/:taskId/activity',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary:
          "A task's activity, newest first: its creation, each change with its fields' values before and after (long descriptions shortened), and its comments added, edited or deleted (extension)",
        tags: ['Tasks'],
        params: TaskIdParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPage, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await service.taskActivity(request.store, request.caller, request.params.taskId, request.query),
        'before',
      ),
  );

  app.get(
    '/v1/tasks/:taskId/activity/:entryId',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary: "One entry of a task's activity, whole: a description's texts are never shortened here (extension)",
        tags: ['Tasks'],
        params: ActivityEntryParams,
        response: { 200: ActivityEntry, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      service.activityEntry(request.store, request.caller, request.params.taskId, request.params.entryId),
  );
}
