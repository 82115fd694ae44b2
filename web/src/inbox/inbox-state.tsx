/**
 * The workspace's unread notifications, shared by the bell, the inbox page and the task detail:
 * read when the workspace opens, again on every `notification.*` event of the stream (to
 * this person alone) and after a resync, and whenever a page marks some read.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import type { Notification } from '@contract';
import { fetchNotifications, updateNotification } from '../api/inbox';
import { useLiveEvent } from '../app/live';

export interface UnreadState {
  /** The unread notifications, newest first (up to a page), or null before the first answer. */
  unread: Notification[] | null;
  /** More unread remain beyond `unread`. */
  more: boolean;
  reload: () => void;
}

const UnreadContext = createContext<UnreadState>({ unread: null, more: false, reload: () => undefined });

export function UnreadProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<{ unread: Notification[] | null; more: boolean }>({ unread: null, more: false });
  const reload = useCallback(() => {
    fetchNotifications({ unread: true }).then(
      (page) => setState({ unread: page.items, more: page.nextCursor !== null }),
      () => undefined, // the bell keeps what it showed; the next event or resync tries again
    );
  }, []);
  useEffect(reload, [reload]);
  useLiveEvent((event) => {
    if (event.type.startsWith('notification.') || event.type === 'sync.required') reload();
  });
  return <UnreadContext.Provider value={{ ...state, reload }}>{children}</UnreadContext.Provider>;
}

export const useUnread = () => useContext(UnreadContext);

/**
 * While a task's page is open, its unread notifications are read: those there when it opens, and
 * any that arrive while it stays open. Each is marked once; the bell follows.
 */
export function useReadsTaskNotifications(taskId: number): void {
  const { unread, reload } = useUnread();
  const [marking] = useState(() => new Set<number>());
  useEffect(() => {
    const mine = (unread ?? []).filter((n) => n.task.id === taskId && !marking.has(n.id));
    if (mine.length === 0) return;
    for (const n of mine) marking.add(n.id);
    Promise.allSettled(mine.map((n) => updateNotification(n.id, { read: true }))).then(reload);
  }, [unread, taskId]);
}
