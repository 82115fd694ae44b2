/**
 * webhooks and webhook_event_types: the endpoints, found by id always within a team. Secrets stay
 * sealed here (secret-box.ts); `sealedSecretsOf` is for the signer alone and a WebhookRecord
 * never carries them.
 */
import type { Person } from '../contract/common.js';
import type { Db, WebhooksTable } from '../storage/schema.js';

/** A webhook as the rest of the code sees it: never its secrets. */
export interface WebhookRecord {
  id: string;
  teamId: string;
  owner: Person;
  url: string;
  description: string;
  /** Null: every event type. */
  eventTypes: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = [
  'w.id',
  'w.team_id',
  'w.owner_id',
  'w.url',
  'w.description',
  'w.all_events',
  'w.enabled',
  'w.disabled_reason',
  'w.disabled_at',
  'w.failing_since',
  'w.previous_secret_expires_at',
  'w.created_at',
  'w.updated_at',
  'u.name as owner_name',
  'u.email as owner_email',
] as const;

const selectWebhooks = (db: Db) =>
  db.selectFrom('webhooks as w').innerJoin('users as u', 'u.id', 'w.owner_id').select(COLUMNS);

type Row = Awaited<ReturnType<ReturnType<typeof selectWebhooks>['executeTakeFirstOrThrow']>>;

async function withEventTypes(db: Db, rows: Row[]): Promise<WebhookRecord[]> {
  const chosen = rows.filter((row) => !row.all_events).map((row) => row.id);
  const types = new Map<string, string[]>();
  if (chosen.length > 0) {
    const found = await db
      .selectFrom('webhook_event_types')
      .select(['webhook_id', 'type'])
      .where('webhook_id', 'in', chosen)
      .orderBy('type')
      .execute();
    for (const { webhook_id, type } of found) types.set(webhook_id, [...(types.get(webhook_id) ?? []), type]);
  }
  return rows.map((row) => ({
    id: row.id,
    teamId: row.team_id,
    owner: { id: row.owner_id, name: row.owner_name, email: row.owner_email },
    url: row.url,
    description: row.description,
    eventTypes: row.all_events ? null : (types.get(row.id) ?? []),
    enabled: Boolean(row.enabled),
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    failingSince: row.failing_since,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

/** The team's webhooks (with `ownerId`, only that user's), oldest first. */
export async function listWebhooks(db: Db, teamId: string, ownerId?: string): Promise<WebhookRecord[]> {
  let query = selectWebhooks(db).where('w.team_id', '=', teamId);
  if (ownerId) query = query.where('w.owner_id', '=', ownerId);
  return withEventTypes(db, await query.orderBy('w.created_at').orderBy('w.id').execute());
}

/** The webhook, if it is in the team. */
export async function findWebhook(db: Db, teamId: string, id: string): Promise<WebhookRecord | undefined> {
  const row = await selectWebhooks(db).where('w.id', '=', id).where('w.team_id', '=', teamId).executeTakeFirst();
  return row ? (await withEventTypes(db, [row]))[0] : undefined;
}

/** The webhook by id in any team: for the operator's `admin webhook` commands only, never for API callers. */
export async function findWebhookById(db: Db, id: string): Promise<WebhookRecord | undefined> {
  const row = await selectWebhooks(db).where('w.id', '=', id).executeTakeFirst();
  return row ? (await withEventTypes(db, [row]))[0] : undefined;
}

/**
 * The team's webhooks whose owner is still a member: what the team's cap counts. A member's
 * removal only disables theirs (deleting a long log cannot happen in the removal's transaction,
 * see `deleteWebhook`), so a leaver's webhooks stop counting without being deleted; disabling
 * one's own frees nothing.
 */
export async function countMembersWebhooks(db: Db, teamId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks as w')
    .innerJoin('team_members as m', (join) =>
      join.onRef('m.user_id', '=', 'w.owner_id').onRef('m.team_id', '=', 'w.team_id'),
    )
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('w.team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function setEventTypes(db: Db, id: string, eventTypes: readonly string[] | null): Promise<void> {
  await db.deleteFrom('webhook_event_types').where('webhook_id', '=', id).execute();
  if (eventTypes && eventTypes.length > 0) {
    await db
      .insertInto('webhook_event_types')
      .values(eventTypes.map((type) => ({ webhook_id: id, type })))
      .execute();
  }
}

export interface NewWebhook {
  id: string;
  teamId: string;
  ownerId: string;
  url: string;
  description: string;
  eventTypes: readonly string[] | null;
  sealedSecret: string;
  now: string;
}

/** Inserts the webhook, enabled; `db` must be a transaction (two tables). */
export async function insertWebhook(trx: Db, webhook: NewWebhook): Promise<void> {
  await trx
    .insertInto('webhooks')
    .values({
      id: webhook.id,
      team_id: webhook.teamId,
      owner_id: webhook.ownerId,
      url: webhook.url,
      description: webhook.description,
      all_events: webhook.eventTypes === null ? 1 : 0,
      enabled: 1,
      disabled_reason: null,
      disabled_at: null,
      secret: webhook.sealedSecret,
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      created_at: webhook.now,
      updated_at: webhook.now,
    })
    .execute();
  await setEventTypes(trx, webhook.id, webhook.eventTypes);
}

export interface WebhookChanges {
  url?: string;
  description?: string;
  /** Null: every event type. */
  eventTypes?: readonly string[] | null;
  enabled?: boolean;
  /** With `enabled: false`: why. */
  disabledReason?: string;
}

/** Applies the changes; enabling clears the reason and the run of failures. `trx` must be a transaction. */
export async function updateWebhook(trx: Db, id: string, changes: WebhookChanges, now: string): Promise<void> {
  const set: Partial<WebhooksTable> = { updated_at: now };
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.eventTypes !== undefined) set.all_events = changes.eventTypes === null ? 1 : 0;
  if (changes.enabled === true)
    Object.assign(set, { enabled: 1, disabled_reason: null, disabled_at: null, failing_since: null });
  if (changes.enabled === false)
    Object.assign(set, { enabled: 0, disabled_reason: changes.disabledReason ?? null, disabled_at: now });
  await trx.updateTable('webhooks').set(set).where('id', '=', id).execute();
  if (changes.eventTypes !== undefined) await setEventTypes(trx, id, changes.eventTypes);
}

/**
 * Disables the webhook if it is still enabled (a worker's finding: 410 Gone, days of failures,
 * an owner who left). True when this call disabled it.
 */
export async function disableWebhook(db: Db, id: string, reason: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ enabled: 0, disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Why a webhook whose owner left the team was disabled. */
export const OWNER_LEFT = 'Its owner is no longer a member of the team.';

/** Disables the user's enabled webhooks in the team: they left it (the member's removal's transaction). */
export async function disableWebhooksOfLeaver(db: Db, teamId: string, ownerId: string, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ enabled: 0, disabled_reason: OWNER_LEFT, disabled_at: now, updated_at: now })
    .where('team_id', '=', teamId)
    .where('owner_id', '=', ownerId)
    .where('enabled', '=', 1)
    .execute();
}

/** Deliveries (with their attempts) removed per statement when a webhook is deleted. */
const DELETE_BATCH = 1000;

/**
 * A webhook's deliveries and their log, a batch per statement: the first half of deleting it.
 * The webhook row goes last, nearly alone (`deleteWebhook`): deleting it locks it, and a change's
 * outbox statement, which holds the team row's lock, waits for that lock to insert a delivery for
 * it (a foreign key check). So the team's writes wait only for a short delete, whatever the log's size.
 */
export async function deleteDeliveriesOf(db: Db, webhookId: string): Promise<void> {
  for (;;) {
    const batch = db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', webhookId)
      .limit(DELETE_BATCH);
    const deleted = await db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst();
    if (Number(deleted.numDeletedRows) < DELETE_BATCH) break;
  }
}

/** Deletes the webhook, with what is left of its log (after `deleteDeliveriesOf`: a few rows at most). */
export async function deleteWebhook(db: Db, id: string): Promise<void> {
  await deleteDeliveriesOf(db, id);
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** Replaces the secret; the old one keeps signing beside it until `previousExpiresAt`. */
export async function rotateSecret(
  db: Db,
  id: string,
  sealed: { current: string; previous: string; previousExpiresAt: string },
  now: string,
): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({
      secret: sealed.current,
      previous_secret: sealed.previous,
      previous_secret_expires_at: sealed.previousExpiresAt,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/** The sealed secrets, for the signer and for a rotation only. */
export async function sealedSecretsOf(
  db: Db,
  id: string,
): Promise<{ current: string; previous: string | null; previousExpiresAt: string | null } | undefined> {
  const row = await db
    .selectFrom('webhooks')
    .select(['secret', 'previous_secret', 'previous_secret_expires_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return (
    row && { current: row.secret, previous: row.previous_secret, previousExpiresAt: row.previous_secret_expires_at }
  );
}
