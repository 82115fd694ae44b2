/**
 * OAuth 2.1 for MCP clients (issue 33; docs/mcp.md, "Authorization (OAuth 2.1)"): the metadata
 * documents (RFC 9728, RFC 8414), dynamic client registration (RFC 7591), the consent page's
 * endpoints (/auth/oauth/authorize) and the token endpoint. The access token is a scoped API key.
 */
import { Type, type Static } from 'typebox';
import { MAX_ID, MAX_IDS_PER_FIELD } from './common.js';
import { KEY_SCOPES } from './keys.js';

/** How long an access token (a scoped API key named `MCP: <client name>`) works, in days. */
export const OAUTH_TOKEN_DAYS = 30;
/** How long an authorization code may wait for its exchange, in seconds. */
export const OAUTH_CODE_SECONDS = 600;
/** Most redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;

/** RFC 9728: where the MCP endpoint's tokens come from. */
export const ProtectedResourceMetadata = Type.Object({
  resource: Type.String(),
  authorization_servers: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  bearer_methods_supported: Type.Array(Type.String()),
  resource_name: Type.String(),
});
export type ProtectedResourceMetadata = Static<typeof ProtectedResourceMetadata>;

/** RFC 8414: this server's authorization endpoints. */
export const AuthorizationServerMetadata = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  registration_endpoint: Type.String(),
  response_types_supported: Type.Array(Type.String()),
  grant_types_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  authorization_response_iss_parameter_supported: Type.Boolean({
    description: 'Every redirect back to the client carries iss, this server (RFC 9207).',
  }),
  scopes_supported: Type.Array(Type.String()),
});
export type AuthorizationServerMetadata = Static<typeof AuthorizationServerMetadata>;

/** RFC 7591's request, as much of it as a public client needs; other metadata is ignored. */
export const RegisterClientBody = Type.Object(
  {
    client_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, errorMessage: 'client_name must be 1 to 100 characters.' }),
    ),
    redirect_uris: Type.Array(Type.String({ maxLength: 2000 }), {
      minItems: 1,
      maxItems: MAX_REDIRECT_URIS,
      errorMessage: `redirect_uris must be 1 to ${MAX_REDIRECT_URIS} URIs.`,
    }),
  },
  { additionalProperties: true },
);
export type RegisterClientBody = Static<typeof RegisterClientBody>;

export const RegisteredClient = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  token_endpoint_auth_method: Type.Literal('none'),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  client_id_issued_at: Type.Integer(),
});
export type RegisteredClient = Static<typeof RegisteredClient>;

/** RFC 7591 §3.2.2's error body for a refused registration. */
export const RegistrationError = Type.Object({
  error: Type.String(),
  error_description: Type.String(),
});

const Param = (name: string, maxLength = 2000, example?: string) =>
  Type.String({
    maxLength,
    description: `The authorization request's ${name}.`,
    ...(example && { examples: [example] }),
  });

/** The authorization request's parameters, as the client put them in /oauth/authorize's query. */
export const AuthorizationRequest = Type.Object(
  {
    response_type: Param('response_type (code)', 100, 'code'),
    client_id: Param('client_id', 200),
    redirect_uri: Param('redirect_uri'),
    // RFC 7636's own example.
    code_challenge: Param('PKCE code_challenge (S256)', 200, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSljw-cM'),
    code_challenge_method: Param('code_challenge_method (S256)', 100, 'S256'),
    state: Type.Optional(Param('state')),
    scope: Type.Optional(Param('scope (space-separated key scopes)')),
    resource: Type.Optional(Param('resource (RFC 8707: this server’s /mcp)')),
  },
  { additionalProperties: false },
);
export type AuthorizationRequest = Static<typeof AuthorizationRequest>;

/** What the consent page shows about a valid request. */
export const ConsentInfo = Type.Object({
  clientName: Type.String(),
  redirectHost: Type.String({ description: 'The host the person will be sent back to.' }),
  requestedScopes: Type.Array(Type.String(), {
    description: 'The scopes to check at first: those the client asked for, else the agent preset.',
  }),
  scopesAvailable: Type.Array(Type.String(), { description: 'Every scope the person may grant.' }),
  tokenDays: Type.Integer(),
});
export type ConsentInfo = Static<typeof ConsentInfo>;

/** The person's answer on the consent page, with the request it answers. */
export const ConsentBody = Type.Object(
  {
    ...AuthorizationRequest.properties,
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')], {
      errorMessage: 'decision must be allow or deny.',
      examples: ['allow'],
    }),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 32,
        description: `The scopes granted, a non-empty set of: ${KEY_SCOPES.join(', ')}. Left out: those the request asked for (the agent preset when it named none).`,
      }),
    ),
    listIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), {
        maxItems: MAX_IDS_PER_FIELD,
        description: 'The only lists the token may see; leave it out for every list.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConsentBody = Static<typeof ConsentBody>;

export const ConsentAnswer = Type.Object({
  redirectTo: Type.String({
    description: 'Where the browser goes next: the redirect_uri with code or error, and state.',
  }),
});
export type ConsentAnswer = Static<typeof ConsentAnswer>;

/** The token request (application/x-www-form-urlencoded, RFC 6749 §4.1.3 with PKCE and RFC 8707). */
export const TokenBody = Type.Object(
  {
    grant_type: Type.String({ maxLength: 100 }),
    code: Type.Optional(Type.String({ maxLength: 200 })),
    redirect_uri: Type.Optional(Type.String({ maxLength: 2000 })),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    code_verifier: Type.Optional(Type.String({ maxLength: 200 })),
    resource: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
export type TokenBody = Static<typeof TokenBody>;

export const TokenAnswer = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});
export type TokenAnswer = Static<typeof TokenAnswer>;

/** RFC 6749 §5.2: the token endpoint's own error body (an exception to `{"error": "<message>"}`). */
export const TokenError = Type.Object({
  error: Type.String({ description: 'invalid_request, invalid_client, invalid_grant, unsupported_grant_type…' }),
  error_description: Type.String(),
});
