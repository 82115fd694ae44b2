/** API keys of the signed-in user (extension): managed from the web app's settings only. */
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { invalidInput, notFound } from '../http/errors.js';
import { errorResponses, LOWER_CASE } from '../http/schemas.js';
import { isUuid } from '../ids.js';
import { requireSession } from '../sessions/sessions.service.js';
import { ExpiryError, MAX_EXPIRY_DAYS, resolveExpiry } from './key-expiry.js';
import { insertKey, keysOf, revokeKey } from './keys.repository.js';

const tags = ['API keys'];
const KeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When the key stops working (ISO 8601, UTC); null: never.',
  }),
});
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
            expiresAt: Type.Optional(
              Type.String({ maxLength: 64, description: 'When the key stops working, e.g. 2026-12-31T23:59:59Z.' }),
            ),
            expiresInDays: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: MAX_EXPIRY_DAYS,
                description: 'Days from now until the key stops working (instead of expiresAt).',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ ...KeySummary.properties, key: Type.String() }), ...errorResponses(400, 403) },
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
        params: Type.Object({ keyId: Type.String(LOWER_CASE) }),
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
