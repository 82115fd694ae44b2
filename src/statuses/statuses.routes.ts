import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { TaskStatus } from '../contract/statuses.js';
import { statusesOf } from './statuses.service.js';

export function statusesRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/task-statuses',
    {
      schema: {
        summary: "The team's workflow statuses, by order",
        tags: ['Task statuses'],
        response: { 200: Type.Array(TaskStatus), ...errorResponses() },
      },
    },
    async (request) => statusesOf(request.store, request.caller),
  );
}
