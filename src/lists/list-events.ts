/** A list's realtime event: to its members, read in the change's transaction. */
import { recordEvent, usersAudience, type EventType } from '../changes/outbox.js';
import type { Db } from '../storage/schema.js';
import { memberIdsOfList, type ListRecord } from './lists.repository.js';

/** Announces a change of the list to its members (and to `alsoTo`, such as a member just removed). */
export async function recordListEvent(
  trx: Db,
  list: Pick<ListRecord, 'id' | 'teamId'>,
  type: EventType,
  alsoTo: string[] = [],
): Promise<void> {
  const audience = usersAudience([...(await memberIdsOfList(trx, list.id)), ...alsoTo]);
  await recordEvent(trx, { teamId: list.teamId, type, data: { listId: list.id }, audience });
}
