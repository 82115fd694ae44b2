/** Email and password sign-in; the server sets the httpOnly session cookie. */
import { useState } from 'preact/hooks';
import { messageOf } from '../api/client';
import { signIn } from '../api/session';
import type { SessionInfo } from '@contract';
import { ErrorNote } from '../ui/ErrorNote';
import { focusOnMount } from '../ui/focus';

interface Props {
  notice?: string;
  onSignedIn: (session: SessionInfo) => void;
}

export function SignIn({ notice, onSignedIn }: Props) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(email.trim(), password));
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main class="auth-page" id="main">
      <form class="auth-card" onSubmit={submit}>
        <p class="brand brand-large" aria-hidden="true">
          <span class="brand-mark">✓</span> tasklane
        </p>
        <h1>Sign in</h1>
        {notice && <p class="info-note">{notice}</p>}
        <label class="field">
          <span>Email</span>
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            ref={focusOnMount}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Password</span>
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorNote message={error} />
        <button type="submit" class="button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
