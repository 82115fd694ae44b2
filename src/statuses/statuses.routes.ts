/** GET /v1/task-statuses (the spec's), and its management by owners and admins (an extension). */
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import {
  CreateStatusBody,
  DeleteStatusQuery,
  StatusDeleted,
  StatusIdParams,
  TaskStatus,
  UpdateStatusBody,
} from '../contract/statuses.js';
import * as service from './statuses.service.js';

const tags = ['Task statuses'];

export function statusesRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/task-statuses',
    {
      config: { scope: 'team:read' },
      schema: {
        summary: "The team's workflow statuses, by order",
        tags,
        response: { 200: Type.Array(TaskStatus), ...errorResponses() },
      },
    },
    async (request) => service.statusesOf(request.store, request.caller),
  );

  app.post(
    '/v1/task-statuses',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Add a workflow status (owners and admins); isDefault true makes it the only default',
        tags,
        body: CreateStatusBody,
        response: { 201: TaskStatus, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createStatusAs(request.store, request.caller, request.body)),
  );

  app.patch(
    '/v1/task-statuses/:statusId',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "Change a workflow status (owners and admins); a new isCompleted changes its tasks' isCompleted in the same step",
        tags,
        params: StatusIdParams,
        body: UpdateStatusBody,
        response: { 200: TaskStatus, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.updateStatusAs(request.store, request.caller, request.params.statusId, request.body),
  );

  app.delete(
    '/v1/task-statuses/:statusId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Delete a workflow status, moving its tasks to ?moveTo in the same step (owners and admins)',
        tags,
        params: StatusIdParams,
        querystring: DeleteStatusQuery,
        response: { 200: StatusDeleted, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) =>
      service.deleteStatusAs(request.store, request.caller, request.params.statusId, request.query.moveTo),
  );
}
