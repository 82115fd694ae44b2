/**
 * The page a mail's "stop all email" link opens, `/unsubscribe#<token>` (the token stays in the
 * fragment, which browsers never send to a server or in a Referer). It asks before it acts: a
 * mail scanner that opens links must not unsubscribe anyone. Mail clients use the one-click
 * POST of the List-Unsubscribe header instead, without this page.
 */
import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../api/client';
import { unsubscribeFromEmail } from '../api/notifications';
import { tokenFromLocation } from '../lib/fragment-token';
import { useDocumentTitle } from '../lib/use-document-title';
import { ErrorNote } from '../ui/ErrorNote';

export function UnsubscribePage() {
  useDocumentTitle('Stop email from tasklane');
  const [state, setState] = useState<'asking' | 'busy' | 'done'>('asking');
  const [error, setError] = useState<string | null>(null);
  const token = tokenFromLocation();

  const confirm = async () => {
    setError(null);
    setState('busy');
    try {
      await unsubscribeFromEmail(token);
      setState('done');
    } catch (failure) {
      // 400 and 404 carry the reason (a link mangled in the mail, or expired); others are worth a retry.
      setError(failure instanceof ApiError ? failure.message : messageOf(failure));
      setState('asking');
    }
  };

  return (
    <main class="auth-page" id="main">
      <section class="auth-card" aria-labelledby="unsubscribe-heading">
        <h1 id="unsubscribe-heading">Stop email from tasklane</h1>
        {state === 'done' ? (
          <p role="status">
            Done: tasklane will send you no more email. Your notifications still reach your inbox in the app, and
            Settings → Notifications can turn email back on.
          </p>
        ) : (
          <>
            <p>Every kind of notification that tasklane emails you will go to your inbox in the app only.</p>
            <ErrorNote message={token ? error : 'This link is incomplete: open it from the email again.'} />
            <div class="form-actions">
              <button
                type="button"
                class="button-primary"
                disabled={!token || state === 'busy'}
                onClick={() => void confirm()}
              >
                {state === 'busy' ? 'Stopping…' : 'Stop all email'}
              </button>
            </div>
          </>
        )}
        <p class="muted small">
          <a href="/">Open tasklane</a>
        </p>
      </section>
    </main>
  );
}
