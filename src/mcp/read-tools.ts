/**
 * The tools that only read: tasks (by filters or full-text search), one task with its comments
 * and recent activity, and the team's lists, statuses, members and labels. Each calls the
 * service its API route calls, with the caller, so it sees exactly what the API shows them.
 */
import { z } from 'zod';
import { ActivityQuery, CommentsQuery, SearchQuery, TaskQuery, type LabelledTaskSummary } from '../contract/index.js';
import { taskActivity } from '../activity/activity.service.js';
import { listComments } from '../comments/comments.service.js';
import { labelsOf } from '../labels/labels.service.js';
import { listLists } from '../lists/lists.service.js';
import { search } from '../search/search.service.js';
import { statusesOf } from '../statuses/statuses.service.js';
import type { Store } from '../storage/database.js';
import { getTask, listTasks } from '../tasks/tasks.service.js';
import { members } from '../team/team.service.js';
import { toId } from '../ids.js';
import type { Caller } from '../caller.js';
import { asBody, given } from './inputs.js';
import { activityLine, commentLine, taskDetail, taskLine, taskText } from './present.js';
import { defineTool } from './tool.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const MAX_TASKS = 100;
const Limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_TASKS)
  .optional()
  .describe(`How many tasks at most (default 25, at most ${MAX_TASKS}).`);
const DueDate = z.string().max(10).describe('YYYY-MM-DD');
export const TaskId = z.number().int().min(1).describe('The task’s id (not its #number): as find_tasks answers it.');

/** The page of GET /v1/tasks for these filters (as the API accepts them), compact. */
async function taskPage(store: Store, caller: Caller, query: Record<string, unknown>) {
  const checked = asQuery<TaskQuery>(TaskQuery, given(query));
  const filter = {
    taskListIds: checked.taskListId?.map((id) => toId(id) ?? 0),
    assigneeIds: checked.assigneeId,
    statusIds: checked.taskStatusId?.map((id) => toId(id) ?? 0),
    isCompleted: checked.isCompleted === undefined ? undefined : checked.isCompleted === 'true',
    query: checked.query,
    dueDateFrom: checked.dueDateFrom,
    dueDateTo: checked.dueDateTo,
    limit: Number(checked.limit ?? 25),
  };
  const page = await listTasks(store, caller, filter);
  // On SQLite the database wrote the page as JSON (tasks/task-query.ts).
  const tasks = (typeof page.body === 'string' ? JSON.parse(page.body) : page.body) as LabelledTaskSummary[];
  const lines = tasks.map(taskLine);
  return {
    text: lines.length === 0 ? 'No tasks match.' : `${lines.length} task(s):\n${lines.map(taskText).join('\n')}`,
    data: { tasks: lines },
  };
}

/** Query-string parameters as the API's route would take them. */
function asQuery<T>(schema: { properties: Record<string, unknown> }, value: Record<string, unknown>): T {
  return asBody<T>(schema as never, value);
}

export const findTasks = defineTool({
  name: 'find_tasks',
  title: 'Find tasks',
  description:
    'Tasks you may see. With `query` alone: full-text search of titles, descriptions and comments. With filters ' +
    '(list, status, assignee, due range, completed), `query` narrows to titles containing it. Newest first.',
  scope: 'tasks:read',
  annotations: READ,
  input: {
    query: z.string().max(200).optional().describe('Words to find.'),
    listId: z.number().int().min(1).optional().describe('Only tasks on this list (list_lists).'),
    statusId: z.number().int().min(1).optional().describe('Only tasks in this status (list_statuses).'),
    assigneeId: z.string().max(64).optional().describe('Only tasks assigned to this user id (list_members), or "me".'),
    dueFrom: DueDate.optional().describe('Due on or after (YYYY-MM-DD).'),
    dueTo: DueDate.optional().describe('Due on or before (YYYY-MM-DD).'),
    completed: z.boolean().optional().describe('true: only completed; false: only open.'),
    limit: Limit,
  },
  async run({ caller }, args, store) {
    const filtered = [args.listId, args.statusId, args.assigneeId, args.dueFrom, args.dueTo, args.completed].some(
      (value) => value !== undefined,
    );
    if (args.query !== undefined && args.query.trim() !== '' && !filtered) {
      const query = asQuery<SearchQuery>(SearchQuery, { q: args.query, limit: String(Math.min(args.limit ?? 20, 50)) });
      const page = await search(store, caller, query);
      const hits = page.items.map((hit) => ({
        id: hit.task.id,
        number: hit.task.number,
        title: hit.task.title,
        matched: hit.field,
        // The search marks matched words with U+0002 and U+0003; Markdown bold reads better to an agent.
        snippet: hit.snippet.replaceAll(String.fromCharCode(2), '**').replaceAll(String.fromCharCode(3), '**'),
      }));
      return {
        text:
          hits.length === 0
            ? 'No task matches.'
            : `${hits.length} match(es):\n${hits.map((h) => `#${h.number} ${h.title} (${h.matched}: ${h.snippet})`).join('\n')}`,
        data: { matches: hits, more: page.nextCursor !== null },
      };
    }
    return taskPage(store, caller, {
      query: args.query,
      taskListId: args.listId === undefined ? undefined : [String(args.listId)],
      taskStatusId: args.statusId === undefined ? undefined : [String(args.statusId)],
      assigneeId:
        args.assigneeId === undefined ? undefined : [args.assigneeId === 'me' ? caller.userId : args.assigneeId],
      dueDateFrom: args.dueFrom,
      dueDateTo: args.dueTo,
      isCompleted: args.completed === undefined ? undefined : String(args.completed),
      limit: args.limit === undefined ? undefined : String(args.limit),
    });
  },
});

export const myTasks = defineTool({
  name: 'my_tasks',
  title: 'My open tasks',
  description: 'Open tasks assigned to you (the key’s user), newest first.',
  scope: 'tasks:read',
  annotations: READ,
  input: { limit: Limit },
  run: ({ caller }, args, store) =>
    taskPage(store, caller, {
      assigneeId: [caller.userId],
      isCompleted: 'false',
      limit: args.limit === undefined ? undefined : String(args.limit),
    }),
});

export const getTaskTool = defineTool({
  name: 'get_task',
  title: 'Get a task',
  description:
    'One task in full, with its first 20 comments (oldest first) and its 10 latest changes. Its `version` is what update_task needs ' +
    'as expectedVersion to change the description.',
  scope: 'tasks:read',
  annotations: READ,
  input: { taskId: TaskId },
  async run({ caller }, args, store) {
    const taskId = String(args.taskId);
    const task = taskDetail(await getTask(store, caller, taskId));
    const comments = await listComments(store, caller, taskId, asQuery<CommentsQuery>(CommentsQuery, { limit: '20' }));
    const activity = await taskActivity(store, caller, taskId, asQuery<ActivityQuery>(ActivityQuery, { limit: '10' }));
    const text =
      `${taskText(task)} (id ${task.id}, version ${task.version})\n` +
      `${task.description ?? '(no description)'}\n` +
      `${comments.items.length} comment(s)${comments.more ? ' (more exist)' : ''}, ${activity.items.length} recent change(s).`;
    return {
      text,
      data: {
        task,
        comments: comments.items.map(commentLine),
        moreComments: comments.more,
        activity: activity.items.map(activityLine),
      },
    };
  },
});

export const listListsTool = defineTool({
  name: 'list_lists',
  title: 'List task lists',
  description: 'The task lists you are a member of (not archived).',
  scope: 'lists:read',
  annotations: READ,
  input: {},
  async run({ caller }, _args, store) {
    const lists = (await listLists(store, caller)).map(({ id, name, sharedWithTeam }) => ({
      id,
      name,
      sharedWithTeam,
    }));
    return { text: lists.map((l) => `${l.id}: ${l.name}`).join('\n') || 'No lists.', data: { lists } };
  },
});

export const listStatuses = defineTool({
  name: 'list_statuses',
  title: 'List statuses',
  description: 'The team’s task statuses, in order: ids for find_tasks, create_task and update_task.',
  scope: 'tasks:read',
  annotations: READ,
  input: {},
  async run({ caller }, _args, store) {
    const statuses = (await statusesOf(store, caller)).map(({ id, name, isDefault, isCompleted }) => ({
      id,
      name,
      isDefault,
      isCompleted,
    }));
    return {
      text: statuses.map((s) => `${s.id}: ${s.name}${s.isCompleted ? ' (done)' : ''}`).join('\n'),
      data: { statuses },
    };
  },
});

export const listMembers = defineTool({
  name: 'list_members',
  title: 'List team members',
  description: 'The team’s members: user ids for assigning tasks.',
  scope: 'team:read',
  annotations: READ,
  input: {},
  async run({ caller }, _args, store) {
    const people = (await members(store, caller)).map(({ id, name, role }) => ({ id, name, role }));
    return { text: people.map((p) => `${p.name} (${p.role}): ${p.id}`).join('\n'), data: { members: people } };
  },
});

export const listLabels = defineTool({
  name: 'list_labels',
  title: 'List labels',
  description: 'The team’s labels: ids for create_task and update_task.',
  scope: 'tasks:read',
  annotations: READ,
  input: {},
  async run({ caller }, _args, store) {
    const labels = (await labelsOf(store, caller)).map(({ id, name }) => ({ id, name }));
    return { text: labels.map((l) => `${l.id}: ${l.name}`).join('\n') || 'No labels.', data: { labels } };
  },
});
