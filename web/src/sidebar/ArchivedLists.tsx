/** The sidebar's Archived section: find an archived list and unarchive it. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { unarchiveList } from '../api/lists';
import type { TaskList } from '@contract';
import { useTeamData } from '../app/team-data';
import { ColorDot } from '../ui/ColorPicker';
import { Link } from '../ui/Link';
import { useNotify } from '../ui/notices';

interface Props {
  lists: TaskList[];
  onChanged: () => void;
}

export function ArchivedLists({ lists, onChanged }: Props) {
  const [open, setOpen] = useState(false);
  const { reloadLists } = useTeamData();
  const notify = useNotify();

  const unarchive = async (list: TaskList) => {
    try {
      await unarchiveList(list.id);
      notify(`“${list.name}” is back in your lists.`);
    } catch (error) {
      notify(`Could not unarchive “${list.name}”: ${messageOf(error)}`, 'error');
    }
    reloadLists();
    onChanged();
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
      {open && (
        <ul id="archived-lists" class="sidebar-lists">
          {lists.length === 0 && <li class="muted small">No archived lists.</li>}
          {lists.map((list) => (
            <li key={list.id} class="sidebar-list">
              <Link href={`/lists/${list.id}`} class="nav-item">
                <ColorDot color={list.color} />
                <span class="truncate">{list.name}</span>
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
