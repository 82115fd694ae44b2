/**
 * One workflow status: its colour, name and badges; for owners and admins, the controls that
 * change it. Renaming and deleting open in place; a delete needs the status its tasks move to.
 */
import { useEffect, useState } from 'preact/hooks';
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
  /** A move is on its way: the next is computed from the order it leaves, so it waits. */
  moving: boolean;
  actions: StatusActions;
}

export function StatusRow({ status: saved, others, first, last, manager, moving, actions }: Props) {
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  // A change shows at once, and until the statuses read back hold it (or it failed): a reload
  // caused by another change meanwhile must not flick it back.
  const [pending, setPending] = useState<UpdateStatusBody>({});
  useEffect(() => setPending((current) => withoutSettled(current, saved)), [saved]);
  const status: TaskStatus = { ...saved, ...pending };
  const name = `“${status.name}”`;
  const change = async (body: UpdateStatusBody, what: string, done?: string) => {
    setPending((current) => ({ ...current, ...body }));
    const ok = await actions.update(saved, body, what, done);
    if (!ok) setPending((current) => without(current, Object.keys(body)));
    return ok;
  };

  const isDefault = status.isDefault && <span class="status-badge status-default">Default</span>;

  if (!manager) {
    return (
      <li class="status-row">
        <span class="status-swatch" style={{ background: hexForInput(status.color) }} aria-hidden="true" />
        <span class="status-name">{status.name}</span>
        {isDefault}
        {status.isCompleted && <span class="status-badge status-succeeded">Counts as done</span>}
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
        onChange={(e) => void change({ color: e.currentTarget.value }, `recolour ${name}`)}
      />
      {mode === 'rename' ? (
        <RenameForm status={saved} onDone={() => setMode('view')} onRename={change} />
      ) : (
        <span class="status-name">{status.name}</span>
      )}
      {isDefault}
      <span class="status-actions">
        <button
          type="button"
          class="button-quiet"
          aria-label={`Move ${name} up`}
          disabled={moving || first}
          onClick={() => void actions.move(saved, -1)}
        >
          ↑
        </button>
        <button
          type="button"
          class="button-quiet"
          aria-label={`Move ${name} down`}
          disabled={moving || last}
          onClick={() => void actions.move(saved, 1)}
        >
          ↓
        </button>
        <label class="check status-done-check">
          <input
            type="checkbox"
            aria-label={`${name} counts as done`}
            checked={status.isCompleted}
            onChange={(e) =>
              void change(
                { isCompleted: e.currentTarget.checked },
                `change ${name}`,
                e.currentTarget.checked
                  ? `Tasks in ${name} now count as done.`
                  : `Tasks in ${name} no longer count as done.`,
              )
            }
          />
          <span aria-hidden="true">Counts as done</span>
        </label>
        {!status.isDefault && (
          <button
            type="button"
            class="button-secondary status-make-default"
            aria-label={`Make default: ${name}`}
            onClick={() =>
              void change({ isDefault: true }, `make ${name} the default`, `New tasks now start in ${name}.`)
            }
          >
            Make default
          </button>
        )}
        {mode === 'view' && (
          <button
            type="button"
            class="button-secondary status-rename-button"
            aria-label={`Rename ${name}`}
            onClick={() => setMode('rename')}
          >
            Rename
          </button>
        )}
        {mode === 'view' && !status.isDefault && (
          <button
            type="button"
            class="button-danger-quiet status-delete-button"
            aria-label={`Delete ${name}`}
            onClick={() => setMode('delete')}
          >
            Delete
          </button>
        )}
      </span>
      {mode === 'delete' && (
        <DeleteForm status={saved} others={others} onDone={() => setMode('view')} actions={actions} />
      )}
    </li>
  );
}

interface FormProps {
  status: TaskStatus;
  onDone: () => void;
}

function RenameForm({
  status,
  onDone,
  onRename,
}: FormProps & { onRename: (body: UpdateStatusBody, what: string) => Promise<boolean> }) {
  const [name, setName] = useState(status.name);
  const submit = async (event: Event) => {
    event.preventDefault();
    const next = name.trim();
    if (next === status.name) return onDone();
    onDone();
    await onRename({ name: next }, `rename “${status.name}”`);
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

function DeleteForm({ status, others, onDone, actions }: FormProps & { others: TaskStatus[]; actions: StatusActions }) {
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

const without = (changes: UpdateStatusBody, keys: string[]): UpdateStatusBody =>
  Object.fromEntries(Object.entries(changes).filter(([key]) => !keys.includes(key)));

/** The changes `saved` does not hold yet (colours compared as a colour input writes them). */
function withoutSettled(changes: UpdateStatusBody, saved: TaskStatus): UpdateStatusBody {
  const settled = Object.entries(changes)
    .filter(([key, value]) =>
      key === 'color'
        ? hexForInput(saved.color) === hexForInput(value as string | null)
        : saved[key as keyof TaskStatus] === value,
    )
    .map(([key]) => key);
  return settled.length ? without(changes, settled) : changes;
}
