import { withEtag } from '../http/etag.js';
import type { App, AppDeps } from '../http/app-types.js';
import { sendPage } from '../http/next-page.js';
import { errorResponses } from '../contract/common.js';
import {
  Comment,
  CommentBody,
  CommentDeleted,
  CommentParams,
  CommentsPage,
  CommentsQuery,
} from '../contract/comments.js';
import { TaskIdParams } from '../contract/tasks.js';
import * as service from './comments.service.js';

const tags = ['Comments'];

export function commentsRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/tasks/:taskId/comments',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary: "A task's comments, oldest first (extension)",
        tags,
        params: TaskIdParams,
        querystring: CommentsQuery,
        response: { 200: CommentsPage, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await service.listComments(request.store, request.caller, request.params.taskId, request.query),
        'after',
      ),
  );

  app.post(
    '/v1/tasks/:taskId/comments',
    {
      config: { scope: 'comments:write' },
      schema: {
        summary: 'Comment on a task: CommonMark, 1 to 20,000 characters (extension)',
        tags,
        params: TaskIdParams,
        body: CommentBody,
        response: { 201: Comment, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          withEtag(
            reply,
            await service.createComment(request.store, request.caller, request.params.taskId, request.body.body),
          ),
        ),
  );

  app.get(
    '/v1/tasks/:taskId/comments/:commentId',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary: 'One comment, with its ETag (extension)',
        tags,
        params: CommentParams,
        response: { 200: Comment, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { taskId, commentId } = request.params;
      return withEtag(reply, await service.getComment(request.store, request.caller, taskId, commentId));
    },
  );

  app.patch(
    '/v1/tasks/:taskId/comments/:commentId',
    {
      config: { scope: 'comments:write' },
      schema: {
        summary: 'Edit a comment; only its author may (extension)',
        tags,
        params: CommentParams,
        body: CommentBody,
        response: { 200: Comment, ...errorResponses(400, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const { taskId, commentId } = request.params;
      const { store, caller, body, headers } = request;
      return withEtag(
        reply,
        await service.updateComment(store, caller, taskId, commentId, body.body, headers['if-match']),
      );
    },
  );

  app.delete(
    '/v1/tasks/:taskId/comments/:commentId',
    {
      config: { scope: 'comments:write' },
      schema: {
        summary: "Delete a comment; its author may, and so may the team's owners and admins (extension)",
        tags,
        params: CommentParams,
        response: { 200: CommentDeleted, ...errorResponses(400, 403, 404, 412) },
      },
    },
    async (request) => {
      const { taskId, commentId } = request.params;
      return service.deleteComment(request.store, request.caller, taskId, commentId, request.headers['if-match']);
    },
  );
}
