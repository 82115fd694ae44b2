/** Each person's notification preferences (migration 0022): only the choices made are stored. */
import {
  DEFAULT_DELIVERY,
  NOTIFICATION_KINDS,
  type NotificationDelivery,
  type NotificationKind,
} from '../contract/enums.js';
import type { Db } from '../storage/schema.js';

export type Preferences = Record<NotificationKind, NotificationDelivery>;

const isKind = (kind: string): kind is NotificationKind => (NOTIFICATION_KINDS as readonly string[]).includes(kind);

/** Every kind's delivery for each of `userIds`: their choice, else the default. */
export async function preferencesOf(db: Db, userIds: readonly string[]): Promise<Map<string, Preferences>> {
  const result = new Map(userIds.map((id) => [id, { ...DEFAULT_DELIVERY }]));
  if (userIds.length === 0) return result;
  const rows = await db
    .selectFrom('notification_preferences')
    .select(['user_id', 'kind', 'delivery'])
    .where('user_id', 'in', userIds)
    .execute();
  for (const row of rows) {
    if (isKind(row.kind)) result.get(row.user_id)![row.kind] = row.delivery as NotificationDelivery;
  }
  return result;
}

/** Records the person's choices for the kinds given; the others keep theirs. */
export async function savePreferences(
  db: Db,
  userId: string,
  choices: Partial<Record<NotificationKind, NotificationDelivery>>,
): Promise<void> {
  const rows = Object.entries(choices).map(([kind, delivery]) => ({ user_id: userId, kind, delivery: delivery! }));
  if (rows.length === 0) return;
  await db
    .insertInto('notification_preferences')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['user_id', 'kind']).doUpdateSet((eb) => ({ delivery: eb.ref('excluded.delivery') })),
    )
    .execute();
}
