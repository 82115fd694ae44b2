/**
 * Settings → Workflow statuses (a chunk of its own, loaded when Settings opens): the team's
 * statuses in order. Owners and admins add, rename, recolour and reorder them, choose the
 * default, say which count as done, and delete one after choosing where its tasks go. The list is
 * the team data every picker and filter uses, which follows `taskStatus.*` events, so changes
 * made by anyone (here or elsewhere) show at once, everywhere.
 */
import { useState } from 'preact/hooks';
import type { TaskStatus, UpdateStatusBody } from '@contract';
import { createStatus, deleteStatus, updateStatus } from '../../api/team';
import { useTeamData } from '../../app/team-data';
import { ErrorNote } from '../../ui/ErrorNote';
import { StatusRow, type StatusActions } from './StatusRow';
import { hexForInput, NEW_STATUS_COLOR } from './status-colors';
import { useMyRole } from './use-my-role';
import { useTeamChange } from './use-team-change';

export function StatusesSection() {
  const { statuses, statusesError, reloadStatuses } = useTeamData();
  const { manager } = useMyRole();
  // A move waits for the one before it to be read back: it is computed from the order shown.
  const [movedFrom, setMovedFrom] = useState<TaskStatus[] | null>(null);
  const moving = movedFrom === statuses;
  const ordered = [...statuses].sort((a, b) => a.order - b.order);

  const act = useTeamChange(reloadStatuses);

  const actions: StatusActions = {
    update: (status: TaskStatus, change: UpdateStatusBody, what: string, done?: string) =>
      act(what, () => updateStatus(status.id, change), done),
    move: (status, by) => {
      const index = ordered.indexOf(status);
      const neighbour = ordered[index + by];
      if (!neighbour) return Promise.resolve(false);
      // Taking an order another status holds moves that one (and every later one) down by one.
      const order = by < 0 ? neighbour.order : neighbour.order + 1;
      setMovedFrom(statuses);
      return act(`move “${status.name}”`, () => updateStatus(status.id, { order }));
    },
    remove: (status, moveTo) =>
      act(
        `delete “${status.name}”`,
        () => deleteStatus(status.id, moveTo.id),
        `“${status.name}” was deleted; its tasks are now in “${moveTo.name}”.`,
      ),
  };

  return (
    <section class="card" id="statuses" aria-labelledby="statuses-heading">
      <h2 id="statuses-heading">Workflow statuses</h2>
      <p class="muted">
        Every task has one of these statuses. New tasks start in the default one; tasks in a status that counts as done
        are completed.
        {!manager && ' Only the team’s owners and admins can change them.'}
      </p>
      <ErrorNote message={statusesError} />
      {ordered.length === 0 && !statusesError && <p class="muted">Loading the statuses…</p>}
      {ordered.length > 0 && (
        <ol class="status-rows" aria-label="Statuses, in order">
          {ordered.map((status, index) => (
            <StatusRow
              key={status.id}
              status={status}
              others={ordered.filter((other) => other.id !== status.id)}
              first={index === 0}
              last={index === ordered.length - 1}
              manager={manager}
              moving={moving}
              actions={actions}
            />
          ))}
        </ol>
      )}
      {manager && ordered.length > 0 && (
        <p class="muted small">The default status cannot be deleted: make another one the default first.</p>
      )}
      {manager && ordered.length > 0 && (
        <NewStatusForm
          onCreate={(name, color, isCompleted) =>
            act('add the status', () => createStatus({ name, color, isCompleted }), `“${name}” was added.`)
          }
        />
      )}
    </section>
  );
}

interface NewProps {
  /** A new status goes after the last one. */
  onCreate: (name: string, color: string, isCompleted: boolean) => Promise<boolean>;
}

function NewStatusForm({ onCreate }: NewProps) {
  const [name, setName] = useState('');
  const [color, setColor] = useState(NEW_STATUS_COLOR);
  const [isCompleted, setIsCompleted] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await onCreate(name.trim(), color, isCompleted)) {
      setName('');
      setIsCompleted(false);
    }
  };

  return (
    <form class="new-status" aria-label="New status" onSubmit={submit}>
      <label class="field">
        <span>New status</span>
        <input
          value={name}
          maxLength={100}
          placeholder="e.g. In review"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label class="field field-color">
        <span>Colour</span>
        <input type="color" value={hexForInput(color)} onInput={(e) => setColor(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" checked={isCompleted} onChange={(e) => setIsCompleted(e.currentTarget.checked)} />
        Counts as done
      </label>
      <button type="submit" class="button-primary" disabled={!name.trim()}>
        Add status
      </button>
    </form>
  );
}
