import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { ActivityEntry, ActivityQuery } from '../contract/activity.js';
import { TaskIdParams } from '../contract/tasks.js';
import * as service from './activity.service.js';

export function activityRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/tasks/:taskId/activity',
    {
      schema: {
        summary:
          "A task's activity, newest first: its creation, each change with its fields' values before and after, and its comments added, edited or deleted (extension)",
        tags: ['Tasks'],
        params: TaskIdParams,
        querystring: ActivityQuery,
        response: { 200: Type.Array(ActivityEntry), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.taskActivity(request.store, request.caller, request.params.taskId, request.query),
  );
}
