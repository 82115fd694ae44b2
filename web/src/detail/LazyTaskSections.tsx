/**
 * The parts of a task's page fetched as chunks of their own the first time a task is opened
 * (lib/lazy.ts), so the first screen (a list, My tasks) does not download them (the JS budget):
 * its timeline and its attachments. Until a chunk arrives its section shows its heading and
 * "Loading…", or why it could not be fetched.
 */
import type { ComponentType } from 'preact';
import type { TaskDetail } from '@contract';
import { lazy, useLazy, type Loader } from '../lib/lazy';
import { ErrorNote } from '../ui/ErrorNote';

type TaskSection = ComponentType<{ task: TaskDetail }>;

const loadTimeline: Loader<{ task: TaskDetail }> = lazy(() =>
  import('../timeline/Timeline').then((module) => module.Timeline),
);
const loadAttachments: Loader<{ task: TaskDetail }> = lazy(() =>
  import('./Attachments').then((module) => module.Attachments),
);

function LazySection({
  task,
  loader,
  title,
  name,
}: {
  task: TaskDetail;
  loader: Loader<{ task: TaskDetail }>;
  title: string;
  name: string;
}) {
  const Section: TaskSection | null | 'failed' = useLazy(loader);
  if (Section && Section !== 'failed') return <Section task={task} />;
  return (
    <section class={`${name}-section`} aria-labelledby={`${name}-loading-heading`} aria-busy={!Section}>
      <h2 id={`${name}-loading-heading`}>{title}</h2>
      {Section ? (
        <ErrorNote
          message={`The ${title.toLowerCase()} could not be loaded. Check your connection and reload the page.`}
        />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}

export const LazyTimeline = ({ task }: { task: TaskDetail }) => (
  <LazySection task={task} loader={loadTimeline} title="Activity" name="timeline" />
);

export const LazyAttachments = ({ task }: { task: TaskDetail }) => (
  <LazySection task={task} loader={loadAttachments} title="Attachments" name="attachments" />
);
