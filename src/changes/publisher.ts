/**
 * The one way committed changes leave the transaction that made them. The outbox (outbox.ts)
 * publishes "team X has new events" once the transaction that recorded them has committed; the
 * bridge (bridge.ts) hands each to the bus, which wakes this process's hub and webhook worker and
 * the other processes'. The server and the CLI bridge alike.
 *
 * A change carries no event data: the outbox is the source of truth, so a subscriber reads what
 * it needs from there. That is also why one publisher serves the whole process: a subscriber
 * that hears of a team its own database does not hold (tests run several servers in one process)
 * reads nothing new and carries on.
 */

/** A transaction that recorded events for the team has committed. */
export interface CommittedChange {
  readonly teamId: string;
  /** It queued webhook deliveries (the outbox's, or a manual retry's): the delivery workers wake for these only. */
  readonly queuedDeliveries?: boolean;
}

export type ChangeListener = (change: CommittedChange) => void;

export class ChangePublisher {
  private readonly listeners = new Set<ChangeListener>();

  /** Calls `listener` with every change published from now on; the returned function stops it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hands `change` to every subscriber, in the order they subscribed. It runs right after a
   * commit, so a subscriber that throws must neither fail the code that committed (its change is
   * durable) nor keep the change from the subscribers after it: its error is reported as a
   * process warning instead.
   */
  publish(change: CommittedChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        process.emitWarning(error instanceof Error ? error : String(error));
      }
    }
  }
}

/** This process's publisher: the outbox publishes every committed change here. */
export const committedChanges = new ChangePublisher();

/**
 * This process's publisher of ended access: a member was removed from the team, or a key revoked,
 * and has committed. Event streams held with that access must end now rather than at their next
 * periodic recheck: each process's hub hears it through the bus (bus.ts, bridge.ts) and checks the
 * team's streams at once. Like a change, it carries nothing but the team.
 */
export const endedAccess = new ChangePublisher();
