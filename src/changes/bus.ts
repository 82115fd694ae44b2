/**
 * The wake-up signal "team X has new events", between the processes on one database. It carries
 * no event data: the outbox is the source of truth, so a lost or late signal only delays delivery
 * until the hub's next poll. An announcement reaches this process at once and the others through
 * the database's notifications (storage/notifications.ts: PostgreSQL NOTIFY; nothing on SQLite,
 * which one process serves). A second signal, "someone's access to team X ended", makes every hub
 * recheck that team's streams at once (a removed member's stream ends now, not at the next
 * periodic recheck); it too only hurries up what happens without it.
 */
import { EventEmitter } from 'node:events';
import type { Store } from '../storage/database.js';
import { listenForNotifications, notifyListeners } from '../storage/notifications.js';

export interface EventBus {
  /** Tells every process (this one first) that the team has new events. */
  announce(teamId: string): void;
  onAnnounce(listener: (teamId: string) => void): void;
  /** Tells every process (this one first) that someone's access to the team ended (publisher.ts, `endedAccess`). */
  announceEndedAccess(teamId: string): void;
  onEndedAccess(listener: (teamId: string) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'tasklane_events';
/** Ended access travels on the same channel (one LISTEN connection a process), its payload marked so. */
const ENDED_ACCESS = 'access:';

export function createEventBus(store: Store, databaseUrl: string): EventBus {
  const local = new EventEmitter().setMaxListeners(0);
  const wake = (teamId: string) => local.emit('team', teamId);
  const recheck = (teamId: string) => local.emit('access', teamId);
  const listener = listenForNotifications(store, databaseUrl, CHANNEL, (payload) =>
    payload.startsWith(ENDED_ACCESS) ? recheck(payload.slice(ENDED_ACCESS.length)) : wake(payload),
  );
  return {
    announce(teamId) {
      wake(teamId);
      void notifyServers(store, teamId);
    },
    onAnnounce(onTeam) {
      local.on('team', onTeam);
    },
    announceEndedAccess(teamId) {
      recheck(teamId);
      void notifyEndedAccess(store, teamId);
    },
    onEndedAccess(onTeam) {
      local.on('access', onTeam);
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

/** Tells the hubs of every server process on the store's database to recheck the team's streams now. */
export async function notifyEndedAccess(store: Store, teamId: string): Promise<void> {
  await notifyListeners(store, CHANNEL, ENDED_ACCESS + teamId).catch(() => {});
}
