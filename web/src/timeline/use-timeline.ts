/**
 * A task's activity and comments, kept current: the newest page is fetched again on every event
 * about the task (task.updated, comment.*), older pages on demand, and the comments of the
 * stretch held with each (timeline-model.ts says which).
 *
 * Loads run one after another (a queue), each from what the one before left, so a live refresh
 * and "show older" never undo each other; a burst of events is folded into one refresh.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { fetchActivity } from '../api/activity';
import { messageOf } from '../api/client';
import { fetchCommentsFrom } from '../api/comments';
import type { Comment } from '@contract';
import { useLiveEvent } from '../app/live';
import { commentsToFetch, joinNewest, joinOlder, type LoadedActivity } from './timeline-model';

export interface TimelineData {
  activity: LoadedActivity;
  /** The comments of the stretch of time the activity covers, oldest first. */
  comments: Comment[];
  /** Whether the first load has finished. */
  loaded: boolean;
  loadingOlder: boolean;
  error: string | null;
}

const EMPTY: TimelineData = {
  activity: { entries: [], hasOlder: false },
  comments: [],
  loaded: false,
  loadingOlder: false,
  error: null,
};

async function commentsFor(taskId: number, activity: LoadedActivity): Promise<Comment[]> {
  const wanted = commentsToFetch(activity);
  return wanted ? fetchCommentsFrom(taskId, wanted.from) : [];
}

const byId = (a: Comment, b: Comment) => a.id - b.id;

export function useTimeline(taskId: number) {
  const [data, setData] = useState<TimelineData>(EMPTY);
  const current = useRef(data);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const refreshQueued = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const mounted = useRef(true);
  // Counts this person's own comment changes shown ahead of the server: a load that started
  // before one of them may not show the comment yet, so its answer is dropped (another follows).
  const localChanges = useRef(0);

  const update = useCallback((change: (data: TimelineData) => TimelineData) => {
    if (!mounted.current) return;
    current.current = change(current.current);
    setData(current.current);
  }, []);

  const enqueue = useCallback((load: () => Promise<void>) => {
    queue.current = queue.current.then(load).catch((failure: unknown) => {
      update((data) => ({ ...data, loaded: true, loadingOlder: false, error: messageOf(failure) }));
    });
  }, []);

  const refresh = useCallback(() => {
    if (refreshQueued.current) return; // one already waits its turn: it will read everything new
    refreshQueued.current = true;
    enqueue(async () => {
      refreshQueued.current = false;
      const changesBefore = localChanges.current;
      const page = await fetchActivity(taskId);
      const activity = joinNewest(current.current.activity, page);
      const comments = await commentsFor(taskId, activity);
      if (localChanges.current !== changesBefore) return;
      update((data) => ({ ...data, activity, comments, loaded: true, error: null }));
    });
  }, [taskId]);

  const refreshSoon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(refresh, 60);
  }, [refresh]);

  const loadOlder = useCallback(() => {
    if (current.current.loadingOlder) return;
    update((data) => ({ ...data, loadingOlder: true }));
    enqueue(async () => {
      const changesBefore = localChanges.current;
      const held = current.current.activity;
      const oldest = held.entries[held.entries.length - 1];
      const page = oldest ? await fetchActivity(taskId, { before: oldest.id }) : { items: [], more: false };
      const activity = joinOlder(held, page);
      const comments = await commentsFor(taskId, activity);
      // Changed meanwhile by this person: the comments on screen are newer than these.
      const fresh = localChanges.current === changesBefore;
      update((data) => ({
        ...data,
        activity,
        comments: fresh ? comments : data.comments,
        loadingOlder: false,
        error: null,
      }));
    });
  }, [taskId]);

  /** Shows a comment this person just posted or edited at once; the refresh that follows confirms it. */
  const putComment = useCallback(
    (comment: Comment) => {
      localChanges.current++;
      update((data) => ({
        ...data,
        comments: [...data.comments.filter((c) => c.id !== comment.id), comment].sort(byId),
      }));
      refreshSoon();
    },
    [refreshSoon],
  );

  const dropComment = useCallback(
    (commentId: number) => {
      localChanges.current++;
      update((data) => ({ ...data, comments: data.comments.filter((c) => c.id !== commentId) }));
      refreshSoon();
    },
    [refreshSoon],
  );

  useEffect(() => {
    mounted.current = true;
    refresh();
    return () => {
      mounted.current = false;
      clearTimeout(timer.current);
    };
  }, [refresh]);

  useLiveEvent((event) => {
    // A file attached or removed is an entry of its own ("attached shot.png").
    const aboutThisTask =
      event.taskId === taskId &&
      (event.type === 'task.updated' || event.type.startsWith('comment.') || event.type.startsWith('attachment.'));
    // A renamed list is named by its new name in every entry; a new stream may have missed anything.
    if (aboutThisTask || event.type === 'taskList.updated' || event.type === 'sync.required') refreshSoon();
  });

  return { ...data, refresh: refreshSoon, loadOlder, putComment, dropComment };
}
