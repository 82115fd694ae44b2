/**
 * The first start's set-up (SessionInfo.setupRequired): the owner, signed in with the password
 * `tasklane serve` printed, names the team and gives their own name, email and a new password, in
 * one form (POST /auth/setup), then lands in the app. Until then nothing else is shown: the
 * printed password is meant to be used once.
 */
import { useState } from 'preact/hooks';
import type { SessionInfo } from '@contract';
import { messageOf } from '../api/client';
import { setUpTeam } from '../api/session';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';
import { NewPasswordFields, newPasswordProblem } from './NewPasswordFields';

interface Props {
  session: SessionInfo;
  onDone: (session: SessionInfo) => void;
  onSignOut: () => void;
}

/** The first start's placeholders, which the form offers empty rather than to be kept. */
const PLACEHOLDER_EMAIL = 'owner@tasklane.local';

export function SetupPage({ session, onDone, onSignOut }: Props) {
  useDocumentTitle('Set up your team');
  const [teamName, setTeamName] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState(session.user.email === PLACEHOLDER_EMAIL ? '' : session.user.email);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problem = newPasswordProblem(password, repeat);
    if (problem) return setError(problem);
    setError(null);
    setBusy(true);
    try {
      onDone(await setUpTeam({ teamName: teamName.trim(), name: name.trim(), email: email.trim(), password }));
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main class="auth-page" id="main">
      <form class="auth-card" aria-labelledby="setup-heading" onSubmit={submit}>
        <p class="brand brand-large" aria-hidden="true">
          <span class="brand-mark">✓</span> tasklane
        </p>
        <h1 id="setup-heading">Set up your team</h1>
        <p class="muted">
          Welcome! Name your team and tell us who you are. Your new password replaces the one the server printed.
        </p>
        <label class="field">
          <span>Team name</span>
          <input
            required
            maxLength={200}
            placeholder="My team"
            ref={focusOnMount}
            value={teamName}
            onInput={(e) => setTeamName(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Your name</span>
          <input
            required
            maxLength={200}
            autoComplete="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Your email</span>
          <input
            type="email"
            required
            maxLength={320}
            autoComplete="username"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <NewPasswordFields password={password} repeat={repeat} onPassword={setPassword} onRepeat={setRepeat} />
        <ErrorNote message={error} />
        <button
          type="submit"
          class="button-primary"
          disabled={busy || !teamName.trim() || !name.trim() || !email.trim() || !password || !repeat}
        >
          {busy ? 'Setting up…' : 'Set up and continue'}
        </button>
        <button type="button" class="button-quiet" onClick={onSignOut}>
          Sign out
        </button>
      </form>
    </main>
  );
}
