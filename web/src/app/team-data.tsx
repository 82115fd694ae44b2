/**
 * What every view of a team needs: the caller's lists (the sidebar), the workflow statuses, the
 * labels and the team's members. Lists follow list events live, statuses status events and labels
 * `label.*` (so every picker and filter shows one added, renamed or deleted by anyone), members `member.*` (someone joined,
 * changed role or left); everything is fetched again on `sync.required`.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useMemo } from 'preact/hooks';
import { fetchLists } from '../api/lists';
import { fetchLabels, fetchMembers, fetchStatuses } from '../api/team';
import { fetchViews } from '../api/views';
import type { Label, Member, TaskList, TaskStatus, View } from '@contract';
import { useAsync } from '../lib/use-async';
import { useLiveEvent } from './live';

export interface TeamData {
  /** Non-archived lists the caller is a member of, oldest first; undefined while loading. */
  lists: TaskList[] | undefined;
  listsError: string | null;
  /** In order; empty while loading (a team always has its default status). */
  statuses: TaskStatus[];
  statusesError: string | null;
  /** By name; undefined while loading. */
  labels: Label[] | undefined;
  labelsError: string | null;
  /** Empty while loading (the caller is always one). */
  members: Member[];
  membersError: string | null;
  /** The caller's saved views and the team's shared ones (the sidebar); undefined while loading. */
  views: View[] | undefined;
  viewsError: string | null;
  reloadLists: () => void;
  reloadViews: () => void;
  reloadStatuses: () => void;
  reloadLabels: () => void;
  reloadMembers: () => void;
}

const TeamDataContext = createContext<TeamData | null>(null);

export function useTeamData(): TeamData {
  const value = useContext(TeamDataContext);
  if (!value) throw new Error('useTeamData outside TeamDataProvider');
  return value;
}

export function TeamDataProvider({ children }: { children: ComponentChildren }) {
  const lists = useAsync(fetchLists, []);
  const statuses = useAsync(fetchStatuses, []);
  const labels = useAsync(fetchLabels, []);
  const members = useAsync(fetchMembers, []);
  // Views send no events: they are read again at a sync, and after this tab changes one.
  const views = useAsync(fetchViews, []);

  useLiveEvent((event) => {
    if (event.type.startsWith('taskList.') || event.type === 'sync.required') lists.reloadSoon();
    if (event.type.startsWith('taskStatus.') || event.type === 'sync.required') statuses.reloadSoon();
    if (event.type.startsWith('label.') || event.type === 'sync.required') labels.reloadSoon();
    if (event.type.startsWith('member.') || event.type === 'sync.required') members.reloadSoon();
    if (event.type === 'sync.required') views.reloadSoon();
  });

  const value = useMemo<TeamData>(
    () => ({
      lists: lists.data,
      listsError: lists.error,
      statuses: statuses.data ?? [],
      statusesError: statuses.error,
      labels: labels.data,
      labelsError: labels.error,
      members: members.data ?? [],
      membersError: members.error,
      views: views.data,
      viewsError: views.error,
      reloadLists: lists.reload,
      reloadViews: views.reload,
      reloadStatuses: statuses.reload,
      reloadLabels: labels.reload,
      reloadMembers: members.reload,
    }),
    [
      lists.data,
      lists.error,
      statuses.data,
      statuses.error,
      labels.data,
      labels.error,
      members.data,
      members.error,
      views.data,
      views.error,
    ],
  );
  return <TeamDataContext.Provider value={value}>{children}</TeamDataContext.Provider>;
}
