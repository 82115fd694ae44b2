/** Files on tasks (issue 31): /v1/tasks/{taskId}/attachments and /v1/attachments/{attachmentId}… */
import { Type, type Static } from 'typebox';

export const AttachmentParams = Type.Object({
  attachmentId: Type.String({ pattern: '^\\d+$', errorMessage: 'attachmentId must be a number.' }),
});

export const Attachment = Type.Object({
  id: Type.Number(),
  taskId: Type.Number(),
  name: Type.String({ description: "The uploader's file name, cleaned for display (at most 255 characters)." }),
  size: Type.Number({ description: 'Bytes.' }),
  contentType: Type.String({ description: "Found from the file's bytes, never taken from the client." }),
  sha256: Type.String({ description: "The file's SHA-256, in hex; also its download's ETag." }),
  uploadedBy: Type.Object({ id: Type.String(), name: Type.String() }),
  createdAt: Type.String(),
});
export type Attachment = Static<typeof Attachment>;

/** A task's attachments, oldest first: all of them, in one answer (a task holds few files). */
export const AttachmentList = Type.Array(Attachment);
export type AttachmentList = Static<typeof AttachmentList>;

export const AttachmentDeleted = Type.Object({ id: Type.Number(), taskId: Type.Number(), deleted: Type.Boolean() });
export type AttachmentDeleted = Static<typeof AttachmentDeleted>;

/** The upload's body, for the OpenAPI document: multipart/form-data with the file in `file`. */
export const AttachmentUpload = Type.Object(
  { file: Type.String({ format: 'binary', description: "The file; its name is the part's filename." }) },
  { required: ['file'] },
);
