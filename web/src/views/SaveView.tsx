/**
 * "Save view" (in the sidebar, beside the views): the page's filters, order and layout saved under
 * a name, shared or not. The page header keeps its room: on a phone it holds a title and its
 * actions on one line.
 */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { createView } from '../api/views';
import { useTeamData } from '../app/team-data';
import { navigate } from '../lib/router';
import type { TaskFilters, TaskScope, TasksLayout } from '../lib/task-filters';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';
import { viewFieldsOf } from './view-params';

interface Props {
  filters: TaskFilters;
  scope: TaskScope;
  layout: TasksLayout;
  onClose: () => void;
}

export function SaveView({ filters, scope, layout, onClose }: Props) {
  const { reloadViews } = useTeamData();
  const [name, setName] = useState('');
  const [shared, setShared] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const fields = viewFieldsOf(filters, scope);
      const view = await createView({
        name: name.trim(),
        ...fields,
        layout: layout === 'board' ? 'board' : 'rows',
        sharedWithTeam: shared,
      });
      reloadViews();
      onClose();
      navigate(`/views/${view.id}`);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <form
      class="list-form save-view"
      aria-label="Save view"
      onSubmit={save}
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <label class="field">
        <span>View name</span>
        <input
          value={name}
          maxLength={100}
          required
          ref={focusOnMount}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label class="checkbox-field">
        <input type="checkbox" checked={shared} onChange={(e) => setShared(e.currentTarget.checked)} />
        <span>Share with the team</span>
      </label>
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary">
          Save view
        </button>
        <button type="button" class="button-quiet" onClick={() => onClose()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
