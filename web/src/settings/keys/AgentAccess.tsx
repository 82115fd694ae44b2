/**
 * Settings → Agents' access (owners and admins): every key of the team with scopes or lists,
 * whoever made it, and Revoke, which ends it at once. A chunk of its own, loaded when Settings opens.
 */
import type { AgentKey } from '@contract';
import { messageOf } from '../../api/client';
import { fetchAgentAccess, revokeAgentAccess } from '../../api/keys';
import { fetchLists } from '../../api/lists';
import { formatTimestamp } from '../../lib/dates';
import { useAsync } from '../../lib/use-async';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { listsText, scopesText } from './scopes';

export function AgentAccess() {
  const keys = useAsync(fetchAgentAccess, []);
  const lists = useAsync(fetchLists, []);
  const notify = useNotify();

  const revoke = async (key: AgentKey) => {
    try {
      await revokeAgentAccess(key.id);
      notify(`${key.owner.name}’s key “${key.name}” revoked: it no longer works.`);
    } catch (failure) {
      notify(`Could not revoke “${key.name}”: ${messageOf(failure)}`, 'error');
    }
    keys.reload();
  };

  return (
    <section class="card" id="agents" aria-labelledby="agents-heading">
      <h2 id="agents-heading">Agents’ access</h2>
      <p class="muted">
        Every key in the team limited to scopes or lists, such as an AI assistant’s, whoever made it. Revoking one ends
        its access at once.
      </p>
      <ErrorNote message={keys.error} />
      {keys.loading && !keys.data && <p class="muted">Loading…</p>}
      {keys.data && keys.data.length === 0 && <p class="muted">No one in the team has an agent’s key.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-scroll">
          <table class="table table-stacks">
            <caption class="sr-only">Agents’ keys in the team</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Owner</th>
                <th scope="col">Access</th>
                <th scope="col">Lists</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td class="cell-name">{key.name}</td>
                  <td data-label="Owner">{key.owner.name}</td>
                  <td data-label="Access">{scopesText(key.scopes)}</td>
                  <td data-label="Lists">{listsText(key.listIds, lists.data)}</td>
                  <td data-label="Last used">{formatTimestamp(key.lastUsedAt)}</td>
                  <td class="cell-actions">
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel="Revoke now"
                      ariaLabel={`Revoke ${key.owner.name}’s key ${key.name}`}
                      onConfirm={() => void revoke(key)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
