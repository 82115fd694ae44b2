/** Everything about one task, editable, and kept current live. */
import { messageOf } from '../api/client';
import { deleteTask, updateTask } from '../api/tasks';
import type { UpdateTaskBody } from '@contract';
import { useTeamData } from '../app/team-data';
import { formatDate } from '../lib/dates';
import { navigate } from '../lib/router';
import { useDocumentTitle } from '../lib/use-document-title';
import { DueDateField } from '../tasks/DueDateField';
import { AssigneePicker, ListPicker, PriorityField, StatusField } from '../tasks/fields';
import { LabelPicker } from '../tasks/labels';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';
import { useNotify } from '../ui/notices';
import { DescriptionEditor } from './DescriptionEditor';
import { LazyTaskSections } from './LazyTaskSections';
import { Subtasks } from './Subtasks';
import { TitleField } from './TitleField';
import { useLiveTask } from './use-live-task';
import { useReadsTaskNotifications } from '../inbox/inbox-state';

export function TaskDetailPage({ taskId }: { taskId: number }) {
  const { task, etag, missing, error, deleted, reload } = useLiveTask(taskId);
  const { lists } = useTeamData();
  const notify = useNotify();
  useDocumentTitle(task?.title ?? (missing ? 'Task not found' : undefined));
  useReadsTaskNotifications(taskId);

  if (deleted) {
    return (
      <section class="page">
        <h1>Task deleted</h1>
        <p>This task has been deleted.</p>
        <Link href="/">Go to my tasks</Link>
      </section>
    );
  }
  if (missing) {
    // Missing or not shared with this person: the same page, so it tells nothing about which.
    return (
      <section class="page">
        <h1>Task not found</h1>
        <p>This task does not exist, or it has not been shared with you.</p>
        <Link href="/">Go to my tasks</Link>
      </section>
    );
  }
  if (!task) {
    return (
      <section class="page">
        <h1>Task</h1>
        {error ? <ErrorNote message={error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }

  // Back to the list the task is in (the first one this person can open), else My tasks.
  const home = task.taskLists.find((list) => lists?.some((active) => active.id === list.id));
  const backTo = home ? { href: `/lists/${home.id}`, label: home.name } : { href: '/', label: 'My tasks' };

  // Fields other than the description hold one value each: the last choice wins, live for all.
  const change = async (fields: UpdateTaskBody) => {
    try {
      await updateTask(taskId, fields);
    } catch (failure) {
      notify(`Could not save: ${messageOf(failure)}`, 'error');
    }
    reload();
  };
  const onChange = (fields: UpdateTaskBody) => void change(fields);

  const remove = async () => {
    try {
      await deleteTask(taskId);
      notify(`Deleted “${task.title}”.`);
      navigate(backTo.href);
    } catch (failure) {
      notify(`Could not delete: ${messageOf(failure)}`, 'error');
    }
  };

  return (
    <article class="page task-detail" data-task-id={task.id}>
      <nav class="breadcrumbs" aria-label="Back">
        <Link href={backTo.href}>← {backTo.label}</Link>
      </nav>
      <header class="task-detail-header">
        <h1 class="sr-only">{task.title}</h1>
        <span class="task-number">#{task.number}</span>
        <TitleField title={task.title} onSave={(title) => onChange({ title })} />
      </header>
      <ErrorNote message={error} />

      <dl class="task-properties">
        <div>
          <dt>Status</dt>
          <dd data-status-control>
            <StatusField task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Priority</dt>
          <dd>
            <PriorityField task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Due date</dt>
          <dd>
            <DueDateField task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Assignees</dt>
          <dd>
            <AssigneePicker task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Lists</dt>
          <dd>
            <ListPicker task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Labels</dt>
          <dd>
            <LabelPicker task={task} onChange={onChange} />
          </dd>
        </div>
        <div>
          <dt>Parent</dt>
          <dd>
            {task.parent ? (
              <Link href={`/tasks/${task.parent.id}`}>
                #{task.parent.number} {task.parent.title}
              </Link>
            ) : (
              <span class="muted">None</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Created by</dt>
          <dd>
            {task.createdBy.name} <span class="muted">{formatDate(new Date(task.createdAt))}</span>
          </dd>
        </div>
      </dl>

      <DescriptionEditor taskId={taskId} description={task.description} etag={etag} onSaved={reload} />
      <Subtasks task={task} />
      <LazyTaskSections task={task} />

      <footer class="danger-zone">
        <ConfirmButton label="Delete task" confirmLabel="Delete permanently" onConfirm={() => void remove()} />
      </footer>
    </article>
  );
}
