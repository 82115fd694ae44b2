/** One list's tasks, with its members and, for an archived list, a way back. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { fetchList, unarchiveList } from '../api/lists';
import { useLiveEvent } from '../app/live';
import { useTeamData } from '../app/team-data';
import { ListMembersDialog } from '../lists/ListMembersDialog';
import { useAsync } from '../lib/use-async';
import { useDocumentTitle } from '../lib/use-document-title';
import { ColorDot } from '../ui/ColorPicker';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { TasksView } from './TasksView';

export function ListPage({ listId }: { listId: number }) {
  const { lists, reloadLists } = useTeamData();
  const notify = useNotify();
  const [sharing, setSharing] = useState(false);
  // The sidebar knows non-archived lists; an archived one (or one just shared) is asked for.
  const fetched = useAsync(() => fetchList(listId), [listId]);
  useLiveEvent((event) => {
    if (event.listId === listId || event.type === 'sync.required') fetched.reloadSoon();
  });
  const list = lists?.find((candidate) => candidate.id === listId) ?? fetched.data;
  useDocumentTitle(list?.name);

  if (!list) {
    return (
      <section class="page">
        <h1>List</h1>
        {fetched.error ? <ErrorNote message={fetched.error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }

  const unarchive = async () => {
    try {
      await unarchiveList(list.id);
    } catch (error) {
      notify(`Could not unarchive: ${messageOf(error)}`, 'error');
    }
    reloadLists();
    fetched.reload();
  };

  return (
    <>
      <TasksView
        heading={
          <>
            <ColorDot color={list.color} /> {list.name}
          </>
        }
        actions={
          <button type="button" class="button-secondary" onClick={() => setSharing(true)}>
            Members
          </button>
        }
        banner={
          list.isArchived && (
            <p class="info-note">
              This list is archived: it is hidden from the sidebar and takes no new tasks.{' '}
              <button type="button" class="button-link" onClick={() => void unarchive()}>
                Unarchive it
              </button>
            </p>
          )
        }
        canAdd={!list.isArchived}
        scope={{ listId }}
        newTaskDefaults={{ taskListIds: [listId] }}
      />
      {sharing && <ListMembersDialog list={list} onClose={() => setSharing(false)} />}
    </>
  );
}
