/**
 * The inbox: what came to this person, newest first, live. Each notification links to its task
 * (opening the task marks its notifications read), and can be marked read or unread, or archived
 * (it leaves the inbox). "Unread only" narrows the list; "Mark all read" clears the bell.
 * A due-date reminder the server sent after its time (it was down then) is marked late.
 */
import { useState } from 'preact/hooks';
import type { Notification } from '@contract';
import { messageOf } from '../api/client';
import { fetchNotifications, markAllNotifications, updateNotification } from '../api/inbox';
import { useLiveEvent } from '../app/live';
import { formatTimestamp } from '../lib/dates';
import { useAsync } from '../lib/use-async';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';
import { Link } from '../ui/Link';
import { describeNotification } from './describe';
import { useUnread } from './inbox-state';

const LATE = 'sent after its time, as the server was down then';

export function InboxPage() {
  useDocumentTitle('Inbox');
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [older, setOlder] = useState<{ items: Notification[]; cursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const unread = useUnread();
  const page = useAsync(() => fetchNotifications({ unread: unreadOnly }), [unreadOnly]);
  useLiveEvent((event) => {
    if (event.type.startsWith('notification.') || event.type === 'sync.required') page.reloadSoon();
  });

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(messageOf(failure));
    }
    setOlder(null);
    page.reload();
    unread.reload();
  };

  const loadOlder = async () => {
    const cursor = older ? older.cursor : page.data?.nextCursor;
    if (!cursor) return;
    try {
      const next = await fetchNotifications({ unread: unreadOnly, cursor });
      setOlder({ items: [...(older?.items ?? []), ...next.items], cursor: next.nextCursor });
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  const items = [...(page.data?.items ?? []), ...(older?.items ?? [])];
  const moreCursor = older ? older.cursor : page.data?.nextCursor;
  const unreadCount = unread.unread?.length ?? 0;

  return (
    <section class="page inbox" aria-labelledby="inbox-heading" aria-busy={page.loading}>
      <header class="page-header">
        <h1 id="inbox-heading">Inbox</h1>
        <div class="inbox-actions">
          <label class="checkbox-field">
            <input
              type="checkbox"
              checked={unreadOnly}
              onChange={(e) => {
                setOlder(null);
                setUnreadOnly(e.currentTarget.checked);
              }}
            />
            <span>Unread only</span>
          </label>
          <button
            type="button"
            class="button-quiet"
            disabled={unreadCount === 0}
            onClick={() => void act(() => markAllNotifications(true))}
          >
            Mark all read
          </button>
        </div>
      </header>
      <ErrorNote message={page.error ?? error} />
      {!page.data && page.loading && <p class="muted">Loading…</p>}
      {page.data && items.length === 0 && (
        <div class="empty">
          <p>
            <strong>{unreadOnly ? 'Nothing unread.' : 'Nothing here yet.'}</strong> When someone assigns you a task,
            mentions you, or comments on or moves a task you follow, or a task of yours is due, it appears here.
          </p>
        </div>
      )}
      {items.length > 0 && (
        <ul class="inbox-list">
          {items.map((notification) => (
            <li key={notification.id} class={notification.readAt ? 'inbox-item' : 'inbox-item unread'}>
              <div class="inbox-text">
                {!notification.readAt && <span class="sr-only">Unread: </span>}
                <Link href={`/tasks/${notification.task.id}`}>{describeNotification(notification)}</Link>
                <span class="muted small"> · {formatTimestamp(notification.createdAt)}</span>
                {notification.late && (
                  <span class="late-mark" title={LATE}>
                    late<span class="sr-only">: {LATE}</span>
                  </span>
                )}
              </div>
              <div class="inbox-item-actions">
                <button
                  type="button"
                  class="button-quiet"
                  onClick={() => void act(() => updateNotification(notification.id, { read: !notification.readAt }))}
                >
                  {notification.readAt ? 'Mark unread' : 'Mark read'}
                  <span class="sr-only">: {describeNotification(notification)}</span>
                </button>
                <button
                  type="button"
                  class="button-quiet"
                  onClick={() => void act(() => updateNotification(notification.id, { archived: true }))}
                >
                  Archive<span class="sr-only">: {describeNotification(notification)}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {moreCursor && (
        <button type="button" class="button-quiet" onClick={() => void loadOlder()}>
          Show older
        </button>
      )}
    </section>
  );
}
