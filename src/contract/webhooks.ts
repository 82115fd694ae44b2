/** Outgoing webhooks: /v1/webhooks (an extension; docs/api.md, "Webhooks"). */
import { Type, type Static } from 'typebox';
import { IdParam, NullableString, Nullable, Page, Person, StringEnum, Uuid } from './common.js';
import { CHANGE_EVENT_TYPES } from './enums.js';

/** The body `type` of the delivery POST /v1/webhooks/{id}/test sends. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** Most webhooks one team may have: each event is written once per subscribed webhook. */
export const MAX_WEBHOOKS_PER_TEAM = 50;

const EventTypes = Type.Array(StringEnum(CHANGE_EVENT_TYPES), {
  minItems: 1,
  maxItems: CHANGE_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types to send (those of GET /v1/events).',
  errorMessage: `eventTypes must list one or more distinct event types of ${CHANGE_EVENT_TYPES.join(', ')}.`,
});

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The event types it receives; null: every event type, also ones added later.',
  }),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it was disabled: by whom, after 410 Gone, or after failing for days.',
  }),
  disabledAt: NullableString,
  failingSince: Type.Union([Type.String(), Type.Null()], {
    description: 'When its current run of failed attempts began; null after a success.',
  }),
  previousSecretExpiresAt: Type.Union([Type.String(), Type.Null()], {
    description: 'After a rotation, until when the previous secret still signs beside the new one.',
  }),
  owner: Person,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type Webhook = Static<typeof Webhook>;

/** GET /v1/webhook-availability: whether this server can make webhooks, and if not, why. */
export const WebhookAvailability = Type.Object({
  available: Type.Boolean({ description: 'Whether webhooks can be created and sent on this server.' }),
  reason: Nullable(Type.String({ description: 'Why not, for a person: null when available.' })),
});
export type WebhookAvailability = Static<typeof WebhookAvailability>;

/** A webhook with its signing secret: only in the answer that creates it or rotates the secret. */
export const WebhookWithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({ description: 'whsec_ and the key in base64 (Standard Webhooks); shown this once.' }),
});
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  description: 'Where events are POSTed: https (http only for hosts in WEBHOOK_ALLOW_HOSTS).',
  errorMessage: `url must be an https URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters.`,
});
const Description = Type.String({
  maxLength: 500,
  errorMessage: 'description must be at most 500 characters.',
});

export const CreateWebhookBody = Type.Object(
  { url: Url, description: Type.Optional(Description), eventTypes: Type.Optional(EventTypes) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    eventTypes: Type.Optional(Nullable(EventTypes)),
    enabled: Type.Optional(Type.Boolean({ errorMessage: 'enabled must be true or false.' })),
  },
  { additionalProperties: false },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookIdParams = Type.Object({ webhookId: Uuid({ errorMessage: 'webhookId must be a UUID.' }) });
export const DeliveryIdParams = Type.Object({
  ...WebhookIdParams.properties,
  ...IdParam('deliveryId').properties,
});

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'How many deliveries to return, newest first (default 50).',
        errorMessage: 'limit must be a whole number from 1 to 100.',
      }),
    ),
    before: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Only deliveries with a smaller id: the next page.',
        errorMessage: 'before must be a delivery id.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookAttempt = Type.Object({
  attemptedAt: Type.String(),
  durationMs: Type.Integer(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status; null when none came.' }),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KB of the response.' }),
  error: NullableString,
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When it is tried again after this attempt; null after the last.',
  }),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * A delivery as its webhook's log lists it: what happened, and its newest attempt. Its body and
 * every attempt are in GET /v1/webhooks/{webhookId}/deliveries/{deliveryId}, one delivery at a
 * time: a body holds a whole task (descriptions of up to 100,000 characters and their change).
 */
export const WebhookDeliverySummary = Type.Object({
  id: Type.Integer(),
  messageId: Type.String({ description: 'The webhook-id header: the same on every attempt.' }),
  type: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  occurredAt: Type.String(),
  attemptCount: Type.Integer({ description: 'The attempts logged (each is kept for 30 days).' }),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], {
    description: 'When a pending delivery is tried next (it waits while its webhook is disabled).',
  }),
  finishedAt: NullableString,
  lastAttempt: Type.Union([WebhookAttempt, Type.Null()], {
    description: 'The newest attempt; null before the first.',
  }),
});
export type WebhookDeliverySummary = Static<typeof WebhookDeliverySummary>;

/** A page of a webhook's deliveries, newest first. */
export const DeliveriesPage = Page(WebhookDeliverySummary, '`before=<id of the last delivery>`');

/** One delivery whole: its summary, the body as sent and every attempt logged. */
export const WebhookDelivery = Type.Object({
  ...WebhookDeliverySummary.properties,
  payload: Type.Union([Type.String(), Type.Null()], {
    description: 'The body as sent, JSON text; null before the first attempt.',
  }),
  attempts: Type.Array(WebhookAttempt, { description: 'Newest first; each is kept for 30 days.' }),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });
export type WebhookDeleted = Static<typeof WebhookDeleted>;
