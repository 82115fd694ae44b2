/**
 * One comment: its author, when, "edited", the rendered Markdown, and for its author Edit and
 * Delete (Delete for the team's owners and admins too, as the API allows).
 *
 * Edits are as safe as the description's, on the same hook (lib/use-conflict-safe-edit.ts). The
 * edit starts from the comment as the server has it now, with its ETag; a change made meanwhile
 * elsewhere (the author's other tab) is announced at once, and the save goes with If-Match on the
 * version started from, so the server refuses it (412) and both texts are put side by side. A
 * comment deleted while it is being edited stays on screen with the text, to post again or to
 * discard. A delete checks first that the comment is still the version on screen, and goes with
 * If-Match on it.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import type { Comment } from '@contract';
import { ApiError, messageOf, newIdempotencyKey } from '../api/client';
import { createComment, deleteComment, fetchComment, MAX_COMMENT_LENGTH, updateComment } from '../api/comments';
import { MarkdownField } from '../detail/MarkdownField';
import { MarkdownView } from '../detail/MarkdownView';
import { useConflictSafeEdit } from '../lib/use-conflict-safe-edit';
import { initials } from '../tasks/fields';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ConflictResolver } from '../ui/ConflictResolver';
import { ErrorNote } from '../ui/ErrorNote';
import { useNotify } from '../ui/notices';
import { commentAnchor } from './activity-text';
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

const isStatus = (failure: unknown, status: number) => failure instanceof ApiError && failure.status === status;

export function CommentItem(props: Props) {
  const { comment, taskId, gone, userId, moderates, now } = props;
  // The list of comments carries no version: an edit starts from the comment read with its ETag.
  const edit = useConflictSafeEdit({
    shown: { text: comment.body },
    fetchLatest: async () => {
      const latest = await fetchComment(taskId, comment.id);
      if (latest.data.updatedAt !== comment.updatedAt) props.onSaved(latest.data);
      return { text: latest.data.body, etag: latest.etag };
    },
    write: async (text, ifMatch) => props.onSaved((await updateComment(taskId, comment.id, text, ifMatch)).data),
    check: (text) => (text.trim() ? null : 'A comment cannot be empty. To remove it, delete it.'),
    // Deleted meanwhile: the timeline keeps it on screen while it is edited, and `gone` offers the text.
    onGone: () => props.onRemoved(comment.id),
  });
  const { state } = edit;
  const [posting, setPosting] = useState(false);
  const [postError, setPostError] = useState<string | null>(null);
  const notify = useNotify();
  const id = useId();
  const editing = state.kind !== 'view';
  const isAuthor = comment.author.id === userId;
  const edited = Date.parse(comment.updatedAt) > Date.parse(comment.createdAt);

  useEffect(() => props.onEditing(comment.id, editing), [editing]);
  useEffect(() => () => props.onEditing(comment.id, false), []);

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
    setPosting(true);
    setPostError(null);
    try {
      const posted = await createComment(taskId, edit.draft, newIdempotencyKey());
      props.onPosted(posted.data);
      edit.stop();
    } catch (failure) {
      setPostError(messageOf(failure));
    }
    setPosting(false);
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
          {state.kind === 'view' && !gone && (
            <span class="comment-actions">
              {isAuthor && (
                <button type="button" class="button-quiet" onClick={() => void edit.start()}>
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

        {(state.kind === 'view' || state.kind === 'opening') && (
          <MarkdownView source={comment.body} emptyText="(empty)" />
        )}

        {gone && editing && (
          <section class="conflict" aria-labelledby={`${id}-gone`}>
            <h3 id={`${id}-gone`}>This comment was deleted while you were editing it</h3>
            <p>Your text has not been saved and nothing is lost: post it as a new comment, or discard it.</p>
            <label class="field">
              <span>Your text (not saved)</span>
              <textarea readOnly rows={6} value={edit.draft} />
            </label>
            <div class="form-actions">
              <button type="button" class="button-primary" disabled={posting} onClick={() => void postAgain()}>
                Post as a new comment
              </button>
              <button type="button" class="button-quiet" onClick={edit.stop}>
                Discard my text
              </button>
            </div>
          </section>
        )}

        {!gone && state.kind === 'edit' && (
          <form
            class="comment-editor"
            aria-label="Edit your comment"
            onSubmit={(event) => {
              event.preventDefault();
              void edit.save(edit.draft);
            }}
          >
            {state.changedMeanwhile && (
              <p class="warning-note" role="alert">
                This comment was just changed elsewhere. Your text is kept: when you save, you will see both versions to
                choose from.
              </p>
            )}
            <MarkdownField
              label="Your comment (CommonMark)"
              value={edit.draft}
              onInput={edit.setDraft}
              onSubmit={() => void edit.save(edit.draft)}
              maxLength={MAX_COMMENT_LENGTH}
              rows={6}
              focus
            />
            <div class="form-actions">
              <button type="submit" class="button-primary" disabled={edit.busy}>
                {edit.busy ? 'Saving…' : 'Save comment'}
              </button>
              <button type="button" class="button-quiet" onClick={edit.stop}>
                Cancel
              </button>
            </div>
          </form>
        )}

        {!gone && state.kind === 'conflict' && (
          <ConflictResolver
            heading="This comment was changed elsewhere while you were editing it"
            theirsLabel="Saved version"
            theirs={state.theirs.text}
            mine={edit.draft}
            busy={edit.busy}
            onSave={(resolution) => void edit.save(resolution)}
            onDiscardMine={edit.stop}
          />
        )}
        <ErrorNote message={postError ?? edit.error} />
      </article>
    </li>
  );
}
