/** The web app's sign-in and account endpoints (outside the published /v1 interface). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { SESSION_COOKIE } from '../http/auth.js';
import type { FailedAuthBudget } from '../http/rate-limit.js';
import { errorResponses, Uuid } from '../http/schemas.js';
import { SESSION_TTL_MS } from './sessions.repository.js';
import * as service from './sessions.service.js';

const tags = ['Web session'];

const SessionInfo = Type.Object({
  user: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
  team: Type.Object({ id: Type.String(), name: Type.String() }),
  role: Type.String(),
  teams: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
  csrfToken: Type.String({ description: 'Send it as x-csrf-token with every change made with this session.' }),
});

const Password = (name: string) =>
  Type.String({ minLength: 8, maxLength: 200, errorMessage: `${name} must be 8 to 200 characters long.` });

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeMs: number): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure}`,
  );
}

/** POST /auth/sign-in: public; failed attempts spend the address's failed-authentication budget. */
export const signInRoute = (budget: FailedAuthBudget) =>
  function registerSignIn(app: App, { store }: AppDeps): void {
    app.post(
      '/auth/sign-in',
      {
        schema: {
          summary: 'Sign in to the web app with email and password; sets the session cookie',
          tags,
          security: [],
          body: Type.Object(
            {
              email: Type.String({ minLength: 1, maxLength: 320, errorMessage: 'email is required.' }),
              password: Type.String({ minLength: 1, maxLength: 200, errorMessage: 'password is required.' }),
              teamId: Type.Optional(Uuid({ errorMessage: 'teamId must be a team ID (UUID).' })),
            },
            { additionalProperties: false },
          ),
          response: { 200: SessionInfo, ...errorResponses(400, 403) },
        },
      },
      async (request, reply) => {
        await budget.check(request.ip);
        try {
          const { token, info } = await service.signIn(store, request.body);
          setSessionCookie(request, reply, token, SESSION_TTL_MS);
          return info;
        } catch (error) {
          await budget.recordFailure(request.ip);
          throw error;
        }
      },
    );
  };

/** Endpoints for a signed-in session; registered behind the authentication hook. */
export function sessionRoutes(app: App, { store }: AppDeps): void {
  app.addHook('preHandler', async (request) => service.requireSession(request.caller, 'This'));

  app.get(
    '/auth/session',
    {
      schema: {
        summary: 'The signed-in user, team, teams and CSRF token',
        tags,
        response: { 200: SessionInfo, ...errorResponses() },
      },
    },
    async (request) => service.sessionInfo(store, request.caller, request.caller.credential.csrfToken!),
  );

  app.post(
    '/auth/sign-out',
    {
      schema: {
        summary: 'End this session',
        tags,
        response: { 200: Type.Object({ signedOut: Type.Boolean() }), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      await service.signOut(store, request.caller);
      setSessionCookie(request, reply, '', 0);
      return { signedOut: true };
    },
  );

  app.post(
    '/auth/team',
    {
      schema: {
        summary: 'Switch the team this session acts in',
        tags,
        body: Type.Object(
          { teamId: Uuid({ errorMessage: 'teamId must be a team ID (UUID).' }) },
          { additionalProperties: false },
        ),
        response: { 200: SessionInfo, ...errorResponses(400, 403) },
      },
    },
    async (request) => service.switchTeam(store, request.caller, request.body.teamId),
  );

  app.patch(
    '/auth/profile',
    {
      schema: {
        summary: 'Change your display name',
        tags,
        body: Type.Object(
          {
            name: Type.String({
              minLength: 1,
              maxLength: 200,
              pattern: '\\S',
              errorMessage: 'name must be 1 to 200 characters with at least one non-whitespace character.',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionInfo, ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      await service.updateProfile(store, request.caller, request.body.name);
      return service.sessionInfo(store, request.caller, request.caller.credential.csrfToken!);
    },
  );

  app.post(
    '/auth/password',
    {
      schema: {
        summary: 'Change your password (signs out your other sessions)',
        tags,
        body: Type.Object(
          {
            currentPassword: Type.String({ errorMessage: 'currentPassword is required.' }),
            newPassword: Password('newPassword'),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ changed: Type.Boolean() }), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      await service.changePassword(store, request.caller, request.body);
      return { changed: true };
    },
  );
}
