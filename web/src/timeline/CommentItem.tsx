/**
 * One comment: its author, when, "edited", the rendered Markdown, and for its author Edit and
 * Delete (Delete for the team's owners and admins too, as the API allows).
 *
 * Edits are as safe as the description's. The edit starts from the comment as the server has it
 * now, with its ETag; a change made meanwhile elsewhere (the author's other tab) is announced at
 * once, and the save goes with If-Match on the version started from, so the server refuses it
 * (412) and both texts are put side by side. A comment deleted while it is being edited stays
 * on screen with the text, to post again or to discard. A delete checks first that the comment
 * is still the version on screen, and goes with If-Match on it.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Comment } from '@contract';
import { ApiError, messageOf, newIdempotencyKey } from '../api/client';
import { createComment, deleteComment, fetchComment, MAX_COMMENT_LENGTH, updateComment } from '../api/comments';
import { ConflictResolver } from '../detail/ConflictResolver';
import { MarkdownView } from '../detail/MarkdownView';
import { initials } from '../tasks/fields';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { commentAnchor } from './activity-text';
import { MarkdownField } from './MarkdownField';
import { RelativeTime } from './RelativeTime';

interface Props {
  comment: Comment;
  taskId: number;
  /** The server no longer has it: deleted while this person was editing it. */
  gone: boolean;
  userId: string;
  /** The reader is one of the team's owners or admins: they may delete anyone's comment. */
  moderates: boolean;
  now: number;
  /** A version newer than the one shown: saved here, or seen while saving. */
  onSaved: (comment: Comment) => void;
  onRemoved: (commentId: number) => void;
  /** The text of a comment deleted meanwhile, posted again as a new comment. */
  onPosted: (comment: Comment) => void;
  /** While it is being edited, the timeline keeps the comment on screen even if it is deleted. */
  onEditing: (commentId: number, editing: boolean) => void;
}

type Mode =
  { kind: 'view' } | { kind: 'opening' } | { kind: 'edit' } | { kind: 'conflict'; theirs: string; etag: string | null };

const isStatus = (failure: unknown, status: number) => failure instanceof ApiError && failure.status === status;

export function CommentItem(props: Props) {
  const { comment, taskId, gone, userId, moderates, now } = props;
  const [mode, setMode] = useState<Mode>({ kind: 'view' });
  const [draft, setDraft] = useState('');
  const [changedMeanwhile, setChangedMeanwhile] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The version the edit started from: its text, when it was saved, and its ETag.
  const base = useRef<{ body: string; updatedAt: string; etag: string | null }>({
    body: comment.body,
    updatedAt: comment.updatedAt,
    etag: null,
  });
  const notify = useNotify();
  const id = useId();
  const editing = mode.kind !== 'view';
  const isAuthor = comment.author.id === userId;
  const edited = Date.parse(comment.updatedAt) > Date.parse(comment.createdAt);

  useEffect(() => props.onEditing(comment.id, editing), [editing]);
  useEffect(() => () => props.onEditing(comment.id, false), []);

  // A newer version arrived live while editing: say so now, not only when saving.
  useEffect(() => {
    if (mode.kind === 'edit' && comment.updatedAt !== base.current.updatedAt && comment.body !== base.current.body)
      setChangedMeanwhile(true);
  }, [comment.body, comment.updatedAt]);

  const startEditing = async () => {
    setMode({ kind: 'opening' });
    setError(null);
    try {
      const latest = await fetchComment(taskId, comment.id);
      base.current = { body: latest.data.body, updatedAt: latest.data.updatedAt, etag: latest.etag };
      setDraft(latest.data.body);
      setChangedMeanwhile(false);
      setMode({ kind: 'edit' });
      if (latest.data.updatedAt !== comment.updatedAt) props.onSaved(latest.data);
    } catch (failure) {
      setMode({ kind: 'view' });
      if (isStatus(failure, 404)) props.onRemoved(comment.id);
      else setError(messageOf(failure));
    }
  };

  /** Saves `text` over version `ifMatch`; a 412 turns into a conflict with the latest version. */
  const save = async (text: string, ifMatch: string | null) => {
    if (!text.trim()) return setError('A comment cannot be empty. To remove it, delete it.');
    setBusy(true);
    setError(null);
    setDraft(text);
    try {
      const saved = await updateComment(taskId, comment.id, text, ifMatch);
      setMode({ kind: 'view' });
      props.onSaved(saved.data);
    } catch (failure) {
      if (isStatus(failure, 412)) {
        try {
          const latest = await fetchComment(taskId, comment.id);
          setMode({ kind: 'conflict', theirs: latest.data.body, etag: latest.etag });
          props.onSaved(latest.data);
        } catch (reloadFailure) {
          if (!isStatus(reloadFailure, 404)) setError(messageOf(reloadFailure));
          else props.onRemoved(comment.id); // deleted meanwhile: `gone` shows the text to keep
        }
      } else if (isStatus(failure, 404)) {
        props.onRemoved(comment.id);
      } else {
        setError(messageOf(failure));
      }
    }
    setBusy(false);
  };

  const remove = async () => {
    try {
      const latest = await fetchComment(taskId, comment.id);
      if (latest.data.updatedAt !== comment.updatedAt) {
        props.onSaved(latest.data);
        notify('This comment was edited since you read it. Read it again before you delete it.', 'error');
        return;
      }
      await deleteComment(taskId, comment.id, latest.etag);
      notify('Comment deleted.');
      props.onRemoved(comment.id);
    } catch (failure) {
      if (isStatus(failure, 404)) props.onRemoved(comment.id);
      else if (isStatus(failure, 412))
        notify('This comment was edited since you read it. Read it again before you delete it.', 'error');
      else notify(`Could not delete the comment: ${messageOf(failure)}`, 'error');
    }
  };

  const postAgain = async () => {
    setBusy(true);
    try {
      const posted = await createComment(taskId, draft, newIdempotencyKey());
      props.onPosted(posted.data);
      setMode({ kind: 'view' });
    } catch (failure) {
      setError(messageOf(failure));
    }
    setBusy(false);
  };

  return (
    <li class="timeline-comment" id={commentAnchor(comment.id)}>
      <article class="comment" aria-labelledby={`${id}-by`}>
        <header class="comment-header">
          <span class="avatar avatar-small" aria-hidden="true">
            {initials(comment.author.name)}
          </span>
          <span id={`${id}-by`}>
            <strong>{isAuthor ? 'You' : comment.author.name}</strong> commented
          </span>
          <RelativeTime iso={comment.createdAt} now={now} />
          {edited && (
            <span class="comment-edited">
              ·{' '}
              <RelativeTime iso={comment.updatedAt} now={now} titlePrefix="Edited">
                edited
              </RelativeTime>
            </span>
          )}
          {mode.kind === 'view' && !gone && (
            <span class="comment-actions">
              {isAuthor && (
                <button type="button" class="button-quiet" onClick={() => void startEditing()}>
                  Edit<span class="sr-only"> your comment</span>
                </button>
              )}
              {(isAuthor || moderates) && (
                <ConfirmButton
                  label="Delete"
                  confirmLabel="Delete comment"
                  ariaLabel={isAuthor ? 'Delete your comment' : `Delete the comment by ${comment.author.name}`}
                  onConfirm={() => void remove()}
                />
              )}
            </span>
          )}
        </header>

        {(mode.kind === 'view' || mode.kind === 'opening') && (
          <MarkdownView source={comment.body} emptyText="(empty)" />
        )}

        {gone && editing && (
          <section class="conflict" aria-labelledby={`${id}-gone`}>
            <h3 id={`${id}-gone`}>This comment was deleted while you were editing it</h3>
            <p>Your text has not been saved and nothing is lost: post it as a new comment, or discard it.</p>
            <label class="field">
              <span>Your text (not saved)</span>
              <textarea readOnly rows={6} value={draft} />
            </label>
            <div class="form-actions">
              <button type="button" class="button-primary" disabled={busy} onClick={() => void postAgain()}>
                Post as a new comment
              </button>
              <button type="button" class="button-quiet" onClick={() => setMode({ kind: 'view' })}>
                Discard my text
              </button>
            </div>
          </section>
        )}

        {!gone && mode.kind === 'edit' && (
          <form
            class="comment-editor"
            aria-label="Edit your comment"
            onSubmit={(event) => {
              event.preventDefault();
              void save(draft, base.current.etag);
            }}
          >
            {changedMeanwhile && (
              <p class="warning-note" role="alert">
                This comment was just changed elsewhere. Your text is kept: when you save, you will see both versions to
                choose from.
              </p>
            )}
            <MarkdownField
              label="Your comment (CommonMark)"
              value={draft}
              onInput={setDraft}
              onSubmit={() => void save(draft, base.current.etag)}
              maxLength={MAX_COMMENT_LENGTH}
              rows={6}
              focus
            />
            <div class="form-actions">
              <button type="submit" class="button-primary" disabled={busy}>
                {busy ? 'Saving…' : 'Save comment'}
              </button>
              <button type="button" class="button-quiet" onClick={() => setMode({ kind: 'view' })}>
                Cancel
              </button>
            </div>
          </form>
        )}

        {!gone && mode.kind === 'conflict' && (
          <ConflictResolver
            heading="This comment was changed elsewhere while you were editing it"
            theirsLabel="Saved version"
            theirs={mode.theirs}
            mine={draft}
            busy={busy}
            onSave={(resolution) => void save(resolution, mode.etag)}
            onDiscardMine={() => setMode({ kind: 'view' })}
          />
        )}
        <ErrorNote message={error} />
      </article>
    </li>
  );
}
