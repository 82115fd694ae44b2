/**
 * A task's attachments and timeline (task-sections.tsx), fetched as a chunk of their own the first
 * time a task is opened: the first screen (a list, My tasks) does not download them (the JS budget).
 */
import type { TaskDetail } from '@contract';
import { lazy, useLazy } from '../lib/lazy';
import { ErrorNote } from '../ui/ErrorNote';

const loadTaskSections = lazy(() => import('./task-sections').then((module) => module.TaskSections));

export function LazyTaskSections({ task }: { task: TaskDetail }) {
  const TaskSections = useLazy(loadTaskSections);
  if (TaskSections && TaskSections !== 'failed') return <TaskSections task={task} />;
  return (
    <section class="timeline-section" aria-labelledby="timeline-loading-heading" aria-busy={!TaskSections}>
      <h2 id="timeline-loading-heading">Attachments and activity</h2>
      {TaskSections ? (
        <ErrorNote message="The attachments and activity could not be loaded. Check your connection and reload the page." />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}
