/** The web app's sign-in and account endpoints (outside the published /v1 interface). */
import { stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../http/app-types.js';
import { sessionCookieName } from '../http/session-cookie.js';
import type { FailedAuthBudget } from '../http/rate-limit.js';
import { errorResponses } from '../contract/common.js';
import {
  EmailChangeBody,
  PasswordChangeBody,
  PasswordChanged,
  ProfileBody,
  SessionInfo,
  SignedOut,
  SignInBody,
  SwitchTeamBody,
} from '../contract/sessions.js';
import { SESSION_TTL_MS } from './sessions.service.js';
import * as service from './sessions.service.js';

const tags = ['Web session'];

/** Sets (or, with an empty token and no time left, clears) the session cookie this connection uses. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeMs: number): void {
  const cookie = stringifySetCookie(sessionCookieName(request), token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    maxAge: Math.floor(maxAgeMs / 1000),
    secure: request.protocol === 'https',
  });
  reply.header('set-cookie', cookie);
}

/** Counts each password attempt against the request's address and the account before the password is hashed. */
const passwordAttempts =
  (budget: FailedAuthBudget, request: FastifyRequest): service.ReservePasswordAttempt =>
  (account) =>
    budget.reservePasswordAttempt(request.ip, account, request.log);

/** POST /auth/sign-in: public; wrong passwords spend the address's and the account's failed-authentication budgets. */
export const signInRoute = (budget: FailedAuthBudget) =>
  function registerSignIn(app: App, _deps: AppDeps): void {
    app.post(
      '/auth/sign-in',
      {
        schema: {
          summary: 'Sign in to the web app with email and password; sets the session cookie',
          tags,
          security: [],
          body: SignInBody,
          response: { 200: SessionInfo, ...errorResponses(400, 403, 503) },
        },
      },
      async (request, reply) => {
        const { token, info } = await service.signIn(request.store, request.body, passwordAttempts(budget, request));
        setSessionCookie(request, reply, token, SESSION_TTL_MS);
        return info;
      },
    );
  };

/** Endpoints for a signed-in session; registered behind the authentication hook. */
export const sessionRoutes = (budget: FailedAuthBudget) =>
  function registerSessionRoutes(app: App, _deps: AppDeps): void {
    app.addHook('preHandler', async (request) => service.requireSession(request.caller, 'This'));

    app.get(
      '/auth/session',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'The signed-in user, team, teams and CSRF token',
          tags,
          response: { 200: SessionInfo, ...errorResponses() },
        },
      },
      async (request) => service.sessionInfo(request.store, request.caller, request.caller.credential.csrfToken!),
    );

    app.post(
      '/auth/sign-out',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'End this session',
          tags,
          response: { 200: SignedOut, ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        await service.signOut(request.store, request.caller);
        setSessionCookie(request, reply, '', 0);
        return { signedOut: true };
      },
    );

    app.post(
      '/auth/team',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'Switch the team this session acts in',
          tags,
          body: SwitchTeamBody,
          response: { 200: SessionInfo, ...errorResponses(400, 403) },
        },
      },
      async (request) => service.switchTeam(request.store, request.caller, request.body.teamId),
    );

    app.patch(
      '/auth/profile',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'Change your display name',
          tags,
          body: ProfileBody,
          response: { 200: SessionInfo, ...errorResponses(400, 403) },
        },
      },
      async (request) => {
        await service.updateProfile(request.store, request.caller, request.body.name);
        return service.sessionInfo(request.store, request.caller, request.caller.credential.csrfToken!);
      },
    );

    app.post(
      '/auth/email',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'Change your own email, your sign-in, confirmed with your password (owners and admins)',
          tags,
          body: EmailChangeBody,
          response: { 200: SessionInfo, ...errorResponses(400, 403, 409, 503) },
        },
      },
      async (request) => {
        await service.changeOwnEmail(request.store, request.caller, request.body, passwordAttempts(budget, request));
        return service.sessionInfo(request.store, request.caller, request.caller.credential.csrfToken!);
      },
    );

    app.post(
      '/auth/password',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'Change your password (signs out your other sessions)',
          tags,
          body: PasswordChangeBody,
          response: { 200: PasswordChanged, ...errorResponses(400, 403, 409, 503) },
        },
      },
      async (request) => {
        await service.changePassword(request.store, request.caller, request.body, passwordAttempts(budget, request));
        return { changed: true };
      },
    );
  };
