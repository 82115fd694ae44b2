import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../http/schemas.js';
import { listStatuses } from './statuses.repository.js';

const TaskStatus = Type.Object({
  id: Type.Number(),
  name: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: 'Hex colour, or null if unset.' }),
  isDefault: Type.Boolean(),
  isCompleted: Type.Boolean(),
  order: Type.Number(),
});

export function statusesRoutes(app: App, { store }: AppDeps): void {
  app.get(
    '/v1/task-statuses',
    {
      schema: {
        summary: "The team's workflow statuses, by order",
        tags: ['Task statuses'],
        response: { 200: Type.Array(TaskStatus), ...errorResponses() },
      },
    },
    async (request) => listStatuses(store.db, request.caller.teamId),
  );
}
