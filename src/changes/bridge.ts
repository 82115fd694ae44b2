/**
 * The one bridge from what this process commits to every process: each committed change (and
 * whether it queued webhook deliveries) and each ended access published here goes to the bus,
 * which wakes this process's listeners and the other processes'. The server (app.ts) and the CLI
 * both bridge this way; the hub and the webhook worker listen to the bus alone.
 */
import type { EventBus } from './bus.js';
import { committedChanges, endedAccess } from './publisher.js';

/** Forwards this process's committed changes and ended access to `bus`; the returned function stops. */
export function bridgeToBus(bus: Pick<EventBus, 'announce' | 'announceEndedAccess'>): () => void {
  const stops = [
    committedChanges.subscribe((change) => bus.announce(change)),
    endedAccess.subscribe(({ teamId }) => bus.announceEndedAccess(teamId)),
  ];
  return () => stops.forEach((stop) => stop());
}
