import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { extendBodyDeadline } from '../http/body-deadline.js';
import { AppError } from '../http/errors.js';
import { validatorCompiler } from '../http/validation.js';
import { errorResponses } from '../contract/common.js';
import {
  Attachment,
  AttachmentDeleted,
  AttachmentList,
  AttachmentParams,
  AttachmentUpload,
} from '../contract/attachments.js';
import { TaskIdParams } from '../contract/tasks.js';
import * as service from './attachments.service.js';
import { mayShowInline } from './sniff.js';
import type { FileStore } from './attachments.service.js';

const tags = ['Attachments'];

/** RFC 5987/6266: `filename*=UTF-8''<percent-encoded>`, and a plain ASCII `filename` for old clients. */
function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Whether If-None-Match names this ETag (or is `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export const attachmentsRoutes = (files: FileStore) =>
  async function registerAttachmentsRoutes(app: App, deps: AppDeps): Promise<void> {
    const limits = {
      maxFileBytes: deps.config.attachments.maxFileBytes,
      teamQuotaBytes: deps.config.attachments.teamQuotaBytes,
    };
    const { uploadTimeoutMs } = deps.config.attachments;
    // In this module's scope only: elsewhere a multipart body stays a 415. The file is read as a
    // stream (request.file()); BODY_LIMIT_BYTES does not apply to it, the file limit does.
    await app.register(multipart, { throwFileSizeLimit: false });

    app.post(
      '/v1/tasks/:taskId/attachments',
      {
        config: { scope: 'tasks:write', idempotency: false },
        // The body is a stream the handler reads; the schema only documents it (OpenAPI).
        validatorCompiler: (request) => (request.httpPart === 'body' ? () => true : validatorCompiler(request)),
        schema: {
          summary:
            'Attach a file to a task: multipart/form-data, the file in the field "file", streamed; its type is found from its bytes (issue 31)',
          tags,
          consumes: ['multipart/form-data'],
          params: TaskIdParams,
          body: AttachmentUpload,
          response: { 201: Attachment, ...errorResponses(400, 403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        // Called once the task's access is checked: a refusal comes first, whatever the body.
        const readFile = async (): Promise<service.IncomingFile | undefined> => {
          if (!request.isMultipart()) {
            throw new AppError('unsupportedMediaType', 'Send the file as multipart/form-data, in the field "file".');
          }
          // A large file over a slow link takes longer than REQUEST_TIMEOUT_MS; only now that
          // the caller may attach to this task does its upload get longer.
          extendBodyDeadline(request, reply, uploadTimeoutMs);
          const part = await request.file({
            // One more byte than any upload may have: the store's own limit (the smaller of the
            // file limit and the quota left) always stops it first, and says which.
            limits: { fileSize: limits.maxFileBytes + 1, files: 1, fields: 10, parts: 11, fieldSize: 1024 },
          });
          if (!part) return undefined;
          return {
            fieldname: part.fieldname,
            filename: part.filename,
            stream: part.file,
            truncated: () => part.file.truncated,
          };
        };
        const attachment = await service.uploadAttachment(
          request.store,
          request.caller,
          request.params.taskId,
          readFile,
          files,
          limits,
        );
        return reply.code(201).send(attachment);
      },
    );

    app.get(
      '/v1/tasks/:taskId/attachments',
      {
        config: { scope: 'tasks:read' },
        schema: {
          summary: "A task's attachments, oldest first (issue 31)",
          tags,
          params: TaskIdParams,
          response: { 200: AttachmentList, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => service.listAttachments(request.store, request.caller, request.params.taskId),
    );

    app.get(
      '/v1/attachments/:attachmentId',
      {
        config: { scope: 'tasks:read' },
        schema: {
          summary: 'One attachment (issue 31)',
          tags,
          params: AttachmentParams,
          response: { 200: Attachment, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => service.getAttachment(request.store, request.caller, request.params.attachmentId),
    );

    app.get(
      '/v1/attachments/:attachmentId/content',
      {
        config: { scope: 'tasks:read' },
        schema: {
          summary:
            "An attachment's bytes, the task's access checked on every download; raster images inline, anything else as a download (issue 31)",
          tags,
          params: AttachmentParams,
          produces: ['application/octet-stream'],
          response: {
            200: Type.Unsafe<unknown>({
              type: 'string',
              format: 'binary',
              description: 'The file, with its sniffed Content-Type.',
            }),
            304: Type.Unsafe<unknown>({ description: 'Not modified: If-None-Match named its ETag (the sha256).' }),
            ...errorResponses(400, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const { attachment, content } = await service.openAttachment(
          request.store,
          request.caller,
          request.params.attachmentId,
          files,
        );
        const etag = `"${attachment.sha256}"`;
        reply
          .header('etag', etag)
          .header('cache-control', 'private, no-cache')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "sandbox; default-src 'none'")
          .header('cross-origin-resource-policy', 'same-origin');
        if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send(undefined);
        const kind = mayShowInline(attachment.contentType) ? 'inline' : 'attachment';
        const stream = await content();
        return reply
          .header('content-disposition', contentDisposition(kind, attachment.name))
          .header('content-length', String(attachment.size))
          .type(attachment.contentType)
          .send(stream);
      },
    );

    app.delete(
      '/v1/attachments/:attachmentId',
      {
        config: { scope: 'tasks:write' },
        schema: {
          summary: "Delete an attachment; its uploader may, and so may the team's owners and admins (issue 31)",
          tags,
          params: AttachmentParams,
          response: { 200: AttachmentDeleted, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => service.deleteAttachment(request.store, request.caller, request.params.attachmentId, files),
    );
  };
