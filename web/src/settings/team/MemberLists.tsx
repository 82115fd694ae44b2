/**
 * A member's lists, for owners and admins in Settings → Members: "Lists…" on a member's row
 * opens which of the caller's lists the member is not in (the caller can only add people to
 * lists they are in themselves), all ticked, and adds the member to the ticked ones in one step.
 * For a newcomer who joined a team whose lists are not shared: nothing to hunt for list by list.
 * It uses the list endpoints (members of each list; POST …/members, which answers 200 for one
 * who is a member already), so someone added meanwhile is no error.
 */
import { useState } from 'preact/hooks';
import type { Member, TaskList } from '@contract';
import { messageOf } from '../../api/client';
import { addListMember, fetchListMembers, fetchLists } from '../../api/lists';
import { useLiveEvent } from '../../app/live';
import { useTeamData } from '../../app/team-data';
import { countOf } from '../../lib/plural';
import { useAsync } from '../../lib/use-async';
import { ColorDot } from '../../ui/ColorPicker';
import { Dialog } from '../../ui/Dialog';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';

/** The caller's (non-archived) lists that `userId` is not a member of, oldest first. */
async function listsWithout(userId: string): Promise<TaskList[]> {
  const lists = await fetchLists();
  const members = await Promise.all(lists.map((list) => fetchListMembers(list.id)));
  return lists.filter((_, i) => !members[i]!.some((member) => member.id === userId));
}

export function MemberLists({ member }: { member: Member }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="button-quiet small"
        aria-label={`Lists of ${member.name}`}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        Lists…
      </button>
      {open && <MemberListsDialog member={member} onClose={() => setOpen(false)} />}
    </>
  );
}

function MemberListsDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const missing = useAsync(() => listsWithout(member.id), [member.id]);
  const { reloadLists } = useTeamData();
  const notify = useNotify();
  // Unticked lists (all are ticked at first, so a newcomer is added to everything in one click).
  const [skipped, setSkipped] = useState<Set<number>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useLiveEvent((event) => {
    if (event.type.startsWith('taskList.') || event.type === 'sync.required') missing.reloadSoon();
  });

  const chosen = (missing.data ?? []).filter((list) => !skipped.has(list.id));
  const toggle = (listId: number, ticked: boolean) => {
    const next = new Set(skipped);
    if (ticked) next.delete(listId);
    else next.add(listId);
    setSkipped(next);
  };

  const add = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const failed: string[] = [];
    for (const list of chosen) {
      try {
        await addListMember(list.id, member.id);
      } catch (failure) {
        failed.push(`“${list.name}”: ${messageOf(failure)}`);
      }
    }
    setBusy(false);
    reloadLists();
    missing.reload();
    if (failed.length > 0) return setError(`Could not add ${member.name} to ${failed.join('; ')}`);
    notify(`${member.name} is now a member of ${countOf(chosen.length, 'more list')}.`);
  };

  return (
    <Dialog title={`Lists of ${member.name}`} onClose={onClose}>
      <ErrorNote message={missing.error} />
      {missing.data === undefined && !missing.error && <p class="muted">Loading your lists…</p>}
      {missing.data?.length === 0 && <p class="muted">{member.name} is in every list you are in.</p>}
      {missing.data && missing.data.length > 0 && (
        <form onSubmit={add}>
          <fieldset class="member-lists">
            <legend>Your lists {member.name} is not in</legend>
            {missing.data.map((list) => (
              <label key={list.id} class="checkbox-field">
                <input
                  type="checkbox"
                  checked={!skipped.has(list.id)}
                  onChange={(e) => toggle(list.id, e.currentTarget.checked)}
                />
                <span>
                  <ColorDot color={list.color} /> {list.name}
                </span>
              </label>
            ))}
          </fieldset>
          <div class="form-actions">
            <button type="submit" class="button-primary" disabled={busy || chosen.length === 0}>
              {`Add to ${countOf(chosen.length, 'list')}`}
            </button>
          </div>
        </form>
      )}
      <ErrorNote message={error} />
    </Dialog>
  );
}
