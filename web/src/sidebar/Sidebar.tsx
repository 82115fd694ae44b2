/** Navigation: My tasks, the caller's lists (live), a new-list form, and the Archived section. */
import { useState } from 'preact/hooks';
import { createList } from '../api/lists';
import type { TaskList } from '@contract';
import type { ListColor } from '@contract/enums';
import { useTeamData } from '../app/team-data';
import { ListMembersDialog } from '../lists/ListMembersDialog';
import { NoListsNote } from '../lists/NoListsNote';
import { navigate, useLocation, type Route } from '../lib/router';
import { filtersFromSearch, layoutFromSearch, type TaskScope } from '../lib/task-filters';
import { useSession } from '../app/session-context';
import { SaveView } from '../views/SaveView';
import { viewScope, viewSearch } from '../views/view-params';
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
  const [saving, setSaving] = useState(false);
  const { session } = useSession();
  const { search } = useLocation();
  // The page a view can be saved from: a list, my tasks, or a view (saved again as another).
  const view = route.page === 'view' ? views?.find((candidate) => candidate.id === route.viewId) : undefined;
  const scope: TaskScope | undefined =
    route.page === 'list'
      ? { listId: route.listId }
      : route.page === 'my-tasks'
        ? { assigneeId: session.user.id }
        : view && viewScope(view);
  const pageSearch = search || (view ? viewSearch(view) : '');

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
          {scope && (
            <button type="button" class="button-quiet small" aria-expanded={saving} onClick={() => setSaving(!saving)}>
              + Save view
            </button>
          )}
        </div>
        {saving && scope && (
          <SaveView
            filters={filtersFromSearch(pageSearch)}
            scope={scope}
            layout={layoutFromSearch(pageSearch)}
            onClose={() => setSaving(false)}
          />
        )}
        <ErrorNote message={viewsError} />
        {views?.length === 0 && !saving && <p class="muted small">Save a page's filters and order as a view.</p>}
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
