/**
 * Webhooks: a webhook belongs to the member who creates it, in their team, like an API key. Its
 * owner manages it; the team's owners and admins see every webhook of the team and may disable or
 * delete any of them (a leaver's too, which would otherwise stay forever), nothing more: its
 * deliveries carry what only its owner may read. Anyone else is told it does not exist, as for
 * someone else's API key. The team's cap counts the webhooks of its current members.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { committedChanges } from '../changes/publisher.js';
import type { WebhookConfig } from '../config.js';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookAvailability,
  WebhookDelivery,
  WebhookWithSecret,
} from '../contract/webhooks.js';
import { MAX_WEBHOOKS_PER_TEAM, WEBHOOK_TEST_EVENT } from '../contract/webhooks.js';
import { conflict, forbidden, invalidInput, notFound } from '../http/errors.js';
import { isUuid, toId } from '../ids.js';
import { afterCommit, type Store } from '../storage/database.js';
import { lockRows } from '../storage/dialect.js';
import type { Db } from '../storage/schema.js';
import { findUser } from '../team/users.repository.js';
import * as deliveries from './deliveries.repository.js';
import { DestinationError, parseWebhookUrl, resolveDestination } from './delivery/destination.js';
import { seal } from './secret-box.js';
import { newSecret } from './delivery/signing.js';
import { presentDelivery, presentWebhook, presentWithSecret } from './webhooks.presenter.js';
import * as webhooks from './webhooks.repository.js';
import type { WebhookRecord } from './webhooks.repository.js';

/** Wakes the delivery workers of every process for deliveries queued outside a change (the bus: changes/bus.ts). */
const queuedWork = (teamId: string) => committedChanges.publish({ teamId, queuedDeliveries: true });

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;
/** The longest a URL's host may take to resolve when it is checked at creation. */
const RESOLVE_TIMEOUT_MS = 5_000;

const OWNER_ONLY =
  "Only the webhook's owner can do this; the team's owners and admins may only list, disable and delete it.";

const managesTeam = (caller: Caller) => caller.role === 'owner' || caller.role === 'admin';

/** The webhook, if the caller may see it: its owner, or an owner or admin of its team; else 404. */
async function visibleWebhook(db: Db, caller: Caller, rawId: string): Promise<WebhookRecord> {
  const webhook = isUuid(rawId) ? await webhooks.findWebhook(db, caller.teamId, rawId) : undefined;
  if (!webhook || (webhook.owner.id !== caller.userId && !managesTeam(caller))) {
    throw notFound(`Webhook ${rawId} not found.`);
  }
  return webhook;
}

/** The caller's own webhook (another's they may see is a 403). */
export async function ownWebhook(db: Db, caller: Caller, rawId: string): Promise<WebhookRecord> {
  const webhook = await visibleWebhook(db, caller, rawId);
  if (webhook.owner.id !== caller.userId) throw forbidden(OWNER_ONLY);
  return webhook;
}

async function reload(store: Store, caller: Caller, id: string): Promise<WebhookRecord> {
  return (await webhooks.findWebhook(store.db, caller.teamId, id))!;
}

/** The URL, checked as every attempt will check it (destination.ts); a 400 saying why not, the detail logged. */
async function checkedUrl(raw: string, config: WebhookConfig): Promise<string> {
  try {
    const url = parseWebhookUrl(raw, config.allowHosts);
    await resolveDestination(url, config.allowHosts, Math.min(config.timeoutMs, RESOLVE_TIMEOUT_MS));
    return url.href;
  } catch (error) {
    if (error instanceof DestinationError) throw invalidInput(error.message, error.detail);
    throw error;
  }
}

/** Why webhooks are off on this server, for the people who would use them; null when they are on. */
function offReason(config: WebhookConfig): string | null {
  if (config.secretKey) return null;
  if (config.switchedOff) return 'Webhooks are off on this server: its operator turned them off.';
  return "Webhooks are off on this server: its operator has not set WEBHOOK_SECRET_KEY (see tasklane's README).";
}

function secretKeyOf(config: WebhookConfig): Buffer {
  if (!config.secretKey) throw conflict(offReason(config)!);
  return config.secretKey;
}

/** Whether this server can make and send webhooks, and if not, why (Settings → Webhooks says so first). */
export function webhookAvailability(config: WebhookConfig): WebhookAvailability {
  const reason = offReason(config);
  return { available: reason === null, reason };
}

/** The webhooks the caller may see: their own, or for a team's owner or admin, all of the team's. */
export async function listWebhooks(store: Store, caller: Caller): Promise<Webhook[]> {
  const found = await webhooks.listWebhooks(store.db, caller.teamId, managesTeam(caller) ? undefined : caller.userId);
  return found.map(presentWebhook);
}

export async function getWebhook(store: Store, caller: Caller, rawId: string): Promise<Webhook> {
  return presentWebhook(await visibleWebhook(store.db, caller, rawId));
}

export async function createWebhook(
  store: Store,
  config: WebhookConfig,
  caller: Caller,
  body: CreateWebhookBody,
): Promise<WebhookWithSecret> {
  const key = secretKeyOf(config);
  const url = await checkedUrl(body.url, config);
  const id = randomUUID();
  const secret = newSecret();
  await store.transaction(async (trx) => {
    // The team row's lock queues concurrent creations, so each counts the others: the cap holds.
    await lockRows(trx, trx.selectFrom('teams').select('id').where('id', '=', caller.teamId), 'change');
    if ((await webhooks.countMembersWebhooks(trx, caller.teamId)) >= MAX_WEBHOOKS_PER_TEAM) {
      throw conflict(`A team can have at most ${MAX_WEBHOOKS_PER_TEAM} webhooks; delete one first.`);
    }
    await webhooks.insertWebhook(trx, {
      id,
      teamId: caller.teamId,
      ownerId: caller.userId,
      url,
      description: body.description ?? '',
      eventTypes: body.eventTypes ?? null,
      sealedSecret: seal(key, secret.bytes, id),
      now: new Date().toISOString(),
    });
  });
  return presentWithSecret(await reload(store, caller, id), secret.shown);
}

/**
 * Its owner changes anything; a team's owner or admin may only disable it. Enabling it again
 * clears its failures and sends what waited at once.
 */
export async function updateWebhook(
  store: Store,
  config: WebhookConfig,
  caller: Caller,
  rawId: string,
  body: UpdateWebhookBody,
): Promise<Webhook> {
  const given = Object.keys(body).filter((name) => body[name as keyof UpdateWebhookBody] !== undefined);
  const onlyDisables = given.length === 1 && body.enabled === false;
  /** Who may make this change, decided on the webhook and the caller's role as read in `db`. */
  const allowed = async (db: Db) => {
    const webhook = await visibleWebhook(db, caller, rawId);
    if (webhook.owner.id !== caller.userId && !onlyDisables) throw forbidden(OWNER_ONLY);
    return webhook;
  };
  if (given.length === 0) return presentWebhook(await store.transaction(allowed));
  // Refused callers are told so before the URL is resolved; the resolving (up to seconds) is done
  // outside the transaction, which then decides again on what it reads.
  await allowed(store.db);
  const url = body.url === undefined ? undefined : await checkedUrl(body.url, config);
  const id = await store.transaction(async (trx) => {
    const webhook = await allowed(trx);
    const changes: webhooks.WebhookChanges = { description: body.description, eventTypes: body.eventTypes, url };
    if (body.enabled === false && webhook.enabled) {
      const who = await findUser(trx, caller.userId);
      changes.enabled = false;
      changes.disabledReason = `Disabled by ${who?.name ?? 'a team member'}.`;
    }
    if (body.enabled === true && !webhook.enabled) changes.enabled = true;
    const now = new Date().toISOString();
    if (changes.enabled === true) await requireRoomToEnable(trx, caller.teamId);
    await webhooks.updateWebhook(trx, webhook.id, changes, now);
    if (changes.enabled === true) {
      await deliveries.retryWaitingNow(trx, webhook.id, now);
      afterCommit(trx, () => queuedWork(caller.teamId));
    }
    return webhook.id;
  });
  return presentWebhook(await reload(store, caller, id));
}

/**
 * A member who left and is invited back finds their webhooks again, disabled, and counted once
 * more: the team may then hold more than the cap. Enabling one then waits until some are
 * deleted, so leaving and rejoining can never raise how many webhooks a team sends to.
 */
async function requireRoomToEnable(trx: Db, teamId: string): Promise<void> {
  if ((await webhooks.countMembersWebhooks(trx, teamId)) > MAX_WEBHOOKS_PER_TEAM) {
    throw conflict(
      `The team's members hold more than ${MAX_WEBHOOKS_PER_TEAM} webhooks (a member who rejoined brought theirs back); ` +
        'delete some before enabling this one.',
    );
  }
}

/** Its owner, or an owner or admin of its team, deletes it with its log. */
export async function deleteWebhook(store: Store, caller: Caller, rawId: string): Promise<void> {
  // Decided in a transaction, on the caller as they are now. Its log then goes in batches outside
  // any transaction (webhooks.repository.ts), and the webhook in one that decides again.
  const webhook = await store.transaction((trx) => visibleWebhook(trx, caller, rawId));
  await webhooks.deleteDeliveriesOf(store.db, webhook.id);
  await store.transaction(async (trx) => {
    await visibleWebhook(trx, caller, rawId);
    await webhooks.deleteWebhook(trx, webhook.id);
  });
}

/** `tasklane admin webhook list`: every webhook of the team, as its owners and admins see them. */
export async function webhooksOfTeam(store: Store, teamId: string): Promise<Webhook[]> {
  return (await webhooks.listWebhooks(store.db, teamId)).map(presentWebhook);
}

/** `tasklane admin webhook delete`: any webhook, with its log, as the API deletes it. */
export async function deleteWebhookAsOperator(store: Store, rawId: string): Promise<void> {
  const webhook = isUuid(rawId) ? await webhooks.findWebhookById(store.db, rawId) : undefined;
  if (!webhook) throw notFound(`webhook ${rawId} not found`);
  await webhooks.deleteWebhook(store.db, webhook.id);
}

/** A new secret, shown once; the old one keeps signing beside it for 24 hours. */
export async function rotateSecret(
  store: Store,
  config: WebhookConfig,
  caller: Caller,
  rawId: string,
): Promise<WebhookWithSecret> {
  const key = secretKeyOf(config);
  const secret = newSecret();
  const now = Date.now();
  const id = await store.transaction(async (trx) => {
    const webhook = await ownWebhook(trx, caller, rawId);
    const sealed = await webhooks.sealedSecretsOf(trx, webhook.id);
    await webhooks.rotateSecret(
      trx,
      webhook.id,
      {
        current: seal(key, secret.bytes, webhook.id),
        previous: sealed!.current,
        previousExpiresAt: new Date(now + PREVIOUS_SECRET_MS).toISOString(),
      },
      new Date(now).toISOString(),
    );
    return webhook.id;
  });
  return presentWithSecret(await reload(store, caller, id), secret.shown);
}

function requireEnabled(webhook: WebhookRecord): void {
  if (!webhook.enabled) throw conflict('This webhook is disabled; enable it first.');
}

/**
 * Queues a `webhook.test` delivery, behind the endpoint's earlier ones. Its owner expects the
 * endpoint to work now, so retries waiting out their backoff are made due at once as well.
 */
export async function sendTest(store: Store, caller: Caller, rawId: string): Promise<WebhookDelivery> {
  const now = new Date().toISOString();
  // Read back before the commit: once committed, any process's worker may send it at once.
  const queued = await store.transaction(async (trx) => {
    const webhook = await ownWebhook(trx, caller, rawId);
    requireEnabled(webhook);
    await deliveries.retryWaitingNow(trx, webhook.id, now);
    const id = await deliveries.insertTestDelivery(trx, {
      webhookId: webhook.id,
      type: WEBHOOK_TEST_EVENT,
      data: JSON.stringify({ webhookId: webhook.id }),
      now,
    });
    return (await deliveries.findDelivery(trx, webhook.id, id))!;
  });
  queuedWork(caller.teamId);
  return presentDelivery(queued);
}

/** Sends the delivery again (with the same webhook-id), as soon as its turn in the endpoint's queue comes. */
export async function retryDelivery(
  store: Store,
  caller: Caller,
  rawId: string,
  rawDeliveryId: string,
): Promise<WebhookDelivery> {
  const deliveryId = toId(rawDeliveryId);
  // As for a test: the answer is the delivery as queued, read before any worker can take it.
  const requeued = await store.transaction(async (trx) => {
    const webhook = await ownWebhook(trx, caller, rawId);
    const delivery = deliveryId === null ? undefined : await deliveries.findDelivery(trx, webhook.id, deliveryId);
    if (!delivery) throw notFound(`Delivery ${rawDeliveryId} not found.`);
    requireEnabled(webhook);
    if (!(await deliveries.requeueDelivery(trx, delivery.id, new Date().toISOString()))) {
      throw conflict(`Delivery ${delivery.id} is being sent right now; try again in a moment.`);
    }
    return (await deliveries.findDelivery(trx, webhook.id, delivery.id))!;
  });
  queuedWork(caller.teamId);
  return presentDelivery(requeued);
}
