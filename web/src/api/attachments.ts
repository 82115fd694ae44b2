/**
 * Files on a task (issue 31). Reads and deletions go through the one fetch wrapper; an upload
 * goes through XMLHttpRequest, the one browser API that reports an upload's progress.
 */
import type { Attachment, AttachmentDeleted } from '@contract';
import { ApiError, del, get } from './client';

export const fetchAttachments = (taskId: number) => get<Attachment[]>(`/v1/tasks/${taskId}/attachments`);

export const deleteAttachment = (attachmentId: number) => del<AttachmentDeleted>(`/v1/attachments/${attachmentId}`);

/** The file's bytes: shown inline for raster images, downloaded otherwise (the session cookie is the credential). */
export const attachmentContentUrl = (attachmentId: number) => `/v1/attachments/${attachmentId}/content`;

/**
 * Sends one file as `multipart/form-data` (field `file`), reporting the share sent (0 to 1).
 * Fails with an ApiError holding the server's `{"error"}` message (413: too large or quota full).
 * `csrfToken`: the session's (`useSession().session.csrfToken`), sent as every change sends it;
 * taken as an argument so the first-load client module stays as it is (the JS budget).
 */
export function uploadAttachment(
  taskId: number,
  file: File,
  csrfToken: string,
  onProgress: (sent: number) => void,
): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/v1/tasks/${taskId}/attachments`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const body = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as Attachment);
      const message =
        body && typeof body === 'object' && 'error' in body && typeof body.error === 'string'
          ? body.error
          : `The server answered ${xhr.status}.`;
      reject(new ApiError(xhr.status, message, xhr.getResponseHeader('error-detail')));
    };
    // A 413 may also end the connection before the answer is read: the browser reports no status.
    xhr.onerror = () =>
      reject(new ApiError(0, 'The upload did not reach the server. Check your connection and try again.'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
