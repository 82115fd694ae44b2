/** The API's attachment shape (src/contract/attachments.ts). */
import type { Attachment } from '../contract/index.js';
import type { AttachmentRecord } from './attachments.repository.js';

export function presentAttachment(a: AttachmentRecord): Attachment {
  return {
    id: a.id,
    taskId: a.taskId,
    name: a.name,
    size: a.size,
    contentType: a.contentType,
    sha256: a.sha256,
    uploadedBy: a.uploadedBy,
    createdAt: a.createdAt,
  };
}
