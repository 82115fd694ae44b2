/**
 * Settings → Notifications: for each kind of notification, whether it goes to the inbox, to the
 * inbox and by email, or nowhere. Each choice is saved as it is made. When the server sends no
 * email (no SMTP_URL), the section says so: "inbox and email" then means the inbox only.
 * Below, when due-date reminders come: how many days before the due date, and at what time.
 */
import { useState } from 'preact/hooks';
import { NOTIFICATION_KINDS, type NotificationDelivery, type NotificationKind } from '@contract/enums';
import { messageOf } from '../api/client';
import { fetchNotificationPreferences, updateNotificationPreferences } from '../api/notifications';
import { useAsync } from '../lib/use-async';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import type { Reminders } from './reminders';

const KIND_LABELS: Record<NotificationKind, string> = {
  assigned: 'You are assigned a task',
  unassigned: 'You are unassigned from a task',
  mentioned: 'Someone mentions you',
  commented: 'A comment on a task you follow',
  statusChanged: 'A task you follow changes status',
  dueSoon: 'A task of yours is due soon',
  overdue: 'A task of yours is overdue',
};

const DELIVERY_LABELS: Record<NotificationDelivery, string> = {
  inbox: 'Inbox',
  inboxAndEmail: 'Inbox and email',
  off: 'Off',
};

export function NotificationsSection({ reminders }: { reminders: Reminders }) {
  const preferences = useAsync(fetchNotificationPreferences, []);
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);

  const choose = async (kind: NotificationKind, delivery: NotificationDelivery) => {
    setError(null);
    const release = preferences.hold();
    preferences.mutate((data) => ({ ...data, preferences: { ...data.preferences, [kind]: delivery } }));
    try {
      await updateNotificationPreferences({ preferences: { [kind]: delivery } });
      notify(`${KIND_LABELS[kind]}: ${DELIVERY_LABELS[delivery].toLowerCase()}.`);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      release();
      preferences.reload();
    }
  };

  const data = preferences.data;
  return (
    <section class="card" id="notifications" aria-labelledby="notifications-heading" aria-busy={preferences.loading}>
      <h2 id="notifications-heading">Notifications</h2>
      {!data && preferences.loading && <p class="muted">Loading…</p>}
      <ErrorNote message={preferences.error ?? error} />
      {data && (
        <>
          {!data.email.enabled && (
            <p class="muted small" id="email-off-note">
              This server sends no email (its operator has not set SMTP_URL and MAIL_FROM), so “inbox and email” means
              the inbox only.
            </p>
          )}
          <div class="notification-preferences">
            {NOTIFICATION_KINDS.map((kind) => (
              <label class="field" key={kind}>
                <span>{KIND_LABELS[kind]}</span>
                <select
                  value={data.preferences[kind]}
                  aria-describedby={data.email.enabled ? undefined : 'email-off-note'}
                  onChange={(e) => void choose(kind, e.currentTarget.value as NotificationDelivery)}
                >
                  {(Object.keys(DELIVERY_LABELS) as NotificationDelivery[]).map((delivery) => (
                    <option key={delivery} value={delivery}>
                      {DELIVERY_LABELS[delivery]}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        </>
      )}
      <ReminderTiming reminders={reminders} />
    </section>
  );
}

const dayLabel = (days: number) => (days === 0 ? 'On the due day' : `${days} day${days === 1 ? '' : 's'} before`);

/** How long before the due date a reminder comes (0 to 7 days), and at what time of day. */
function ReminderTiming({ reminders: { settings, save } }: { reminders: Reminders }) {
  const [error, setError] = useState<string | null>(null);
  const data = settings.data;
  return (
    <div class="reminder-timing" aria-busy={settings.loading}>
      <h3 id="reminders-heading">Due-date reminders</h3>
      {!data && settings.loading && <p class="muted">Loading…</p>}
      <ErrorNote message={settings.error ?? error} />
      {data && (
        <>
          <div class="notification-preferences">
            <label class="field">
              <span>Remind me</span>
              <select
                value={data.daysBefore}
                aria-describedby="reminders-note"
                onChange={(e) => {
                  const daysBefore = Number(e.currentTarget.value);
                  void save({ daysBefore }, `Reminders: ${dayLabel(daysBefore).toLowerCase()}.`, setError);
                }}
              >
                {[0, 1, 2, 3, 4, 5, 6, 7].map((days) => (
                  <option key={days} value={days}>
                    {dayLabel(days)}
                  </option>
                ))}
              </select>
            </label>
            <label class="field">
              <span>At</span>
              <input
                type="time"
                required
                value={data.time}
                aria-describedby="reminders-note"
                onChange={(e) => {
                  const time = e.currentTarget.value;
                  if (time) void save({ time }, `Reminders at ${time}.`, setError);
                }}
              />
            </label>
          </div>
          <p id="reminders-note" class="muted small">
            For tasks assigned to you (or that you made, while no one is assigned), at that time in your time zone,{' '}
            {data.timeZone} (<a href="#profile-heading">change it under Profile</a>). A task still open after its due
            date brings an overdue reminder the day after, at the same time.
          </p>
        </>
      )}
    </div>
  );
}
