/** A person's due-date reminder settings (GET/PATCH /v1/me/reminder-settings). */
import type { Caller } from '../caller.js';
import { clock } from '../clock.js';
import { canonicalTimeZone, type ReminderSettings } from '../changes/reminder-times.js';
import { reminderSettingsOf, replanRemindersOf, saveReminderSettings } from '../changes/reminders.js';
import type { UpdateReminderSettingsBody } from '../contract/reminders.js';
import { invalidInput } from '../http/errors.js';
import type { Store } from '../storage/database.js';

export async function reminderSettingsFor(store: Store, caller: Caller): Promise<ReminderSettings> {
  return (await reminderSettingsOf(store.db, [caller.userId])).get(caller.userId)!;
}

/** Changes the settings given, and plans the person's reminders not yet fired again by them. */
export async function updateReminderSettings(
  store: Store,
  caller: Caller,
  body: UpdateReminderSettingsBody,
): Promise<ReminderSettings> {
  const timeZone = body.timeZone === undefined ? undefined : canonicalTimeZone(body.timeZone);
  if (timeZone === undefined && body.timeZone !== undefined) {
    throw invalidInput('timeZone must be an IANA time zone name, such as Europe/Berlin.');
  }
  return store.transaction(async (trx) => {
    const before = (await reminderSettingsOf(trx, [caller.userId])).get(caller.userId)!;
    const after: ReminderSettings = {
      timeZone: timeZone ?? before.timeZone,
      daysBefore: body.daysBefore ?? before.daysBefore,
      time: body.time ?? before.time,
    };
    await saveReminderSettings(trx, caller.userId, after);
    const moved =
      after.timeZone !== before.timeZone || after.daysBefore !== before.daysBefore || after.time !== before.time;
    if (moved) await replanRemindersOf(trx, caller.userId, after, clock.now());
    return after;
  });
}
