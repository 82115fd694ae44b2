/** One team's workspace: its event stream, its shared data, and the page layout. */
import { useEffect, useMemo } from 'preact/hooks';
import { fetchSession } from '../api/session';
import { LiveEvents } from '../lib/live-events';
import { UnreadProvider } from '../inbox/inbox-state';
import { Layout } from './Layout';
import { LiveEventsContext } from './live';
import { TeamDataProvider } from './team-data';

export function Workspace() {
  const events = useMemo(
    () =>
      new LiveEvents(() =>
        fetchSession().then(
          () => true,
          () => false,
        ),
      ),
    [],
  );
  useEffect(() => {
    events.start();
    return () => events.stop();
  }, [events]);

  return (
    <LiveEventsContext.Provider value={events}>
      <TeamDataProvider>
        <UnreadProvider>
          <Layout />
        </UnreadProvider>
      </TeamDataProvider>
    </LiveEventsContext.Provider>
  );
}
