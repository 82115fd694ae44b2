/** Task lists and their members. */
import { del, get, patch, post } from './client';
import type {
  AddListMemberBody,
  CreateListBody,
  ListColor,
  ListMemberRemoved,
  Member,
  TaskList,
  UpdateListBody,
} from '@contract';
import type { Static } from 'typebox';

export const fetchLists = () => get<TaskList[]>('/v1/lists');
/** The caller's archived lists, oldest first (an extension of the API: docs/api.md). */
export const fetchArchivedLists = () => get<TaskList[]>('/v1/lists', new URLSearchParams({ archived: 'true' }));
export const fetchList = (listId: number) => get<TaskList>(`/v1/lists/${listId}`);
export const createList = (name: string, color: ListColor, sharedWithTeam = false) =>
  post<TaskList>('/v1/lists', { name, color, sharedWithTeam } satisfies CreateListBody);
export const updateList = (listId: number, change: UpdateListBody) => patch<TaskList>(`/v1/lists/${listId}`, change);
export const archiveList = (listId: number) => post<TaskList>(`/v1/lists/${listId}/archive`);
export const unarchiveList = (listId: number) => post<TaskList>(`/v1/lists/${listId}/unarchive`);

export const fetchListMembers = (listId: number) => get<Member[]>(`/v1/lists/${listId}/members`);
export const addListMember = (listId: number, userId: string) =>
  post<Member>(`/v1/lists/${listId}/members`, { userId } satisfies AddListMemberBody);
export const removeListMember = (listId: number, userId: string) =>
  del<Static<typeof ListMemberRemoved>>(`/v1/lists/${listId}/members/${encodeURIComponent(userId)}`);

/** The team's lists that have no member (a removal can leave one so): owners and admins only. */
export const fetchListsWithoutMembers = () => get<TaskList[]>('/v1/lists-without-members');
/** Makes the caller the first member of such a list (409 once it has members). */
export const joinListWithoutMembers = (listId: number) => post<TaskList>(`/v1/lists-without-members/${listId}/join`);
