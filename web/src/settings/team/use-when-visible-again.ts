import { useEffect, useRef } from 'preact/hooks';

/** Calls `handler` whenever the page is shown again (another tab or window was in front). */
export function useWhenVisibleAgain(handler: () => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const onChange = () => document.visibilityState === 'visible' && latest.current();
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);
}
