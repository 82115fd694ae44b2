/** Personal API keys for scripts and integrations: create (secret shown once), see use, revoke. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { createKey, fetchKeys, revokeKey } from '../api/keys';
import type { ApiKey } from '@contract';
import { formatTimestamp } from '../lib/dates';
import { useAsync } from '../lib/use-async';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { NewKeySecret } from './NewKeySecret';

export function ApiKeys() {
  const keys = useAsync(fetchKeys, []);
  const notify = useNotify();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const key = await createKey(name.trim());
      setCreated({ name: key.name, secret: key.key });
      setName('');
    } catch (failure) {
      setError(messageOf(failure));
    }
    keys.reload();
  };

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
    <section class="card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p class="muted">Keys let scripts use the API as you, in this team. Revoke a key you no longer use.</p>
      {created && <NewKeySecret name={created.name} secret={created.secret} onDone={() => setCreated(null)} />}
      <form class="inline-form" onSubmit={create}>
        <label class="field">
          <span>New key name</span>
          <input
            value={name}
            maxLength={100}
            placeholder="e.g. laptop script"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="button-primary" disabled={!name.trim()}>
          Create key
        </button>
      </form>
      <ErrorNote message={error ?? keys.error} />
      {keys.data && keys.data.length === 0 && <p class="muted">You have no API keys.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-scroll">
          <table class="table table-stacks">
            <caption class="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
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
