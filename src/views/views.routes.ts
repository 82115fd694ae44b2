/** Saved views (issue 29): /v1/views. docs/api.md, "Saved views", has the rules. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { CreateViewBody, UpdateViewBody, View, ViewDeleted, ViewIdParams } from '../contract/views.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './views.service.js';

const tags = ['Views'];

export function viewsRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/views',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Your views and the team's shared ones, by name",
        tags,
        response: { 200: Type.Array(View), ...errorResponses() },
      },
    },
    async (request) => service.listViews(request.store, request.caller),
  );

  app.post(
    '/v1/views',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Save a view: GET /v1/tasks filters, a sort and a layout, by name; private unless sharedWithTeam',
        tags,
        body: CreateViewBody,
        response: { 201: View, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createView(request.store, request.caller, request.body)),
  );

  app.get(
    '/v1/views/:viewId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'One view: yours, or one shared with the team',
        tags,
        params: ViewIdParams,
        response: { 200: View, ...errorResponses(400, 404) },
      },
    },
    async (request) => service.getView(request.store, request.caller, request.params.viewId),
  );

  app.patch(
    '/v1/views/:viewId',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Change a view: its author, or for a shared view the team's owners and admins",
        tags,
        params: ViewIdParams,
        body: UpdateViewBody,
        response: { 200: View, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => service.updateView(request.store, request.caller, request.params.viewId, request.body),
  );

  app.delete(
    '/v1/views/:viewId',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Delete a view: its author, or for a shared view the team's owners and admins",
        tags,
        params: ViewIdParams,
        response: { 200: ViewDeleted, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.deleteView(request.store, request.caller, request.params.viewId),
  );
}
