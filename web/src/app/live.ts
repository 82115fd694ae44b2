/** Hooks onto the workspace's one event stream. */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { ConnectionState, LiveEvent, LiveEvents } from '../lib/live-events';

export const LiveEventsContext = createContext<LiveEvents | null>(null);

function useLiveEvents(): LiveEvents {
  const events = useContext(LiveEventsContext);
  if (!events) throw new Error('useLiveEvent outside the workspace');
  return events;
}

/** Calls `handler` with every event; the latest handler is used without resubscribing. */
export function useLiveEvent(handler: (event: LiveEvent) => void): void {
  const events = useLiveEvents();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => events.onEvent((event) => latest.current(event)), [events]);
}

export function useConnectionState(): ConnectionState {
  const events = useLiveEvents();
  const [state, setState] = useState(events.state);
  useEffect(() => {
    setState(events.state);
    return events.onState(setState);
  }, [events]);
  return state;
}
