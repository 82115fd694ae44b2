/** Notification preferences and email (issue 30; docs/api.md, "Notification email"). */
import type { FastifyRequest } from 'fastify';
import { errorResponses } from '../contract/common.js';
import {
  NotificationPreferences,
  UnsubscribeParams,
  Unsubscribed,
  UpdateNotificationPreferencesBody,
} from '../contract/mail.js';
import type { App, AppDeps } from '../http/app-types.js';
import type { FailedAuthBudget } from '../http/rate-limit.js';
import * as service from './mail.service.js';

const tags = ['Notifications'];

/** Whether this server sends email: config.ts refuses SMTP_URL without MAIL_FROM and PUBLIC_URL. */
const emailEnabled = (deps: AppDeps) => deps.config.mail.smtpUrl !== null;

export function mailRoutes(app: App, deps: AppDeps): void {
  app.get(
    '/v1/me/notification-preferences',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Where each kind of your notifications goes (the inbox, the inbox and email, or nowhere)',
        tags,
        response: { 200: NotificationPreferences, ...errorResponses() },
      },
    },
    async (request) => service.preferencesFor(request.store, request.caller, emailEnabled(deps)),
  );

  app.patch(
    '/v1/me/notification-preferences',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Change where some kinds of your notifications go; the kinds not named keep theirs',
        tags,
        body: UpdateNotificationPreferencesBody,
        response: { 200: NotificationPreferences, ...errorResponses(400) },
      },
    },
    async (request) => service.updatePreferences(request.store, request.caller, request.body, emailEnabled(deps)),
  );
}

/** The one-click unsubscribe link of every mail (RFC 8058): public, the token is the credential. */
export const unsubscribeRoute = (budget: FailedAuthBudget) =>
  function registerUnsubscribeRoute(app: App, _deps: AppDeps): void {
    const reserve = (request: FastifyRequest) => () => budget.reserveTokenAttempt(request.ip, request.log);
    // A mail client POSTs `List-Unsubscribe=One-Click` as a form (RFC 8058); the body says nothing else.
    app.addContentTypeParser(
      ['application/x-www-form-urlencoded', 'multipart/form-data'],
      (_request, payload, done) => {
        payload.resume();
        payload.on('end', () => done(null, undefined));
      },
    );
    app.post(
      '/v1/mail/unsubscribe/:token',
      {
        schema: {
          summary: "Unsubscribe from all email, as a mail's List-Unsubscribe link does (no key needed)",
          tags,
          security: [],
          params: UnsubscribeParams,
          response: { 200: Unsubscribed, ...errorResponses(400, 404) },
        },
      },
      async (request) => {
        await service.unsubscribeByLink(request.store, request.params.token, reserve(request));
        return { unsubscribed: true as const };
      },
    );
  };
