/**
 * The tools that change something: create a task, update one, comment. Each takes an
 * `idempotencyKey` (tool.ts, tool-idempotency.ts), and calls the service the API route calls.
 * A description is changed only against the version the agent read (If-Match semantics): an
 * agent never overwrites a teammate's newer text; a stale version is refused with the newer
 * text and version, to merge and retry.
 */
import { z } from 'zod';
import { CommentBody, CreateTaskBody, UpdateTaskBody, PRIORITIES } from '../contract/index.js';
import { createComment } from '../comments/comments.service.js';
import { etagOf } from '../http/etag.js';
import { AppError } from '../http/errors.js';
import { createTask, getTask, updateTask } from '../tasks/tasks.service.js';
import { asBody, given } from './inputs.js';
import { taskDetail, taskText } from './present.js';
import { TaskId } from './read-tools.js';
import { defineTool, ToolRefusal } from './tool.js';

const Ids = (what: string) => z.array(z.number().int().min(1)).max(1000).describe(what);
const fields = {
  description: z.string().max(100_000).nullable().optional().describe('Markdown; null clears it.'),
  statusId: z.number().int().min(1).optional().describe('A status id (list_statuses).'),
  priority: z.enum(PRIORITIES).nullable().optional(),
  dueDate: z.string().max(10).nullable().optional().describe('YYYY-MM-DD; null clears it.'),
  assigneeIds: z.array(z.string().max(64)).max(1000).optional().describe('User ids (list_members): the whole set.'),
  listIds: Ids('List ids (list_lists): the whole set.').optional(),
  labelIds: Ids('Label ids (list_labels): the whole set.').optional(),
};

/** The API's body names for the tool's fields. */
function apiFields(args: { statusId?: number; listIds?: number[] } & Record<string, unknown>) {
  const { statusId, listIds, ...rest } = args;
  return given({ ...rest, taskStatusId: statusId, taskListIds: listIds });
}

export const createTaskTool = defineTool({
  name: 'create_task',
  title: 'Create a task',
  description: 'Creates a task. Send an idempotencyKey, so that a retry never creates a second one.',
  scope: 'tasks:write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  writes: true,
  input: {
    title: z.string().max(500),
    ...fields,
    parentId: z.number().int().min(1).nullable().optional().describe('Make it a subtask of this task id.'),
  },
  async run({ caller }, args, store) {
    const task = taskDetail(await createTask(store, caller, asBody<CreateTaskBody>(CreateTaskBody, apiFields(args))));
    return { text: `Created ${taskText(task)} (id ${task.id}, version ${task.version}).`, data: { task } };
  },
});

export const updateTaskTool = defineTool({
  name: 'update_task',
  title: 'Update a task',
  description:
    'Changes the given fields of a task; null clears a field. Changing the description needs expectedVersion: the ' +
    'version get_task answered. If someone changed the task since, the update is refused with the newer ' +
    'description and version: merge, then retry with that version.',
  scope: 'tasks:write',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  writes: true,
  input: {
    taskId: TaskId,
    expectedVersion: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The version you read (get_task). Required to change the description; checked whenever given.'),
    title: z.string().max(500).optional(),
    ...fields,
  },
  async run({ caller }, args, store) {
    const { taskId, expectedVersion, ...changes } = args;
    if (changes.description !== undefined && expectedVersion === undefined) {
      throw new ToolRefusal(
        'Changing the description needs expectedVersion: call get_task, and send the version it answers, so ' +
          'that a newer description written meanwhile is never overwritten.',
      );
    }
    const patch = asBody<UpdateTaskBody>(UpdateTaskBody, apiFields(changes));
    const ifMatch = expectedVersion === undefined ? undefined : etagOf(expectedVersion);
    try {
      const task = await updateTask(store, caller, String(taskId), patch, ifMatch);
      return {
        text: `Updated #${task.number} ${task.title} (version ${task.version}).`,
        data: { task: { id: task.id, number: task.number, title: task.title, version: task.version } },
      };
    } catch (error) {
      if (!(error instanceof AppError) || error.kind !== 'preconditionFailed') throw error;
      // The version read is stale: answer what the task says now, for the agent to merge.
      const now = taskDetail(await getTask(store, caller, String(taskId)));
      throw new ToolRefusal(
        `Task #${now.number} changed since version ${expectedVersion}: it is now version ${now.version}, and ` +
          `nothing was changed. Its description now reads:\n${now.description ?? '(none)'}`,
        { currentVersion: now.version, description: now.description },
      );
    }
  },
});

export const addComment = defineTool({
  name: 'add_comment',
  title: 'Comment on a task',
  description: 'Adds a comment (Markdown; @mentions notify) to a task.',
  scope: 'comments:write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  writes: true,
  input: { taskId: TaskId, body: z.string().max(100_000) },
  async run({ caller }, args, store) {
    const { body } = asBody<CommentBody>(CommentBody, { body: args.body });
    const comment = await createComment(store, caller, String(args.taskId), body);
    return {
      text: `Commented on task ${args.taskId} (comment ${comment.id}).`,
      data: { comment: { id: comment.id, taskId: comment.taskId, createdAt: comment.createdAt } },
    };
  },
});
