/**
 * Tasks assigned to the signed-in person, across lists: the landing page. It says so, and when
 * nothing is assigned it points to the person's lists, with how many tasks each holds, so an
 * empty page never reads as lost tasks.
 */
import { fetchTasks } from '../api/tasks';
import { useLiveEvent } from '../app/live';
import { useSession } from '../app/session-context';
import { useTeamData } from '../app/team-data';
import { countOf } from '../lib/plural';
import { useAsync } from '../lib/use-async';
import { useDocumentTitle } from '../lib/use-document-title';
import { NoListsNote } from '../lists/NoListsNote';
import { ColorDot } from '../ui/ColorPicker';
import { Link } from '../ui/Link';
import { TasksView } from './TasksView';

export function MyTasksPage() {
  const { session } = useSession();
  useDocumentTitle('My tasks');
  return (
    <TasksView
      heading="My tasks"
      intro="Tasks assigned to you, from all your lists."
      scope={{ assigneeId: session.user.id }}
      newTaskDefaults={{ assigneeIds: [session.user.id] }}
      empty={<NothingAssigned />}
    />
  );
}

/** GET /v1/tasks answers at most this many tasks. */
const TASKS_LIMIT = 1000;

function NothingAssigned() {
  const { lists } = useTeamData();
  const ids = (lists ?? []).map((list) => String(list.id));
  // One request for every list's tasks; each task names its lists, so they are counted here.
  const tasks = useAsync(
    () => (ids.length ? fetchTasks(new URLSearchParams(ids.map((id) => ['taskListId', id]))) : Promise.resolve([])),
    [ids.join()],
  );
  useLiveEvent((event) => {
    if (event.type.startsWith('task') || event.type === 'sync.required') tasks.reloadSoon();
  });
  const countIn = (listId: number) =>
    tasks.data?.filter((task) => task.taskLists.some((list) => list.id === listId)).length;
  const more = (tasks.data?.length ?? 0) >= TASKS_LIMIT ? ' or more' : '';

  return (
    <div class="empty empty-my-tasks">
      <p>
        <strong>Nothing is assigned to you.</strong> Tasks assigned to you appear here.
        {lists && lists.length > 0 && ' To see every task, open a list:'}
      </p>
      {lists && lists.length === 0 && <NoListsNote />}
      {lists && lists.length > 0 && (
        <ul class="empty-lists" aria-label="Your lists and their tasks">
          {lists.map((list) => {
            const count = countIn(list.id);
            return (
              <li key={list.id}>
                <Link href={`/lists/${list.id}`}>
                  <ColorDot color={list.color} /> {list.name}
                </Link>
                {count !== undefined && <span class="muted"> {countOf(count, 'task') + more}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
