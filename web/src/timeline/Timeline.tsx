/**
 * A task's timeline: what happened to it and what people said about it, oldest first, with the
 * composer at the end; older history on demand. Loaded with the task's attachments as a chunk of
 * their own (detail/LazyTaskSections.tsx) the first time a task is opened.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { Comment, TaskDetail } from '@contract';
import { useSession } from '../app/session-context';
import { formatDueDate } from '../lib/dates';
import { PRIORITY_LABELS } from '../tasks/fields';
import { ErrorNote } from '../ui/ErrorNote';
import { ActivityItem } from './ActivityItem';
import type { Reader } from './activity-text';
import { CommentItem } from './CommentItem';
import { Composer } from './Composer';
import { buildTimeline, commentAuthors } from './timeline-model';
import { useTimeline } from './use-timeline';

/** The clock relative times are read against, moved on every half minute. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function Timeline({ task }: { task: TaskDetail }) {
  const { session } = useSession();
  const timeline = useTimeline(task.id);
  const now = useNow();
  const id = useId();
  const userId = session.user.id;
  const moderates = session.role === 'owner' || session.role === 'admin';

  // Comments being edited stay on screen even when deleted meanwhile, so the text is not lost.
  const [editing, setEditing] = useState<ReadonlySet<number>>(new Set());
  const lastSeen = useRef(new Map<number, Comment>());
  for (const comment of timeline.comments) lastSeen.current.set(comment.id, comment);
  const onEditing = useCallback((commentId: number, isEditing: boolean) => {
    setEditing((current) => {
      if (current.has(commentId) === isEditing) return current;
      const next = new Set(current);
      if (isEditing) next.add(commentId);
      else next.delete(commentId);
      return next;
    });
  }, []);

  const present = new Set(timeline.comments.map((comment) => comment.id));
  const kept = [...editing].flatMap((commentId) =>
    present.has(commentId) ? [] : (lastSeen.current.get(commentId) ?? []),
  );
  const comments = kept.length ? [...timeline.comments, ...kept] : timeline.comments;
  const { entries } = timeline.activity;
  const items = useMemo(() => buildTimeline(entries, comments), [entries, comments]);
  const authors = useMemo(() => commentAuthors(entries, comments), [entries, comments]);

  const reader: Reader = {
    userId,
    formatDate: formatDueDate,
    priorityLabel: (priority) => PRIORITY_LABELS[priority],
    commentAuthor: (commentId) => authors.get(commentId),
    commentShown: (commentId) => present.has(commentId),
    taskName: (taskId) => (task.parent?.id === taskId ? `#${task.parent.number} ${task.parent.title}` : undefined),
  };

  return (
    <section class="timeline-section" aria-labelledby={`${id}-heading`} aria-busy={!timeline.loaded}>
      <h2 id={`${id}-heading`}>Activity</h2>
      {timeline.activity.hasOlder && (
        <button
          type="button"
          class="button-secondary timeline-older"
          disabled={timeline.loadingOlder}
          onClick={timeline.loadOlder}
        >
          {timeline.loadingOlder ? 'Loading older activity…' : 'Show older activity'}
        </button>
      )}
      {!timeline.loaded && <p class="muted">Loading…</p>}
      <ErrorNote message={timeline.error} />
      <ol class="timeline" aria-label="Activity and comments, oldest first">
        {items.map((item) =>
          item.type === 'activity' ? (
            <ActivityItem key={item.key} entry={item.entry} reader={reader} now={now} />
          ) : (
            <CommentItem
              key={item.key}
              comment={item.comment}
              taskId={task.id}
              gone={!present.has(item.comment.id)}
              userId={userId}
              moderates={moderates}
              now={now}
              onSaved={timeline.putComment}
              onRemoved={timeline.dropComment}
              onPosted={timeline.putComment}
              onEditing={onEditing}
            />
          ),
        )}
      </ol>
      <Composer taskId={task.id} userId={userId} onPosted={timeline.putComment} />
    </section>
  );
}
