/** Agents' access (issue 33): the team's scoped and list-limited keys, for its owners and admins. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { AgentKey, KeyIdParams, KeyRevoked } from '../contract/keys.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './agent-access.service.js';

const tags = ['API keys'];

export function agentAccessRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/agent-access',
    {
      config: { scope: 'full' },
      schema: {
        summary: "The team's keys with scopes or list limits, whoever owns them (owners and admins)",
        tags,
        response: { 200: Type.Array(AgentKey), ...errorResponses(403) },
      },
    },
    async (request) => service.agentKeys(request.store, request.caller),
  );

  app.delete(
    '/v1/agent-access/:keyId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Revoke a key of the team with scopes or list limits (owners and admins)',
        tags,
        params: KeyIdParams,
        response: { 200: KeyRevoked, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      await service.revokeAgentKey(request.store, request.caller, request.params.keyId);
      return { id: request.params.keyId, revoked: true };
    },
  );
}
