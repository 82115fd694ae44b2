/** (extension) PATCH and DELETE /v1/members/{userId}: a member's role, and their removal. */
import { errorResponses } from '../contract/common.js';
import { Member, MemberParams, MemberRemoved, UpdateMemberBody } from '../contract/team.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as members from './members.service.js';

export function memberRoutes(app: App, _deps: AppDeps): void {
  app.patch(
    '/v1/members/:userId',
    {
      config: { scope: 'full', locksOwners: true },
      schema: {
        summary: "Change a member's role (owners and admins; only an owner changes an owner or makes one)",
        tags: ['Users'],
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: Member, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => members.changeRole(request.store, request.caller, request.params.userId, request.body.role),
  );

  app.delete(
    '/v1/members/:userId',
    {
      config: { scope: 'full', locksOwners: true },
      schema: {
        summary:
          'Remove a member from the team, with their list memberships and assignments; their keys, sessions ' +
          'and event streams stop at once (owners and admins; never the last owner)',
        tags: ['Users'],
        params: MemberParams,
        response: { 200: MemberRemoved, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await members.removeMemberAs(request.store, request.caller, request.params.userId);
      return { id: request.params.userId, removed: true };
    },
  );
}
