/**
 * Loads data for a view: the latest answer wins (an older, slower request never overwrites a
 * newer one), a reload keeps showing the current data meanwhile, and `reloadSoon` folds a burst
 * of live events into one request. While an edit is on its way (`hold`), reloads wait: an
 * answer read before the server applied the edit would briefly undo it on screen.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api/client';

export interface Async<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
  reloadSoon: () => void;
  /** Changes the data in place (an optimistic edit), until the next load. */
  mutate: (update: (data: T) => T) => void;
  /** Defers reloads until the returned release is called (once the edit is saved). */
  hold: () => () => void;
}

interface State<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
}

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<State<T>>({ data: undefined, error: null, loading: true });
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const holds = useRef(0);
  const deferred = useRef(false);

  const reload = useCallback(() => {
    if (holds.current > 0) {
      deferred.current = true;
      return;
    }
    const mine = ++generation.current;
    setState((current) => ({ ...current, loading: true }));
    loadRef.current().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (error: unknown) =>
        mine === generation.current && setState((current) => ({ ...current, error: messageOf(error), loading: false })),
    );
  }, []);

  const reloadSoon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(reload, 60);
  }, [reload]);

  const mutate = useCallback((update: (data: T) => T) => {
    setState((current) => (current.data === undefined ? current : { ...current, data: update(current.data) }));
  }, []);

  const hold = useCallback(() => {
    holds.current++;
    generation.current++; // a load already on its way predates the edit: ignore its answer
    deferred.current = true; // and so load again once the edit is saved
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--holds.current === 0 && deferred.current) {
        deferred.current = false;
        reload();
      }
    };
  }, [reload]);

  useEffect(() => {
    // Something else is shown now (another list, other filters): drop the old data at once.
    setState({ data: undefined, error: null, loading: true });
    reload();
    return () => clearTimeout(timer.current);
  }, deps);

  return { ...state, reload, reloadSoon, mutate, hold };
}
