/**
 * One workflow status: its colour, name and badges; for owners and admins, the controls that
 * change it. Renaming and deleting open in place; a delete needs the status its tasks move to.
 */
import { useState } from 'preact/hooks';
import type { TaskStatus, UpdateStatusBody } from '@contract';
import { focusOnMount } from '../../ui/focus';
import { hexForInput } from './status-colors';

export interface StatusActions {
  /** Resolves true when the change was saved. */
  update: (status: TaskStatus, change: UpdateStatusBody, what: string, done?: string) => Promise<boolean>;
  move: (status: TaskStatus, by: -1 | 1) => Promise<boolean>;
  remove: (status: TaskStatus, moveTo: TaskStatus) => Promise<boolean>;
}

interface Props {
  status: TaskStatus;
  /** The other statuses, in order: where a deleted one's tasks may go. */
  others: TaskStatus[];
  first: boolean;
  last: boolean;
  manager: boolean;
  busy: boolean;
  actions: StatusActions;
}

export function StatusRow({ status, others, first, last, manager, busy, actions }: Props) {
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const name = `“${status.name}”`;

  const badges = (
    <>
      {status.isDefault && <span class="status-badge status-default">Default</span>}
      {status.isCompleted && <span class="status-badge status-succeeded">Counts as done</span>}
    </>
  );

  if (!manager) {
    return (
      <li class="status-row">
        <span class="status-swatch" style={{ background: hexForInput(status.color) }} aria-hidden="true" />
        <span class="status-name">{status.name}</span>
        {badges}
      </li>
    );
  }

  return (
    <li class="status-row" aria-label={`Status ${status.name}`}>
      <input
        type="color"
        class="status-color-input"
        aria-label={`Colour of ${name}`}
        value={hexForInput(status.color)}
        disabled={busy}
        onChange={(e) => void actions.update(status, { color: e.currentTarget.value }, `recolour ${name}`)}
      />
      {mode === 'rename' ? (
        <RenameForm status={status} onDone={() => setMode('view')} actions={actions} />
      ) : (
        <span class="status-name">{status.name}</span>
      )}
      {badges}
      <span class="status-actions">
        <button
          type="button"
          class="button-quiet"
          aria-label={`Move ${name} up`}
          disabled={busy || first}
          onClick={() => void actions.move(status, -1)}
        >
          ↑
        </button>
        <button
          type="button"
          class="button-quiet"
          aria-label={`Move ${name} down`}
          disabled={busy || last}
          onClick={() => void actions.move(status, 1)}
        >
          ↓
        </button>
        <label class="check">
          <input
            type="checkbox"
            aria-label={`${name} counts as done`}
            checked={status.isCompleted}
            disabled={busy}
            onChange={(e) =>
              void actions.update(
                status,
                { isCompleted: e.currentTarget.checked },
                `change ${name}`,
                e.currentTarget.checked
                  ? `Tasks in ${name} now count as done.`
                  : `Tasks in ${name} no longer count as done.`,
              )
            }
          />
          <span aria-hidden="true">Done</span>
        </label>
        {!status.isDefault && (
          <button
            type="button"
            class="button-secondary"
            aria-label={`Make ${name} the default`}
            disabled={busy}
            onClick={() =>
              void actions.update(
                status,
                { isDefault: true },
                `make ${name} the default`,
                `New tasks now start in ${name}.`,
              )
            }
          >
            Make default
          </button>
        )}
        {mode === 'view' && (
          <button
            type="button"
            class="button-secondary"
            aria-label={`Rename ${name}`}
            disabled={busy}
            onClick={() => setMode('rename')}
          >
            Rename
          </button>
        )}
        {mode === 'view' && !status.isDefault && (
          <button
            type="button"
            class="button-danger-quiet"
            aria-label={`Delete ${name}`}
            disabled={busy}
            onClick={() => setMode('delete')}
          >
            Delete
          </button>
        )}
      </span>
      {mode === 'delete' && (
        <DeleteForm status={status} others={others} onDone={() => setMode('view')} actions={actions} />
      )}
    </li>
  );
}

interface FormProps {
  status: TaskStatus;
  onDone: () => void;
  actions: StatusActions;
}

function RenameForm({ status, onDone, actions }: FormProps) {
  const [name, setName] = useState(status.name);
  const submit = async (event: Event) => {
    event.preventDefault();
    const next = name.trim();
    if (next === status.name || (await actions.update(status, { name: next }, `rename “${status.name}”`))) onDone();
  };
  return (
    <form class="status-rename" aria-label={`Rename “${status.name}”`} onSubmit={submit}>
      <input
        aria-label={`New name for “${status.name}”`}
        value={name}
        maxLength={100}
        required
        ref={focusOnMount}
        onInput={(e) => setName(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Escape' && onDone()}
      />
      <button type="submit" class="button-primary" disabled={!name.trim()}>
        Save
      </button>
      <button type="button" class="button-quiet" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

function DeleteForm({ status, others, onDone, actions }: FormProps & { others: TaskStatus[] }) {
  const [moveTo, setMoveTo] = useState('');
  const target = others.find((other) => String(other.id) === moveTo);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (target && (await actions.remove(status, target))) onDone();
  };
  return (
    <form class="status-delete warning-note" aria-label={`Delete “${status.name}”`} onSubmit={submit}>
      <p>
        Delete <strong>{status.name}</strong>? Its tasks move to the status you choose; nothing else changes.
      </p>
      <label class="field">
        <span>Move its tasks to</span>
        <select required value={moveTo} ref={focusOnMount} onChange={(e) => setMoveTo(e.currentTarget.value)}>
          <option value="" disabled>
            Choose a status…
          </option>
          {others.map((other) => (
            <option key={other.id} value={String(other.id)}>
              {other.name}
            </option>
          ))}
        </select>
      </label>
      <div class="form-actions">
        <button type="submit" class="button-danger" disabled={!target}>
          Delete and move its tasks
        </button>
        <button type="button" class="button-quiet" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
