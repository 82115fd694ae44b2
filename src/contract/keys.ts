/** The signed-in user's API keys: /v1/api-keys (an extension). */
import { Type, type Static } from 'typebox';
import { LOWER_CASE } from './common.js';

/** Longest expiry a key may be given, in days. */
export const MAX_EXPIRY_DAYS = 3650;

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When the key stops working (ISO 8601, UTC); null: never.',
  }),
});
export type ApiKey = Static<typeof ApiKey>;

export const CreateKeyBody = Type.Object(
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
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

/** A new key: its summary and, this once, its secret. */
export const CreatedKey = Type.Object({ ...ApiKey.properties, key: Type.String() });
export type CreatedKey = Static<typeof CreatedKey>;

export const KeyIdParams = Type.Object({ keyId: Type.String(LOWER_CASE) });

export const KeyRevoked = Type.Object({ id: Type.String(), revoked: Type.Boolean() });
export type KeyRevoked = Static<typeof KeyRevoked>;
