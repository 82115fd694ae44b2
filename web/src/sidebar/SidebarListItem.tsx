/** One list in the sidebar: a link to it, and its actions (rename and recolour, share, archive). */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { archiveList, updateList } from '../api/lists';
import type { TaskList } from '@contract';
import { useTeamData } from '../app/team-data';
import { ColorDot } from '../ui/ColorPicker';
import { Link } from '../ui/Link';
import { useNotify } from '../ui/notices';
import { Popover } from '../ui/Popover';
import { ListForm } from './ListForm';

interface Props {
  list: TaskList;
  current: boolean;
  onShare: (list: TaskList) => void;
}

export function SidebarListItem({ list, current, onShare }: Props) {
  const { reloadLists } = useTeamData();
  const notify = useNotify();
  const [editing, setEditing] = useState(false);

  if (editing) {
    return (
      <li>
        <ListForm
          title={`Edit list ${list.name}`}
          initialName={list.name}
          initialColor={list.color}
          submitLabel="Save"
          onSubmit={async (name, color) => {
            await updateList(list.id, { name, color });
            reloadLists();
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    );
  }

  const archive = async () => {
    try {
      await archiveList(list.id);
      notify(`Archived “${list.name}”. Find it under Archived.`);
    } catch (error) {
      notify(`Could not archive “${list.name}”: ${messageOf(error)}`, 'error');
    }
    reloadLists();
  };

  return (
    <li class={`sidebar-list${current ? ' is-current' : ''}`}>
      <Link href={`/lists/${list.id}`} class="nav-item" aria-current={current ? 'page' : undefined}>
        <ColorDot color={list.color} />
        <span class="nav-name">{list.name}</span>
      </Link>
      <Popover label={`Actions for list ${list.name}`} button={<span aria-hidden="true">⋯</span>} align="end">
        {(close) => (
          <div class="menu">
            <button
              type="button"
              onClick={() => {
                close();
                setEditing(true);
              }}
            >
              Rename or recolour
            </button>
            <button
              type="button"
              onClick={() => {
                close();
                onShare(list);
              }}
            >
              Share…
            </button>
            <button
              type="button"
              onClick={() => {
                close();
                void archive();
              }}
            >
              Archive
            </button>
          </div>
        )}
      </Popover>
    </li>
  );
}
