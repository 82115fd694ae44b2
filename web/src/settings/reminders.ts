/**
 * Due-date reminder settings, shared by Settings → Profile (the time zone) and Settings →
 * Notifications (how long before the due date, and at what time): loaded once for the page, and
 * saved a field at a time as it is chosen, shown at once and read back from the server after.
 */
import type { UpdateReminderSettingsBody } from '@contract';
import { messageOf } from '../api/client';
import { fetchReminderSettings, updateReminderSettings } from '../api/notifications';
import { useAsync } from '../lib/use-async';
import { useNotify } from '../ui/notices';

export type Reminders = ReturnType<typeof useReminders>;

export function useReminders() {
  const settings = useAsync(fetchReminderSettings, []);
  const notify = useNotify();
  /** Saves `change`; says `done` once saved, or puts the server's reason in `setError`. */
  const save = async (change: UpdateReminderSettingsBody, done: string, setError: (error: string | null) => void) => {
    setError(null);
    const release = settings.hold();
    settings.mutate((data) => ({ ...data, ...change }));
    try {
      await updateReminderSettings(change);
      notify(done);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      release();
    }
  };
  return { settings, save };
}
