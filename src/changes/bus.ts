/**
 * The wake-up signals between the processes on one database. They carry no event data: the
 * outbox is the source of truth, so a lost or late signal only delays what happens without it. A
 * signal reaches this process at once and the others through the database's notifications
 * (storage/notifications.ts: PostgreSQL NOTIFY; nothing on SQLite, which one process serves).
 *
 * - "team X has new events": the hubs read them (a poll catches a lost one);
 * - … "and queued webhook deliveries": the delivery workers claim them too, so a change of a
 *   team without webhooks wakes no worker (webhooks/delivery/worker.ts polls only while work is
 *   pending);
 * - "someone's access to team X ended": every hub rechecks that team's streams at once, so a
 *   removed member's stream ends now, not at the next periodic recheck.
 *
 * What this process commits reaches the bus through one bridge (bridge.ts); the hub and the
 * delivery worker only listen.
 */
import { EventEmitter } from 'node:events';
import type { Store } from '../storage/database.js';
import { listenForNotifications, notifyListeners } from '../storage/notifications.js';
import type { CommittedChange } from './publisher.js';

export interface EventBus {
  /** Tells every process (this one first) that the team has new events, and whether they queued deliveries. */
  announce(change: CommittedChange): void;
  onAnnounce(listener: (teamId: string) => void): void;
  /** Heard with every announced change that queued webhook deliveries. */
  onDeliveriesQueued(listener: (teamId: string) => void): void;
  /** Tells every process (this one first) that someone's access to the team ended (publisher.ts, `endedAccess`). */
  announceEndedAccess(teamId: string): void;
  onEndedAccess(listener: (teamId: string) => void): void;
  /** Stops listening, once the signals already sent have gone out. */
  close(): Promise<void>;
}

const CHANNEL = 'tasklane_events';
/** The other signals travel on the same channel (one LISTEN connection a process), their payloads marked. */
const ENDED_ACCESS = 'access:';
const WITH_DELIVERIES = 'deliveries:';

/**
 * The bus of this process. `listen: false` (the CLI, which only announces): no LISTEN connection;
 * this process's own listeners still hear what it announces.
 */
export function createEventBus(store: Store, databaseUrl: string, { listen = true } = {}): EventBus {
  const local = new EventEmitter().setMaxListeners(0);
  const changed = (teamId: string, deliveries: boolean) => {
    local.emit('team', teamId);
    if (deliveries) local.emit('deliveries', teamId);
  };
  const recheck = (teamId: string) => local.emit('access', teamId);
  const heard = (payload: string) => {
    if (payload.startsWith(ENDED_ACCESS)) recheck(payload.slice(ENDED_ACCESS.length));
    else if (payload.startsWith(WITH_DELIVERIES)) changed(payload.slice(WITH_DELIVERIES.length), true);
    else changed(payload, false);
  };
  const listener = listen ? listenForNotifications(store, databaseUrl, CHANNEL, heard) : undefined;
  const sending = new Set<Promise<void>>();
  // Sent after commit, outside the transaction: if it fails, the servers still find the work on their next poll.
  const send = (payload: string) => {
    const sent = notifyListeners(store, CHANNEL, payload).catch(() => {});
    sending.add(sent);
    void sent.finally(() => sending.delete(sent));
  };
  return {
    announce({ teamId, queuedDeliveries = false }) {
      changed(teamId, queuedDeliveries);
      send(queuedDeliveries ? WITH_DELIVERIES + teamId : teamId);
    },
    onAnnounce(onTeam) {
      local.on('team', onTeam);
    },
    onDeliveriesQueued(onTeam) {
      local.on('deliveries', onTeam);
    },
    announceEndedAccess(teamId) {
      recheck(teamId);
      send(ENDED_ACCESS + teamId);
    },
    onEndedAccess(onTeam) {
      local.on('access', onTeam);
    },
    async close() {
      await Promise.all(sending);
      await listener?.close();
      local.removeAllListeners();
    },
  };
}
