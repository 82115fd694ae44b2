/**
 * OAuth 2.1 for MCP clients (issue 33; docs/api.md, "OAuth for MCP clients"): the metadata
 * documents, registration, the authorization page and the token endpoint (public: the client has
 * no credential yet), and the consent page's endpoints (/auth/oauth/authorize, a signed-in session).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponses } from '../contract/common.js';
import { KEY_SCOPES } from '../contract/keys.js';
import {
  AuthorizationRequest,
  AuthorizationServerMetadata,
  ConsentAnswer,
  ConsentBody,
  ConsentInfo,
  ProtectedResourceMetadata,
  RegisterClientBody,
  RegisteredClient,
  RegistrationError,
  TokenAnswer,
  TokenBody,
  TokenError,
} from '../contract/oauth.js';
import type { App, AppDeps } from '../http/app-types.js';
import { AppError } from '../http/errors.js';
import { publicUrlOf } from '../http/public-url.js';
import type { FailedAuthBudget } from '../http/rate-limit.js';
import { validationMessage } from '../http/validation.js';
import { WEB_PAGE_HEADERS } from '../http/web.js';
import * as service from './oauth.service.js';

const tags = ['OAuth for MCP clients'];

export function oauthRoutes(budget: FailedAuthBudget) {
  return async function registerOAuthRoutes(app: App, deps: AppDeps): Promise<void> {
    const base = (request: FastifyRequest) => publicUrlOf(deps.config, request);

    const protectedResource = async (request: FastifyRequest, reply: FastifyReply) => {
      // Public facts, read by clients of any origin (a browser-based MCP client too): no cookie is involved.
      reply.header('access-control-allow-origin', '*');
      return {
        resource: service.mcpResourceOf(base(request)),
        authorization_servers: [base(request)],
        scopes_supported: [...KEY_SCOPES],
        bearer_methods_supported: ['header'],
        resource_name: 'tasklane',
      };
    };
    const resourceSchema = {
      summary: 'Protected-resource metadata of /mcp (RFC 9728): where its tokens come from',
      tags,
      security: [],
      response: { 200: ProtectedResourceMetadata, ...errorResponses() },
    };
    app.get('/.well-known/oauth-protected-resource', { schema: resourceSchema }, protectedResource);
    app.get('/.well-known/oauth-protected-resource/mcp', { schema: resourceSchema }, protectedResource);

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        schema: {
          summary: "Authorization-server metadata (RFC 8414): this server's OAuth endpoints",
          tags,
          security: [],
          response: { 200: AuthorizationServerMetadata, ...errorResponses() },
        },
      },
      async (request, reply) => {
        reply.header('access-control-allow-origin', '*');
        const url = base(request);
        return {
          issuer: url,
          authorization_endpoint: `${url}/oauth/authorize`,
          token_endpoint: `${url}/oauth/token`,
          registration_endpoint: `${url}/oauth/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          authorization_response_iss_parameter_supported: true,
          scopes_supported: [...KEY_SCOPES],
        };
      },
    );

    // Registration and the token endpoint answer errors in OAuth's own shape (RFC 7591, RFC 6749 §5.2).
    await app.register(async (plugin) => {
      const scope = plugin as unknown as App;
      scope.setErrorHandler(oauthErrorHandler);
      // The token request is a form (RFC 6749 §4.1.3); a parameter given twice is refused (§3.2).
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
        const params = new URLSearchParams(body as string);
        const form: Record<string, string> = {};
        for (const [name, value] of params) {
          if (name in form)
            return done(new service.OAuthError('invalid_request', `${name} is given twice.`), undefined);
          form[name] = value;
        }
        done(null, form);
      });

      scope.post(
        '/oauth/register',
        {
          config: { oauthErrorCode: 'invalid_client_metadata' },
          schema: {
            summary: 'Register an OAuth client (RFC 7591): a public client, with its redirect URIs',
            tags,
            security: [],
            body: RegisterClientBody,
            response: { 201: RegisteredClient, 400: RegistrationError, ...errorResponses() },
          },
        },
        async (request, reply) => {
          reply.code(201).header('cache-control', 'no-store');
          return service.registerClient(request.store, request.body);
        },
      );

      scope.post(
        '/oauth/token',
        {
          config: { oauthErrorCode: 'invalid_request' },
          schema: {
            summary: 'Exchange an authorization code and its PKCE verifier for an access token (a scoped API key)',
            tags,
            security: [],
            consumes: ['application/x-www-form-urlencoded'],
            body: TokenBody,
            response: { 200: TokenAnswer, 400: TokenError, ...errorResponses() },
          },
        },
        async (request, reply) => {
          reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
          return service.exchangeCode(request.store, request.body, base(request), () =>
            budget.reserveTokenAttempt(request.ip, request.log),
          );
        },
      );
    });

    // The authorization endpoint: the web app's consent page, once the client and its redirect URI
    // are known; other problems go back to the client; an unknown one is shown here, never redirected.
    app.get('/oauth/authorize', { schema: { hide: true } }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const params = Object.fromEntries(
        Object.entries(query).filter(([, value]) => typeof value === 'string'),
      ) as unknown as AuthorizationRequest;
      try {
        await service.checkRequest(request.store, params, base(request));
      } catch (error) {
        if (error instanceof service.UnsafeAuthorizationRequest) return errorPage(reply, error.message);
        if (error instanceof service.OAuthError) {
          const to = service.redirectWith(params.redirect_uri, base(request), {
            error: error.code,
            error_description: error.message,
            state: params.state,
          });
          return reply.code(302).header('location', to).header('cache-control', 'no-store').send();
        }
        throw error;
      }
      if (!app.sendWebPage) return errorPage(reply, 'This server has no web app to ask for your consent.', 503);
      return app.sendWebPage(reply);
    });
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The OAuth error code a schema failure of this route is (RFC 6749 §5.2, RFC 7591 §3.2.2). */
    oauthErrorCode?: string;
  }
}

/** OAuthError and schema failures as `{error, error_description}`; everything else as the app answers it. */
function oauthErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof service.OAuthError) {
    reply.code(error.status).type('application/json').send({ error: error.code, error_description: error.message });
    return;
  }
  const validation = (error as FastifyError).validation;
  if (validation) {
    const description = validationMessage(validation as never, (error as FastifyError).validationContext);
    const code = request.routeOptions.config.oauthErrorCode ?? 'invalid_request';
    reply.code(400).type('application/json').send({ error: code, error_description: description });
    return;
  }
  // Anything else the client got wrong (a malformed body, an unknown query parameter): still
  // OAuth's shape, as the route's 400 promises. Server errors and 429s go to the app's handler.
  const code = request.routeOptions.config.oauthErrorCode ?? 'invalid_request';
  if (error instanceof AppError && error.status === 400) {
    // Not the body's metadata: a query parameter the endpoint does not take (http/unknown-query.ts).
    reply.code(400).type('application/json').send({ error: 'invalid_request', error_description: error.message });
    return;
  }
  if ((error as FastifyError).statusCode === 400) {
    reply.code(400).type('application/json').send({ error: code, error_description: 'The request is malformed.' });
    return;
  }
  throw error;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A page that tells the person why the request cannot go on (no script; the web app's headers). */
function errorPage(reply: FastifyReply, message: string, status = 400): FastifyReply {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Authorization failed · tasklane</title></head>' +
    '<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem">' +
    '<main><h1>This application cannot be authorized</h1>' +
    `<p>${escapeHtml(message)}</p>` +
    '<p>Nothing was shared with it. Go back to the application and connect again.</p></main></body></html>';
  return reply.code(status).headers(WEB_PAGE_HEADERS).send(html);
}

/** The consent page's endpoints: a signed-in session, CSRF-checked like every /auth change. */
export function consentRoutes(app: App, deps: AppDeps): void {
  const base = (request: FastifyRequest) => publicUrlOf(deps.config, request);
  app.get(
    '/auth/oauth/authorize',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'The consent page: the application asking, where it sends you back, the scopes it asks for',
        tags,
        querystring: AuthorizationRequest,
        response: { 200: ConsentInfo, ...errorResponses(400, 403) },
      },
    },
    async (request) => service.consentInfo(request.store, request.caller, request.query, base(request)),
  );
  app.post(
    '/auth/oauth/authorize',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Allow or deny an application's authorization request; answers where the browser goes next",
        tags,
        body: ConsentBody,
        response: { 200: ConsentAnswer, ...errorResponses(400, 403) },
      },
    },
    async (request) => service.decide(request.store, request.caller, request.body, base(request)),
  );
}
