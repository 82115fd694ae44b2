/** Settings: profile, password, API keys, webhooks and the team's members. */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';
import { ApiKeys } from './ApiKeys';
import { PasswordForm } from './PasswordForm';
import { ProfileForm } from './ProfileForm';
import { TeamMembers } from './TeamMembers';

export function SettingsPage() {
  useDocumentTitle('Settings');
  return (
    <section class="page settings">
      <header class="page-header">
        <h1>Settings</h1>
      </header>
      <div class="settings-grid">
        <ProfileForm />
        <PasswordForm />
      </div>
      <ApiKeys />
      <LazyWebhooks />
      <TeamMembers />
    </section>
  );
}

/** Webhooks come in a chunk of their own, so the first load stays small (the JS budget). */
function LazyWebhooks() {
  const [Section, setSection] = useState<FunctionComponent | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    import('./webhooks/WebhooksSection').then(
      (module) => setSection(() => module.WebhooksSection),
      (failure: unknown) => setError(`Could not load the webhooks: ${messageOf(failure)}`),
    );
  }, []);
  if (Section) return <Section />;
  return (
    <section class="card" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {error ? <ErrorNote message={error} /> : <p class="muted">Loading…</p>}
    </section>
  );
}
