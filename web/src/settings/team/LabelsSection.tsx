/**
 * Settings → Labels (a chunk of its own, loaded when Settings opens): the team's labels by name.
 * Owners and admins add, rename, recolour and delete them (a deleted label comes off its tasks).
 * The list is the team data every picker and filter uses, which follows `label.*` events.
 */
import { useState } from 'preact/hooks';
import type { Label, UpdateLabelBody } from '@contract';
import { LIST_COLORS, type ListColor } from '@contract/enums';
import { createLabel, deleteLabel, updateLabel } from '../../api/team';
import { useTeamData } from '../../app/team-data';
import { countOf } from '../../lib/plural';
import { ColorDot } from '../../ui/ColorPicker';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorNote } from '../../ui/ErrorNote';
import { useNotify } from '../../ui/notices';
import { useMyRole } from './use-my-role';
import { useTeamChange } from './use-team-change';

export function LabelsSection() {
  const { labels, labelsError, reloadLabels } = useTeamData();
  const loading = labels === undefined && !labelsError;
  const { manager } = useMyRole();
  const notify = useNotify();

  const act = useTeamChange(reloadLabels);
  const update = (label: Label, change: UpdateLabelBody) =>
    act(`change “${label.name}”`, () => updateLabel(label.id, change));

  return (
    <section class="card" id="labels" aria-labelledby="labels-heading">
      <h2 id="labels-heading">Labels</h2>
      <p class="muted">
        Labels mark tasks across lists; filter any view by them.
        {!manager && ' Only the team’s owners and admins can change them.'}
      </p>
      <ErrorNote message={labelsError} />
      {loading && <p class="muted">Loading the labels…</p>}
      {labels?.length === 0 && <p class="muted">No labels yet.{manager && ' Add the first one below.'}</p>}
      {labels && labels.length > 0 && (
        <ul class="label-rows" aria-label="Labels">
          {labels.map((label) => (
            <li key={label.id} class="label-row" aria-label={`Label ${label.name}`}>
              {manager ? (
                <LabelEditor label={label} onUpdate={update} />
              ) : (
                <span class="label-chip">
                  <ColorDot color={label.color} />
                  {label.name}
                </span>
              )}
              {manager && (
                <ConfirmButton
                  label="Delete"
                  ariaLabel={`Delete “${label.name}”`}
                  confirmLabel="Delete it from every task"
                  onConfirm={() =>
                    void act(`delete “${label.name}”`, async () => {
                      const { untaggedTasks } = await deleteLabel(label.id);
                      notify(`“${label.name}” was deleted and taken off ${countOf(untaggedTasks, 'task')}.`);
                    })
                  }
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {manager && (
        <NewLabelForm
          onCreate={(name, color) => act('add the label', () => createLabel({ name, color }), `“${name}” was added.`)}
        />
      )}
    </section>
  );
}

/** One of the list colours; `label` names it when no visible label does. */
function ColorSelect({
  label,
  value,
  onChange,
}: {
  label?: string;
  value: string;
  onChange: (color: ListColor) => void;
}) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value as ListColor)}>
      {LIST_COLORS.map((color) => (
        <option key={color}>{color}</option>
      ))}
    </select>
  );
}

/** A label's name (saved when it loses the focus or on Enter) and colour, for owners and admins. */
function LabelEditor({ label, onUpdate }: { label: Label; onUpdate: (label: Label, change: UpdateLabelBody) => void }) {
  const [name, setName] = useState(label.name);
  const save = () => {
    if (name.trim() && name.trim() !== label.name) onUpdate(label, { name: name.trim() });
    else setName(label.name);
  };
  return (
    <form
      class="label-editor"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <input
        aria-label={`Name of “${label.name}”`}
        value={name}
        maxLength={50}
        onInput={(e) => setName(e.currentTarget.value)}
        onBlur={save}
      />
      <ColorSelect
        label={`Colour of “${label.name}”`}
        value={label.color}
        onChange={(color) => onUpdate(label, { color })}
      />
    </form>
  );
}

function NewLabelForm({ onCreate }: { onCreate: (name: string, color: ListColor) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [color, setColor] = useState<ListColor>('Gray');
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await onCreate(name.trim(), color)) setName('');
  };
  return (
    <form class="new-status" aria-label="New label" onSubmit={submit}>
      <label class="field">
        <span>New label</span>
        <input value={name} maxLength={50} placeholder="e.g. Bug" onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Colour</span>
        <ColorSelect value={color} onChange={setColor} />
      </label>
      <button type="submit" class="button-primary" disabled={!name.trim()}>
        Add label
      </button>
    </form>
  );
}
