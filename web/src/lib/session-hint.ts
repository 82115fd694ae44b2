/**
 * Whether this browser may hold a session, so a page opened signed out asks for none: the
 * session cookie is httpOnly (out of the app's reach), and GET /auth/session without one is a
 * 401 that the browser logs as an error. The hint is set whenever a session is in hand and
 * cleared when it ends. A browser that never held one here (no hint yet) asks for none; one
 * without storage asks as before.
 */
const KEY = 'tasklane.may-have-session';

export function mayHaveSession(): boolean {
  try {
    return localStorage.getItem(KEY) === 'yes';
  } catch {
    return true;
  }
}

export function rememberSession(present: boolean): void {
  try {
    localStorage.setItem(KEY, present ? 'yes' : 'no');
  } catch {
    // No storage: the next page load asks the server, as it would without the hint.
  }
}
