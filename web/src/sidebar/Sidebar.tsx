/** Navigation: My tasks, the caller's lists (live), a new-list form, and the Archived section. */
import { useState } from 'preact/hooks';
import { createList } from '../api/lists';
import type { TaskList } from '@contract';
import type { ListColor } from '@contract/enums';
import { useTeamData } from '../app/team-data';
import { ListMembersDialog } from '../lists/ListMembersDialog';
import { NoListsNote } from '../lists/NoListsNote';
import { navigate, type Route } from '../lib/router';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';
import { ArchivedLists } from './ArchivedLists';
import { ListForm } from './ListForm';
import { SidebarListItem } from './SidebarListItem';

interface Props {
  id: string;
  route: Route;
}

export function Sidebar({ id, route }: Props) {
  const { lists, listsError, reloadLists, views, viewsError } = useTeamData();
  const [creating, setCreating] = useState(false);
  const [sharing, setSharing] = useState<TaskList | null>(null);

  const create = async (name: string, color: ListColor, sharedWithTeam: boolean) => {
    const list = await createList(name, color, sharedWithTeam);
    reloadLists();
    setCreating(false);
    navigate(`/lists/${list.id}`);
  };

  return (
    // The nav is as tall as the page (its background with it); its contents stay in sight.
    <nav id={id} class="sidebar" aria-label="Lists and views">
      <div class="sidebar-inner">
        <Link href="/" class="nav-item" aria-current={route.page === 'my-tasks' ? 'page' : undefined}>
          <span class="nav-icon" aria-hidden="true">
            ☺
          </span>
          My tasks
        </Link>

        <div class="sidebar-section-title">
          <h2 class="sidebar-heading">Lists</h2>
          <button
            type="button"
            class="button-quiet small"
            aria-expanded={creating}
            onClick={() => setCreating(!creating)}
          >
            + New list
          </button>
        </div>
        {creating && (
          <ListForm
            title="New list"
            submitLabel="Create list"
            // A first list is most likely the team's own (the caller sees no other): shared unless unticked.
            initialShared={lists?.length === 0}
            onSubmit={create}
            onCancel={() => setCreating(false)}
          />
        )}
        <ErrorNote message={listsError} />
        {lists === undefined && !listsError && <p class="muted small">Loading lists…</p>}
        {lists?.length === 0 && !creating && <NoListsNote class="muted small" />}
        <ul class="sidebar-lists" aria-label="Your lists">
          {lists?.map((list) => (
            <SidebarListItem
              key={list.id}
              list={list}
              current={route.page === 'list' && route.listId === list.id}
              onShare={setSharing}
            />
          ))}
        </ul>

        <div class="sidebar-section-title">
          <h2 class="sidebar-heading">Views</h2>
        </div>
        <ErrorNote message={viewsError} />
        {views?.length === 0 && <p class="muted small">Save a list's filters and order with “Save view”.</p>}
        <ul class="sidebar-lists" aria-label="Saved views">
          {views?.map((view) => (
            <li key={view.id}>
              <Link
                href={`/views/${view.id}`}
                class="nav-item"
                aria-current={route.page === 'view' && route.viewId === view.id ? 'page' : undefined}
              >
                <span class="nav-name">{view.name}</span>
                {view.sharedWithTeam && <small class="muted"> (shared)</small>}
              </Link>
            </li>
          ))}
        </ul>

        <ArchivedLists />

        {sharing && <ListMembersDialog list={sharing} onClose={() => setSharing(null)} />}
      </div>
    </nav>
  );
}
