/** The caller's webhooks (and, for a team's owners and admins, everyone's): /v1/webhooks. */
import { del, get, getPage, patch, post } from './client';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookAvailability,
  WebhookDeleted,
  WebhookDelivery,
  WebhookDeliverySummary,
  WebhookWithSecret,
} from '@contract';

const pathOf = (webhookId: string) => `/v1/webhooks/${encodeURIComponent(webhookId)}`;

/** Whether this server can make webhooks at all, and if not, why (its operator's set-up). */
export const fetchWebhookAvailability = () => get<WebhookAvailability>('/v1/webhook-availability');
export const fetchWebhooks = () => get<Webhook[]>('/v1/webhooks');
export const createWebhook = (body: CreateWebhookBody) => post<WebhookWithSecret>('/v1/webhooks', body);
export const updateWebhook = (webhookId: string, body: UpdateWebhookBody) => patch<Webhook>(pathOf(webhookId), body);
export const deleteWebhook = (webhookId: string) => del<WebhookDeleted>(pathOf(webhookId));
export const rotateSecret = (webhookId: string) => post<WebhookWithSecret>(`${pathOf(webhookId)}/rotate-secret`);
export const sendTest = (webhookId: string) => post<WebhookDelivery>(`${pathOf(webhookId)}/test`);
/** A page of the delivery log, newest first (with `before`, the deliveries older than that id): no bodies. */
export function fetchDeliveries(webhookId: string, before?: number) {
  const query = before === undefined ? undefined : new URLSearchParams({ before: String(before) });
  return getPage<WebhookDeliverySummary>(`${pathOf(webhookId)}/deliveries`, query);
}
/** One delivery whole: the body as sent and its attempts. */
export const fetchDelivery = (webhookId: string, deliveryId: number) =>
  get<WebhookDelivery>(`${pathOf(webhookId)}/deliveries/${deliveryId}`);
export const retryDelivery = (webhookId: string, deliveryId: number) =>
  post<WebhookDelivery>(`${pathOf(webhookId)}/deliveries/${deliveryId}/retry`);
