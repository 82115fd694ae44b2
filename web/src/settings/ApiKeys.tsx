/**
 * Personal API keys for scripts, integrations and agents: create (full access, a preset or chosen
 * scopes, optionally limited to lists; the secret shown once, with MCP configurations for a key
 * with limits), see their access and use, revoke. A chunk of its own, loaded when Settings opens.
 */
import { useState } from 'preact/hooks';
import type { ApiKey, CreatedKey } from '@contract';
import { messageOf } from '../api/client';
import { fetchKeys, revokeKey } from '../api/keys';
import { fetchLists } from '../api/lists';
import { formatTimestamp } from '../lib/dates';
import { useAsync } from '../lib/use-async';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { McpConfigs } from './keys/McpConfigs';
import { NewKeyForm } from './keys/NewKeyForm';
import { listsText, scopesText } from './keys/scopes';
import { NewKeySecret } from './NewKeySecret';

export { AgentAccess } from './keys/AgentAccess';

export function ApiKeys() {
  const keys = useAsync(fetchKeys, []);
  const lists = useAsync(fetchLists, []);
  const notify = useNotify();
  const [created, setCreated] = useState<CreatedKey | null>(null);

  const revoke = async (key: ApiKey) => {
    try {
      await revokeKey(key.id);
      notify(`Key “${key.name}” revoked: it no longer works.`);
    } catch (failure) {
      notify(`Could not revoke “${key.name}”: ${messageOf(failure)}`, 'error');
    }
    keys.reload();
  };

  return (
    <section class="card" id="keys" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p class="muted">
        Keys let scripts and AI assistants use the API as you, in this team. Give an agent only what it needs. Revoke a
        key you no longer use.
      </p>
      {created && (
        <NewKeySecret name={created.name} secret={created.key} onDone={() => setCreated(null)}>
          {(created.scopes || created.listIds) && <McpConfigs secret={created.key} />}
        </NewKeySecret>
      )}
      <NewKeyForm
        lists={lists.data}
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      <ErrorNote message={keys.error ?? lists.error} />
      {keys.loading && !keys.data && <p class="muted">Loading your keys…</p>}
      {keys.data && keys.data.length === 0 && <p class="muted">You have no API keys.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-scroll">
          <table class="table table-stacks">
            <caption class="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Access</th>
                <th scope="col">Lists</th>
                <th scope="col">Key starts with</th>
                <th scope="col">Created</th>
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
                  <td data-label="Access">{scopesText(key.scopes)}</td>
                  <td data-label="Lists">{listsText(key.listIds, lists.data)}</td>
                  <td data-label="Key starts with">
                    <code>{key.prefix}…</code>
                  </td>
                  <td data-label="Created">{formatTimestamp(key.createdAt)}</td>
                  <td data-label="Last used">{formatTimestamp(key.lastUsedAt)}</td>
                  <td class="cell-actions">
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel="Revoke now"
                      ariaLabel={`Revoke key ${key.name}`}
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
