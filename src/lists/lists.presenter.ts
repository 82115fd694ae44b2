/** Lists as the API shows them, with the version their ETag comes from (response schemas leave it out). */
import type { TaskList } from '../contract/lists.js';
import type { ListRecord } from './lists.repository.js';

export type VersionedList = TaskList & { version: number };

export function presentList(list: ListRecord): VersionedList {
  const { id, name, color, isArchived, sharedWithTeam, version } = list;
  return { id, name, color, isArchived, sharedWithTeam, version };
}
