/**
 * The wake-up signal "team X has new events", between the processes on one database. It carries
 * no event data: the outbox is the source of truth, so a lost or late signal only delays delivery
 * until the hub's next poll. An announcement reaches this process at once and the others through
 * the database's notifications (storage/notifications.ts: PostgreSQL NOTIFY; nothing on SQLite,
 * which one process serves).
 */
import { EventEmitter } from 'node:events';
import type { Store } from '../storage/database.js';
import { listenForNotifications, notifyListeners } from '../storage/notifications.js';

export interface EventBus {
  /** Tells every process (this one first) that the team has new events. */
  announce(teamId: string): void;
  onAnnounce(listener: (teamId: string) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'tasklane_events';

export function createEventBus(store: Store, databaseUrl: string): EventBus {
  const local = new EventEmitter().setMaxListeners(0);
  const wake = (teamId: string) => local.emit('team', teamId);
  const listener = listenForNotifications(store, databaseUrl, CHANNEL, wake);
  return {
    announce(teamId) {
      wake(teamId);
      void notifyServers(store, teamId);
    },
    onAnnounce(onTeam) {
      local.on('team', onTeam);
    },
    async close() {
      await listener.close();
      local.removeAllListeners();
    },
  };
}

/**
 * Wakes the hubs of every server process on the store's database. Sent after commit, outside the
 * transaction: if it fails, the servers still find the events on their next poll.
 */
export async function notifyServers(store: Store, teamId: string): Promise<void> {
  await notifyListeners(store, CHANNEL, teamId).catch(() => {});
}
