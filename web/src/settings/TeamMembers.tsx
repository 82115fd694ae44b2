/** Who is in the team, with their roles (people are added with `tasklane admin member add`). */
import { useEffect } from 'preact/hooks';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';

export function TeamMembers() {
  const { session } = useSession();
  const { members, reloadMembers } = useTeamData();
  useEffect(reloadMembers, []);
  return (
    <section class="card" aria-labelledby="members-heading">
      <h2 id="members-heading">Members of {session.team.name}</h2>
      <div class="table-scroll">
        <table class="table">
          <caption class="sr-only">Team members and their roles</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <td>
                  {member.name}
                  {member.id === session.user.id && <span class="muted"> (you)</span>}
                </td>
                <td>{member.email}</td>
                <td>
                  <span class="role-badge">{member.role}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
