/** Notification preferences (GET/PATCH /v1/me/notification-preferences) and unsubscribe links. */
import type { Caller } from '../caller.js';
import type { NotificationPreferences, UpdateNotificationPreferencesBody } from '../contract/mail.js';
import { notFound } from '../http/errors.js';
import type { Store } from '../storage/database.js';
import { preferencesOf, savePreferences } from './preferences.repository.js';
import { unsubscribe } from './unsubscribe.repository.js';

export async function preferencesFor(
  store: Store,
  caller: Caller,
  emailEnabled: boolean,
): Promise<NotificationPreferences> {
  const preferences = (await preferencesOf(store.db, [caller.userId])).get(caller.userId)!;
  return { email: { enabled: emailEnabled }, preferences };
}

export async function updatePreferences(
  store: Store,
  caller: Caller,
  body: UpdateNotificationPreferencesBody,
  emailEnabled: boolean,
): Promise<NotificationPreferences> {
  // In a transaction: the store's gate reads the caller again first (auth/caller-check.ts).
  await store.transaction((trx) => savePreferences(trx, caller.userId, body.preferences));
  return preferencesFor(store, caller, emailEnabled);
}

/** One-click unsubscribe: all of the link's person's email off. Counts against the address's failed-token budget. */
export async function unsubscribeByLink(
  store: Store,
  token: string,
  reserveAttempt: () => Promise<{ succeeded(): Promise<void> }>,
): Promise<void> {
  const attempt = await reserveAttempt();
  if (!(await store.transaction((trx) => unsubscribe(trx, token, new Date())))) {
    throw notFound('This unsubscribe link is not valid or has expired.');
  }
  await attempt.succeeded();
}
