/**
 * The description: rendered CommonMark, an editor with a preview, and no lost updates.
 *
 * An edit remembers the version it started from. Live updates that leave the description as it
 * was (a status change, say) move that version forward; one that changes the description is
 * announced at once, and the save then goes with If-Match on the old version, so the server
 * refuses it (412) and both texts are put side by side to resolve.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api/client';
import { fetchTask, updateTask } from '../api/tasks';
import { ErrorNote } from '../ui/ErrorNote';
import { ConflictResolver } from './ConflictResolver';
import { MarkdownView } from './MarkdownView';
import { focusOnMount } from '../ui/focus';

interface Props {
  taskId: number;
  description: string | null;
  etag: string | null;
  onSaved: () => void;
}

type Mode = { kind: 'view' } | { kind: 'edit' } | { kind: 'conflict'; theirs: string; etag: string | null };

export function DescriptionEditor({ taskId, description, etag, onSaved }: Props) {
  const current = description ?? '';
  const [mode, setMode] = useState<Mode>({ kind: 'view' });
  const [draft, setDraft] = useState('');
  const [tab, setTab] = useState<'write' | 'preview'>('write');
  const [changedMeanwhile, setChangedMeanwhile] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const base = useRef<{ text: string; etag: string | null }>({ text: current, etag });
  const id = useId();

  useEffect(() => {
    if (mode.kind === 'edit') {
      if (current === base.current.text) base.current = { text: current, etag };
      else setChangedMeanwhile(true);
    } else if (mode.kind === 'conflict') {
      setMode({ kind: 'conflict', theirs: current, etag });
    }
  }, [current, etag]);

  const startEditing = () => {
    base.current = { text: current, etag };
    setDraft(current);
    setTab('write');
    setChangedMeanwhile(false);
    setError(null);
    setMode({ kind: 'edit' });
  };

  /** Saves `text` over version `ifMatch`; a 412 turns into a conflict with the latest version. */
  const save = async (text: string, ifMatch: string | null) => {
    setBusy(true);
    setError(null);
    try {
      await updateTask(taskId, { description: text.trim() ? text : null }, ifMatch ?? undefined);
      setMode({ kind: 'view' });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 412) {
        setDraft(text);
        try {
          const latest = await fetchTask(taskId);
          setMode({ kind: 'conflict', theirs: latest.data.description ?? '', etag: latest.etag });
        } catch (reloadFailure) {
          setError(messageOf(reloadFailure));
        }
      } else {
        setError(messageOf(failure));
      }
    }
    setBusy(false);
    onSaved();
  };

  return (
    <section class="description" aria-labelledby={`${id}-heading`}>
      <div class="section-header">
        <h2 id={`${id}-heading`}>Description</h2>
        {mode.kind === 'view' && (
          <button type="button" class="button-secondary" onClick={startEditing}>
            Edit description
          </button>
        )}
      </div>

      {mode.kind === 'view' && <MarkdownView source={current} emptyText="No description yet." label="Description" />}

      {mode.kind === 'edit' && (
        <form
          class="description-editor"
          aria-label="Edit description"
          onSubmit={(event) => {
            event.preventDefault();
            void save(draft, base.current.etag);
          }}
        >
          {changedMeanwhile && (
            <p class="warning-note" role="alert">
              Someone else just changed this description. Your text is kept: when you save, you will see both versions
              to choose from.
            </p>
          )}
          <div class="tabs" role="group" aria-label="Editor view">
            <button type="button" class="tab" aria-pressed={tab === 'write'} onClick={() => setTab('write')}>
              Write
            </button>
            <button type="button" class="tab" aria-pressed={tab === 'preview'} onClick={() => setTab('preview')}>
              Preview
            </button>
          </div>
          {tab === 'write' ? (
            <label class="field">
              <span class="sr-only">Description (CommonMark)</span>
              <textarea
                rows={12}
                value={draft}
                ref={focusOnMount}
                maxLength={100_000}
                placeholder="Markdown: **bold**, _italic_, - lists, [links](https://…)"
                onInput={(event) => setDraft(event.currentTarget.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault();
                    void save(draft, base.current.etag);
                  }
                }}
              />
            </label>
          ) : (
            <div class="preview">
              <MarkdownView source={draft} emptyText="Nothing to preview." label="Preview" />
            </div>
          )}
          <p class="muted small">CommonMark. Ctrl+Enter saves.</p>
          <ErrorNote message={error} />
          <div class="form-actions">
            <button type="submit" class="button-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save description'}
            </button>
            <button type="button" class="button-quiet" onClick={() => setMode({ kind: 'view' })}>
              Cancel
            </button>
          </div>
        </form>
      )}

      {mode.kind === 'conflict' && (
        <>
          <ConflictResolver
            theirs={mode.theirs}
            mine={draft}
            busy={busy}
            onSave={(resolution) => void save(resolution, mode.etag)}
            onDiscardMine={() => setMode({ kind: 'view' })}
          />
          <ErrorNote message={error} />
        </>
      )}
    </section>
  );
}
