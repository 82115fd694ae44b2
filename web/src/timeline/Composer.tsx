/**
 * A new comment: CommonMark with a preview. What is typed is kept in this browser as it is
 * typed (drafts.ts), so a reload or a closed tab loses nothing; sending clears it. A send is
 * retried with the same Idempotency-Key while the text is the same, so it is posted once.
 * A file dropped or pasted onto it (a screenshot) is attached to the task, and a Markdown
 * reference to it is written into the comment: an image shows inline, another file as a link.
 */
import { useId, useRef, useState } from 'preact/hooks';
import type { Comment } from '@contract';
import { messageOf, newIdempotencyKey } from '../api/client';
import { createComment, MAX_COMMENT_LENGTH } from '../api/comments';
import { ErrorNote } from '../ui/ErrorNote';
import { readDraft, writeDraft } from './drafts';
import { MarkdownField } from '../detail/MarkdownField';
import { markdownReference } from '../detail/attachment-files';
import { UploadStatus } from '../detail/UploadStatus';
import { filesOf, useUploads } from '../detail/use-uploads';

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
  const uploads = useUploads(taskId);
  // The text as last typed: an upload finishing later appends to it, not to the text it started with.
  const latestText = useRef(text);

  const change = (value: string) => {
    latestText.current = value;
    setText(value);
    writeDraft(userId, taskId, value);
  };

  /** Takes a drop's or a paste's files (the task's page leaves those alone) and refers to them in the comment. */
  const attach = (event: Event, transfer: DataTransfer | null) => {
    const files = filesOf(transfer);
    if (files.length === 0) return;
    event.preventDefault();
    void uploads.upload(files).then((attached) => {
      if (attached.length === 0) return;
      const before = latestText.current;
      const separator = before === '' || before.endsWith('\n') ? '' : '\n';
      change(before + separator + attached.map(markdownReference).join('\n') + '\n');
    });
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
      onPaste={(event) => attach(event, event.clipboardData)}
      onDrop={(event) => attach(event, event.dataTransfer)}
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
      <p class="muted small">
        CommonMark. Ctrl+Enter sends. Drop or paste a file to attach it and refer to it. A draft is kept in this browser
        until you send it.
      </p>
      <UploadStatus uploads={uploads} />
      <ErrorNote message={error} />
      <div class="form-actions">
        <button type="submit" class="button-primary" disabled={busy || !text.trim() || uploads.current !== null}>
          {busy ? 'Sending…' : 'Comment'}
        </button>
      </div>
    </form>
  );
}
