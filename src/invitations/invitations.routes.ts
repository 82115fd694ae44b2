/** Invitations (extension): /v1/invitations for owners and admins; the link's page's /auth endpoints. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import {
  AcceptInvitationBody,
  CreatedInvitation,
  CreateInvitationBody,
  Invitation,
  InvitationIdParams,
  InvitationPreview,
  InvitationRevoked,
  InvitationTokenBody,
} from '../contract/invitations.js';
import { SessionInfo } from '../contract/sessions.js';
import type { FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../http/app-types.js';
import type { FailedAuthBudget } from '../http/rate-limit.js';
import { setSessionCookie } from '../sessions/sessions.routes.js';
import { SESSION_TTL_MS } from '../sessions/sessions.service.js';
import * as service from './invitations.service.js';

const tags = ['Invitations'];

/** Where links point: PUBLIC_URL, else the origin this request was made to (as a trusted proxy reports it). */
const linkBase = (deps: AppDeps, request: FastifyRequest): string =>
  deps.config.publicUrl ?? `${request.protocol}://${request.host}`;

export function invitationsRoutes(app: App, deps: AppDeps): void {
  app.get(
    '/v1/invitations',
    {
      config: { scope: 'full' },
      schema: {
        summary: "The team's pending invitations, newest first (owners and admins)",
        tags,
        response: { 200: Type.Array(Invitation), ...errorResponses(403) },
      },
    },
    async (request) => service.invitationsOf(request.store, request.caller),
  );

  app.post(
    '/v1/invitations',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Invite someone into the team with a link, shown only in this answer (owners and admins)',
        tags,
        body: CreateInvitationBody,
        response: { 201: CreatedInvitation, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await service.createInvitation(request.store, request.caller, request.body, linkBase(deps, request))),
  );

  app.delete(
    '/v1/invitations/:invitationId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Revoke an invitation: its link stops working (owners and admins)',
        tags,
        params: InvitationIdParams,
        response: { 200: InvitationRevoked, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      await service.revokeInvitationAs(request.store, request.caller, request.params.invitationId);
      return { id: request.params.invitationId, revoked: true };
    },
  );
}

/** The link's page's endpoints: public (the token is the credential), budgeted like sign-in. */
export const invitationLinkRoutes = (budget: FailedAuthBudget) =>
  function registerInvitationLinkRoutes(app: App, _deps: AppDeps): void {
    const reserveToken = (request: FastifyRequest) => () => budget.reserveTokenAttempt(request.ip, request.log);

    app.post(
      '/auth/invitation',
      {
        schema: {
          summary: 'What an invitation link offers: the team, the role, who invited, until when',
          tags,
          security: [],
          body: InvitationTokenBody,
          response: { 200: InvitationPreview, ...errorResponses(400, 404, 410) },
        },
      },
      async (request) => service.previewInvitation(request.store, request.body.token, reserveToken(request)),
    );

    app.post(
      '/auth/accept-invitation',
      {
        schema: {
          summary:
            'Accept an invitation: a newcomer with name, email and a new password, or an existing account ' +
            'with its email and password (a name given with it is not used); signs in, as POST /auth/sign-in does',
          tags,
          security: [],
          body: AcceptInvitationBody,
          response: { 200: SessionInfo, ...errorResponses(400, 404, 409, 410, 503) },
        },
      },
      async (request, reply) => {
        const { token, info } = await service.acceptInvitation(request.store, request.body, {
          reserveToken: reserveToken(request),
          reservePassword: (account) => budget.reservePasswordAttempt(request.ip, account, request.log),
        });
        setSessionCookie(request, reply, token, SESSION_TTL_MS);
        return info;
      },
    );
  };
