/**
 * The parts of a task's page below its subtasks, loaded as one chunk (LazyTaskSections.tsx): its
 * attachments, then its timeline. They are needed at the same moment, a task opened, so one chunk
 * costs the first load one loader, not two.
 */
import type { TaskDetail } from '@contract';
import { Timeline } from '../timeline/Timeline';
import { Attachments } from './Attachments';

export function TaskSections({ task }: { task: TaskDetail }) {
  return (
    <>
      <Attachments task={task} />
      <Timeline task={task} />
    </>
  );
}
