/** The caller's webhooks (and, for a team's owners and admins, everyone's): /v1/webhooks. */
import { del, get, patch, post } from './client';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookDeleted,
  WebhookDelivery,
  WebhookWithSecret,
} from '@contract';

const pathOf = (webhookId: string) => `/v1/webhooks/${encodeURIComponent(webhookId)}`;

export const fetchWebhooks = () => get<Webhook[]>('/v1/webhooks');
export const createWebhook = (body: CreateWebhookBody) => post<WebhookWithSecret>('/v1/webhooks', body);
export const updateWebhook = (webhookId: string, body: UpdateWebhookBody) => patch<Webhook>(pathOf(webhookId), body);
export const deleteWebhook = (webhookId: string) => del<WebhookDeleted>(pathOf(webhookId));
export const rotateSecret = (webhookId: string) => post<WebhookWithSecret>(`${pathOf(webhookId)}/rotate-secret`);
export const sendTest = (webhookId: string) => post<WebhookDelivery>(`${pathOf(webhookId)}/test`);
export const fetchDeliveries = (webhookId: string) => get<WebhookDelivery[]>(`${pathOf(webhookId)}/deliveries`);
export const retryDelivery = (webhookId: string, deliveryId: number) =>
  post<WebhookDelivery>(`${pathOf(webhookId)}/deliveries/${deliveryId}/retry`);
