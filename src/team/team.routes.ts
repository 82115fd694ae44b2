/** The caller and their team: GET /v1/me, GET /v1/users and PATCH /v1/team. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { Identity, Member, TeamRef, UpdateTeamBody } from '../contract/team.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './team.service.js';

export function teamRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/me',
    {
      config: { scope: 'team:read', allowFormerMember: true },
      schema: {
        summary: 'Who the API key belongs to: user, team and role',
        tags: ['Identity'],
        response: { 200: Identity, ...errorResponses(404) },
      },
    },
    async (request) => service.identity(request.store, request.caller),
  );

  app.patch(
    '/v1/team',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Rename the team (owners and admins); every member's event stream gets team.updated",
        tags: ['Identity'],
        body: UpdateTeamBody,
        response: { 200: TeamRef, ...errorResponses(400, 403) },
      },
    },
    async (request) => service.renameTeamAs(request.store, request.caller, request.body.name),
  );

  app.get(
    '/v1/users',
    {
      config: { scope: 'team:read' },
      schema: {
        summary: 'Every member of the team, with their role in it, by name',
        tags: ['Users'],
        response: { 200: Type.Array(Member), ...errorResponses() },
      },
    },
    async (request) => service.members(request.store, request.caller),
  );
}
