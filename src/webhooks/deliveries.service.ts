/**
 * A webhook's delivery log, read by its owner alone (webhooks.service.ts, `ownWebhook`: a team's
 * owners and admins get 403, anyone else 404): pages of summaries without the bodies, and one
 * delivery whole, with its body and its attempts.
 */
import type { Caller } from '../caller.js';
import type { WebhookDelivery, WebhookDeliverySummary } from '../contract/webhooks.js';
import { notFound } from '../http/errors.js';
import { toId } from '../ids.js';
import { fillPage, type Page } from '../pages.js';
import type { Store } from '../storage/database.js';
import * as deliveries from './deliveries.repository.js';
import { presentDelivery, presentDeliverySummary } from './webhooks.presenter.js';
import { ownWebhook } from './webhooks.service.js';

const DEFAULT_PAGE = 50;

/** The webhook's deliveries, newest first, below the `before` cursor, within the page's bytes. */
export async function listDeliveries(
  store: Store,
  caller: Caller,
  rawId: string,
  page: { limit?: number; before?: number },
): Promise<Page<WebhookDeliverySummary>> {
  const webhook = await ownWebhook(store.db, caller, rawId);
  const limit = page.limit ?? DEFAULT_PAGE;
  const found = await deliveries.listDeliveries(store.db, webhook.id, { limit, before: page.before });
  return fillPage(found, found.length, limit, presentDeliverySummary);
}

/** One of the webhook's deliveries, whole. */
export async function getDelivery(
  store: Store,
  caller: Caller,
  rawId: string,
  rawDeliveryId: string,
): Promise<WebhookDelivery> {
  const webhook = await ownWebhook(store.db, caller, rawId);
  const deliveryId = toId(rawDeliveryId);
  const delivery = deliveryId === null ? undefined : await deliveries.findDelivery(store.db, webhook.id, deliveryId);
  if (!delivery) throw notFound(`Delivery ${rawDeliveryId} not found.`);
  return presentDelivery(delivery);
}
