/** API keys of the signed-in user (extension): managed from the web app's settings only. */
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { isUuid } from '../ids.js';
import { requireSession } from '../sessions/sessions.service.js';
import { insertKey, keysOf, revokeKey } from './keys.repository.js';

const tags = ['API keys'];
const KeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});
const WHAT = 'Managing API keys';

export function keysRoutes(app: App, { store }: AppDeps): void {
  app.get(
    '/v1/api-keys',
    {
      schema: {
        summary: 'Your API keys in this team (signed-in session only)',
        tags,
        response: { 200: Type.Array(KeySummary), ...errorResponses(403) },
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
        body: Type.Object(
          {
            name: Type.String({
              minLength: 1,
              maxLength: 100,
              pattern: '\\S',
              errorMessage: 'name must be 1 to 100 characters with at least one non-whitespace character.',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ ...KeySummary.properties, key: Type.String() }), ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      requireSession(request.caller, WHAT);
      const { row, key } = await insertKey(store.db, { ...request.caller, name: request.body.name });
      return reply.code(201).send({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
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
        params: Type.Object({ keyId: Type.String() }),
        response: { 200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }), ...errorResponses(403, 404) },
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
