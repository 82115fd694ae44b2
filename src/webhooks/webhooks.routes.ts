/** Outgoing webhooks of the caller (extension): /v1/webhooks. docs/api.md, "Webhooks", has the wire format. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import {
  CreateWebhookBody,
  DeliveriesPage,
  DeliveriesQuery,
  DeliveryIdParams,
  UpdateWebhookBody,
  Webhook,
  WebhookAvailability,
  WebhookDeleted,
  WebhookDelivery,
  WebhookIdParams,
  WebhookWithSecret,
} from '../contract/webhooks.js';
import type { App, AppDeps } from '../http/app-types.js';
import { sendPage } from '../http/next-page.js';
import * as deliveryLog from './deliveries.service.js';
import * as service from './webhooks.service.js';

const tags = ['Webhooks'];

export function webhooksRoutes(app: App, deps: AppDeps): void {
  const config = deps.config.webhooks;

  app.get(
    '/v1/webhooks',
    {
      config: { scope: 'full' },
      schema: {
        summary: "Your webhooks (a team owner's or admin's: every webhook of the team), oldest first",
        tags,
        response: { 200: Type.Array(Webhook), ...errorResponses(403) },
      },
    },
    async (request) => service.listWebhooks(request.store, request.caller),
  );

  app.get(
    '/v1/webhook-availability',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Whether this server can make webhooks, and if not, why (its operator has not set them up)',
        tags,
        response: { 200: WebhookAvailability, ...errorResponses() },
      },
    },
    async () => service.webhookAvailability(config),
  );

  app.post(
    '/v1/webhooks',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Create a webhook; its signing secret is in this response only',
        tags,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createWebhook(request.store, config, request.caller, request.body)),
  );

  app.get(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'One webhook',
        tags,
        params: WebhookIdParams,
        response: { 200: Webhook, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.getWebhook(request.store, request.caller, request.params.webhookId),
  );

  app.patch(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          'Change a webhook (its owner), or disable it (a team owner or admin); enabling clears its failures (409 while the team holds more than its cap)',
        tags,
        params: WebhookIdParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) =>
      service.updateWebhook(request.store, config, request.caller, request.params.webhookId, request.body),
  );

  app.delete(
    '/v1/webhooks/:webhookId',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "Delete a webhook (yours; a team owner's or admin's: any of the team's), with its deliveries and their log",
        tags,
        params: WebhookIdParams,
        response: { 200: WebhookDeleted, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      await service.deleteWebhook(request.store, request.caller, request.params.webhookId);
      return { id: request.params.webhookId, deleted: true };
    },
  );

  app.post(
    '/v1/webhooks/:webhookId/rotate-secret',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'A new signing secret, shown once; the old one keeps signing beside it for 24 hours',
        tags,
        params: WebhookIdParams,
        response: { 200: WebhookWithSecret, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => service.rotateSecret(request.store, config, request.caller, request.params.webhookId),
  );

  app.post(
    '/v1/webhooks/:webhookId/test',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Queue a webhook.test delivery to the webhook',
        tags,
        params: WebhookIdParams,
        response: { 202: WebhookDelivery, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await service.sendTest(request.store, request.caller, request.params.webhookId)),
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "A webhook's deliveries, newest first, each with its newest attempt (bodies and every attempt: one delivery's read)",
        tags,
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesPage, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await deliveryLog.listDeliveries(request.store, request.caller, request.params.webhookId, request.query),
        'before',
      ),
  );

  app.get(
    '/v1/webhooks/:webhookId/deliveries/:deliveryId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'One delivery whole: the body as sent and its attempts, newest first',
        tags,
        params: DeliveryIdParams,
        response: { 200: WebhookDelivery, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      deliveryLog.getDelivery(request.store, request.caller, request.params.webhookId, request.params.deliveryId),
  );

  app.post(
    '/v1/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Send a delivery again (same webhook-id) when its turn comes',
        tags,
        params: DeliveryIdParams,
        response: { 202: WebhookDelivery, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await service.retryDelivery(
            request.store,
            request.caller,
            request.params.webhookId,
            request.params.deliveryId,
          ),
        ),
  );
}
