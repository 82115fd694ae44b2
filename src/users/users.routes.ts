import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { Member } from '../contract/team.js';
import { listMembers } from '../teams/teams.repository.js';

export function usersRoutes(app: App, { store }: AppDeps): void {
  app.get(
    '/v1/users',
    {
      schema: {
        summary: 'Every member of the team, with their workspace role, by name',
        tags: ['Users'],
        response: { 200: Type.Array(Member), ...errorResponses() },
      },
    },
    async (request) => listMembers(store.db, request.caller.teamId),
  );
}
