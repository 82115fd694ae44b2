import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { withEtag } from '../http/etag.js';
import { sendJson } from '../http/json-text.js';
import { linkNextPage } from '../http/next-page.js';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses, fixedTextErrorResponses, NEXT_PAGE_HEADER } from '../contract/common.js';
import { toId } from '../ids.js';
import type { TaskFilter } from './task-query.js';
import {
  CreateTaskBody,
  LabelledTaskSummary,
  TaskDeleted,
  TaskCsvQuery,
  TaskDetail,
  TaskIdParams,
  TaskQuery,
  TaskUpdateResult,
  UpdateTaskBody,
} from '../contract/tasks.js';
import * as service from './tasks.service.js';
import { encodeCursor, toSort } from './task-cursor.js';
import { tasksCsv } from './tasks-csv.js';

const tags = ['Tasks'];

/** An id too large to exist becomes 0, which matches nothing (and cannot overflow a column). */
const filterId = (raw: string): number => toId(raw) ?? 0;

function toFilter(query: TaskQuery): TaskFilter {
  return {
    taskListIds: query.taskListId?.map(filterId),
    assigneeIds: query.assigneeId,
    statusIds: query.taskStatusId?.map(filterId),
    priorities: query.priority,
    isCompleted: query.isCompleted === undefined ? undefined : query.isCompleted === 'true',
    query: query.query,
    dueDateFrom: query.dueDateFrom,
    dueDateTo: query.dueDateTo,
    parentId: query.parentId === undefined ? undefined : filterId(query.parentId),
    labelIds: query.labelId?.map(filterId),
    withLabels: query.include === 'labels',
    limit: query.limit === undefined ? 1000 : Number(query.limit),
    sort: toSort(query.sort, query.cursor),
  };
}

export function tasksRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/tasks',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary:
          'Tasks the caller may access, newest first or by `sort`; filters combine with AND, repeated values with OR',
        tags,
        querystring: TaskQuery,
        response: {
          200: Type.Array(LabelledTaskSummary, {
            headers: {
              [NEXT_PAGE_HEADER]: Type.String({
                description:
                  'Sorted pages only, when more tasks remain: this request with `cursor` set for the next page.',
              }),
            },
          }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const page = await service.listTasks(request.store, request.caller, toFilter(request.query));
      if (page.next) linkNextPage(request, reply, 'cursor', encodeCursor(request.query.sort!, page.next));
      return sendJson(reply, page.body);
    },
  );

  app.get(
    '/v1/tasks.csv',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary:
          'Every task GET /v1/tasks lists with the same filters and sort, as a CSV for spreadsheets (UTF-8, one row a task; issue 32)',
        tags,
        querystring: TaskCsvQuery,
        produces: ['text/csv'],
        response: {
          200: Type.Unsafe<unknown>({ type: 'string', description: 'The CSV, a header row first.' }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const lines = await tasksCsv(request.store, request.caller, toFilter(request.query));
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="tasks-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(lines));
    },
  );

  app.post(
    '/v1/tasks',
    {
      config: { scope: 'tasks:write', invalidInputMessage: 'Invalid input.' },
      schema: {
        summary: 'Create a task; it gets the next number of the team',
        tags,
        body: CreateTaskBody,
        response: { 201: TaskDetail, ...fixedTextErrorResponses() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(withEtag(reply, await service.createTask(request.store, request.caller, request.body))),
  );

  app.get(
    '/v1/tasks/:taskId',
    {
      config: { scope: 'tasks:read' },
      schema: {
        summary: 'The full detail of one task',
        tags,
        params: TaskIdParams,
        response: { 200: TaskDetail, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) =>
      withEtag(reply, await service.getTask(request.store, request.caller, request.params.taskId)),
  );

  app.patch(
    '/v1/tasks/:taskId',
    {
      config: { scope: 'tasks:write' },
      schema: {
        summary: 'Change the given fields of a task; null clears a nullable field',
        tags,
        params: TaskIdParams,
        body: UpdateTaskBody,
        response: { 200: TaskUpdateResult, ...errorResponses(400, 403, 404, 412) },
      },
    },
    async (request, reply) =>
      withEtag(
        reply,
        await service.updateTask(
          request.store,
          request.caller,
          request.params.taskId,
          request.body,
          request.headers['if-match'],
        ),
      ),
  );

  app.delete(
    '/v1/tasks/:taskId',
    {
      config: { scope: 'tasks:write', invalidInputMessage: 'Invalid input.' },
      schema: {
        summary: 'Delete a task permanently; its subtasks become top-level tasks',
        tags,
        params: TaskIdParams,
        response: { 200: TaskDeleted, ...fixedTextErrorResponses(403, 404, 412) },
      },
    },
    async (request) =>
      service.deleteTask(request.store, request.caller, request.params.taskId, request.headers['if-match']),
  );
}
