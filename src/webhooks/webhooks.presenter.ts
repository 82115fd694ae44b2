/** Webhooks and their deliveries as the API shows them: never a secret, except once beside its webhook. */
import type { Webhook, WebhookDelivery, WebhookDeliverySummary, WebhookWithSecret } from '../contract/webhooks.js';
import type { DeliveryRecord, DeliverySummaryRecord } from './deliveries.repository.js';
import { messageIdOf } from './delivery/signing.js';
import type { WebhookRecord } from './webhooks.repository.js';

export function presentWebhook(webhook: WebhookRecord): Webhook {
  const { id, url, description, eventTypes, enabled, disabledReason, disabledAt, failingSince } = webhook;
  return {
    id,
    url,
    description,
    eventTypes,
    enabled,
    disabledReason,
    disabledAt,
    failingSince,
    previousSecretExpiresAt: webhook.previousSecretExpiresAt,
    owner: webhook.owner,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

export function presentWithSecret(webhook: WebhookRecord, secret: string): WebhookWithSecret {
  return { ...presentWebhook(webhook), secret };
}

export function presentDeliverySummary(delivery: DeliverySummaryRecord): WebhookDeliverySummary {
  return {
    id: delivery.id,
    messageId: messageIdOf(delivery.id),
    type: delivery.type,
    status: delivery.status,
    occurredAt: delivery.occurredAt,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    finishedAt: delivery.finishedAt,
    lastAttempt: delivery.lastAttempt,
  };
}

export function presentDelivery(delivery: DeliveryRecord): WebhookDelivery {
  return { ...presentDeliverySummary(delivery), payload: delivery.payload, attempts: delivery.attempts };
}
