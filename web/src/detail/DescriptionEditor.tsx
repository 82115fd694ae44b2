/**
 * The description: rendered CommonMark, an editor with a preview, and no lost updates.
 *
 * An edit remembers the version it started from (lib/use-conflict-safe-edit.ts). Live updates
 * that leave the description as it was (a status change, say) move that version forward; one that
 * changes the description is announced at once, and the save then goes with If-Match on the old
 * version, so the server refuses it (412) and both texts are put side by side to resolve.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { fetchActivity } from '../api/activity';
import { fetchTask, updateTask } from '../api/tasks';
import { useSession } from '../app/session-context';
import { useConflictSafeEdit } from '../lib/use-conflict-safe-edit';
import { ConflictResolver } from '../ui/ConflictResolver';
import { ErrorNote } from '../ui/ErrorNote';
import { MarkdownField } from './MarkdownField';
import { MarkdownView } from './MarkdownView';
import { descriptionEditorName } from './description-editor-name';

interface Props {
  taskId: number;
  description: string | null;
  etag: string | null;
  onSaved: () => void;
}

export function DescriptionEditor({ taskId, description, etag, onSaved }: Props) {
  const current = description ?? '';
  const id = useId();
  const edit = useConflictSafeEdit({
    shown: { text: current, etag },
    fetchLatest: async () => {
      const latest = await fetchTask(taskId);
      return { text: latest.data.description ?? '', etag: latest.etag };
    },
    write: async (text, ifMatch) => {
      await updateTask(taskId, { description: text.trim() ? text : null }, ifMatch ?? undefined);
    },
    onSettled: onSaved,
  });
  const { state } = edit;
  const changedBy = useChangedBy(
    taskId,
    state.kind === 'conflict' || (state.kind === 'edit' && state.changedMeanwhile),
  );

  return (
    <section class="description" aria-labelledby={`${id}-heading`}>
      <div class="section-header">
        <h2 id={`${id}-heading`}>Description</h2>
        {state.kind === 'view' && (
          <button type="button" class="button-secondary" onClick={() => void edit.start({ text: current, etag })}>
            Edit description
          </button>
        )}
      </div>

      {state.kind === 'view' && <MarkdownView source={current} emptyText="No description yet." label="Description" />}

      {state.kind === 'edit' && (
        <form
          class="description-editor"
          aria-label="Edit description"
          onSubmit={(event) => {
            event.preventDefault();
            void edit.save(edit.draft);
          }}
        >
          {state.changedMeanwhile && (
            <p class="warning-note" role="alert">
              {changedBy} just changed this description. Your text is kept: when you save, you will see both versions to
              choose from.
            </p>
          )}
          <MarkdownField
            label="Description (CommonMark)"
            value={edit.draft}
            onInput={edit.setDraft}
            onSubmit={() => void edit.save(edit.draft)}
            maxLength={100_000}
            rows={12}
            placeholder="Markdown: **bold**, _italic_, - lists, [links](https://…)"
            focus
          />
          <p class="muted small">CommonMark. Ctrl+Enter saves.</p>
          <ErrorNote message={edit.error} />
          <div class="form-actions">
            <button type="submit" class="button-primary" disabled={edit.busy}>
              {edit.busy ? 'Saving…' : 'Save description'}
            </button>
            <button type="button" class="button-quiet" onClick={edit.stop}>
              Cancel
            </button>
          </div>
        </form>
      )}

      {state.kind === 'conflict' && (
        <>
          <ConflictResolver
            heading={`${changedBy} changed this description while you were editing`}
            theirsLabel="Their version (saved)"
            theirs={state.theirs.text}
            mine={edit.draft}
            busy={edit.busy}
            onSave={(resolution) => void edit.save(resolution)}
            onDiscardMine={edit.stop}
          />
          <ErrorNote message={edit.error} />
        </>
      )}
    </section>
  );
}

/**
 * Who saved the description meanwhile, read from the task's activity once the edit learns of it
 * (`changed` turns true): "Someone else" until the answer comes, or if it names no one.
 */
function useChangedBy(taskId: number, changed: boolean): string {
  const { session } = useSession();
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    if (!changed) return setName(null);
    let current = true;
    fetchActivity(taskId).then(
      (page) => current && setName(descriptionEditorName(page.items, session.user.id)),
      () => {}, // the banner still says "Someone else"
    );
    return () => {
      current = false;
    };
  }, [taskId, changed]);
  return name ?? 'Someone else';
}
