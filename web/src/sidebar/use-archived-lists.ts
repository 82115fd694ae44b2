/**
 * The caller's archived lists, for the sidebar's Archived section.
 *
 * GET /v1/lists answers only non-archived lists and the API has no query for archived ones
 * yet, so besides asking for them (fetchArchivedLists, ready for when the server supports it)
 * this remembers, per team and user, every list it has seen archived or leave the sidebar, and
 * checks each with GET /v1/lists/{id} (which answers archived lists to their members).
 */
import { useCallback, useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api/client';
import { fetchArchivedLists, fetchList } from '../api/lists';
import type { TaskList } from '@contract';
import { useLiveEvent } from '../app/live';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { useAsync } from '../lib/use-async';

function readIds(key: string): number[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(key) ?? '[]');
    return Array.isArray(value) ? value.filter((id): id is number => Number.isInteger(id)) : [];
  } catch {
    return [];
  }
}

export interface ArchivedLists {
  lists: TaskList[];
  /** A list just archived here. */
  remember: (listId: number) => void;
  reload: () => void;
}

export function useArchivedLists(): ArchivedLists {
  const { session } = useSession();
  const { lists: activeLists } = useTeamData();
  const storageKey = `tasklane:archived-lists:${session.team.id}:${session.user.id}`;
  const candidates = useRef(new Set(readIds(storageKey)));

  const archived = useAsync(async () => {
    const fromServer = await fetchArchivedLists().catch(() => [] as TaskList[]);
    const keep = new Set(fromServer.map((list) => list.id));
    const checked = await Promise.all(
      [...candidates.current]
        .filter((id) => !keep.has(id))
        .map((id) =>
          fetchList(id).catch((error: unknown) => {
            // Not found or no access: forget it. Anything else (offline): ask again next time.
            if (!(error instanceof ApiError && (error.status === 403 || error.status === 404))) keep.add(id);
            return null;
          }),
        ),
    );
    const found = [...fromServer, ...checked.filter((list): list is TaskList => list?.isArchived === true)];
    for (const list of found) keep.add(list.id);
    candidates.current = keep;
    localStorage.setItem(storageKey, JSON.stringify([...keep]));
    return found.sort((a, b) => a.id - b.id);
  }, [storageKey]);

  const remember = useCallback(
    (listId: number) => {
      candidates.current.add(listId);
      archived.reloadSoon();
    },
    [archived.reloadSoon],
  );

  // A list that leaves the sidebar may have been archived (here, elsewhere, or before this page loaded).
  const previous = useRef<TaskList[] | undefined>(undefined);
  useEffect(() => {
    const gone = previous.current?.filter((list) => !activeLists?.some((active) => active.id === list.id)) ?? [];
    for (const list of gone) candidates.current.add(list.id);
    if (gone.length > 0) archived.reloadSoon();
    previous.current = activeLists;
  }, [activeLists]);

  useLiveEvent((event) => {
    if (event.type === 'taskList.archived' && event.listId !== undefined) candidates.current.add(event.listId);
    if (event.type.startsWith('taskList.') || event.type === 'sync.required') archived.reloadSoon();
  });

  return { lists: archived.data ?? [], remember, reload: archived.reload };
}
