/** The caller and their team: GET /v1/me, GET /v1/users, and (extension) PATCH/DELETE /v1/members/{userId}. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { Identity, Member, MemberParams, MemberRemoved, UpdateMemberBody } from '../contract/team.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as members from './members.service.js';
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

  app.patch(
    '/v1/members/:userId',
    {
      config: { locksOwners: true },
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
      config: { locksOwners: true },
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
