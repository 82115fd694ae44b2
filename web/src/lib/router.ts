/**
 * A tiny router over the History API: the app has four kinds of page, so a table of patterns
 * is all it needs. Filters live in the query string so a view can be shared as a link.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'my-tasks' }
  | { page: 'list'; listId: number }
  | { page: 'view'; viewId: number }
  | { page: 'task'; taskId: number }
  | { page: 'settings' }
  | { page: 'inbox' }
  | { page: 'missing' };

export function routeOf(path: string): Route {
  if (path === '/' || path === '') return { page: 'my-tasks' };
  if (path === '/settings') return { page: 'settings' };
  if (path === '/inbox') return { page: 'inbox' };
  const list = /^\/lists\/(\d{1,15})$/.exec(path);
  if (list) return { page: 'list', listId: Number(list[1]) };
  const view = /^\/views\/(\d{1,15})$/.exec(path);
  if (view) return { page: 'view', viewId: Number(view[1]) };
  const task = /^\/tasks\/(\d{1,15})$/.exec(path);
  if (task) return { page: 'task', taskId: Number(task[1]) };
  return { page: 'missing' };
}

export interface Location {
  path: string;
  search: string;
}

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

const currentLocation = (): Location => ({ path: window.location.pathname, search: window.location.search });

/** Goes to `to` (path and query). `replace` edits the current history entry (filters typed). */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLocation(currentLocation());
    listeners.add(update);
    update(); // in case it moved between render and effect
    return () => void listeners.delete(update);
  }, []);
  return location;
}
