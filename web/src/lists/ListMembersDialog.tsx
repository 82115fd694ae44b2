/**
 * Who is in a list, and adding or removing teammates (members of a list see it and its tasks),
 * or sharing it with the whole team: then everyone in the team is a member, newcomers too, and
 * nobody can be removed until sharing stops (which keeps the members).
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { addListMember, fetchListMembers, removeListMember, updateList } from '../api/lists';
import type { Member, TaskList } from '@contract';
import { useLiveEvent } from '../app/live';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { useAsync } from '../lib/use-async';
import { Dialog } from '../ui/Dialog';
import { ErrorNote } from '../ui/ErrorNote';

interface Props {
  list: TaskList;
  onClose: () => void;
}

export function ListMembersDialog({ list, onClose }: Props) {
  const { session } = useSession();
  const { members: teammates, reloadLists } = useTeamData();
  const members = useAsync(() => fetchListMembers(list.id), [list.id]);
  const [choice, setChoice] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [shared, setShared] = useState(list.sharedWithTeam);
  const [sharing, setSharing] = useState(false);

  useLiveEvent((event) => {
    if (event.listId === list.id || event.type === 'sync.required') members.reloadSoon();
  });

  const candidates = teammates.filter((teammate) => !members.data?.some((member) => member.id === teammate.id));

  const add = async (event: Event) => {
    event.preventDefault();
    if (!choice) return;
    setError(null);
    try {
      await addListMember(list.id, choice);
      setChoice('');
    } catch (failure) {
      setError(messageOf(failure));
    }
    members.reload();
  };

  const toggleShared = async (sharedWithTeam: boolean) => {
    setError(null);
    setSharing(true);
    try {
      setShared((await updateList(list.id, { sharedWithTeam })).sharedWithTeam);
      reloadLists();
    } catch (failure) {
      setError(messageOf(failure));
    }
    setSharing(false);
    members.reload();
  };

  const remove = async (member: Member) => {
    setError(null);
    try {
      await removeListMember(list.id, member.id);
      if (member.id === session.user.id) {
        reloadLists();
        return onClose(); // you left the list: you can no longer see it
      }
    } catch (failure) {
      setError(messageOf(failure));
    }
    members.reload();
  };

  return (
    <Dialog title={`Share “${list.name}”`} onClose={onClose}>
      <p class="muted">Members see this list and its tasks, and are told of changes live.</p>
      <label class="checkbox-field">
        <input
          type="checkbox"
          checked={shared}
          disabled={sharing}
          onChange={(event) => void toggleShared(event.currentTarget.checked)}
        />
        <span>
          Share with the whole team
          <small class="muted">
            {shared
              ? ' Everyone in the team is a member, and so is everyone who joins. Untick to choose members again (they all stay).'
              : ' Makes everyone in the team a member, and everyone who joins later.'}
          </small>
        </span>
      </label>
      <ErrorNote message={members.error} />
      <ul class="member-list" aria-label={`Members of ${list.name}`}>
        {members.data?.map((member) => (
          <li key={member.id}>
            <span class="avatar" aria-hidden="true">
              {member.name.slice(0, 1).toUpperCase()}
            </span>
            <span class="member-name">
              {member.name}
              {member.id === session.user.id && ' (you)'}
              <small class="muted">{member.email}</small>
            </span>
            <span class="role-badge">{member.role}</span>
            {!shared && (
              <button
                type="button"
                class="button-danger-quiet small"
                aria-label={`Remove ${member.name} from ${list.name}`}
                onClick={() => void remove(member)}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <form class="inline-form" onSubmit={add}>
        <div class="field">
          <label for="add-list-member">Add a teammate</label>
          <select id="add-list-member" value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
            <option value="">{candidates.length ? 'Choose a teammate…' : 'Everyone is already a member'}</option>
            {candidates.map((teammate) => (
              <option key={teammate.id} value={teammate.id}>
                {teammate.name} ({teammate.email})
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="button-primary" disabled={!choice}>
          Add
        </button>
      </form>
      <ErrorNote message={error} />
    </Dialog>
  );
}
