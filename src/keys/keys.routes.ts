/** API keys of the signed-in user (extension): managed from the web app's settings only. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { ApiKey, CreatedKey, CreateKeyBody, KeyIdParams, KeyRevoked } from '../contract/keys.js';
import type { App, AppDeps } from '../http/app-types.js';
import * as service from './keys.service.js';

const tags = ['API keys'];

export function keysRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/api-keys',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Your API keys in this team (signed-in session only)',
        tags,
        response: { 200: Type.Array(ApiKey), ...errorResponses(403) },
      },
    },
    async (request) => service.ownKeys(request.store, request.caller),
  );

  app.post(
    '/v1/api-keys',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Create an API key; the secret is in this response only (signed-in session only)',
        tags,
        body: CreateKeyBody,
        response: { 201: CreatedKey, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createOwnKey(request.store, request.caller, request.body)),
  );

  app.delete(
    '/v1/api-keys/:keyId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Revoke one of your API keys (signed-in session only)',
        tags,
        params: KeyIdParams,
        response: { 200: KeyRevoked, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      await service.revokeOwnKey(request.store, request.caller, request.params.keyId);
      return { id: request.params.keyId, revoked: true };
    },
  );
}
