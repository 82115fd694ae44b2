/**
 * A task's files (issue 31), a chunk of its own (LazyAttachments.tsx): the list with thumbnails of
 * images, uploads by the "Attach file" button, by a drop anywhere on the task and by a paste (a
 * screenshot) while no field takes it, and deletion by the uploader or the team's owners and
 * admins. Live: another person's upload or deletion on this task reloads the list.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { Attachment, TaskDetail } from '@contract';
import { messageOf } from '../api/client';
import { deleteAttachment, fetchAttachments } from '../api/attachments';
import { useLiveEvent } from '../app/live';
import { useSession } from '../app/session-context';
import { formatDate } from '../lib/dates';
import { useAsync } from '../lib/use-async';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { contentPath, humanSize, isRasterImage } from './attachment-files';
import { UploadStatus } from './UploadStatus';
import { draggingFiles, filesOf, useUploads } from './use-uploads';

/** Thumbnails' box, in CSS pixels: set on the <img> so the list does not jump as they load. */
const THUMBNAIL = 48;

export function Attachments({ task }: { task: TaskDetail }) {
  const { session } = useSession();
  const attachments = useAsync(() => fetchAttachments(task.id), [task.id]);
  const uploads = useUploads(task.id);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const section = useRef<HTMLElement>(null);
  const dropping = useDropAndPaste(section, (files) => void attach(files));
  const inputId = useId();
  const manager = session.role === 'owner' || session.role === 'admin';

  useLiveEvent((event) => {
    const thisTask = event.taskId === task.id && event.type.startsWith('attachment.');
    if (thisTask || event.type === 'sync.required') attachments.reloadSoon();
  });

  async function attach(files: File[]) {
    if (files.length === 0) return;
    await uploads.upload(files);
    attachments.reload();
  }

  async function remove(attachment: Attachment) {
    setDeleteError(null);
    try {
      await deleteAttachment(attachment.id);
    } catch (failure) {
      setDeleteError(`“${attachment.name}” was not deleted: ${messageOf(failure)}`);
    }
    attachments.reload();
  }

  const list = attachments.data;
  return (
    <section
      class={`attachments-section${dropping ? ' is-dropping' : ''}`}
      aria-labelledby="attachments-heading"
      aria-busy={attachments.loading && !list}
      ref={section}
    >
      <div class="attachments-header">
        <h2 id="attachments-heading">Attachments{list ? ` (${list.length})` : ''}</h2>
        {/* The real file input, keyboard-reachable, drawn as its label: a button reading "Attach file". */}
        <input
          id={inputId}
          class="attach-input"
          type="file"
          multiple
          onChange={(event) => {
            const input = event.currentTarget;
            const files = Array.from(input.files ?? []);
            input.value = ''; // the same file may be chosen again
            void attach(files);
          }}
        />
        <label class="button-secondary attach-button" for={inputId}>
          Attach file
        </label>
      </div>
      <UploadStatus uploads={uploads} />
      <ErrorNote message={deleteError} />
      {attachments.error && <ErrorNote message={`The attachments could not be loaded: ${attachments.error}`} />}
      {!list && !attachments.error && <p class="muted">Loading…</p>}
      {list?.length === 0 && (
        <p class="muted attachments-empty">No files yet. Attach one, drop it here or paste a screenshot.</p>
      )}
      {dropping && <p class="drop-hint">Drop to attach to this task</p>}
      {list && list.length > 0 && (
        <ul class="attachment-list">
          {list.map((attachment) => (
            <AttachmentItem
              key={attachment.id}
              attachment={attachment}
              deletable={manager || attachment.uploadedBy.id === session.user.id}
              onDelete={() => void remove(attachment)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

interface ItemProps {
  attachment: Attachment;
  deletable: boolean;
  onDelete: () => void;
}

function AttachmentItem({ attachment, deletable, onDelete }: ItemProps) {
  const url = contentPath(attachment.id);
  return (
    <li class="attachment" aria-label={`Attachment ${attachment.name}`}>
      {isRasterImage(attachment.contentType) ? (
        <img class="attachment-thumbnail" src={url} alt="" width={THUMBNAIL} height={THUMBNAIL} loading="lazy" />
      ) : (
        <span class="attachment-thumbnail attachment-file-icon" aria-hidden="true">
          {fileExtension(attachment.name)}
        </span>
      )}
      <span class="attachment-text">
        <a class="attachment-name" href={url} download={attachment.name}>
          {attachment.name}
        </a>
        <span class="muted small">
          {humanSize(attachment.size)} · {attachment.uploadedBy.name} ·{' '}
          <time dateTime={attachment.createdAt}>{formatDate(new Date(attachment.createdAt))}</time>
        </span>
      </span>
      {deletable && (
        <ConfirmButton
          label="Delete"
          confirmLabel="Delete file"
          ariaLabel={`Delete “${attachment.name}”`}
          onConfirm={onDelete}
        />
      )}
    </li>
  );
}

/** "PDF" for report.pdf: a stand-in for a thumbnail; "FILE" without an extension. */
function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 && name.length - dot <= 5 ? name.slice(dot + 1).toUpperCase() : 'FILE';
}

/**
 * Files dropped anywhere on the task's page, or pasted while no field took the paste (the comment
 * composer takes its own: it writes a reference into the comment), go to `attach`. True while
 * files are dragged over the page.
 */
function useDropAndPaste(section: { current: HTMLElement | null }, attach: (files: File[]) => void): boolean {
  const [dropping, setDropping] = useState(false);
  const latest = useRef(attach);
  latest.current = attach;

  useEffect(() => {
    const page = section.current?.closest<HTMLElement>('.task-detail');
    if (!page) return;
    const over = (event: DragEvent) => {
      if (!draggingFiles(event.dataTransfer)) return;
      event.preventDefault(); // allows the drop
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      setDropping(true);
    };
    const leave = (event: DragEvent) => {
      if (!(event.relatedTarget instanceof Node && page.contains(event.relatedTarget))) setDropping(false);
    };
    const drop = (event: DragEvent) => {
      setDropping(false);
      if (event.defaultPrevented || !draggingFiles(event.dataTransfer)) return;
      event.preventDefault(); // else the browser opens the file in place of the app
      latest.current(filesOf(event.dataTransfer));
    };
    const paste = (event: ClipboardEvent) => {
      const files = filesOf(event.clipboardData);
      if (event.defaultPrevented || files.length === 0) return;
      event.preventDefault();
      latest.current(files);
    };
    page.addEventListener('dragover', over);
    page.addEventListener('dragleave', leave);
    page.addEventListener('drop', drop);
    document.addEventListener('paste', paste);
    return () => {
      page.removeEventListener('dragover', over);
      page.removeEventListener('dragleave', leave);
      page.removeEventListener('drop', drop);
      document.removeEventListener('paste', paste);
    };
  }, [section]);

  return dropping;
}
