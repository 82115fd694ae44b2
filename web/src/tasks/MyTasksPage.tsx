/** Tasks assigned to the signed-in person, across lists. */
import { useSession } from '../app/session-context';
import { useDocumentTitle } from '../lib/use-document-title';
import { TasksView } from './TasksView';

export function MyTasksPage() {
  const { session } = useSession();
  useDocumentTitle('My tasks');
  return (
    <TasksView
      heading="My tasks"
      scope={{ assigneeId: session.user.id }}
      newTaskDefaults={{ assigneeIds: [session.user.id] }}
    />
  );
}
