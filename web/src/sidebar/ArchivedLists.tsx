/**
 * The sidebar's Archived section: the caller's archived lists (GET /v1/lists?archived=true),
 * kept current by list events like the lists above it, each with a way to unarchive it.
 */
import type { TaskList } from '@contract';
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { fetchArchivedLists, unarchiveList } from '../api/lists';
import { useLiveEvent } from '../app/live';
import { useTeamData } from '../app/team-data';
import { useAsync } from '../lib/use-async';
import { ColorDot } from '../ui/ColorPicker';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';
import { useNotify } from '../ui/notices';

export function ArchivedLists() {
  const [open, setOpen] = useState(false);
  const { reloadLists } = useTeamData();
  const notify = useNotify();
  const archived = useAsync(fetchArchivedLists, []);
  const lists = archived.data ?? [];

  useLiveEvent((event) => {
    if (event.type.startsWith('taskList.') || event.type === 'sync.required') archived.reloadSoon();
  });

  const unarchive = async (list: TaskList) => {
    try {
      await unarchiveList(list.id);
      notify(`“${list.name}” is back in your lists.`);
    } catch (error) {
      notify(`Could not unarchive “${list.name}”: ${messageOf(error)}`, 'error');
    }
    reloadLists();
    archived.reload();
  };

  return (
    <section class="archived" aria-labelledby="archived-heading">
      <h2 id="archived-heading" class="sidebar-heading">
        <button
          type="button"
          class="disclosure"
          aria-expanded={open}
          aria-controls="archived-lists"
          onClick={() => setOpen(!open)}
        >
          <span class="disclosure-arrow" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          Archived ({lists.length})
        </button>
      </h2>
      {open && <ErrorNote message={archived.error} />}
      {open && (
        <ul id="archived-lists" class="sidebar-lists">
          {lists.length === 0 && !archived.error && <li class="muted small">No archived lists.</li>}
          {lists.map((list) => (
            <li key={list.id} class="sidebar-list">
              <Link href={`/lists/${list.id}`} class="nav-item">
                <ColorDot color={list.color} />
                <span class="nav-name">{list.name}</span>
              </Link>
              <button
                type="button"
                class="button-quiet small"
                aria-label={`Unarchive ${list.name}`}
                onClick={() => void unarchive(list)}
              >
                Unarchive
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
