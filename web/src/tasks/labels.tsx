/**
 * The picker of a task's labels (rows and the detail). Typing in the picker narrows the team's labels; owners and admins may create the label
 * typed when there is none of that name (Enter, or its button), and it is added to the task.
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { createLabel } from '../api/team';
import { useTeamData } from '../app/team-data';
import { useSession } from '../app/session-context';
import { useNotify } from '../ui/notices';
import { Popover } from '../ui/Popover';
import { EmptyValue, LabelChips, labelNames, labelsOf, quote, valueButtonClass, type FieldProps } from './fields';

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function LabelPicker({ task, onChange, compact, align }: FieldProps & { align?: 'start' | 'end' }) {
  const labels = labelsOf(task);
  const names = labelNames(labels);
  return (
    <Popover
      label={`Labels of ${quote(task)}: ${names || 'No labels'}`}
      button={
        labels.length ? (
          <LabelChips labels={labels} />
        ) : (
          <EmptyValue compact={compact} full="No labels" short="Labels" />
        )
      }
      buttonClass={valueButtonClass(compact, !labels.length)}
      align={align}
    >
      {() => <LabelChoices task={task} selected={labels.map((l) => l.id)} onChange={onChange} />}
    </Popover>
  );
}

function LabelChoices({ task, selected, onChange }: Pick<FieldProps, 'task' | 'onChange'> & { selected: number[] }) {
  const { labels = [], reloadLabels } = useTeamData();
  // As signed in: a role changed since is refused by the server, and said so.
  const { role } = useSession().session;
  const manager = role === 'owner' || role === 'admin';
  const notify = useNotify();
  const [text, setText] = useState('');
  const shown = labels.filter((label) => label.name.toLowerCase().includes(text.trim().toLowerCase()));
  const canCreate = manager && text.trim() !== '' && !labels.some((label) => sameName(label.name, text));
  const set = (labelIds: number[]) => onChange({ labelIds });

  const create = async () => {
    try {
      const label = await createLabel({ name: text.trim() });
      setText('');
      set([...selected, label.id]);
    } catch (failure) {
      notify(`Could not create the label: ${messageOf(failure)}`, 'error');
    }
    reloadLabels();
  };

  return (
    <fieldset class="checkbox-menu label-menu">
      <legend class="sr-only">Labels of {quote(task)}</legend>
      <input
        type="search"
        aria-label={manager ? 'Find or create a label' : 'Find a label'}
        placeholder={manager ? 'Find or create a label' : 'Find a label'}
        value={text}
        maxLength={50}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && canCreate) void create();
        }}
      />
      {shown.map((label) => (
        <label key={label.id} class="check">
          <input
            type="checkbox"
            checked={selected.includes(label.id)}
            onChange={(event) =>
              set(event.currentTarget.checked ? [...selected, label.id] : selected.filter((id) => id !== label.id))
            }
          />
          <LabelChips labels={[label]} />
        </label>
      ))}
      {shown.length === 0 && !canCreate && (
        <p class="muted">{labels.length ? 'No label has that name.' : 'The team has no labels yet.'}</p>
      )}
      {canCreate && (
        <button type="button" class="button-quiet" onClick={() => void create()}>
          Create “{text.trim()}”
        </button>
      )}
    </fieldset>
  );
}
