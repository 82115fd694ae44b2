/** API keys of the signed-in user (extension): managed from the web app's settings only. */
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { invalidInput, notFound } from '../http/errors.js';
import { errorResponses } from '../contract/common.js';
import { ApiKey, CreatedKey, CreateKeyBody, KeyIdParams, KeyRevoked } from '../contract/keys.js';
import { isUuid } from '../ids.js';
import { requireSession } from '../sessions/sessions.service.js';
import { ExpiryError, resolveExpiry } from './key-expiry.js';
import { insertKey, keysOf, revokeKey } from './keys.repository.js';

const tags = ['API keys'];
const WHAT = 'Managing API keys';

function expiryOf(request: { expiresAt?: string; expiresInDays?: number }): string | null {
  try {
    return resolveExpiry(request, { expiresAt: 'expiresAt', expiresInDays: 'expiresInDays' });
  } catch (error) {
    if (error instanceof ExpiryError) throw invalidInput(error.message);
    throw error;
  }
}

export function keysRoutes(app: App, { store }: AppDeps): void {
  app.get(
    '/v1/api-keys',
    {
      schema: {
        summary: 'Your API keys in this team (signed-in session only)',
        tags,
        response: { 200: Type.Array(ApiKey), ...errorResponses(403) },
      },
    },
    async (request) => {
      requireSession(request.caller, WHAT);
      return keysOf(store.db, request.caller.teamId, request.caller.userId);
    },
  );

  app.post(
    '/v1/api-keys',
    {
      schema: {
        summary: 'Create an API key; the secret is in this response only (signed-in session only)',
        tags,
        body: CreateKeyBody,
        response: { 201: CreatedKey, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      requireSession(request.caller, WHAT);
      const { name, ...expiry } = request.body;
      const { row, key } = await insertKey(store.db, { ...request.caller, name, expiresAt: expiryOf(expiry) });
      return reply.code(201).send({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        expiresAt: row.expires_at,
        key,
      });
    },
  );

  app.delete(
    '/v1/api-keys/:keyId',
    {
      schema: {
        summary: 'Revoke one of your API keys (signed-in session only)',
        tags,
        params: KeyIdParams,
        response: { 200: KeyRevoked, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      requireSession(request.caller, WHAT);
      const { keyId } = request.params;
      const mine =
        isUuid(keyId) &&
        (await keysOf(store.db, request.caller.teamId, request.caller.userId)).some((k) => k.id === keyId);
      if (!mine || !(await revokeKey(store.db, keyId))) throw notFound(`API key ${keyId} not found.`);
      return { id: keyId, revoked: true };
    },
  );
}
