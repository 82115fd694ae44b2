/**
 * A new API key: its name, what it may do (full access, the read-only or agent preset, or chosen
 * scopes, each explained) and, optionally, the lists it is limited to (the person's own lists).
 */
import { useState } from 'preact/hooks';
import type { CreateKeyBody, CreatedKey, KeyScope, TaskList } from '@contract';
import { messageOf } from '../../api/client';
import { createKey } from '../../api/keys';
import { ErrorNote } from '../../ui/ErrorNote';
import { SCOPE_HELP, SCOPES } from './scopes';

type Access = 'full' | 'readOnly' | 'agent' | 'custom';

const ACCESS: [Access, string, string][] = [
  ['full', 'Full access', 'Everything you may do, as today.'],
  ['readOnly', 'Read-only', 'Read tasks, lists and the team; change nothing.'],
  ['agent', 'Agent', 'For an AI assistant: read, create and change tasks, comment. No lists’ or team’s changes.'],
  ['custom', 'Custom', 'Choose the scopes below.'],
];

interface Props {
  /** The person's lists, for "Limit to lists"; undefined while they load. */
  lists: TaskList[] | undefined;
  onCreated: (key: CreatedKey) => void;
}

export function NewKeyForm({ lists, onCreated }: Props) {
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access>('full');
  const [scopes, setScopes] = useState<KeyScope[]>([]);
  const [limit, setLimit] = useState(false);
  const [listIds, setListIds] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const toggle = <T,>(values: T[], value: T, on: boolean) =>
    on ? [...values, value] : values.filter((v) => v !== value);
  const incomplete = !name.trim() || (access === 'custom' && scopes.length === 0) || (limit && listIds.length === 0);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: CreateKeyBody = { name: name.trim() };
    if (access === 'readOnly' || access === 'agent') body.preset = access;
    if (access === 'custom') body.scopes = SCOPES.filter((scope) => scopes.includes(scope));
    if (limit) body.listIds = listIds;
    try {
      onCreated(await createKey(body));
      setName('');
      setListIds([]);
    } catch (failure) {
      setError(messageOf(failure));
    }
    setBusy(false);
  };

  return (
    <form class="card-form new-key" onSubmit={create}>
      <label class="field">
        <span>New key name</span>
        <input
          value={name}
          maxLength={100}
          placeholder="e.g. laptop script"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <fieldset class="event-picker">
        <legend>Access</legend>
        {ACCESS.map(([value, label, help]) => (
          <label class="checkbox-field" key={value}>
            <input type="radio" name="key-access" checked={access === value} onChange={() => setAccess(value)} />
            <span>
              {label}
              <small class="muted">{help}</small>
            </span>
          </label>
        ))}
        {access === 'custom' && (
          <div class="event-choices">
            {SCOPES.map((scope) => (
              <label class="checkbox-field" key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes(toggle(scopes, scope, e.currentTarget.checked))}
                />
                <span>
                  <code>{scope}</code>
                  <small class="muted">{SCOPE_HELP[scope]}</small>
                </span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <fieldset class="event-picker">
        <legend>Lists</legend>
        <label class="checkbox-field">
          <input type="checkbox" checked={limit} onChange={(e) => setLimit(e.currentTarget.checked)} />
          <span>
            Limit to lists
            <small class="muted">The key sees and changes only the tasks on the lists you choose.</small>
          </span>
        </label>
        {limit && !lists && <p class="muted">Loading your lists…</p>}
        {limit && lists?.length === 0 && <p class="muted">You are not a member of any list.</p>}
        {limit && lists && lists.length > 0 && (
          <div class="event-choices">
            {lists.map((list) => (
              <label class="checkbox-field" key={list.id}>
                <input
                  type="checkbox"
                  checked={listIds.includes(list.id)}
                  onChange={(e) => setListIds(toggle(listIds, list.id, e.currentTarget.checked))}
                />
                <span>{list.name}</span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div>
        <button type="submit" class="button-primary" disabled={busy || incomplete}>
          Create key
        </button>
      </div>
      <ErrorNote message={error} />
    </form>
  );
}
