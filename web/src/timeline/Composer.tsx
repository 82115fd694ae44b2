/**
 * A new comment: CommonMark with a preview. What is typed is kept in this browser as it is
 * typed (drafts.ts), so a reload or a closed tab loses nothing; sending clears it. A send is
 * retried with the same Idempotency-Key while the text is the same, so it is posted once.
 */
import { useId, useRef, useState } from 'preact/hooks';
import type { Comment } from '@contract';
import { messageOf, newIdempotencyKey } from '../api/client';
import { createComment, MAX_COMMENT_LENGTH } from '../api/comments';
import { ErrorNote } from '../ui/ErrorNote';
import { readDraft, writeDraft } from './drafts';
import { MarkdownField } from '../detail/MarkdownField';

interface Props {
  taskId: number;
  userId: string;
  onPosted: (comment: Comment) => void;
}

export function Composer({ taskId, userId, onPosted }: Props) {
  const [text, setText] = useState(() => readDraft(userId, taskId));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const attempt = useRef<{ body: string; key: string } | null>(null);
  const id = useId();

  const change = (value: string) => {
    setText(value);
    writeDraft(userId, taskId, value);
  };

  const send = async () => {
    const body = text;
    if (busy || !body.trim()) return;
    if (attempt.current?.body !== body) attempt.current = { body, key: newIdempotencyKey() };
    setBusy(true);
    setError(null);
    try {
      const posted = await createComment(taskId, body, attempt.current.key);
      attempt.current = null;
      change('');
      onPosted(posted.data);
    } catch (failure) {
      setError(`Your comment was not posted: ${messageOf(failure)} It is kept here; try again.`);
    }
    setBusy(false);
  };

  return (
    <form
      class="composer"
      aria-labelledby={`${id}-heading`}
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <h3 id={`${id}-heading`}>Add a comment</h3>
      <MarkdownField
        label="Comment (CommonMark)"
        value={text}
        onInput={change}
        onSubmit={() => void send()}
        maxLength={MAX_COMMENT_LENGTH}
        readOnly={busy}
        placeholder="Markdown: **bold**, _italic_, - lists, [links](https://…)"
      />
      <p class="muted small">CommonMark. Ctrl+Enter sends. A draft is kept in this browser until you send it.</p>
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy || !text.trim()}>
          {busy ? 'Sending…' : 'Comment'}
        </button>
      </div>
    </form>
  );
}
