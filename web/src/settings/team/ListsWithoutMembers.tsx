/**
 * Lists without members (owners and admins, in Settings → Members): a removal takes the removed
 * member's list memberships with it, so a list only they were in is left closed to everyone.
 * Each such list is shown with "Add me", which makes the caller its member; the server refuses
 * (409) a list that has members meanwhile, and the list is read again either way.
 */
import type { TaskList } from '@contract';
import { messageOf } from '../../api/client';
import { fetchListsWithoutMembers, joinListWithoutMembers } from '../../api/lists';
import { useTeamData } from '../../app/team-data';
import { useAsync } from '../../lib/use-async';
import { ColorDot } from '../../ui/ColorPicker';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { useWhenVisibleAgain } from './use-when-visible-again';

interface Props {
  /** Changes after each removal from the team, which may leave a list without members: read them again. */
  removals: number;
  /** A change failed (a 403: the caller's role changed meanwhile). */
  onRefused: (failure: unknown) => void;
}

export function ListsWithoutMembers({ removals, onRefused }: Props) {
  const orphans = useAsync(fetchListsWithoutMembers, [removals]);
  useWhenVisibleAgain(orphans.reload);
  const { reloadLists } = useTeamData();
  const notify = useNotify();

  const join = async (list: TaskList) => {
    try {
      await joinListWithoutMembers(list.id);
      notify(`You are now a member of “${list.name}”.`);
      reloadLists();
    } catch (failure) {
      notify(`Could not add you to “${list.name}”: ${messageOf(failure)}`, 'error');
      onRefused(failure);
    }
    orphans.reload();
  };

  return (
    <div class="orphan-lists" aria-labelledby="orphan-lists-heading" role="group">
      <h3 id="orphan-lists-heading">Lists without members</h3>
      <p class="muted small">
        Removing someone takes them off their lists; a list only they were in is then closed to everyone. Add yourself
        to open it again, then share it as usual.
      </p>
      <ErrorNote message={orphans.error} />
      {orphans.data === undefined && !orphans.error && <p class="muted">Loading the lists without members…</p>}
      {orphans.data?.length === 0 && <p class="muted">Every list has a member.</p>}
      {orphans.data && orphans.data.length > 0 && (
        <ul class="orphan-list-rows">
          {orphans.data.map((list) => (
            <li key={list.id} class="orphan-list-row">
              <span class="orphan-list-name">
                <ColorDot color={list.color} />
                {list.name}
                {list.isArchived && <span class="muted"> (archived)</span>}
              </span>
              <button
                type="button"
                class="button-secondary"
                aria-label={`Add me to ${list.name}`}
                onClick={() => void join(list)}
              >
                Add me
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
