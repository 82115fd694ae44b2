/**
 * A component fetched as a chunk of its own the first time it is shown, so the first load stays
 * small (the JS budget). `lazy(() => import('./X').then((m) => m.X))` at module level, then
 * `useLazy(loader)` in the component that shows it: null while loading, 'failed' when the chunk
 * could not be fetched (the next use tries again).
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export type Loader<P> = () => Promise<ComponentType<P>>;

export function lazy<P>(load: () => Promise<ComponentType<P>>): Loader<P> {
  let loading: Promise<ComponentType<P>> | null = null;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    }));
}

export function useLazy<P>(loader: Loader<P>): ComponentType<P> | null | 'failed' {
  const [loaded, setLoaded] = useState<ComponentType<P> | null | 'failed'>(null);
  useEffect(() => {
    let live = true;
    loader().then(
      (component) => live && setLoaded(() => component),
      () => live && setLoaded('failed'),
    );
    return () => {
      live = false;
    };
  }, [loader]);
  return loaded;
}
