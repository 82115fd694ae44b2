/** Settings: profile, password, API keys and the team's members. */
import { useDocumentTitle } from '../lib/use-document-title';
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
      <TeamMembers />
    </section>
  );
}
