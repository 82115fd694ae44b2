/** The signed-in user's API keys: /v1/api-keys (an extension). */
import { Type, type Static } from 'typebox';
import { LOWER_CASE, MAX_ID } from './common.js';

/**
 * What a scoped key may do (issue 33). A key without scopes keeps the full power it always had
 * (the published interface); a key with scopes may use only the routes whose scope it holds
 * (each route declares its scope in the route table: `config.scope`), and is refused with 403
 * naming the scope it lacks. Reading comments and activity is `tasks:read`.
 */
export const KEY_SCOPES = [
  'tasks:read',
  'tasks:write',
  'comments:write',
  'lists:read',
  'lists:write',
  'team:read',
] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The "read-only" and "agent" presets Settings offers. */
export const READ_ONLY_SCOPES: readonly KeyScope[] = ['tasks:read', 'lists:read', 'team:read'];
export const AGENT_SCOPES: readonly KeyScope[] = [
  'tasks:read',
  'tasks:write',
  'comments:write',
  'lists:read',
  'team:read',
];

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
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description:
      'What the key may do (docs/api.md, Scoped API keys); null: everything its user may (a key without scopes).',
  }),
  listIds: Type.Union([Type.Array(Type.Integer()), Type.Null()], {
    description: 'The only lists whose tasks the key may see and change; null: every list its user may use.',
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
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 32,
        description: `What the key may do, a non-empty set of: ${KEY_SCOPES.join(', ')}. Without it (and without preset) the key has its user's full power.`,
      }),
    ),
    preset: Type.Optional(
      Type.Union([Type.Literal('readOnly'), Type.Literal('agent')], {
        description: `A set of scopes by name (instead of scopes): readOnly = ${READ_ONLY_SCOPES.join(', ')}; agent = ${AGENT_SCOPES.join(', ')}.`,
      }),
    ),
    listIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), {
        maxItems: 1000,
        description: 'The only lists whose tasks the key may see and change: lists you are a member of, not archived.',
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

/** A key of the team with scopes or list limits, as its owners and admins see it (GET /v1/agent-access). */
export const AgentKey = Type.Object({
  ...ApiKey.properties,
  owner: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
});
export type AgentKey = Static<typeof AgentKey>;
