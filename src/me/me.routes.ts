import { notFound } from '../http/errors.js';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { Identity } from '../contract/team.js';
import { findTeam } from '../teams/teams.repository.js';
import { findUser } from '../users/users.repository.js';

export function meRoutes(app: App, { store }: AppDeps): void {
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
    async (request) => {
      const { caller } = request;
      if (caller.role === null) throw notFound('Membership not found.');
      const [user, team] = await Promise.all([findUser(store.db, caller.userId), findTeam(store.db, caller.teamId)]);
      if (!user || !team) throw notFound('Membership not found.');
      return {
        user: { id: user.id, name: user.name, email: user.email },
        team: { id: team.id, name: team.name },
        role: caller.role,
      };
    },
  );
}
