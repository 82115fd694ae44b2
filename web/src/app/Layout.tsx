/**
 * The page frame: top bar, sidebar (a drawer on narrow screens) and the current page. After a
 * move to another page, focus goes to the page itself so keyboard and screen-reader users start
 * there.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { routeOf, useLocation, type Route } from '../lib/router';
import { ListPage } from '../tasks/ListPage';
import { ViewPage } from '../views/ViewPage';
import { MyTasksPage } from '../tasks/MyTasksPage';
import { TaskDetailPage } from '../detail/TaskDetailPage';
import { SettingsPage } from '../settings/SettingsPage';
import { InboxPage } from '../inbox/InboxPage';
import { Sidebar } from '../sidebar/Sidebar';
import { Link } from '../ui/Link';
import { CommandPalette } from './CommandPalette';
import { isPaletteKey, onShortcutKey, ShortcutsHelp } from './shortcuts';
import { TopBar } from './TopBar';

export function Layout() {
  const { path } = useLocation();
  const route = routeOf(path);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  /** The palette's first text while it is open (what was typed in the top bar), else null. */
  const [palette, setPalette] = useState<string | null>(null);
  const main = useRef<HTMLElement>(null);
  const firstPage = useRef(true);

  useEffect(() => {
    setDrawerOpen(false);
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    main.current?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [path]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isPaletteKey(event)) {
        event.preventDefault();
        setPalette((open) => open ?? '');
      } else onShortcutKey(event, () => setHelpOpen(true));
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  useEffect(() => {
    if (!drawerOpen) return;
    // The drawer covers the page: the keyboard goes into it, and Escape closes it.
    document.querySelector<HTMLElement>('#sidebar a')?.focus();
    const onKeyDown = (event: KeyboardEvent) => event.key === 'Escape' && setDrawerOpen(false);
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [drawerOpen]);

  return (
    <div class={`shell${drawerOpen ? ' drawer-open' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar
        drawerOpen={drawerOpen}
        onToggleDrawer={() => setDrawerOpen(!drawerOpen)}
        onShowShortcuts={() => setHelpOpen(true)}
        onSearch={setPalette}
      />
      <Sidebar id="sidebar" route={route} />
      {drawerOpen && <div class="scrim" aria-hidden="true" onClick={() => setDrawerOpen(false)} />}
      <main id="main" ref={main} tabIndex={-1}>
        <Page route={route} />
      </main>
      {helpOpen && <ShortcutsHelp onClose={() => setHelpOpen(false)} />}
      {palette !== null && <CommandPalette initial={palette} onClose={() => setPalette(null)} />}
    </div>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'my-tasks':
      return <MyTasksPage />;
    case 'list':
      return <ListPage key={route.listId} listId={route.listId} />;
    case 'view':
      return <ViewPage key={route.viewId} viewId={route.viewId} />;
    case 'task':
      return <TaskDetailPage key={route.taskId} taskId={route.taskId} />;
    case 'settings':
      return <SettingsPage />;
    case 'inbox':
      return <InboxPage />;
    case 'missing':
      return (
        <section class="page">
          <h1>Page not found</h1>
          <p>
            <Link href="/">Go to my tasks</Link>
          </p>
        </section>
      );
  }
}
