/** The caller and their team: GET /v1/me and GET /v1/users. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { Identity, Member } from '../contract/team.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './team.service.js';

export function teamRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/me',
    {
      config: { allowFormerMember: true },
      schema: {
        summary: 'Who the API key belongs to: user, team and role',
        tags: ['Identity'],
        response: { 200: Identity, ...errorResponses(404) },
      },
    },
    async (request) => service.identity(request.store, request.caller),
  );

  app.get(
    '/v1/users',
    {
      schema: {
        summary: 'Every member of the team, with their role in it, by name',
        tags: ['Users'],
        response: { 200: Type.Array(Member), ...errorResponses() },
      },
    },
    async (request) => service.members(request.store, request.caller),
  );
}
