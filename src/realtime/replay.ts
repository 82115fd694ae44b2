/**
 * The start of a stream: its response head, then, for a client that sends Last-Event-ID, what
 * it missed, read from the outbox. The hub runs this while the stream is still joining its team
 * (collecting live events aside), so nothing else writes to the stream meanwhile.
 */
import { eventsAfter, eventWindow } from '../changes/outbox.js';
import type { Db } from '../storage/schema.js';
import type { EventStream } from './stream.js';

/**
 * Event ids each replay query covers. A query bounded by ids walks at most this many index
 * entries whatever the planner guesses; "the next 1000 after the cursor" on a freshly filled
 * table (no statistics yet) made PostgreSQL read and sort everything after the cursor for every
 * page, so a replay of 100,000 events took time quadratic in their number.
 */
const REPLAY_SPAN = 1_000;

/**
 * Writes the head, then replays from Last-Event-ID if given, else starts from now. The head goes
 * out only once the starting point is fixed, so a client that has seen the 200 cannot miss a
 * change made after it. Stops paging early once `stop()` says the stream will not go live.
 */
export async function startStream(
  db: Db,
  stream: EventStream,
  lastEventId: string | undefined,
  stop: () => boolean,
): Promise<void> {
  const { teamId, userId } = stream.caller;
  const { latest, oldest } = await eventWindow(db, teamId);
  stream.writeHead();

  const from = lastEventId !== undefined && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId) : null;
  if (lastEventId === undefined || from === latest) {
    stream.cursor = Math.max(stream.cursor, latest);
    return;
  }
  if (from === null || from > latest || from + 1 < (oldest ?? latest + 1)) {
    const reason =
      from === null
        ? 'Last-Event-ID is not an event id'
        : from > latest
          ? 'unknown event id'
          : 'events since then are no longer kept';
    return stream.requireSync(latest, reason);
  }
  // Page through what was missed, up to `latest`, letting a slow client drain between pages.
  // Events committed after `latest` was read reach the stream among the live ones it collects
  // while it joins (their ids are past the team's fan-out cursor, which is at most `latest`).
  stream.cursor = from;
  while (stream.cursor < latest && !stop()) {
    const through = Math.min(latest, stream.cursor + REPLAY_SPAN);
    stream.send(await eventsAfter(db, teamId, stream.cursor, { userId, through, limit: REPLAY_SPAN }));
    stream.cursor = through;
    if (stream.gone) break;
    if (stream.cursor < latest) await stream.drained();
  }
  stream.cursor = Math.max(stream.cursor, latest);
}
