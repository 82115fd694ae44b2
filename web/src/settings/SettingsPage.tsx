/**
 * Settings: profile, password, the team's name (owners and admins), notifications, API keys,
 * agents' access (owners and admins), webhooks, the team's members, its workflow statuses and
 * its labels, and import and export. The last seven come in chunks of their own, fetched when Settings opens, so the first load
 * stays small (the JS budget).
 */
import { lazy, useLazy, type Loader } from '../lib/lazy';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';
import { NotificationsSection } from './NotificationsSection';
import { PasswordForm } from './PasswordForm';
import { ProfileForm } from './ProfileForm';
import { useReminders } from './reminders';
import { TeamSection } from './team/TeamSection';
import { useSession } from '../app/session-context';
import { useLiveEvent } from '../app/live';

const loadWebhooks: Loader<SectionProps> = lazy(() =>
  import('./webhooks/WebhooksSection').then((module) => module.WebhooksSection),
);
const loadMembers: Loader<SectionProps> = lazy(() =>
  import('./team/MembersSection').then((module) => module.MembersSection),
);
const loadStatuses: Loader<SectionProps> = lazy(() =>
  import('./team/StatusesSection').then((module) => module.StatusesSection),
);
const loadLabels: Loader<SectionProps> = lazy(() =>
  import('./team/LabelsSection').then((module) => module.LabelsSection),
);
const loadKeys: Loader<SectionProps> = lazy(() => import('./ApiKeys').then((module) => module.ApiKeys));
// The keys' chunk: one chunk is smaller than two that share a third.
const loadAgents: Loader<SectionProps> = lazy(() => import('./ApiKeys').then((module) => module.AgentAccess));
const loadExport: Loader<SectionProps> = lazy(() => import('./ExportSection').then((module) => module.ExportSection));

export function SettingsPage() {
  useDocumentTitle('Settings');
  const { role } = useSession().session;
  const manager = role === 'owner' || role === 'admin';
  const reminders = useReminders();
  return (
    <section class="page settings">
      <header class="page-header">
        <h1>Settings</h1>
      </header>
      <nav class="settings-nav" aria-label="Settings sections">
        <a href="#profile-heading">Profile</a>
        {manager && <a href="#team-heading">Team</a>}
        <a href="#notifications-heading">Notifications</a>
        <a href="#keys-heading">API keys</a>
        {manager && <a href="#agents-heading">Agents’ access</a>}
        <a href="#webhooks-heading">Webhooks</a>
        <a href="#members-heading">Members</a>
        <a href="#statuses-heading">Workflow statuses</a>
        <a href="#labels-heading">Labels</a>
        <a href="#export-heading">Import and export</a>
      </nav>
      <div class="settings-grid">
        <ProfileForm reminders={reminders} />
        <PasswordForm />
        <TeamSection />
      </div>
      <NotificationsSection reminders={reminders} />
      <LazySection loader={loadKeys} id="keys" title="API keys" />
      {manager && <LazySection loader={loadAgents} id="agents" title="Agents’ access" />}
      <LazySection loader={loadWebhooks} id="webhooks" title="Webhooks" />
      <LazySection loader={loadMembers} id="members" title="Members" />
      <LazySection loader={loadStatuses} id="statuses" title="Workflow statuses" />
      <LazySection loader={loadLabels} id="labels" title="Labels" />
      <LazySection loader={loadExport} id="export" title="Import and export" />
    </section>
  );
}

/**
 * What a lazy section is given: useLiveEvent, for the import's progress. A section's chunk that
 * imports app/live itself made the bundler split the first load's chunk in two (0.5 KiB more).
 */
interface SectionProps {
  live: typeof useLiveEvent;
}

/** A section whose chunk is on its way (or failed to come): its heading, and a line saying so. */
function LazySection({ loader, id, title }: { loader: Loader<SectionProps>; id: string; title: string }) {
  const Section = useLazy(loader);
  if (Section && Section !== 'failed') return <Section live={useLiveEvent} />;
  return (
    <section class="card" id={id} aria-labelledby={`${id}-heading`} aria-busy={!Section}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {Section === 'failed' ? (
        <ErrorNote message={`Could not load the ${title.toLowerCase()}. Check your connection and reload the page.`} />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </section>
  );
}
