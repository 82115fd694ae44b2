/**
 * What someone who is in no list reads (the sidebar, My tasks). Lists are private to their
 * members, so an empty sidebar often means "not added yet" rather than "nothing here": a member
 * is told whom to ask (the team's owners and admins, by name, from the members the app holds);
 * an owner or admin, who sets the team up, is told to make a list and share it with the team.
 */
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { managesTeam } from '../settings/team/member-rules';

/** Names joined for a sentence: "A", "A or B", "A, B or C". */
function either(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

export function NoListsNote({ class: className }: { class?: string }) {
  const { session } = useSession();
  const { members } = useTeamData();
  const myRole = members.find((member) => member.id === session.user.id)?.role ?? session.role;
  if (managesTeam(myRole)) {
    return (
      <p class={className}>
        You are in no list yet: make one with “+ New list” and share it with the whole team, or ask its members to add
        you.
      </p>
    );
  }
  const managers = members.filter((member) => managesTeam(member.role) && member.id !== session.user.id);
  const whom = managers.length > 0 && managers.length <= 3 ? either(managers.map((m) => m.name)) : 'an owner or admin';
  return (
    <p class={className}>
      You are in no list yet. Lists are shared by their members: ask {whom} to add you to the team’s lists.
    </p>
  );
}
