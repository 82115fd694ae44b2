/**
 * The task's timeline, fetched as a chunk of its own the first time a task is opened: the first
 * screen (a list, My tasks) does not download it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { TaskDetail } from '@contract';
import { ErrorNote } from '../ui/ErrorNote';

type TimelineComponent = typeof import('../timeline/Timeline').Timeline;
let loading: Promise<TimelineComponent> | null = null;
const loadTimeline = () => (loading ??= import('../timeline/Timeline').then((module) => module.Timeline));

export function LazyTimeline({ task }: { task: TaskDetail }) {
  const [Timeline, setTimeline] = useState<TimelineComponent | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    loadTimeline().then(
      (loaded) => setTimeline(() => loaded),
      () => {
        loading = null; // the next task opened tries again
        setFailed(true);
      },
    );
  }, []);

  if (Timeline) return <Timeline task={task} />;
  return (
    <section class="timeline-section" aria-labelledby="timeline-loading-heading" aria-busy={!failed}>
      <h2 id="timeline-loading-heading">Activity</h2>
      {failed ? (
        <ErrorNote message="The activity could not be loaded. Check your connection and reload the page." />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}
