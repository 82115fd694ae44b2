/**
 * A saved view at /views/{id}: GET /v1/tasks with its filters and order, as the person opening it
 * (so a shared view shows each only what they can read). Its filters can be changed on the page
 * as on any list; "Save changes" (for those who manage it) makes them the view's own, "Save view"
 * (in the sidebar) saves them as a new view.
 */
import { messageOf } from '../api/client';
import { deleteView, fetchView, updateView } from '../api/views';
import { useTeamData } from '../app/team-data';
import type { View } from '@contract';
import { navigate, useLocation } from '../lib/router';
import { filtersFromSearch, layoutFromSearch } from '../lib/task-filters';
import { useAsync } from '../lib/use-async';
import { useDocumentTitle } from '../lib/use-document-title';
import { TasksView } from '../tasks/TasksView';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { viewFieldsOf, viewScope, viewSearch } from './view-params';

export function ViewPage({ viewId }: { viewId: number }) {
  const { views } = useTeamData();
  // The sidebar has the caller's views; one opened from a link before it loads is asked for.
  const fetched = useAsync(() => fetchView(viewId), [viewId]);
  const view = views?.find((candidate) => candidate.id === viewId) ?? fetched.data;
  useDocumentTitle(view?.name);

  if (!view) {
    return (
      <section class="page">
        <h1>View</h1>
        {fetched.error ? <ErrorNote message={fetched.error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  const author = view.author ? view.author.name : 'the team';
  return (
    <TasksView
      heading={view.name}
      intro={view.sharedWithTeam ? `Shared with the team by ${author}: you see the tasks you can open.` : 'Your view.'}
      actions={view.canManage && <ViewActions view={view} />}
      scope={viewScope(view)}
      defaultSearch={viewSearch(view)}
      newTaskDefaults={{}}
    />
  );
}

/**
 * Its author's, or for a shared view its managers': saving the filters, order and layout the page
 * now shows as the view's own (offered once they differ from the view's), and deleting it.
 */
function ViewActions({ view }: { view: View }) {
  const { reloadViews } = useTeamData();
  const notify = useNotify();
  const { search } = useLocation();
  const changed = search !== '' && search !== viewSearch(view);
  const save = async () => {
    try {
      const fields = viewFieldsOf(filtersFromSearch(search), viewScope(view));
      await updateView(view.id, { ...fields, layout: layoutFromSearch(search) === 'board' ? 'board' : 'rows' });
      reloadViews();
      // The view's own address again: its saved filters are now what the page shows.
      navigate(`/views/${view.id}`, { replace: true });
      notify('View saved.');
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const remove = async () => {
    try {
      await deleteView(view.id);
      navigate('/');
    } catch (error) {
      notify(messageOf(error), 'error');
    }
    reloadViews();
  };
  return (
    <>
      {changed && (
        <button type="button" class="button-primary" onClick={() => void save()}>
          Save changes
        </button>
      )}
      <ConfirmButton label="Delete view" confirmLabel="Delete" onConfirm={() => void remove()} />
    </>
  );
}
