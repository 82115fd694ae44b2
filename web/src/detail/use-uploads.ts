/**
 * Uploads files to a task one after another (several dropped at once go in turn, so each gets the
 * whole connection and its own progress), and keeps what to show: the file on its way with the
 * share sent, and why any file was refused, in the server's own words.
 */
import { useRef, useState } from 'preact/hooks';
import type { Attachment } from '@contract';
import { messageOf } from '../api/client';
import { uploadAttachment } from '../api/attachments';
import { useSession } from '../app/session-context';

export interface UploadInProgress {
  name: string;
  /** The share of its bytes sent, 0 to 1. */
  sent: number;
  /** Its place among the files of this drop, from 1. */
  position: number;
  count: number;
}

export interface Uploads {
  /** Uploads the files in turn; resolves with those the server took, in order. */
  upload: (files: File[]) => Promise<Attachment[]>;
  current: UploadInProgress | null;
  /** Why the last files could not be attached, one line each; null when all went. */
  error: string | null;
}

export function useUploads(taskId: number): Uploads {
  const { session } = useSession();
  const [current, setCurrent] = useState<UploadInProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Files dropped while others are still going wait for them.
  const queue = useRef<Promise<unknown>>(Promise.resolve());

  const uploadInTurn = async (files: File[]): Promise<Attachment[]> => {
    const attached: Attachment[] = [];
    const refused: string[] = [];
    setError(null);
    for (const [index, file] of files.entries()) {
      const progress = { name: file.name, position: index + 1, count: files.length };
      setCurrent({ ...progress, sent: 0 });
      try {
        attached.push(
          await uploadAttachment(taskId, file, session.csrfToken, (sent) => setCurrent({ ...progress, sent })),
        );
      } catch (failure) {
        refused.push(`“${file.name}” was not attached: ${messageOf(failure)}`);
      }
    }
    setCurrent(null);
    setError(refused.length > 0 ? refused.join('\n') : null);
    return attached;
  };

  const upload = (files: File[]) => {
    const next = queue.current.then(() => uploadInTurn(files));
    queue.current = next.catch(() => undefined);
    return next;
  };

  return { upload, current, error };
}

/** The files a paste or a drop carries (none for text). */
export function filesOf(transfer: DataTransfer | null): File[] {
  return transfer ? Array.from(transfer.files) : [];
}

/** Whether a drag carries files (its files are readable only on drop). */
export const draggingFiles = (transfer: DataTransfer | null) => Boolean(transfer?.types.includes('Files'));
